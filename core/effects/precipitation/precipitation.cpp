#include "core/state_archive.h"
#include "core/effects/precipitation/precipitation.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <glm/geometric.hpp>
#include <glm/matrix.hpp>
#include <immintrin.h>

#include "core/effects/precipitation/precipitation_draws.h"
#include "core/glibc_cosf.h"
#include "core/motion.h"
#include "core/rng.h"
#include "core/scalar_math.h"
#include "core/wind.h"

namespace fxsim {

namespace {

// Wraps x into [-h, h].
float wrap_axis(float x, float h) {
  if (x >= -h && x <= h) return x;
  const float span = 2.0f * h;
  return x - span * std::floor((x + h) / span);
}

// Which of n particles (n <= kChunk) left the box (centre c, half-extents
// h, axes the rows of to_local) or went below the ground, as bits: particle
// i is bit i % 64 of word i / 64. The test is most of a steady step's
// arithmetic after the motion itself, and a loop over a flag a particle,
// of which a few in a hundred are set, most of the rest (rain, 2 M drops,
// one thread: 2.3 and 1.0 ms of 4.7); so it runs 8 wide where the processor
// can, without the rotation where the box has none (|1·d + 0·e + 0·f| is
// |d| for finite values: the same flags), and the step visits set bits only.
struct LeavingTest {
  const float *px, *py, *pz;
  glm::mat3 to_local;
  glm::vec3 c, h;
  float ground;
  bool rotated;
};
using LeavingBits = std::array<uint64_t, kChunk / 64>;

// Particle i's flag, as find_leaving_avx2 finds it 8 at a time: the same operations in the same order.
inline bool leaves(const LeavingTest& t, size_t i) {
  const float dx = t.px[i] - t.c.x, dy = t.py[i] - t.c.y, dz = t.pz[i] - t.c.z;
  float lx = dx, ly = dy, lz = dz;
  if (t.rotated) {
    const glm::mat3& m = t.to_local;
    lx = m[0][0] * dx + m[1][0] * dy + m[2][0] * dz;
    ly = m[0][1] * dx + m[1][1] * dy + m[2][1] * dz;
    lz = m[0][2] * dx + m[1][2] * dy + m[2][2] * dz;
  }
  return std::fabs(lx) > t.h.x || std::fabs(ly) > t.h.y || std::fabs(lz) > t.h.z || t.py[i] < t.ground;
}

// a·dx + b·dy + c·dz, 8 at a time, in leaves()'s order.
__attribute__((target("avx2"))) inline __m256 along8(const glm::mat3& m, int row, __m256 dx, __m256 dy, __m256 dz) {
  return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(m[0][row]), dx), _mm256_mul_ps(_mm256_set1_ps(m[1][row]), dy)),
                       _mm256_mul_ps(_mm256_set1_ps(m[2][row]), dz));
}

// Particles [0, n - n % 8), 8 at a time; returns where it stopped.
__attribute__((target("avx2"))) size_t find_leaving_avx2(const LeavingTest& t, size_t n, LeavingBits& bits) {
  const __m256 cx = _mm256_set1_ps(t.c.x), cy = _mm256_set1_ps(t.c.y), cz = _mm256_set1_ps(t.c.z);
  const __m256 hx = _mm256_set1_ps(t.h.x), hy = _mm256_set1_ps(t.h.y), hz = _mm256_set1_ps(t.h.z);
  const __m256 ground = _mm256_set1_ps(t.ground), magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const glm::mat3& m = t.to_local;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 y = _mm256_loadu_ps(t.py + i);
    const __m256 dx = _mm256_sub_ps(_mm256_loadu_ps(t.px + i), cx), dy = _mm256_sub_ps(y, cy),
                 dz = _mm256_sub_ps(_mm256_loadu_ps(t.pz + i), cz);
    __m256 lx = dx, ly = dy, lz = dz;
    if (t.rotated) lx = along8(m, 0, dx, dy, dz), ly = along8(m, 1, dx, dy, dz), lz = along8(m, 2, dx, dy, dz);
    const __m256 out = _mm256_or_ps(
        _mm256_or_ps(_mm256_cmp_ps(_mm256_and_ps(lx, magnitude), hx, _CMP_GT_OQ),
                     _mm256_cmp_ps(_mm256_and_ps(ly, magnitude), hy, _CMP_GT_OQ)),
        _mm256_or_ps(_mm256_cmp_ps(_mm256_and_ps(lz, magnitude), hz, _CMP_GT_OQ), _mm256_cmp_ps(y, ground, _CMP_LT_OQ)));
    bits[i / 64] |= uint64_t(uint32_t(_mm256_movemask_ps(out))) << (i % 64);
  }
  return i;
}

