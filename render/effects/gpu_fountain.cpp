#include "render/effects/gpu_fountain.h"

#include "core/state_archive.h"
#include "core/effects/fountain/fountain_draws.h"
#include "render/gpu_params.h"

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <glm/trigonometric.hpp>

#include "core/motion.h"
#include "render/gpu_glsl.h"

namespace fxsim {

namespace {
// The per-nozzle constants, computed on the CPU with the same functions as
// core/fountain.cpp so that both backends use the same bits.
struct GpuNozzle {
  float position[4];
  float direction[4];
  float a[4], c[4];             // perpendiculars(direction)
  float speed, speed_variation, cos_max, radius;
  double rate;
  float mist_chance, pad;       // probability × (speed/8)² × dt
};
static_assert(sizeof(GpuNozzle) == 96);

struct GpuBurst {
  uint32_t nozzle, count;
  uint32_t first_of_nozzle_lo, first_of_nozzle_hi;
  uint32_t first_spawn_lo, first_spawn_hi;
  uint32_t first_slot, first_generation;  // of the burst's first drop in the ring
  uint32_t offset, pad0, pad1, pad2;      // where the burst begins among this step's drops
};

const std::string kNozzleBlock = R"(
struct Nozzle { vec4 position; vec4 direction; vec4 a; vec4 c; float speed, speed_variation, cos_max, radius;
                double rate; float mist_chance, pad; };
layout(std430, binding = 3) readonly buffer Nozzles { Nozzle nozzle[]; };
)";

// The step kernel's parameters (its drops' ageing and motion are the aging block).
#define FXSIM_FOUNTAIN_STEP_PARAMS(X) \
  X(glm::uvec2, u_seed) X(uint32_t, u_emitter) X(uint32_t, u_step) X(uint32_t, u_total_capacity) X(GpuBool, u_mist)
FXSIM_GPU_PARAMS(FountainStepParams, FXSIM_FOUNTAIN_STEP_PARAMS);
// The emission kernel's parameters; u_start_time: when the fountain started.
#define FXSIM_FOUNTAIN_EMIT_PARAMS(X)                                                                   \
  X(uint32_t, u_skipped) X(uint32_t, u_bursts) X(uint32_t, u_capacity) X(glm::uvec2, u_seed)             \
  X(uint32_t, u_emitter) X(glm::vec3, u_gravity) X(glm::vec3, u_wind) X(float, u_drag) X(float, u_dt)    \
  X(float, u_size) X(float, u_size_variation) X(double, u_start_time) X(double, u_t1)
FXSIM_GPU_PARAMS(FountainEmitParams, FXSIM_FOUNTAIN_EMIT_PARAMS);
constexpr unsigned kFountainParamsBinding = 0;  // the aging block takes binding 1

// FountainSystem::step's loop over drops, with the mist conversion.
const std::string& step_source() {
  static const std::string source = glsl_prelude() + fountain_draws_glsl() + glsl_particle_block("P", 0) +
                                    glsl_particle_block("M", 1) + kNozzleBlock + glsl_aging_step() +
                                    FountainStepParams::glsl(kFountainParamsBinding) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 2) buffer Counters { uint deaths; uint misted; uint mist_replaced; uint emit_replaced; };
const float kTwoPi = 6.283185307179586;
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    int state = aging_step(i);
    if (state == 0) atomicAdd(deaths, 1u);
    if (state != 1) continue;
    vec3 p = P_position(i), v = P_velocity(i);
    float chance = u_mist ? nozzle[P_get_source(i)].mist_chance : 0.0;
    if (chance > 0.0) {
      uint hi, lo;
      umulExtended(P_get_generation(i), u_total_capacity, hi, lo);
      uint key_lo = lo + (P_base + i);
      uint key_hi = hi + (key_lo < lo ? 1u : 0u);
      if (to_unit(draw_bits(u_seed, u_emitter, kStreamTransition, key_lo, key_hi, u_step)) < chance) {
        P_set_age(i, -1.0);
        atomicAdd(deaths, 1u);
        atomicAdd(misted, 1u);
        if (M_get_age(i) >= 0.0) atomicAdd(mist_replaced, 1u);
        M_set_age(i, 0.0); M_set_shape(i, 0u);
        M_set_generation(i, P_get_generation(i));
        M_set_position(i, p);
        M_set_velocity(i, v);
        M_set_size(i, P_get_size(i));
        M_set_phase(i, to_unit(draw_bits(u_seed, u_emitter, kStreamSecondary, key_lo, key_hi, kMistSpin)) * kTwoPi);
      }
    }
  }
}
)";
  return source;
}

