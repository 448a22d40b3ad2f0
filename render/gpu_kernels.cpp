#include "render/gpu_kernels.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>
#include <limits>
#include <vector>

#include "core/exit_codes.h"
#include "core/motion.h"
#include "core/particle_system.h"
#include "core/state_archive.h"
#include "render/gpu_glsl.h"
#include "render/gpu_params.h"

namespace fxsim {

namespace {
constexpr size_t kStatGroups = 256;

// Statistics over live particles only (age >= 0) or over every slot.
#define FXSIM_STATS_PARAMS(X) X(GpuBool, u_only_live)
FXSIM_GPU_PARAMS(StatsParams, FXSIM_STATS_PARAMS);
constexpr unsigned kStatsParamsBinding = 0;

const std::string& stats_source() {
  static const std::string source =
      glsl_prelude() + glsl_particle_block("P", 0) + StatsParams::glsl(kStatsParamsBinding) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 1) buffer Partials { double partial[]; };  // 14 per group
shared vec3 s_lo[256];
shared vec3 s_hi[256];
shared dvec3 s_sp[256];
shared dvec3 s_sv[256];
shared uint s_n[256];
void main() {
  uint lid = gl_LocalInvocationID.x;
  vec3 lo = vec3(3.0e38), hi = vec3(-3.0e38);
  dvec3 sp = dvec3(0), sv = dvec3(0);
  uint n = 0u;
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    if (u_only_live && P_get_age(i) < 0.0) continue;
    vec3 p = P_position(i);
    lo = min(lo, p); hi = max(hi, p);
    sp += dvec3(p); sv += dvec3(P_velocity(i));
    n += 1u;
  }
  s_lo[lid] = lo; s_hi[lid] = hi; s_sp[lid] = sp; s_sv[lid] = sv; s_n[lid] = n;
  barrier();
  for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
    if (lid < half_size) {
      s_lo[lid] = min(s_lo[lid], s_lo[lid + half_size]);
      s_hi[lid] = max(s_hi[lid], s_hi[lid + half_size]);
      s_sp[lid] += s_sp[lid + half_size];
      s_sv[lid] += s_sv[lid + half_size];
      s_n[lid] += s_n[lid + half_size];
    }
    barrier();
  }
  if (lid == 0u) {
    uint o = gl_WorkGroupID.x * 14u;
    partial[o + 0u] = double(s_lo[0].x); partial[o + 1u] = double(s_lo[0].y); partial[o + 2u] = double(s_lo[0].z);
    partial[o + 3u] = double(s_hi[0].x); partial[o + 4u] = double(s_hi[0].y); partial[o + 5u] = double(s_hi[0].z);
    partial[o + 6u] = s_sp[0].x; partial[o + 7u] = s_sp[0].y; partial[o + 8u] = s_sp[0].z;
    partial[o + 9u] = s_sv[0].x; partial[o + 10u] = s_sv[0].y; partial[o + 11u] = s_sv[0].z;
    partial[o + 12u] = double(s_n[0]); partial[o + 13u] = 0.0;
  }
}
)";
  return source;
}

// The sprite kernel's parameters (SpriteBuild, as the shader reads them).
#define FXSIM_SPRITE_PARAMS(X)                                                                     \
  X(float, u_exposure) X(glm::vec3, u_eye_velocity) X(GpuBool, u_spin) X(GpuBool, u_only_live)    \
  X(GpuBool, u_exp_depth) X(float, u_lifetime) X(float, u_fade_in) X(float, u_grown_size)          \
  X(glm::vec3, u_region_center) X(glm::vec3, u_forward) X(float, u_reach) X(float, u_depth_k)
FXSIM_GPU_PARAMS(SpriteParams, FXSIM_SPRITE_PARAMS);
constexpr unsigned kSpriteParamsBinding = 0;