std::atomic<int> g_leaving_lanes{8};  // limit_leaving_test_width's

void find_leaving(const LeavingTest& t, size_t n, LeavingBits& bits) {
  bits.fill(0);
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const size_t first = avx2 && g_leaving_lanes.load(std::memory_order_relaxed) >= 8 ? find_leaving_avx2(t, n, bits) : 0;
  for (size_t i = first; i < n; ++i)
    if (leaves(t, i)) bits[i / 64] |= uint64_t(1) << (i % 64);
}
}  // namespace

void limit_leaving_test_width(int lanes) { g_leaving_lanes.store(lanes, std::memory_order_relaxed); }

PrecipitationSystem::PrecipitationSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                                         const Environment& environment, double fps, ThreadPool& threads)
    : settings_(settings), snow_(settings.precipitation()), emitter_index_(uint32_t(emitter_index)), wind_(wind),
      threads_(threads),
      half_(settings.precipitation().region.size * 0.5f), store_(size_t(settings.max_particles)),
      exposure_(float(settings.precipitation().streak / fps)) {
  if (environment.ground) ground_ = environment.ground->height;
  emission_rate_ = fill_rate(settings, environment.gravity);
  fall_speed_ = fall_speed(snow_, environment.gravity);
  if (splashes_per_drop(snow_, environment) > 0) {
    PoolRules rules;
    rules.lifetime = snow_.splash->lifetime;  // ballistic: no drag
    splash_.emplace(rules, effect_slots(settings, environment).pool_slots("splash"), threads_);
  }
}

size_t PrecipitationSystem::splashes_per_drop(const PrecipitationParams& params, const Environment& environment) {
  return params.splash && environment.ground ? size_t(params.splash->count) : 0;
}

int64_t PrecipitationSystem::throw_splash(size_t drop, glm::vec3 hit, float ground, int64_t step) {
  const Splash& splash = *snow_.splash;
  auto& d = splash_->store();
  int64_t replaced = 0;
  for (int k = 0; k < splash.count; ++k) {
    const size_t slot = drop * size_t(splash.count) + size_t(k);
    // Keyed by the droplet's slot and the step it is thrown in (a drop that wraps lands many times).
    RandomDraws r(settings_.seed, emitter_index_, Stream::secondary, slot);
    const uint32_t base = uint32_t(step) * kSplashDrawsPerStep;
    replaced += splash_->place(slot);
    d.generation[slot] = uint32_t(step);
    // Up and outward: elevation 35..80°, speed 0.6..1.2 × `speed`.
    const float azimuth = r.unit(base + kSplashAzimuth) * kTwoPi;
    const float elevation = (35.0f + 45.0f * r.unit(base + kSplashElevation)) * (kTwoPi / 360.0f);
    const float speed = splash.speed * (0.6f + 0.6f * r.unit(base + kSplashSpeed));
    const float horizontal = std::cos(elevation) * speed;
    d.set_velocity(slot, {std::cos(azimuth) * horizontal, std::sin(elevation) * speed, std::sin(azimuth) * horizontal});
    d.set_position(slot, {hit.x + r.signed_unit(base + kSplashJitterX) * splash.size, ground,
                          hit.z + r.signed_unit(base + kSplashJitterZ) * splash.size});
    d.size[slot] = splash.size * (0.7f + 0.6f * r.unit(base + kSplashSize));
  }
  return replaced;
}

float PrecipitationSystem::fall_speed(const PrecipitationParams& p, glm::vec3 gravity) {
  float speed = std::fabs(p.velocity.y);
  if (p.motion == Motion::wind && p.drag > 0) speed = std::fabs(gravity.y * p.gravity_scale / p.drag);
  return std::max(speed, 0.05f);
}