// FountainSystem::emit's loop over new drops.
const std::string& emit_source() {
  static const std::string source = glsl_prelude() + fountain_draws_glsl() + glsl_particle_block("P", 0) + kNozzleBlock +
                                    FountainEmitParams::glsl(kFountainParamsBinding) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 2) buffer Counters { uint deaths; uint misted; uint mist_replaced; uint emit_replaced; };
struct Burst { uint nozzle, count, first_j_lo, first_j_hi, first_spawn_lo, first_spawn_hi, first_slot, first_generation,
               offset, pad0, pad1, pad2; };
layout(std430, binding = 4) readonly buffer Bursts { Burst burst[]; };
const float kTwoPi = 6.283185307179586;
float expm1_(float x) { return abs(x) < 1e-3 ? x + 0.5 * x * x + x * x * x / 6.0 : exp(x) - 1.0; }
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint n = gl_GlobalInvocationID.x; n < u_count; n += stride) {
    uint offset = u_skipped + n;
    uint b = 0u;
    while (b + 1u < u_bursts && burst[b + 1u].offset <= offset) ++b;
    Burst bu = burst[b];
    uint k = offset - bu.offset;
    // A burst may hold several times the slots (only its newest drops are
    // made, but k counts from its first): the ring turns k / capacity times.
    uint slot = bu.first_slot + k % u_capacity, generation = bu.first_generation + k / u_capacity;
    if (slot >= u_capacity) { slot -= u_capacity; generation += 1u; }
    if (slot < P_base || slot - P_base >= P_capacity) continue;  // another page's drop
    uint i = slot - P_base;
    Nozzle nz = nozzle[bu.nozzle];
    uint s_lo = bu.first_spawn_lo + k, s_hi = bu.first_spawn_hi + (bu.first_spawn_lo + k < k ? 1u : 0u);
    if (P_get_age(i) >= 0.0) atomicAdd(emit_replaced, 1u);
    P_set_generation(i, generation);
    float cos_t; { precise float x = 1.0 - to_unit(draw_bits(u_seed, u_emitter, kStreamBirth, s_lo, s_hi, kDropConeCos)) * (1.0 - nz.cos_max); cos_t = x; }
    float sin_t = sqrt(max(0.0, 1.0 - cos_t * cos_t));
    float around = to_unit(draw_bits(u_seed, u_emitter, kStreamBirth, s_lo, s_hi, kDropConeAngle)) * kTwoPi;
    precise vec3 dir = nz.direction.xyz * cos_t + (nz.a.xyz * cos(around) + nz.c.xyz * sin(around)) * sin_t;
    float radius = nz.radius * sqrt(to_unit(draw_bits(u_seed, u_emitter, kStreamBirth, s_lo, s_hi, kDropDiscRadius)));
    float angle = to_unit(draw_bits(u_seed, u_emitter, kStreamBirth, s_lo, s_hi, kDropDiscAngle)) * kTwoPi;
    precise vec3 p0 = nz.position.xyz + (nz.a.xyz * cos(angle) + nz.c.xyz * sin(angle)) * radius;
    double j1 = double(bu.first_j_hi) * 4294967296.0 + double(bu.first_j_lo) + double(k) + 1.0;
    double born = u_start_time + j1 / nz.rate;
    float remaining = float(clamp(u_t1 - born, 0.0lf, double(u_dt)));
    precise float speed = nz.speed * (1.0 + nz.speed_variation * to_signed(draw_bits(u_seed, u_emitter, kStreamBirth, s_lo, s_hi, kDropSpeed)));
    vec3 p = p0, v = dir * speed;
    DragStep first;
    first.gravity = u_gravity; first.drag = u_drag; first.dt = remaining;
    if (u_drag > 0.0) {
      float one_minus_e = -expm1_(-u_drag * remaining);
      first.e = 1.0 - one_minus_e; first.relax = one_minus_e / u_drag; first.fall = u_gravity / u_drag;
    }
    drag_step(first, p, v, u_wind);
    P_set_position(i, p);
    P_set_velocity(i, v);
    P_set_age(i, remaining);
    precise float size = u_size * (1.0 + u_size_variation * to_signed(draw_bits(u_seed, u_emitter, kStreamBirth, s_lo, s_hi, kDropSize)));
    P_set_size(i, size);
    P_set_source(i, bu.nozzle);
    P_set_shape(i, 0u);
    P_set_phase(i, 0.0);
  }
}
)";
  return source;
}
}  // namespace

