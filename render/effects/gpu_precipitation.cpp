#include "render/effects/gpu_precipitation.h"

#include "core/state_archive.h"
#include "core/effects/precipitation/precipitation_draws.h"

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "core/motion.h"
#include "render/gpu_glsl.h"

namespace fxsim {

namespace {
// The kernel's parameters. u_mode: 0 births anywhere in [first, first + count),
// 1 births at the top (u_top_layer deep), 2 a step. u_birth_wind: the wind's uniform part at the
// births' time (its turbulence: turbulence_at_birth); u_wind: at the step's start.
// u_total_capacity: of the whole emitter (spawn index = generation × this + global slot).
#define FXSIM_PRECIPITATION_PARAMS(X)                                                                  \
  X(int32_t, u_mode) X(glm::uvec2, u_seed) X(uint32_t, u_emitter) X(uint32_t, u_total_capacity)         \
  X(glm::vec3, u_center) X(glm::vec3, u_half) X(GpuMat3, u_axes) X(GpuBool, u_has_ground)               \
  X(float, u_ground) X(GpuBool, u_constant_motion) X(glm::vec3, u_velocity) X(glm::vec3, u_variation)   \
  X(float, u_size) X(float, u_size_variation) X(glm::vec4, u_sizes) X(uint32_t, u_shapes)                                    \
  X(glm::vec3, u_birth_wind) X(glm::vec3, u_gravity) X(glm::vec3, u_fall)  \
  X(glm::vec3, u_wind) X(float, u_drag) X(float, u_dt) X(float, u_e) X(float, u_relax)                    \
  X(GpuBool, u_swaying) X(float, u_sway_gain) X(float, u_sway_mid) X(GpuBool, u_respawn) \
  X(GpuBool, u_splashing) X(uint32_t, u_splash_count) X(float, u_splash_speed) X(float, u_splash_size)  \
  X(uint32_t, u_step) X(float, u_top_layer)
FXSIM_GPU_PARAMS(PrecipitationParamsBlock, FXSIM_PRECIPITATION_PARAMS);
constexpr unsigned kPrecipitationParamsBinding = 0;

// PrecipitationSystem::birth, ::step and ::throw_splash, operation for operation.
const std::string& precipitation_source() {
  static const std::string source = glsl_prelude() + precipitation_draws_glsl() + glsl_particle_block("P", 0) +
                                    glsl_particle_block("S", 1) + glsl_turbulence() +
                                    PrecipitationParamsBlock::glsl(kPrecipitationParamsBinding) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 2) buffer Counters { uint reborn; uint thrown; uint replaced; };
const float kTwoPi = 6.283185307179586;

// `slot` is local to this page; the key uses the global slot.
void spawn_index(uint slot, out uint lo, out uint hi) {
  uint carry_hi, mul_lo;
  umulExtended(P_get_generation(slot), u_total_capacity, carry_hi, mul_lo);
  lo = mul_lo + (P_base + slot);
  hi = carry_hi + (lo < mul_lo ? 1u : 0u);
}
float unit_draw(uint lo, uint hi, uint stream, uint draw) { return to_unit(draw_bits(u_seed, u_emitter, stream, lo, hi, draw)); }
float signed_draw(uint lo, uint hi, uint stream, uint draw) { return to_signed(draw_bits(u_seed, u_emitter, stream, lo, hi, draw)); }

float column_floor() {
  if (!u_has_ground || u_axes[1].y <= 0.1) return -u_half.y;
  return clamp((u_ground - u_center.y) / u_axes[1].y, -u_half.y, u_half.y);
}

float reentry_height(float below, float bottom) {
  precise float column = u_half.y - bottom;
  if (u_axes[1].y <= 0.1 || !(column > 0.0)) return u_half.y;
  precise float depth = below / u_axes[1].y;
  precise float y = u_half.y - (depth - column * floor(depth / column));
  return y;
}

void birth(uint slot, bool top) {
  uint lo, hi;
  spawn_index(slot, lo, hi);
  float lowest = column_floor();
  precise float u = signed_draw(lo, hi, kStreamBirth, kFlakePosY) * 0.5 + 0.5;
  precise float y = top ? u_half.y - u * min(u_top_layer, u_half.y - lowest) : lowest + u * (u_half.y - lowest);
  precise vec3 local = vec3(signed_draw(lo, hi, kStreamBirth, kFlakePosX) * u_half.x, y, signed_draw(lo, hi, kStreamBirth, kFlakePosZ) * u_half.z);
  precise vec3 p = u_center + u_axes * local;
  precise float size = u_size * (1.0 + u_size_variation * signed_draw(lo, hi, kStreamBirth, kFlakeSize));
  vec3 velocity = u_velocity;
  if (u_sizes.w > 0.5) {  // physical units (core/weather.h)
    float span = 1.0 - exp(-u_sizes.x * (u_sizes.z - u_sizes.y));
    precise float d = u_sizes.y - log(1.0 - unit_draw(lo, hi, kStreamBirth, kFlakeSize) * span) / u_sizes.x;
    if (u_sizes.w < 1.5) {
      size = d * 1e-3;
      velocity = vec3(0.0, -max(0.1, 9.65 - 10.3 * exp(-0.6 * d)), 0.0);
    } else {
      size = d * 2.7144 * 1e-3;  // kSnowDiameterPerMelted
    }
  }
  precise vec3 v = velocity + vec3(signed_draw(lo, hi, kStreamBirth, kFlakeVelX), signed_draw(lo, hi, kStreamBirth, kFlakeVelY), signed_draw(lo, hi, kStreamBirth, kFlakeVelZ)) * u_variation;
  {  // born moving with the air (PrecipitationSystem::birth)
    vec3 w = u_birth_wind;
    if (u_turbulence_strength > 0.0) { precise vec3 a = w + turbulence_at_birth(p); w = a; }
    precise vec3 nv = v + w;
    v = nv;
  }
  P_set_position(slot, p);
  P_set_velocity(slot, v);
  P_set_size(slot, size);
  P_set_shape(slot, min(uint(unit_draw(lo, hi, kStreamBirth, kFlakeShape) * float(u_shapes)), u_shapes - 1u));
  P_set_phase(slot, unit_draw(lo, hi, kStreamBirth, kFlakePhase) * kTwoPi);
  float heading = unit_draw(lo, hi, kStreamBirth, kFlakeHeading) * kTwoPi;
  P_set_sway_x(slot, cos(heading));
  P_set_sway_z(slot, sin(heading));
}

float wrap_axis(float x, float h) {
  if (x >= -h && x <= h) return x;
  precise float span = 2.0 * h;
  precise float r = x - span * floor((x + h) / span);
  return r;
}

void throw_splash(uint drop, vec3 hit) {
  for (uint k = 0u; k < u_splash_count; ++k) {
    uint slot = drop * u_splash_count + k;          // in this page of the splash store
    uint key = (P_base + drop) * u_splash_count + k;  // the global droplet slot: its draws' key
    uint base = u_step * kSplashDrawsPerStep;
    if (S_get_age(slot) >= 0.0) atomicAdd(replaced, 1u);
    S_set_age(slot, 0.0); S_set_phase(slot, 0.0); S_set_shape(slot, 0u);
    S_set_generation(slot, u_step);
    float azimuth = to_unit(draw_bits(u_seed, u_emitter, kStreamSecondary, key, 0u, base + kSplashAzimuth)) * kTwoPi;
    precise float elevation = (35.0 + 45.0 * to_unit(draw_bits(u_seed, u_emitter, kStreamSecondary, key, 0u, base + kSplashElevation))) * (kTwoPi / 360.0);
    precise float speed = u_splash_speed * (0.6 + 0.6 * to_unit(draw_bits(u_seed, u_emitter, kStreamSecondary, key, 0u, base + kSplashSpeed)));
    precise float horizontal = cos(elevation) * speed;
    S_set_velocity(slot, vec3(cos(azimuth) * horizontal, sin(elevation) * speed, sin(azimuth) * horizontal));
    precise vec3 at = vec3(hit.x + to_signed(draw_bits(u_seed, u_emitter, kStreamSecondary, key, 0u, base + kSplashJitterX)) * u_splash_size, u_ground,
                           hit.z + to_signed(draw_bits(u_seed, u_emitter, kStreamSecondary, key, 0u, base + kSplashJitterZ)) * u_splash_size);
    S_set_position(slot, at);
    precise float size = u_splash_size * (0.7 + 0.6 * to_unit(draw_bits(u_seed, u_emitter, kStreamSecondary, key, 0u, base + kSplashSize)));
    S_set_size(slot, size);
  }
  atomicAdd(thrown, u_splash_count);
}

void step_particle(uint i) {
  DragStep motion = DragStep(u_gravity, u_drag, u_dt, u_e, u_relax, u_fall);
  vec3 start = P_position(i);
  vec3 p = start, v = P_velocity(i);
  if (!u_constant_motion) {
    vec3 air = u_wind;
    if (u_turbulence_strength > 0.0) { precise vec3 a = u_wind + turbulence_at_step(p); air = a; }
    drag_step(motion, p, v, air);
  } else {
    precise vec3 np = p + v * u_dt;
    p = np;
  }
  if (u_swaying) {
    precise float delta = u_sway_gain * cos(u_sway_mid + P_get_phase(i));
    precise float px = p.x + P_get_sway_x(i) * delta;
    precise float pz = p.z + P_get_sway_z(i) * delta;
    p.x = px; p.z = pz;
  }
  precise vec3 local = transpose(u_axes) * (p - u_center);
  bool below_ground = u_has_ground && p.y < u_ground;
  if (below_ground && u_splashing && start.y >= u_ground) {
    precise float f = (start.y - u_ground) / (start.y - p.y);
    precise vec3 hit = start + (p - start) * f;
    throw_splash(i, hit);
  }
  bool outside = abs(local.x) > u_half.x || abs(local.y) > u_half.y || abs(local.z) > u_half.z;
  if (u_respawn) {
    P_set_position(i, p);
    P_set_velocity(i, v);
    if (below_ground || outside) {
      P_set_generation(i, P_get_generation(i) + 1u);
      birth(i, true);
      atomicAdd(reborn, 1u);
    }
    return;
  }
  if (outside) local = vec3(wrap_axis(local.x, u_half.x), wrap_axis(local.y, u_half.y), wrap_axis(local.z, u_half.z));
  if (below_ground) local.y = reentry_height(u_ground - p.y, column_floor());
  if (outside || below_ground) { precise vec3 q = u_center + u_axes * local; p = q; }
  P_set_position(i, p);
  P_set_velocity(i, v);
}

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint n = gl_GlobalInvocationID.x; n < u_count; n += stride) {
    uint i = u_first + n;
    if (u_mode == 2) { step_particle(i); continue; }
    P_set_generation(i, 0u);
    P_set_age(i, 0.0);
    P_set_source(i, 0u);
    birth(i, u_mode == 1);
  }
}
)";
  return source;
}
}  // namespace

