#include "core/splash.h"

#include <cmath>

#include "core/motion.h"
#include "core/rng.h"

namespace fxsim {

namespace {
constexpr float kTwoPi = 6.283185307179586f;
enum Draw : uint32_t { kAzimuth, kElevation, kSpeed, kSize, kJitterX, kJitterZ };
}  // namespace

SplashPool::SplashPool(const Splash& splash, size_t capacity, uint64_t seed, uint32_t emitter_index)
    : splash_(splash), seed_(seed), emitter_index_(emitter_index), store_(capacity) {
  clear();
}

void SplashPool::clear() {
  for (size_t i = 0; i < store_.capacity(); ++i) {
    if (store_.age[i] >= 0) ++died_;
    store_.age[i] = -1;
  }
}

void SplashPool::throw_from(const std::vector<glm::vec3>& hits, float ground) {
  const size_t capacity = store_.capacity();
  if (capacity == 0) return;
  for (const glm::vec3& hit : hits) {
    for (int k = 0; k < splash_.count; ++k) {
      const uint64_t index = thrown_++;
      const size_t slot = size_t(index % capacity);
      if (store_.age[slot] >= 0) ++died_;  // the ring was full: the oldest droplet goes
      store_.generation[slot] = uint32_t(index / capacity);
      RandomDraws r(seed_, emitter_index_, Stream::secondary, index);
      // Up and outward: elevation 35..80°, speed 0.6..1.2 × `speed`.
      const float azimuth = r.unit(kAzimuth) * kTwoPi;
      const float elevation = (35.0f + 45.0f * r.unit(kElevation)) * (kTwoPi / 360.0f);
      const float speed = splash_.speed * (0.6f + 0.6f * r.unit(kSpeed));
      const float horizontal = std::cos(elevation) * speed;
      store_.set_velocity(slot, {std::cos(azimuth) * horizontal, std::sin(elevation) * speed,
                                 std::sin(azimuth) * horizontal});
      const float jitter = splash_.size;
      store_.set_position(slot, {hit.x + r.signed_unit(kJitterX) * jitter, ground,
                                 hit.z + r.signed_unit(kJitterZ) * jitter});
      store_.size[slot] = splash_.size * (0.7f + 0.6f * r.unit(kSize));
      store_.age[slot] = 0;
      store_.phase[slot] = 0;
      store_.shape[slot] = 0;
      ++spawned_;
    }
  }
}

void SplashPool::step(const StepContext& ctx) {
  const DragStep ballistic(ctx.gravity, 0.0f, ctx.dt);
  const float ground = ctx.ground.value_or(-1e30f);
  std::vector<int64_t> deaths(chunk_count(store_.capacity()), 0);
  for_chunks(ctx.pool, store_.capacity(), [&](size_t begin, size_t end, size_t chunk) {
    for (size_t i = begin; i < end; ++i) {
      if (store_.age[i] < 0) continue;
      const MotionStep next = ballistic(store_.position(i), store_.velocity(i), glm::vec3(0));
      store_.set_position(i, next.position);
      store_.set_velocity(i, next.velocity);
      store_.age[i] += ctx.dt;
      if (store_.age[i] >= splash_.lifetime || next.position.y < ground) {
        store_.age[i] = -1;
        ++deaths[chunk];
      }
    }
  });
  for (int64_t d : deaths) died_ += d;
}

EmitterStats SplashPool::stats(ThreadPool& pool) const {
  EmitterStats s = particle_stats_of_live_slots(store_, pool);
  s.spawned = spawned_;
  s.died = died_;
  return s;
}

void SplashPool::add_sprites(SpriteBatch& batch, float exposure, glm::vec3 eye_velocity) const {
  for (size_t i = 0; i < store_.capacity(); ++i) {
    if (store_.age[i] < 0) continue;
    // Fades out over its life; drawn, like the drops, as its travel during the exposure.
    const float fade = 1.0f - store_.age[i] / splash_.lifetime;
    batch.sprites.push_back({store_.position(i), store_.size[i], (store_.velocity(i) - eye_velocity) * exposure, fade, 0, 0});
  }
}

}  // namespace fxsim