double PrecipitationSystem::fill_rate(const EmitterSettings& settings, glm::vec3 gravity) {
  // Without prewarm the box fills from the top at the rate that keeps it full
  // once flakes have had time to fall through it.
  const PrecipitationParams& p = settings.precipitation();
  return double(settings.max_particles) * fall_speed(p, gravity) / double(p.region.size.y);
}

float PrecipitationSystem::column_floor(const Frame& frame, glm::vec3 half, std::optional<float> ground) {
  if (!ground || frame.axes[1].y <= 0.1f) return -half.y;
  return std::clamp((*ground - frame.center.y) / frame.axes[1].y, -half.y, half.y);
}

float PrecipitationSystem::reentry_height(float below, const Frame& frame, glm::vec3 half, float bottom) {
  const float column = half.y - bottom;
  if (frame.axes[1].y <= 0.1f || !(column > 0.0f)) return half.y;
  const float depth = below / frame.axes[1].y;  // along the box's up axis
  // Most drops are less than a column under the ground: floor gives 0, and
  // depth - column * 0 is depth (the same bits, without floor's call).
  if (depth >= 0.0f && depth < column) return half.y - depth;
  return half.y - (depth - column * std::floor(depth / column));
}

void PrecipitationSystem::reset_counters() {
  spawned_ = died_ = 0;
  if (splash_) splash_->reset_counters();
}

PrecipitationSystem::Frame PrecipitationSystem::region_frame(const PrecipitationParams& params,
                                                             const CameraPose& camera) {
  if (!params.follow_camera) return {params.region.center, glm::mat3(1.0f)};
  const glm::mat3 axes = camera.basis();
  return {camera.position + axes * params.region.center, axes};
}

float PrecipitationSystem::Frame::reach(glm::vec3 forward, glm::vec3 half) const {
  return std::fabs(glm::dot(axes[0], forward)) * half.x + std::fabs(glm::dot(axes[1], forward)) * half.y +
         std::fabs(glm::dot(axes[2], forward)) * half.z;
}

void PrecipitationSystem::birth(size_t slot, const WindField::Moment& wind, const Frame& frame, Birth where,
                                float top_layer) {
  RandomDraws r(settings_.seed, emitter_index_, Stream::birth, store_.spawn_index(slot));
  // Spread through the part of the box above the ground (below it a flake
  // would only be recycled at once, leaving the box too full until then), or
  // through the top layer of it.
  const float lowest = column_floor(frame, half_, ground_);
  const float u = r.signed_unit(kFlakePosY) * 0.5f + 0.5f;
  const float y = where == Birth::anywhere ? lowest + u * (half_.y - lowest)
                                           : half_.y - u * std::min(top_layer, half_.y - lowest);
  const glm::vec3 local{r.signed_unit(kFlakePosX) * half_.x, y, r.signed_unit(kFlakePosZ) * half_.z};
  const glm::vec3 p = frame.center + frame.axes * local;
  // Physical units: the size from the distribution, a drop's speed from its size.
  float size = settings_.size * (1.0f + settings_.size_variation * r.signed_unit(kFlakeSize));
  glm::vec3 velocity = snow_.velocity;
  if (snow_.sizes) {
    const float d = snow_.sizes->diameter(r.unit(kFlakeSize));
    size = snow_.sizes->drawn_size(d);
    if (snow_.sizes->kind == Precipitate::rain) velocity = {0, -snow_.sizes->fall_speed(d), 0};
  }
  glm::vec3 v = velocity + glm::vec3(r.signed_unit(kFlakeVelX), r.signed_unit(kFlakeVelY), r.signed_unit(kFlakeVelZ)) *
                               snow_.velocity_variation;
  // Born moving with the air: a drop or flake entering the box has long
  // fallen in that wind (born still, the rain of a windy scene fell upright
  // for its first second). With motion "constant" (paper 000) this is its
  // velocity for life; with "wind", drag then follows the air as it changes.
  v += wind.at(p);
  store_.set_position(slot, p);
  store_.set_velocity(slot, v);
  store_.size[slot] = size;
  store_.shape[slot] = std::min(uint32_t(r.unit(kFlakeShape) * float(snow_.shapes)), uint32_t(snow_.shapes - 1));
  store_.phase[slot] = r.unit(kFlakePhase) * kTwoPi;
  const float heading = r.unit(kFlakeHeading) * kTwoPi;
  store_.sway_x[slot] = std::cos(heading);
  store_.sway_z[slot] = std::sin(heading);
}

