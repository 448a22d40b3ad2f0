#include "core/state_archive.h"
#include "core/effects/explosion/explosion.h"

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>

#include "core/rng.h"
#include "core/scalar_math.h"

namespace fxsim {

namespace {

PoolRules debris_rules(double duration) {
  PoolRules rules;
  rules.lifetime = float(std::max(0.5, duration));
  rules.drag = 1.5f;
  rules.gravity_scale = 1;
  return rules;
}
}  // namespace

ExplosionSystem::ExplosionSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                                 const PoolMaker& make_pool)
    : settings_(settings), explosion_(settings.as<ExplosionParams>()), emitter_index_(uint32_t(emitter_index)), wind_(wind),
      debris_(make_pool(debris_rules(settings.duration.value_or(ExplosionParams::default_duration)),
                        Effect<ExplosionParams>::slots(settings, {}).pool_slots("debris"))) {}

float ExplosionSystem::diameter(float progress, float scale) {
  // Fast at first, slowing as it reaches full size.
  const float p = std::clamp(progress, 0.0f, 1.0f);
  return scale * (1.0f - (1.0f - p) * (1.0f - p) * (1.0f - p));
}

float ExplosionSystem::opacity(float progress) {
  const float p = std::clamp(progress, 0.0f, 1.0f);
  return 1.0f - p * p;
}

float ExplosionSystem::progress() const {
  const double duration = settings_.duration.value_or(ExplosionParams::default_duration);
  return float(std::clamp((now_ - start_) / duration, 0.0, 1.0));
}

void ExplosionSystem::save(StateWriter& out) {
  out.tag("EXPL");
  out.value(start_);
  out.value(now_);
  debris_->save(out);
}

void ExplosionSystem::load(StateReader& in) {
  in.tag("EXPL");
  in.value(start_);
  in.value(now_);
  debris_->load(in);
  remembered_ = false;
}

void ExplosionSystem::remember_positions() {
  remembered_ = true;
  debris_->remember_positions();
}

void ExplosionSystem::begin(double t, const CameraPose&) {
  start_ = now_ = t;
  remembered_ = false;
  debris_->clear();
  debris_->forget_positions();
  // Sparks out in every direction, most of them upward, at 1..2.5 × scale m/s.
  for (int k = 0; k < explosion_.debris; ++k) {
    RandomDraws r(settings_.seed, emitter_index_, Stream::secondary, debris_->next_spawn_index());
    const size_t slot = debris_->add();
    const float z = 2.0f * r.unit(0) - 1.0f, around = r.unit(1) * kTwoPi;
    const float ring = std::sqrt(std::max(0.0f, 1.0f - z * z));
    glm::vec3 dir{ring * std::cos(around), z, ring * std::sin(around)};
    dir.y = std::fabs(dir.y) * 0.8f + 0.2f;
    const float speed = explosion_.scale * (1.0f + 1.5f * r.unit(2));
    auto& d = debris_->store();
    d.set_position(slot, explosion_.position + glm::normalize(dir) * (explosion_.scale * 0.1f));
    d.set_velocity(slot, glm::normalize(dir) * speed);
    d.size[slot] = settings_.size * (0.6f + 0.8f * r.unit(3));
  }
}

void ExplosionSystem::end() { debris_->clear(); }

void ExplosionSystem::step(const StepContext& ctx) {
  now_ = ctx.t1;
  debris_->step(ctx, wind_);
}

void ExplosionSystem::reset_counters() { debris_->reset_counters(); }

void ExplosionSystem::take_stats(FrameStats& out, bool active) {
  EmitterStats ball;
  label(ball, settings_.name, "explosion", active);
  out.emitters.push_back(ball);
  if (explosion_.debris > 0) {
    EmitterStats d = debris_->stats();
    label(d, settings_.name + ".debris", "debris", active);
    out.emitters.push_back(std::move(d));
  }
  reset_counters();
}

void ExplosionSystem::hash_state(StateSink& hasher) const {
  hasher.add(&now_, sizeof now_);
  if (explosion_.debris > 0) debris_->hash_into(hasher);
}

void ExplosionSystem::add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out) {
  const float distance = glm::length(explosion_.position - camera.position);
  const float p = progress();
  SpriteBatch ball;
  ball.emitter = emitter_index_;
  ball.distance = distance;
  const int frames = explosion_.texture ? explosion_.flipbook_rows * explosion_.flipbook_columns : kFireballFrames;
  const float layer = std::min(float(frames - 1), std::floor(p * float(frames)));
  ball.sprites.push_back({explosion_.position, diameter(p, explosion_.scale), glm::vec3(0), opacity(p), layer, 0.0f});
  if (remembered_) ball.previous.push_back(glm::vec4(explosion_.position, 1.0f));
  if (explosion_.debris > 0) {
    SpriteBatch sparks;
    sparks.emitter = emitter_index_;
    sparks.look = SpriteLook::secondary;
    sparks.distance = distance;
    sparks.tint = Color{{1.0f, 0.7f, 0.3f, 1.0f}};
    sparks.blend = BlendMode::additive;
    debris_->add_sprites(sparks, 1.0f / 48.0f, camera.velocity);
    out.push_back(std::move(sparks));
  }
  out.push_back(std::move(ball));
}

}  // namespace fxsim