const std::string& sprites_source() {
  static const std::string source = glsl_prelude() + glsl_particle_block("P", 0) + SpriteParams::glsl(kSpriteParamsBinding) + R"(
layout(local_size_x = 256) in;
struct Sprite { vec4 center_size; vec4 stretch_alpha; vec4 layer_spin_aspect_anchor; };
layout(std430, binding = 1) buffer Sprites { Sprite sprite[]; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    float age = P_get_age(i);
    if (u_only_live && age < 0.0) {
      sprite[i].center_size = vec4(0.0);
      sprite[i].stretch_alpha = vec4(0.0);
      sprite[i].layer_spin_aspect_anchor = vec4(0.0);
      continue;
    }
    vec3 p = P_position(i);
    float size = P_get_size(i), alpha = 1.0;
    if (u_lifetime > 0.0) {
      float life = min(age / u_lifetime, 1.0);
      alpha = (1.0 - life) * (1.0 - life);
      if (u_fade_in > 0.0) alpha *= min(age / u_fade_in, 1.0);
      if (u_grown_size > 0.0) size += (u_grown_size - size) * (1.0 - exp(-4.0 * life));
    }
    if (u_exp_depth) {
      float d = clamp(-dot(p - u_region_center, u_forward) / u_reach, -1.0, 1.0);
      size *= exp(u_depth_k * d);
    }
    vec3 stretch = u_exposure > 0.0 ? (P_velocity(i) - u_eye_velocity) * u_exposure : vec3(0.0);
    sprite[i].center_size = vec4(p, size);
    sprite[i].stretch_alpha = vec4(stretch, alpha);
    sprite[i].layer_spin_aspect_anchor = vec4(float(P_get_shape(i)), u_spin ? P_get_phase(i) : 0.0, 0.0, 0.0);
  }
}
)";
  return source;
}
// The motion layer's kernels: remembering slots, then each slot's previous
// centre (the rule of core/previous_positions.cpp).
#define FXSIM_REMEMBER_PARAMS(X) \
  X(GpuBool, u_only_live) X(uint32_t, u_remembered) X(GpuMat3, u_wrap_axes) X(glm::vec3, u_wrap_half)
FXSIM_GPU_PARAMS(RememberParams, FXSIM_REMEMBER_PARAMS);
constexpr unsigned kRememberParamsBinding = 0;

const std::string& remember_source() {
  static const std::string source = glsl_prelude() + glsl_particle_block("P", 0) +
                                    RememberParams::glsl(kRememberParamsBinding) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 1) buffer Remembered { uvec4 slot[]; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    bool there = i < u_remembered && (!u_only_live || P_get_age(i) >= 0.0);
    slot[i] = uvec4(floatBitsToUint(P_get_px(i)), floatBitsToUint(P_get_py(i)), floatBitsToUint(P_get_pz(i)),
                    there ? P_get_generation(i) + 1u : 0u);
  }
}
)";
  return source;
}

const std::string& previous_source() {
  static const std::string source = glsl_prelude() + glsl_particle_block("P", 0) +
                                    RememberParams::glsl(kRememberParamsBinding) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Remembered { uvec4 slot[]; };
layout(std430, binding = 2) writeonly buffer Previous { vec4 previous[]; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    uvec4 s = slot[i];
    vec3 then = uintBitsToFloat(s.xyz);
    vec3 local = abs(transpose(u_wrap_axes) * (P_position(i) - then));  // WrapBox::wrapped
    bool wrapped = local.x > u_wrap_half.x || local.y > u_wrap_half.y || local.z > u_wrap_half.z;
    bool same = s.w != 0u && s.w - 1u == P_get_generation(i) && P_get_age(i) >= 0.0 && !wrapped;
    previous[i] = same ? vec4(then, 1.0) : vec4(0.0);
  }
}
)";
  return source;
}
}  // namespace

size_t GpuStore::particle_words() { return particle_bytes() / 4; }

size_t GpuStore::max_page_capacity(size_t companions) {
  const size_t per_particle = particle_words() * 4 * std::max<size_t>(1, companions);
  const size_t by_block = compute_limits().max_storage_block_bytes / per_particle;
  const size_t by_index = (size_t(1) << 32) / (particle_words() * std::max<size_t>(1, companions)) - 1;
  size_t page = std::min({by_block, by_index, size_t(1) << 25});
  // Tests set smaller pages to run the paging on small scenes.
  if (const char* forced = std::getenv("FXSIM_GPU_PAGE_PARTICLES"))
    page = std::min(page, size_t(std::strtoull(forced, nullptr, 10)) / std::max<size_t>(1, companions));
  return std::max<size_t>(kGroupSize, page / kGroupSize * kGroupSize);
}

