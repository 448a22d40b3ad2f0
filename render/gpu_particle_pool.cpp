#include "render/gpu_particle_pool.h"

#include <cstring>

#include "core/state_archive.h"
#include "render/gpu_glsl.h"

namespace fxsim {

namespace {
// Writes staged particles (field-major, one row of `u_count` words per field)
// into their slots; counts the live particles they replace.
const std::string& pool_scatter_source() {
  static const std::string source = glsl_prelude() + glsl_particle_block("P", 0) +
                                    "const uint kWords = " + std::to_string(GpuStore::particle_words()) + "u;\n" + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Staged { uint staged[]; };  // slot list, then the fields
layout(std430, binding = 2) buffer Counters { uint replaced; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint n = gl_GlobalInvocationID.x; n < u_count; n += stride) {
    uint slot = staged[n] - P_base;
    if (staged[n] < P_base || slot >= P_capacity) continue;  // another page's
    if (P_get_age(slot) >= 0.0) atomicAdd(replaced, 1u);
    for (uint f = 0u; f < kWords; ++f) P_words[f * P_capacity + slot] = staged[u_count + f * u_count + n];
  }
}
)";
  return source;
}
}  // namespace

PoolMaker gpu_pool_maker(GpuKernels& kernels, ThreadPool& threads) {
  return [&kernels, &threads](const PoolRules& rules, size_t capacity) -> std::unique_ptr<ParticlePool> {
    // Sparks are drawn as one batch: a pool larger than one storage page stays on the CPU.
    if (capacity > GpuStore::max_page_capacity()) return cpu_pool_maker(threads)(rules, capacity);
    return std::make_unique<GpuParticlePool>(rules, capacity, kernels, threads);
  };
}

GpuParticlePool::GpuParticlePool(const PoolRules& rules, size_t capacity, GpuKernels& kernels, ThreadPool& threads)
    : ParticlePool(rules, capacity, threads), kernels_(kernels), gpu_(rules, capacity, GpuStore::max_page_capacity()),
      scatter_(pool_scatter_source()), replaced_(1), readback_(capacity) {}

size_t GpuParticlePool::add() {
  // The ring slot as the CPU pool chooses it; whether it replaces a live
  // particle is known only on the GPU (counted when the birth is uploaded).
  const size_t capacity = store_.capacity();
  const uint64_t index = added_++;
  const size_t slot = size_t(index % capacity);
  store_.generation[slot] = uint32_t(index / capacity);
  store_.age[slot] = 0;
  store_.phase[slot] = 0;
  store_.shape[slot] = 0;
  ++spawned_;
  pending_.push_back(uint32_t(slot));
  return slot;
}

void GpuParticlePool::flush() {
  if (pending_.empty()) return;
  const size_t n = pending_.size(), words = GpuStore::particle_words();
  std::vector<uint32_t> staged(n * (1 + words));
  std::memcpy(staged.data(), pending_.data(), n * 4);
  size_t field = 0;
#define FXSIM_STAGE_FIELD(type, name, what)                                                         \
  for (size_t k = 0; k < n; ++k) std::memcpy(&staged[n + field * n + k], &store_.name[pending_[k]], 4); \
  ++field;
  FXSIM_PARTICLE_FIELDS(FXSIM_STAGE_FIELD)
#undef FXSIM_STAGE_FIELD
  staging_.assign(staged, DeviceBuffer::Use::host_writes);
  scatter_.bind(1, staging_);
  scatter_.bind(2, replaced_.buffer());
  for (size_t page = 0; page < gpu_.store().page_count(); ++page) {
    gpu_.store().bind(scatter_, 'P', 0, page);
    scatter_.dispatch(n);
  }
  pending_.clear();
}

void GpuParticlePool::step(const StepContext& ctx, const WindField& wind) {
  flush();
  gpu_.step(ctx, wind, kernels_.turbulence(), threads_);
}

void GpuParticlePool::clear() {
  flush();
  died_ += int64_t(kernels_.stats(gpu_.store(), gpu_.store().capacity, true).live);
  gpu_.clear();
}

void GpuParticlePool::reset_counters() {
  flush();
  gpu_.take_deaths();
  replaced_.take();
  spawned_ = died_ = 0;
  gpu_died_ = 0;
}

EmitterStats GpuParticlePool::stats() {
  flush();
  EmitterStats s = kernels_.stats(gpu_.store(), gpu_.store().capacity, true);
  gpu_died_ += gpu_.take_deaths() + replaced_.take()[0];
  s.spawned = spawned_;
  s.died = died_ + gpu_died_;
  return s;
}

void GpuParticlePool::add_sprites(SpriteBatch& batch, float exposure, glm::vec3 eye_velocity) {
  flush();
  SpriteBuild how;
  how.only_live = true;
  how.exposure = exposure;
  how.eye_velocity = eye_velocity;
  how.lifetime = rules_.lifetime;
  how.fade_in = rules_.fade_in;
  how.grown_size = rules_.grown_size;
  const GpuStore& s = gpu_.store();
  kernels_.build_sprites(s, 0, s.page_size(0), how, instances_, {&gpu_previous_});
  batch.device_instances = &instances_;
  batch.device_count = s.page_size(0);
}

void GpuParticlePool::save(StateWriter& out) {
  flush();
  died_ += gpu_died_ + gpu_.take_deaths() + replaced_.take()[0];  // the GPU's counts, collected
  gpu_died_ = 0;
  out.tag("GPOL");
  gpu_.store().save(out);
  out.value(added_);
  out.value(spawned_);
  out.value(died_);
}

void GpuParticlePool::load(StateReader& in) {
  pending_.clear();
  gpu_.take_deaths();
  replaced_.take();
  gpu_died_ = 0;
  in.tag("GPOL");
  in.store(store_);  // the staging copy holds the particles too, as births would leave it
  gpu_.store().write(store_);
  in.value(added_);
  spawned_ = in.event_count();
  died_ = in.event_count();
  gpu_previous_.forget();
}

void GpuParticlePool::remember_positions() {
  flush();
  kernels_.remember(gpu_.store(), gpu_.store().capacity, true, gpu_previous_);
}

void GpuParticlePool::hash_into(StateSink& sink) {
  flush();  // the births not yet uploaded are part of the state
  gpu_.store().hash_into(sink, gpu_.store().capacity);
}

const ParticleStore& GpuParticlePool::state() const {
  // The GPU's particles, with the births not yet uploaded taken from staging.
  gpu_.store().read(readback_);
  for (const uint32_t slot : pending_) {
#define FXSIM_OVERLAY_FIELD(type, name, what) readback_.name[slot] = store_.name[slot];
    FXSIM_PARTICLE_FIELDS(FXSIM_OVERLAY_FIELD)
#undef FXSIM_OVERLAY_FIELD
  }
  return readback_;
}

}  // namespace fxsim