GpuPrecipitation::GpuPrecipitation(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                                   const Environment& environment, double fps, GpuKernels& kernels,
                                   ThreadPool& threads)
    : settings_(settings), params_(settings.precipitation()), emitter_index_(uint32_t(emitter_index)), wind_(wind),
      threads_(threads),
      exposure_(float(settings.precipitation().streak / fps)), kernels_(kernels),
      store_(size_t(settings.max_particles),
             GpuStore::max_page_capacity(PrecipitationSystem::splashes_per_drop(settings.precipitation(), environment))),
      kernel_(precipitation_source()), counters_(3) {
  if (environment.ground) ground_ = environment.ground->height;
  emission_rate_ = PrecipitationSystem::fill_rate(settings, environment.gravity);
  fall_speed_ = PrecipitationSystem::fall_speed(params_, environment.gravity);
  if (const size_t per_drop = PrecipitationSystem::splashes_per_drop(params_, environment)) {
    PoolRules rules;
    rules.lifetime = params_.splash->lifetime;
    // Drop i owns splash slots [i × per_drop, …): a drop page's splashes are one splash page.
    splash_.emplace(rules, effect_slots(settings, environment).pool_slots("splash"), store_.page_capacity * per_drop);
  }
}

void GpuPrecipitation::run(int mode, size_t first, size_t count, double t, const CameraPose& camera,
                           const StepContext* ctx, float top_layer) {
  if (count == 0) return;
  kernel_.bind(2, counters_.buffer());
  PrecipitationParamsBlock b;
  b.u_total_capacity = uint32_t(store_.capacity);
  b.u_mode = mode;
  b.u_seed = {uint32_t(settings_.seed), uint32_t(settings_.seed >> 32)};
  b.u_emitter = emitter_index_;
  const PrecipitationSystem::Frame frame = PrecipitationSystem::region_frame(params_, camera);
  b.u_center = frame.center;
  b.u_half = params_.region.size * 0.5f;
  b.u_axes = GpuMat3(frame.axes);
  b.u_has_ground = gpu_bool(ground_.has_value());
  b.u_ground = ground_.value_or(0.0f);
  b.u_constant_motion = gpu_bool(params_.motion == Motion::constant);
  b.u_velocity = params_.velocity;
  b.u_variation = params_.velocity_variation;
  b.u_size = settings_.size;
  b.u_size_variation = settings_.size_variation;
  static_assert(kSnowDiameterPerMelted == 2.7144, "the kernel's copy");
  if (const auto& s = params_.sizes)
    b.u_sizes = {s->lambda, s->d_min, s->d_max, s->kind == Precipitate::rain ? 1.0f : 2.0f};
  b.u_shapes = uint32_t(params_.shapes);
  b.u_birth_wind = wind_.uniform_part(t);
  b.u_top_layer = top_layer;
  kernels_.turbulence().bind(kernel_, wind_, ctx ? ctx->t0 : t, t, threads_);
  if (ctx) {  // the step's parameters (births leave them unused)
    const glm::vec3 gravity = ctx->gravity * params_.gravity_scale;
    const DragStep motion(gravity, params_.drag, ctx->dt);
    b.u_gravity = gravity;
    b.u_fall = motion.fall();
    b.u_wind = wind_.uniform_part(ctx->t0);
    b.u_drag = params_.drag;
    b.u_dt = ctx->dt;
    b.u_e = motion.e();
    b.u_relax = motion.relax();
    const double omega = 6.283185307179586 * params_.sway.frequency;
    b.u_swaying = gpu_bool(params_.sway.amplitude > 0 && params_.sway.frequency > 0);
    b.u_sway_gain = float(2.0 * params_.sway.amplitude * std::sin(omega * (ctx->t1 - ctx->t0) / 2));
    b.u_sway_mid = float(std::fmod(omega * (ctx->t0 + ctx->t1) / 2, 6.283185307179586));
    b.u_respawn = gpu_bool(params_.recycle == Recycle::respawn);
    b.u_splashing = gpu_bool(splash_.has_value() && ctx->ground.has_value());
    b.u_splash_count = splash_ ? uint32_t(params_.splash->count) : 0u;
    b.u_splash_speed = splash_ ? params_.splash->speed : 0.0f;
    b.u_splash_size = splash_ ? params_.splash->size : 0.0f;
    b.u_step = uint32_t(ctx->step);
  }
  kernel_.set_params(kPrecipitationParamsBinding, b);
  // Page by page: the part of [first, first + count) that lies in each.
  for (size_t page = 0; page < store_.page_count(); ++page) {
    const size_t base = page * store_.page_capacity, size = store_.page_size(page);
    const size_t from = std::max(first, base), to = std::min(first + count, base + size);
    if (from >= to) continue;
    store_.bind(kernel_, 'P', 0, page);
    if (splash_) splash_->store().bind(kernel_, 'S', 1, page);
    else store_.bind(kernel_, 'S', 1, page);
    kernel_.launch().u_first = uint32_t(from - base);
    kernel_.dispatch(to - from);
  }
}