GpuFountain::GpuFountain(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                         const OutputSettings& output, GpuKernels& kernels, ThreadPool& threads)
    : settings_(settings), fountain_(settings.as<FountainParams>()), emitter_index_(uint32_t(emitter_index)), wind_(wind),
      threads_(threads),
      steps_per_second_(output.fps * output.substeps), exposure_(float(fountain_.shutter / output.fps)),
      drop_rules_(FountainSystem::drop_rules(settings.as<FountainParams>())),
      kernels_(kernels),
      drops_(size_t(settings.max_particles), GpuStore::max_page_capacity()),
      step_kernel_(step_source()), emit_kernel_(emit_source()), counters_(4) {
  drops_.clear(-1.0f);
  if (fountain_.mist) {
    const Mist& m = *fountain_.mist;
    PoolRules rules;  // as FountainSystem's
    rules.lifetime = m.lifetime;
    rules.drag = m.drag;
    rules.gravity_scale = FountainSystem::kMistGravityScale;
    rules.grown_size = m.size;
    rules.fade_in = std::min(0.3f, m.lifetime * 0.2f);
    mist_.emplace(rules, drops_.capacity, drops_.page_capacity);
  }
  const float dt = float(1.0 / steps_per_second_);
  std::vector<GpuNozzle> table;
  for (const Nozzle& n : fountain_.nozzles) {
    GpuNozzle g{};
    glm::vec3 a, c;
    perpendiculars(n.direction, a, c);
    for (int k = 0; k < 3; ++k) g.position[k] = n.position[k], g.direction[k] = n.direction[k], g.a[k] = a[k], g.c[k] = c[k];
    g.speed = n.speed;
    g.speed_variation = n.speed_variation;
    g.cos_max = std::cos(glm::radians(n.spread));
    g.radius = n.radius;
    g.rate = n.rate;
    g.mist_chance = FountainSystem::mist_chance(fountain_, n, dt);
    table.push_back(g);
  }
  nozzles_.assign(table, DeviceBuffer::Use::host_writes);
}

void GpuFountain::begin(double, const CameraPose&) {
  first_step_ = -1;
  emitted_ = 0;
  previous_.forget();
  mist_previous_.forget();
}

void GpuFountain::save(StateWriter& out) {
  collect_counts();
  if (mist_) mist_died_ += mist_->take_deaths();
  out.tag("GFOU");
  drops_.save(out);
  out.value(first_step_);
  out.value(emitted_);
  out.value(spawned_);
  out.value(died_);
  out.value(mist_spawned_);
  out.value(mist_died_);
  out.value(uint8_t(mist_.has_value()));
  if (mist_) mist_->store().save(out);
}