void PrecipitationSystem::begin(double t, const CameraPose& camera) {
  live_ = 0;
  previous_.forget();
  if (splash_) splash_->forget_positions();
  emission_carry_ = 0;
  if (!snow_.prewarm) return;
  const Frame frame = region_frame(camera);
  const size_t n = store_.capacity();
  const WindField::Moment wind = wind_.moment(t, &threads_);
  for_chunks(threads_, n, [&](size_t begin, size_t end, size_t) {
    for (size_t i = begin; i < end; ++i) {
      store_.generation[i] = 0;
      birth(i, wind, frame, Birth::anywhere);
    }
  });
  live_ = n;
  spawned_ += int64_t(n);
}

void PrecipitationSystem::end() {
  died_ += int64_t(live_);
  live_ = 0;
  if (splash_) splash_->clear();
}

void PrecipitationSystem::step(const StepContext& ctx) {
  const Frame frame = region_frame(ctx.camera);
  const glm::mat3 to_local = glm::transpose(frame.axes);
  const glm::vec3 wind_uniform = wind_.uniform_part(ctx.t0);
  const float top_layer = float(fall_speed_ * ctx.dt);
  const float bottom = column_floor(frame, half_, ctx.ground);
  // The turbulence at the step's start, where the particles move in the wind (null in a steady wind).
  const auto turbulence = snow_.motion == Motion::wind ? wind_.turbulence_field(ctx.t0, &threads_) : nullptr;
  // The air the step's births move with, where there can be births (taken
  // otherwise, a box that wraps its particles without moving in the wind
  // built a turbulence field each step that nothing read).
  const bool births = snow_.recycle == Recycle::respawn || live_ < store_.capacity();
  const WindField::Moment birth_wind = births ? wind_.moment(ctx.t1, &threads_) : WindField::Moment{};
  const glm::vec3 gravity = ctx.gravity * snow_.gravity_scale;
  const DragStep drag_step(gravity, snow_.drag, ctx.dt);
  // Sway displacement A·sin(ωt + φ) along the flake's direction; its change over
  // the step is 2A·sin(ω(t1 − t0)/2)·cos(ω(t0 + t1)/2 + φ): one cosine a flake.
  const double omega = double(kTwoPi) * snow_.sway.frequency;
  const float sway_gain = float(2.0 * snow_.sway.amplitude * std::sin(omega * (ctx.t1 - ctx.t0) / 2));
  const float sway_mid = float(std::fmod(omega * (ctx.t0 + ctx.t1) / 2, double(kTwoPi)));
  const bool swaying = snow_.sway.amplitude > 0 && snow_.sway.frequency > 0;

  const bool splashing = splash_ && ctx.ground;
  if (splash_) splash_->step(ctx, wind_);
  std::vector<int64_t> reborn(chunk_count(live_), 0), thrown(chunk_count(live_), 0), replaced(chunk_count(live_), 0);
  for_chunks(threads_, live_, [&](size_t begin, size_t end, size_t chunk) {
    // First every particle's motion, in loops over the arrays (vectorised
    // where the wind is steady); then, one at a time, only those that left
    // the box or reached the ground. (Bit for bit the results of stepping a
    // particle at a time: the state hashes are those of before.)
    std::array<float, kChunk> start_x, start_y, start_z;  // where each began the step: only a splash needs it
    if (splashing)
      for (const auto& [from, to] : {std::pair{&store_.px, &start_x}, {&store_.py, &start_y}, {&store_.pz, &start_z}})
        std::copy(from->begin() + ptrdiff_t(begin), from->begin() + ptrdiff_t(end), to->begin());
    if (snow_.motion == Motion::wind) {
      float* const p[3] = {store_.px.data(), store_.py.data(), store_.pz.data()};
      float* const v[3] = {store_.vx.data(), store_.vy.data(), store_.vz.data()};
      if (turbulence) {
        std::array<float, kChunk> air_x, air_y, air_z;  // the turbulence at each particle
        float* const air[3] = {air_x.data(), air_y.data(), air_z.data()};
        turbulence->sample(p, begin, end, air);
        drag_step.apply(p, v, begin, end, wind_uniform, air);
      } else {
        drag_step.apply(p, v, begin, end, wind_uniform);
      }
    } else {
      for (size_t i = begin; i < end; ++i) store_.set_position(i, store_.position(i) + store_.velocity(i) * ctx.dt);
    }
    if (swaying) {
      std::array<float, kChunk> cosine;  // a cosine a flake, glibc's bits four at a time
      for (size_t i = begin; i < end; ++i) cosine[i - begin] = sway_mid + store_.phase[i];
      glibc_cosf_array(cosine.data(), cosine.data(), end - begin);
      for (size_t i = begin; i < end; ++i) {
        const float delta = sway_gain * cosine[i - begin];
        store_.px[i] = store_.px[i] + store_.sway_x[i] * delta;
        store_.pz[i] = store_.pz[i] + store_.sway_z[i] * delta;
      }
    }
    // Which particles left the box or reached the ground (the region's axes: to_local's rows).
    LeavingBits leaving;
    find_leaving({store_.px.data() + begin, store_.py.data() + begin, store_.pz.data() + begin, to_local, frame.center,
                  half_, ctx.ground ? *ctx.ground : -std::numeric_limits<float>::infinity(),
                  to_local != glm::mat3(1.0f)},
                 end - begin, leaving);
    int64_t reborn_here = 0;
    for (size_t word = 0; word < leaving.size(); ++word)
      for (uint64_t bits = leaving[word]; bits != 0; bits &= bits - 1) {
        const size_t i = begin + word * 64 + size_t(std::countr_zero(bits));
        glm::vec3 p = store_.position(i);
        glm::vec3 local = to_local * (p - frame.center);
        const bool below_ground = ctx.ground && p.y < *ctx.ground;
        if (below_ground && splashing && start_y[i - begin] >= *ctx.ground) {
          const glm::vec3 start{start_x[i - begin], start_y[i - begin], start_z[i - begin]};
          const float f = (start.y - *ctx.ground) / (start.y - p.y);  // where the step crossed the ground
          replaced[chunk] += throw_splash(i, start + (p - start) * f, *ctx.ground, ctx.step);
          thrown[chunk] += snow_.splash->count;
        }
        const bool outside = std::fabs(local.x) > half_.x || std::fabs(local.y) > half_.y || std::fabs(local.z) > half_.z;
        if (snow_.recycle == Recycle::respawn) {
          ++store_.generation[i];
          birth(i, birth_wind, frame, Birth::top, top_layer);
          ++reborn_here;
          continue;
        }
        if (outside) local = {wrap_axis(local.x, half_.x), wrap_axis(local.y, half_.y), wrap_axis(local.z, half_.z)};
        if (below_ground) local.y = reentry_height(*ctx.ground - p.y, frame, half_, bottom);
        p = frame.center + frame.axes * local;
        store_.set_position(i, p);
      }
    reborn[chunk] = reborn_here;
  });
  for (int64_t n : reborn) spawned_ += n, died_ += n;
  if (splashing)
    for (size_t c = 0; c < thrown.size(); ++c) splash_->count(thrown[c], replaced[c]);

  // Filling from the top (no prewarm): new flakes at the emission rate, up to the cap.
  if (live_ < store_.capacity()) {
    emission_carry_ += emission_rate_ * ctx.dt;
    const size_t wanted = size_t(emission_carry_);
    emission_carry_ -= double(wanted);
    const size_t first = live_, last = std::min(store_.capacity(), live_ + wanted);
    for_chunks(threads_, last - first, [&](size_t begin, size_t end, size_t) {
      for (size_t i = first + begin; i < first + end; ++i) {
        store_.generation[i] = 0;
        birth(i, birth_wind, frame, Birth::top, top_layer);
      }
    });
    live_ = last;
    spawned_ += int64_t(last - first);
  }
}