void GpuPrecipitation::save(StateWriter& out) {
  collect_counts();
  if (splash_) splash_died_ += splash_->take_deaths();
  out.tag("GPRE");
  store_.save(out);
  out.value(uint64_t(live_));
  out.value(emission_carry_);
  out.value(spawned_);
  out.value(died_);
  out.value(splash_spawned_);
  out.value(splash_died_);
  out.value(uint8_t(splash_.has_value()));
  if (splash_) splash_->store().save(out);
}

void GpuPrecipitation::load(StateReader& in) {
  counters_.take();
  if (splash_) splash_->take_deaths();
  in.tag("GPRE");
  store_.load(in);
  live_ = in.count(store_.capacity);
  emission_carry_ = in.fraction("an emission carry");
  spawned_ = in.event_count();
  died_ = in.event_count();
  splash_spawned_ = in.event_count();
  splash_died_ = in.event_count();
  in.presence(splash_.has_value(), "splashes");
  if (splash_) splash_->store().load(in);
  previous_.forget();
  splash_previous_.forget();
}

void GpuPrecipitation::remember_positions() {
  kernels_.remember(store_, live_, false, previous_);
  if (splash_) kernels_.remember(splash_->store(), splash_->store().capacity, true, splash_previous_);
}

void GpuPrecipitation::begin(double t, const CameraPose& camera) {
  live_ = 0;
  previous_.forget();
  splash_previous_.forget();
  emission_carry_ = 0;
  if (!params_.prewarm) return;
  run(0, 0, store_.capacity, t, camera, nullptr, 0.0f);
  live_ = store_.capacity;
  spawned_ += int64_t(live_);
}