void GpuFountain::load(StateReader& in) {
  counters_.take();
  if (mist_) mist_->take_deaths();
  in.tag("GFOU");
  drops_.load(in, [&](const ParticleStore& drops) { FountainSystem::check_sources(drops, fountain_.nozzles.size(), in); });
  first_step_ = in.step_or_none("a first step");
  in.value(emitted_);
  spawned_ = in.event_count();
  died_ = in.event_count();
  mist_spawned_ = in.event_count();
  mist_died_ = in.event_count();
  in.presence(mist_.has_value(), "mist");
  if (mist_) mist_->store().load(in);
  previous_.forget();
  mist_previous_.forget();
}

void GpuFountain::remember_positions() {
  kernels_.remember(drops_, drops_.capacity, true, previous_);
  if (mist_) kernels_.remember(mist_->store(), mist_->store().capacity, true, mist_previous_);
}

void GpuFountain::end() {
  // Every live drop and mist particle dies; count them with a reduction.
  died_ += int64_t(kernels_.stats(drops_, drops_.capacity, true).live);
  drops_.clear(-1.0f);
  if (mist_) {
    mist_died_ += int64_t(kernels_.stats(mist_->store(), mist_->store().capacity, true).live);
    mist_->clear();
  }
}

void GpuFountain::step(const StepContext& ctx) {
  if (first_step_ < 0) first_step_ = ctx.step;
  if (mist_) mist_->step(ctx, wind_, kernels_.turbulence(), threads_);
  const glm::vec3 gravity = ctx.gravity * fountain_.gravity_scale;
  const glm::vec3 air = wind_.uniform_part(ctx.t0);
  {
    ComputeKernel& k = step_kernel_;
    k.bind(2, counters_.buffer());
    k.bind(3, nozzles_);
    FountainStepParams params;
    params.u_seed = {uint32_t(settings_.seed), uint32_t(settings_.seed >> 32)};
    params.u_emitter = emitter_index_;
    params.u_step = uint32_t(ctx.step);
    params.u_total_capacity = uint32_t(drops_.capacity);
    params.u_mist = gpu_bool(mist_.has_value());
    k.set_params(kFountainParamsBinding, params);
    set_aging_params(k, ctx, wind_, drop_rules_, kernels_.turbulence(), threads_);
    for (size_t page = 0; page < drops_.page_count() && drops_.capacity > 0; ++page) {
      drops_.bind(k, 'P', 0, page);
      if (mist_) mist_->store().bind(k, 'M', 1, page);
      else drops_.bind(k, 'M', 1, page);
      k.dispatch(drops_.page_size(page));
    }
  }
  // The emission plan, as FountainSystem::emit makes it.
  const std::vector<Burst> plan = plan_emission(fountain_.nozzles, ctx.step - first_step_, steps_per_second_, emitted_);
  uint64_t total = 0;
  for (const Burst& b : plan) total += b.count;
  const uint64_t capacity = drops_.capacity;
  spawned_ += int64_t(total);
  if (total == 0 || capacity == 0) {
    died_ += int64_t(total);
    emitted_ += total;
    return;
  }
  const uint64_t skipped = total > capacity ? total - capacity : 0;
  died_ += int64_t(skipped);
  std::vector<GpuBurst> table;
  uint64_t offset = 0;
  for (const Burst& b : plan) {
    GpuBurst g{};
    g.nozzle = b.nozzle;
    g.count = uint32_t(b.count);
    g.first_of_nozzle_lo = uint32_t(b.first_of_nozzle);
    g.first_of_nozzle_hi = uint32_t(b.first_of_nozzle >> 32);
    g.first_spawn_lo = uint32_t(b.first_spawn);
    g.first_spawn_hi = uint32_t(b.first_spawn >> 32);
    g.first_slot = uint32_t(b.first_spawn % capacity);
    g.first_generation = uint32_t(b.first_spawn / capacity);
    g.offset = uint32_t(offset);
    offset += b.count;
    table.push_back(g);
  }
  bursts_.assign(table, DeviceBuffer::Use::host_writes);
  ComputeKernel& k = emit_kernel_;
  k.bind(2, counters_.buffer());
  k.bind(3, nozzles_);
  k.bind(4, bursts_);
  FountainEmitParams params;
  params.u_skipped = uint32_t(skipped);
  params.u_bursts = uint32_t(table.size());
  params.u_capacity = uint32_t(capacity);
  params.u_seed = {uint32_t(settings_.seed), uint32_t(settings_.seed >> 32)};
  params.u_emitter = emitter_index_;
  params.u_gravity = gravity;
  params.u_wind = air;
  params.u_drag = fountain_.drag;
  params.u_dt = ctx.dt;
  params.u_size = settings_.size;
  params.u_size_variation = settings_.size_variation;
  params.u_start_time = double(first_step_) / steps_per_second_;
  params.u_t1 = ctx.t1;
  k.set_params(kFountainParamsBinding, params);
  for (size_t page = 0; page < drops_.page_count(); ++page) {
    drops_.bind(k, 'P', 0, page);
    k.dispatch(total - skipped);
  }
  emitted_ += total;
}