GpuStore::GpuStore(size_t n, size_t page) : capacity(n), page_capacity(std::max<size_t>(page, 1)) {
  const size_t count = std::max<size_t>(1, (capacity + page_capacity - 1) / page_capacity);
  for (size_t p = 0; p < count; ++p)
    pages.emplace_back((capacity == 0 ? 1 : page_size(p)) * particle_words() * 4, DeviceBuffer::Use::kernels,
                       "GPU particle storage");
  hash_copies = std::make_shared<DeviceBufferPool>(4 * count, DeviceBuffer::Use::host_reads,  // four frames' copies
                                                   "a copy of the particles for their state hash");
}

void GpuStore::bind(ComputeKernel& kernel, char name, unsigned binding, size_t page) const {
  kernel.bind(binding, pages[page]);
  const uint32_t size = uint32_t(capacity == 0 ? 1 : page_size(page)), base = uint32_t(page * page_capacity);
  LaunchParams& launch = kernel.launch();
  switch (name) {
    case 'P': launch.P_capacity = size, launch.P_base = base; break;
    case 'S': launch.S_capacity = size, launch.S_base = base; break;
    case 'M': launch.M_capacity = size, launch.M_base = base; break;
    default: throw FxError(ExitCode::internal, "particle blocks are named P, S or M");
  }
}

void GpuStore::read(ParticleStore& out) const {
  for (size_t p = 0; p < pages.size() && capacity > 0; ++p) {
    const size_t n = page_size(p), base = p * page_capacity;
    std::vector<uint32_t> words(n * particle_words());
    pages[p].download(words.data(), words.size() * 4);
    size_t field = 0;
#define FXSIM_READ_FIELD(type, name, what) \
  std::memcpy(out.name.data() + base, words.data() + field * n, n * 4), ++field;
    FXSIM_PARTICLE_FIELDS(FXSIM_READ_FIELD)
#undef FXSIM_READ_FIELD
  }
}

void GpuStore::write(const ParticleStore& in) {
  for (size_t p = 0; p < pages.size() && capacity > 0; ++p) {
    const size_t n = page_size(p), base = p * page_capacity;
    std::vector<uint32_t> words(n * particle_words());
    size_t field = 0;
#define FXSIM_WRITE_FIELD(type, name, what) \
  std::memcpy(words.data() + field * n, in.name.data() + base, n * 4), ++field;
    FXSIM_PARTICLE_FIELDS(FXSIM_WRITE_FIELD)
#undef FXSIM_WRITE_FIELD
    pages[p].assign(words.data(), words.size() * 4, DeviceBuffer::Use::kernels);
  }
}

void GpuStore::hash_into(StateSink& sink, size_t count) const {
  // The pages below cover slots [0, count) only up to the capacity: past it
  // the hasher's buffer would keep an earlier field's bytes.
  if (count > capacity)
    throw FxError(ExitCode::internal, fmt::format("a GPU store of {} slots was hashed over {}", capacity, count));
  // The pages' copies and their sizes, held by the fetches themselves: they
  // run frames later (a render's manifest) and need nothing of this store,
  // which they used to read through `this` (a capture outliving its
  // simulation would have read freed memory).
  // The copies go back to the pool (which the store shares) once fetched.
  struct Copies {
    std::shared_ptr<DeviceBufferPool> pool;
    std::vector<DeviceBuffer> pages;
    std::vector<size_t> sizes;
    ~Copies() {
      for (DeviceBuffer& page : pages) pool->give_back(std::move(page));
    }
  };
  auto copies = std::make_shared<Copies>();
  copies->pool = hash_copies;
  for (size_t p = 0; p < pages.size() && p * page_capacity < count; ++p) {
    const size_t bytes = page_size(p) * particle_words() * 4;
    copies->pages.push_back(hash_copies->take(bytes));
    copies->pages.back().copy_from(pages[p], bytes);
    copies->sizes.push_back(page_size(p));
  }
  const uint64_t n = count;
  sink.add(&n, sizeof n);
  // Field by field, each the concatenation of its pages' slots below `count`.
  for (size_t field = 0; field < particle_words(); ++field)
    sink.add_later(count * 4, [copies, field, count, page = page_capacity](uint8_t* bytes) {
      for (size_t p = 0; p < copies->pages.size(); ++p) {
        const size_t base = p * page, slots = std::min(copies->sizes[p], count - base);
        copies->pages[p].download(bytes + base * 4, slots * 4, field * copies->sizes[p] * 4);
      }
    });
}

void GpuStore::save(StateWriter& out) const {
  ParticleStore cpu(capacity);
  read(cpu);
  out.store(cpu);
}