void GpuPrecipitation::end() {
  died_ += int64_t(live_);
  live_ = 0;
  if (splash_) splash_->clear();
}

void GpuPrecipitation::step(const StepContext& ctx) {
  if (splash_) splash_->step(ctx, wind_, kernels_.turbulence(), threads_);
  const float top_layer = float(fall_speed_ * ctx.dt);  // as PrecipitationSystem::step's
  run(2, 0, live_, ctx.t1, ctx.camera, &ctx, top_layer);
  if (live_ < store_.capacity) {
    emission_carry_ += emission_rate_ * ctx.dt;
    const size_t wanted = size_t(emission_carry_);
    emission_carry_ -= double(wanted);
    const size_t last = std::min(store_.capacity, live_ + wanted);
    run(1, live_, last - live_, ctx.t1, ctx.camera, nullptr, top_layer);
    spawned_ += int64_t(last - live_);
    live_ = last;
  }
}

void GpuPrecipitation::collect_counts() {
  const std::vector<uint32_t> counts = counters_.take();
  spawned_ += counts[0];
  died_ += counts[0];
  splash_spawned_ += counts[1];
  splash_died_ += counts[2];
}

void GpuPrecipitation::reset_counters() {
  collect_counts();
  if (splash_) splash_->take_deaths();
  spawned_ = died_ = splash_spawned_ = splash_died_ = 0;
}

