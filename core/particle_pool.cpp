#include "core/particle_pool.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/motion.h"
#include "core/state_archive.h"
#include "core/wind.h"

namespace fxsim {

PoolMaker cpu_pool_maker(ThreadPool& threads) {
  return [&threads](const PoolRules& rules, size_t capacity) {
    return std::make_unique<ParticlePool>(rules, capacity, threads);
  };
}

ParticlePool::ParticlePool(const PoolRules& rules, size_t capacity, ThreadPool& threads)
    : rules_(rules), threads_(threads), store_(capacity) {
  std::fill(store_.age.begin(), store_.age.end(), -1.0f);
}

size_t ParticlePool::add() {
  const size_t capacity = store_.capacity();
  const uint64_t index = added_++;
  const size_t slot = size_t(index % capacity);
  if (store_.age[slot] >= 0) ++died_;  // the ring is full: the oldest goes
  store_.generation[slot] = uint32_t(index / capacity);
  store_.age[slot] = 0;
  store_.phase[slot] = 0;
  store_.shape[slot] = 0;
  ++spawned_;
  return slot;
}

bool ParticlePool::place(size_t slot) {
  const bool replaced = store_.age[slot] >= 0;
  store_.age[slot] = 0;
  store_.phase[slot] = 0;
  store_.shape[slot] = 0;
  return replaced;
}

void ParticlePool::clear() {
  for (float& age : store_.age) {
    if (age >= 0) ++died_;
    age = -1;
  }
}

AgingStep::AgingStep(const StepContext& ctx, const WindField& wind, const PoolRules& rules, ThreadPool* threads)
    : ctx_(ctx), turbulence_(rules.drag > 0 ? wind.turbulence_field(ctx.t0, threads) : nullptr),
      motion_(ctx.gravity * rules.gravity_scale, rules.drag, ctx.dt), uniform_wind_(wind.uniform_part(ctx.t0)),
      lifetime_(rules.lifetime), ground_(rules.dies_on_landing && ctx.ground ? *ctx.ground : -1e30f) {}

AgingStep::Result AgingStep::operator()(ParticleStore& store, size_t i) const {
  if (store.age[i] < 0) return empty;
  const glm::vec3 p = store.position(i);
  const glm::vec3 air = turbulence_ ? uniform_wind_ + turbulence_->at(p) : uniform_wind_;
  const MotionStep next = motion_(p, store.velocity(i), air);
  store.set_position(i, next.position);
  store.set_velocity(i, next.velocity);
  store.age[i] += ctx_.dt;
  if (store.age[i] >= lifetime_ || next.position.y < ground_) {
    store.age[i] = -1;
    return died;
  }
  return lives;
}

void AgingStep::run(ParticleStore& store, size_t begin, size_t end, Result* results) const {
  float* const p[3] = {store.px.data(), store.py.data(), store.pz.data()};
  float* const v[3] = {store.vx.data(), store.vy.data(), store.vz.data()};
  if (turbulence_) {
    std::array<float, kChunk> air_x, air_y, air_z;  // the turbulence at each slot (empty ones too: unused)
    float* const air[3] = {air_x.data(), air_y.data(), air_z.data()};
    turbulence_->sample(p, begin, end, air);
    motion_.apply(p, v, begin, end, uniform_wind_, air, store.age.data());
  } else {
    motion_.apply(p, v, begin, end, uniform_wind_, store.age.data());
  }
  // Without branches, the members in locals and the arrays unaliased, so that
  // the compiler vectorises it (the same values as aging a slot at a time).
  float* __restrict const age = store.age.data();
  const float* __restrict const y = store.py.data();
  Result* __restrict const out = results;
  const float dt = ctx_.dt, lifetime = lifetime_, ground = ground_;
  for (size_t i = begin; i < end; ++i) {
    const float before = age[i], aged = before + dt;
    const bool vacant = before < 0, dies = (aged >= lifetime) | (y[i] < ground);  // | : no branch
    age[i] = vacant ? before : dies ? -1.0f : aged;
    out[i - begin] = Result(int(!vacant) * (int(lives) - int(dies)));  // empty 0, died 1, lives 2
  }
}

void ParticlePool::step(const StepContext& ctx, const WindField& wind) {
  const AgingStep aging(ctx, wind, rules_, &threads_);
  std::vector<int64_t> deaths(chunk_count(store_.capacity()), 0);
  for_chunks(threads_, store_.capacity(), [&](size_t begin, size_t end, size_t chunk) {
    std::array<AgingStep::Result, kChunk> results;
    aging.run(store_, begin, end, results.data());
    for (size_t k = 0; k < end - begin; ++k) deaths[chunk] += results[k] == AgingStep::died;
  });
  for (int64_t d : deaths) died_ += d;
}

EmitterStats ParticlePool::stats() {
  EmitterStats s = particle_stats_of_live_slots(store_, threads_);
  s.spawned = spawned_;
  s.died = died_;
  return s;
}

void ParticlePool::add_sprites(SpriteBatch& batch, float exposure, glm::vec3 eye_velocity) {
  for (size_t i = 0; i < store_.capacity(); ++i) {
    const float age = store_.age[i];
    if (age < 0) continue;
    const float life = std::min(age / rules_.lifetime, 1.0f);
    float alpha = (1.0f - life) * (1.0f - life);
    if (rules_.fade_in > 0) alpha *= std::min(age / rules_.fade_in, 1.0f);
    float size = store_.size[i];
    if (rules_.grown_size > 0) size += (rules_.grown_size - size) * (1.0f - std::exp(-4.0f * life));
    const glm::vec3 stretch = exposure > 0 ? (store_.velocity(i) - eye_velocity) * exposure : glm::vec3(0);
    batch.sprites.push_back({store_.position(i), size, stretch, alpha, float(store_.shape[i]), store_.phase[i]});
    if (previous_.remembered()) batch.previous.push_back(previous_.of(store_, i));
  }
}

void ParticlePool::save(StateWriter& out) {
  out.tag("POOL");
  out.store(store_);
  out.value(added_);
  out.value(spawned_);
  out.value(died_);
}

void ParticlePool::load(StateReader& in) {
  in.tag("POOL");
  in.store(store_);
  in.value(added_);
  spawned_ = in.event_count();
  died_ = in.event_count();
  previous_.forget();
}

void ParticlePool::remember_positions() { previous_.remember(store_, store_.capacity(), true, threads_); }

}  // namespace fxsim