void GpuStore::load(StateReader& in, const std::function<void(const ParticleStore&)>& check) {
  ParticleStore cpu(capacity);
  in.store(cpu);
  if (check) check(cpu);
  write(cpu);
}

void GpuStore::clear(float age) {
  size_t field = 0, age_field = 0;
#define FXSIM_FIND_AGE(type, name, what) \
  if (std::string(#name) == "age") age_field = field; \
  ++field;
  FXSIM_PARTICLE_FIELDS(FXSIM_FIND_AGE)
#undef FXSIM_FIND_AGE
  uint32_t bits;
  std::memcpy(&bits, &age, 4);
  for (size_t p = 0; p < pages.size() && capacity > 0; ++p) {
    const size_t n = page_size(p);
    pages[p].fill(0);
    pages[p].fill(bits, age_field * n * 4, n * 4);
  }
}

namespace {
// The aging step's parameters (PoolRules and the step, as the shader reads them).
#define FXSIM_AGING_PARAMS(X)                                                                        \
  X(glm::vec3, u_gravity) X(glm::vec3, u_fall) X(glm::vec3, u_wind) X(float, u_drag) X(float, u_dt)  \
  X(float, u_e) X(float, u_relax) X(float, u_lifetime) X(float, u_ground) X(GpuBool, u_turbulent)
FXSIM_GPU_PARAMS(AgingParams, FXSIM_AGING_PARAMS);
constexpr unsigned kAgingParamsBinding = 1;
}  // namespace

std::string glsl_aging_step() {
  return glsl_turbulence() + AgingParams::glsl(kAgingParamsBinding) + R"(
int aging_step(uint i) {
  float age = P_get_age(i);
  if (age < 0.0) return -1;
  DragStep motion = DragStep(u_gravity, u_drag, u_dt, u_e, u_relax, u_fall);
  vec3 p = P_position(i), v = P_velocity(i);
  vec3 air = u_wind;
  if (u_turbulent) { precise vec3 a = u_wind + turbulence_at_step(p); air = a; }
  drag_step(motion, p, v, air);
  P_set_position(i, p);
  P_set_velocity(i, v);
  precise float aged = age + u_dt;
  if (aged >= u_lifetime || p.y < u_ground) { P_set_age(i, -1.0); return 0; }
  P_set_age(i, aged);
  return 1;
}
)";
}

void set_aging_params(ComputeKernel& kernel, const StepContext& ctx, const WindField& wind, const PoolRules& rules,
                      GpuTurbulence& turbulence, ThreadPool& threads) {
  const glm::vec3 gravity = ctx.gravity * rules.gravity_scale;
  const DragStep motion(gravity, rules.drag, ctx.dt);
  AgingParams params;
  params.u_gravity = gravity;
  params.u_fall = motion.fall();
  params.u_wind = wind.uniform_part(ctx.t0);
  params.u_drag = rules.drag;
  params.u_dt = ctx.dt;
  params.u_e = motion.e();
  params.u_relax = motion.relax();
  params.u_lifetime = rules.lifetime;
  params.u_ground = rules.dies_on_landing && ctx.ground ? *ctx.ground : -1e30f;
  params.u_turbulent = gpu_bool(rules.drag > 0 && wind.has_turbulence());
  kernel.set_params(kAgingParamsBinding, params);
  turbulence.bind(kernel, wind, ctx.t0, ctx.t0, threads);  // no births here
}

GpuKernels::GpuKernels()
    : stats_(stats_source()), sprites_(sprites_source()), remember_(remember_source()), previous_(previous_source()),
      partials_(kStatGroups * 14 * 8, DeviceBuffer::Use::host_reads, "GPU statistics") {}

EmitterStats GpuKernels::stats(const GpuStore& store, size_t count, bool only_live) {
  EmitterStats out;
  if (count == 0) return out;
  glm::dvec3 lo(std::numeric_limits<double>::infinity()), hi(-std::numeric_limits<double>::infinity()), sp(0), sv(0);
  double n = 0;
  StatsParams params;
  params.u_only_live = gpu_bool(only_live);
  stats_.set_params(kStatsParamsBinding, params);
  stats_.bind(1, partials_);
  for (size_t page = 0; page < store.page_count() && page * store.page_capacity < count; ++page) {
    store.bind(stats_, 'P', 0, page);
    stats_.dispatch(std::min(store.page_size(page), count - page * store.page_capacity), kStatGroups);
    std::vector<double> p(kStatGroups * 14);
    partials_.download(p.data(), p.size() * 8);
    for (size_t g = 0; g < kStatGroups; ++g) {
      const double* q = &p[g * 14];
      if (q[12] == 0) continue;
      lo = glm::min(lo, glm::dvec3(q[0], q[1], q[2]));
      hi = glm::max(hi, glm::dvec3(q[3], q[4], q[5]));
      sp += glm::dvec3(q[6], q[7], q[8]);
      sv += glm::dvec3(q[9], q[10], q[11]);
      n += q[12];
    }
  }
  out.live = uint64_t(n);
  if (n == 0) return out;
  out.min = lo;
  out.max = hi;
  out.mean_position = sp / n;
  out.mean_velocity = sv / n;
  return out;
}

void GpuKernels::remember(const GpuStore& store, size_t count, bool only_live, GpuPrevious& into) {
  into.pages.resize(store.page_count());
  for (size_t page = 0; page < store.page_count(); ++page) {
    const size_t size = store.capacity == 0 ? 1 : store.page_size(page), base = page * store.page_capacity;
    into.pages[page].reserve(size * 16, DeviceBuffer::Use::kernels, "GPU previous positions");
    RememberParams params;
    params.u_only_live = gpu_bool(only_live);
    params.u_remembered = uint32_t(count > base ? std::min(count - base, size) : 0);
    remember_.set_params(kRememberParamsBinding, params);
    store.bind(remember_, 'P', 0, page);
    remember_.bind(1, into.pages[page]);
    remember_.dispatch(size);
  }
  into.remembered = true;
}

void GpuKernels::add_sprite_batches(const GpuStore& store, size_t count, const SpriteBuild& how,
                                    SpriteBuffers& buffers, const SpriteBatch& like, std::vector<SpriteBatch>& out,
                                    const PreviousFrame& previous) {
  buffers.pages.resize(store.page_count());
  for (size_t page = 0; page < store.page_count() && page * store.page_capacity < count; ++page) {
    const size_t n = std::min(store.page_size(page), count - page * store.page_capacity);
    build_sprites(store, page, n, how, buffers.pages[page], previous);
    SpriteBatch batch = like;
    batch.device_instances = &buffers.pages[page];
    batch.device_count = n;
    out.push_back(std::move(batch));
  }
}

void GpuKernels::build_sprites(const GpuStore& store, size_t page, size_t count, const SpriteBuild& how,
                               DeviceInstances& instances, const PreviousFrame& previous) {
  instances.buffer.reserve_growing(std::max<size_t>(count, 1) * sizeof(SpriteInstance), DeviceBuffer::Use::kernels,
                                  "GPU sprite buffers");
  store.bind(sprites_, 'P', 0, page);
  sprites_.bind(1, instances.buffer);
  SpriteParams params;
  params.u_exposure = how.exposure;
  params.u_eye_velocity = how.eye_velocity;
  params.u_spin = gpu_bool(how.spin_with_phase);
  params.u_only_live = gpu_bool(how.only_live);
  params.u_exp_depth = gpu_bool(how.exp_depth);
  params.u_lifetime = how.lifetime;
  params.u_fade_in = how.fade_in;
  params.u_grown_size = how.grown_size;
  params.u_region_center = how.region_center;
  params.u_forward = how.forward;
  params.u_reach = how.reach;
  params.u_depth_k = how.depth_k;
  sprites_.set_params(kSpriteParamsBinding, params);
  sprites_.dispatch(count);

  instances.has_previous = previous.positions && previous.positions->remembered;
  if (!instances.has_previous) return;
  instances.previous.reserve_growing(std::max<size_t>(count, 1) * 16, DeviceBuffer::Use::kernels,
                                    "GPU previous positions");
  RememberParams remembered;
  remembered.u_wrap_axes = GpuMat3(previous.box.axes);
  remembered.u_wrap_half = glm::min(previous.box.half, glm::vec3(3.0e38f));  // GLSL has no infinity literal
  previous_.set_params(kRememberParamsBinding, remembered);
  store.bind(previous_, 'P', 0, page);
  previous_.bind(1, previous.positions->pages[page]);
  previous_.bind(2, instances.previous);
  previous_.dispatch(count);
}

}  // namespace fxsim