void GpuPrecipitation::take_stats(FrameStats& out, bool active) {
  collect_counts();
  EmitterStats s = kernels_.stats(store_, live_, false);
  label(s, settings_.name, settings_.type_name(), active);
  s.spawned = spawned_;
  s.died = died_;
  out.emitters.push_back(std::move(s));
  if (splash_) {
    EmitterStats d = kernels_.stats(splash_->store(), splash_->store().capacity, true);
    label(d, settings_.name + ".splash", "splash", active);
    d.spawned = splash_spawned_;
    d.died = splash_died_ + splash_->take_deaths();
    splash_died_ = d.died;
    out.emitters.push_back(std::move(d));
  }
  reset_counters();
}

void GpuPrecipitation::hash_state(StateSink& hasher) const {
  store_.hash_into(hasher, live_);
  if (splash_) splash_->store().hash_into(hasher, splash_->store().capacity);
}

void GpuPrecipitation::add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out) {
  const PrecipitationSystem::Frame frame = PrecipitationSystem::region_frame(params_, camera);
  const float distance = glm::length(frame.center - camera.position);
  if (splash_) {
    SpriteBuild how;
    how.exposure = exposure_;
    how.eye_velocity = camera.velocity;
    how.only_live = true;
    how.lifetime = splash_->rules().lifetime;
    SpriteBatch droplets;
    droplets.emitter = emitter_index_;
    droplets.look = SpriteLook::secondary;
    droplets.distance = distance;
    kernels_.add_sprite_batches(splash_->store(), splash_->store().capacity, how, splash_sprites_, droplets, out,
                                {&splash_previous_});
  }
  SpriteBuild how;
  how.exposure = exposure_;
  how.eye_velocity = camera.velocity;
  how.spin_with_phase = exposure_ <= 0;
  const glm::vec3 forward = camera.forward();
  const float reach = frame.reach(forward, params_.region.size * 0.5f);
  how.exp_depth = params_.depth_scale == DepthScale::exp && reach > 0;
  how.region_center = frame.center;
  how.forward = forward;
  how.reach = reach;
  how.depth_k = params_.depth_k;
  SpriteBatch batch;
  batch.emitter = emitter_index_;
  batch.distance = distance;
  kernels_.add_sprite_batches(store_, live_, how, sprites_, batch, out,
                              {&previous_, PrecipitationSystem::wrap_box(params_, camera, ground_)});
}

}  // namespace fxsim