void GpuFountain::collect_counts() {
  const std::vector<uint32_t> counts = counters_.take();
  died_ += counts[0] + counts[3];
  mist_spawned_ += counts[1];
  mist_died_ += counts[2];
}

void GpuFountain::reset_counters() {
  collect_counts();
  if (mist_) mist_->take_deaths();
  spawned_ = died_ = mist_spawned_ = mist_died_ = 0;
}

void GpuFountain::take_stats(FrameStats& out, bool active) {
  collect_counts();
  EmitterStats s = kernels_.stats(drops_, drops_.capacity, true);
  label(s, settings_.name, settings_.type_name(), active);
  s.spawned = spawned_;
  s.died = died_;
  out.emitters.push_back(std::move(s));
  if (mist_) {
    EmitterStats m = kernels_.stats(mist_->store(), mist_->store().capacity, true);
    label(m, settings_.name + ".mist", "mist", active);
    mist_died_ += mist_->take_deaths();
    m.spawned = mist_spawned_;
    m.died = mist_died_;
    out.emitters.push_back(std::move(m));
  }
  reset_counters();
}

void GpuFountain::hash_state(StateSink& hasher) const {
  drops_.hash_into(hasher, drops_.capacity);
  if (mist_) mist_->store().hash_into(hasher, mist_->store().capacity);
}

void GpuFountain::add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out) {
  glm::vec3 center(0);
  for (const Nozzle& n : fountain_.nozzles) center += n.position;
  center /= float(std::max<size_t>(1, fountain_.nozzles.size()));
  const float distance = glm::length(center - camera.position);
  if (mist_) {
    SpriteBuild how;
    how.only_live = true;
    how.spin_with_phase = true;
    how.lifetime = mist_->rules().lifetime;
    how.fade_in = mist_->rules().fade_in;
    how.grown_size = mist_->rules().grown_size;
    SpriteBatch mist;
    mist.emitter = emitter_index_;
    mist.look = SpriteLook::secondary;
    mist.opacity = fountain_.mist->opacity;
    mist.distance = distance;
    kernels_.add_sprite_batches(mist_->store(), mist_->store().capacity, how, mist_sprites_, mist, out,
                                {&mist_previous_});
  }
  SpriteBuild how;
  how.only_live = true;
  how.exposure = exposure_;
  how.eye_velocity = camera.velocity;
  SpriteBatch drops;
  drops.emitter = emitter_index_;
  drops.distance = distance;
  kernels_.add_sprite_batches(drops_, drops_.capacity, how, sprites_, drops, out, {&previous_});
}

}  // namespace fxsim