void PrecipitationSystem::take_stats(FrameStats& out, bool active) {
  EmitterStats s = particle_stats(store_, live_, threads_);
  label(s, settings_.name, settings_.type_name(), active);
  s.spawned = spawned_;
  s.died = died_;
  out.emitters.push_back(std::move(s));
  if (splash_) {
    EmitterStats splash = splash_->stats();
    label(splash, settings_.name + ".splash", "splash", active);
    out.emitters.push_back(std::move(splash));
  }
  reset_counters();
}

void PrecipitationSystem::hash_state(StateSink& hasher) const {
  hasher.add_store(store_, live_);
  if (splash_) hasher.add_store(splash_->store(), splash_->store().capacity());
}

void PrecipitationSystem::save(StateWriter& out) {
  out.tag("PREC");
  out.store(store_);
  out.value(uint64_t(live_));
  out.value(emission_carry_);
  out.value(spawned_);
  out.value(died_);
  out.value(uint8_t(splash_.has_value()));
  if (splash_) splash_->save(out);
}

void PrecipitationSystem::load(StateReader& in) {
  in.tag("PREC");
  in.store(store_);
  live_ = in.count(store_.capacity());
  emission_carry_ = in.fraction("an emission carry");
  spawned_ = in.event_count();
  died_ = in.event_count();
  in.presence(splash_.has_value(), "splashes");
  if (splash_) splash_->load(in);
  previous_.forget();
}

void PrecipitationSystem::remember_positions() {
  previous_.remember(store_, live_, false, threads_);
  if (splash_) splash_->remember_positions();
}

WrapBox PrecipitationSystem::wrap_box(const PrecipitationParams& params, const CameraPose& camera,
                                      std::optional<float> ground) {
  const Frame frame = region_frame(params, camera);
  glm::vec3 half = params.region.size * 0.5f;
  const float column = half.y - column_floor(frame, half, ground);
  if (column > 0.0f) half.y = std::min(half.y, column * 0.5f);
  return {frame.axes, half};
}

void PrecipitationSystem::add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out) {
  SpriteBatch batch;
  batch.emitter = emitter_index_;
  const Frame frame = region_frame(camera);
  batch.distance = glm::length(frame.center - camera.position);
  batch.sprites.resize(live_);
  // Paper 000's depth factor: d in [-1, 1] across the box along the view
  // direction, nearest = +1, size × e^(k·d).
  const glm::vec3 forward = camera.forward();
  const float reach = frame.reach(forward, half_);
  const bool exp_depth = snow_.depth_scale == DepthScale::exp && reach > 0;
  const float alpha = 1.0f;
  for_chunks(threads_, live_, [&](size_t begin, size_t end, size_t) {
    for (size_t i = begin; i < end; ++i) {
      const glm::vec3 p = store_.position(i);
      float size = store_.size[i];
      if (exp_depth) {
        const float d = std::clamp(-glm::dot(p - frame.center, forward) / reach, -1.0f, 1.0f);
        size *= std::exp(snow_.depth_k * d);
      }
      // Rain: the drop's travel relative to the eye during the exposure (a moving
      // camera sees drops slant); snow: a square sprite spinning with its sway phase.
      const bool streak = exposure_ > 0;
      batch.sprites[i] = {p, size, streak ? (store_.velocity(i) - camera.velocity) * exposure_ : glm::vec3(0), alpha,
                          float(store_.shape[i]), streak ? 0.0f : store_.phase[i]};
    }
  });
  if (previous_.remembered()) {
    batch.previous.resize(live_);
    const WrapBox wrap = wrap_box(snow_, camera, ground_);
    for_chunks(threads_, live_, [&](size_t begin, size_t end, size_t) {
      for (size_t i = begin; i < end; ++i) batch.previous[i] = previous_.of(store_, i, wrap);
    });
  }
  if (splash_) {
    SpriteBatch droplets;
    droplets.emitter = emitter_index_;
    droplets.look = SpriteLook::secondary;
    droplets.distance = batch.distance;
    splash_->add_sprites(droplets, exposure_, camera.velocity);
    out.push_back(std::move(droplets));
  }
  out.push_back(std::move(batch));
}

}  // namespace fxsim
