#include "core/state_archive.h"
#include "core/effects/fountain/fountain.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

#include "core/effects/fountain/fountain_draws.h"
#include "core/motion.h"
#include "core/rng.h"
#include "core/scalar_math.h"
#include "core/rng_batch.h"
#include "core/wind.h"

namespace fxsim {

void perpendiculars(glm::vec3 d, glm::vec3& a, glm::vec3& b) {
  a = glm::normalize(std::fabs(d.y) < 0.9f ? glm::cross(d, glm::vec3(0, 1, 0)) : glm::cross(d, glm::vec3(1, 0, 0)));
  b = glm::cross(d, a);
}

std::vector<Burst> plan_emission(const std::vector<Nozzle>& nozzles, int64_t steps_done, double steps_per_second,
                                 uint64_t emitted) {
  std::vector<Burst> bursts;
  for (size_t k = 0; k < nozzles.size(); ++k) {
    const double rate = nozzles[k].rate;
    const uint64_t before = FountainSystem::emitted_by(rate, steps_done, steps_per_second);
    const uint64_t after = FountainSystem::emitted_by(rate, steps_done + 1, steps_per_second);
    if (after > before) {
      bursts.push_back({uint32_t(k), before, emitted, after - before});
      emitted += after - before;
    }
  }
  return bursts;
}

uint64_t FountainSystem::emitted_by(double rate, int64_t steps, double steps_per_second) {
  return uint64_t(std::floor(rate * double(steps) / steps_per_second));
}

FountainSystem::FountainSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                               const OutputSettings& output, ThreadPool& threads)
    : settings_(settings), fountain_(settings.as<FountainParams>()), emitter_index_(uint32_t(emitter_index)), wind_(wind),
      threads_(threads),
      steps_per_second_(output.fps * output.substeps), exposure_(float(fountain_.shutter / output.fps)),
      store_(size_t(settings.max_particles)) {
  std::fill(store_.age.begin(), store_.age.end(), -1.0f);
  if (fountain_.mist) {
    const Mist& m = *fountain_.mist;
    PoolRules rules;
    rules.lifetime = m.lifetime;
    rules.drag = m.drag;
    rules.gravity_scale = kMistGravityScale;
    rules.grown_size = m.size;
    rules.fade_in = std::min(0.3f, m.lifetime * 0.2f);
    // A drop turns into the mist of its own slot: no ordering between drops is
    // needed, the same on any thread count, on the CPU or the GPU.
    mist_.emplace(rules, store_.capacity(), threads_);
  }
}

void FountainSystem::begin(double t, const CameraPose&) {
  // The step count is set by the first step; t is a step boundary.
  first_step_ = -1;
  (void)t;
  emitted_ = 0;
  previous_.forget();
  if (mist_) mist_->forget_positions();
}

void FountainSystem::save(StateWriter& out) {
  out.tag("FOUN");
  out.store(store_);
  out.value(first_step_);
  out.value(emitted_);
  out.value(spawned_);
  out.value(died_);
  out.value(uint8_t(mist_.has_value()));
  if (mist_) mist_->save(out);
}

void FountainSystem::check_sources(const ParticleStore& drops, size_t nozzles, StateReader& in) {
  for (size_t i = 0; i < drops.capacity(); ++i)
    if (!(drops.age[i] < 0)) in.require(drops.source[i] < nozzles, "drops of the scene's nozzles");
}

void FountainSystem::load(StateReader& in) {
  in.tag("FOUN");
  in.store(store_);
  check_sources(store_, fountain_.nozzles.size(), in);
  first_step_ = in.step_or_none("a first step");
  in.value(emitted_);
  spawned_ = in.event_count();
  died_ = in.event_count();
  in.presence(mist_.has_value(), "mist");
  if (mist_) mist_->load(in);
  previous_.forget();
}

void FountainSystem::remember_positions() {
  previous_.remember(store_, store_.capacity(), true, threads_);
  if (mist_) mist_->remember_positions();
}

void FountainSystem::end() {
  for (float& age : store_.age) {
    if (age >= 0) ++died_;
    age = -1;
  }
  if (mist_) mist_->clear();
}

void FountainSystem::reset_counters() {
  spawned_ = died_ = 0;
  if (mist_) mist_->reset_counters();
}

void FountainSystem::step(const StepContext& ctx) {
  if (first_step_ < 0) first_step_ = ctx.step;
  if (mist_) mist_->step(ctx, wind_);

  const AgingStep aging(ctx, wind_, drop_rules(fountain_), &threads_);
  std::vector<float> chance_of_mist(fountain_.nozzles.size(), 0.0f);
  bool misting = false;  // whether any drop may turn into mist this step
  for (size_t k = 0; k < chance_of_mist.size(); ++k) {
    chance_of_mist[k] = FountainSystem::mist_chance(fountain_, fountain_.nozzles[k], ctx.dt);
    misting |= chance_of_mist[k] > 0;
  }
  std::vector<int64_t> deaths(chunk_count(store_.capacity()), 0), misted(deaths.size(), 0), replaced(deaths.size(), 0);
  for_chunks(threads_, store_.capacity(), [&](size_t begin, size_t end, size_t chunk) {
    std::array<AgingStep::Result, kChunk> results;
    aging.run(store_, begin, end, results.data());
    // One draw per drop and step, keyed by the drop and the step number (made
    // for every slot, eight at a time: cheaper than picking the live ones).
    std::array<float, kChunk> draw;
    if (misting) {
      std::array<uint64_t, kChunk> index;
      for (size_t i = begin; i < end; ++i) index[i - begin] = store_.spawn_index(i);
      unit_draws(settings_.seed, emitter_index_, Stream::transition, index.data(), uint32_t(ctx.step), draw.data(),
                 end - begin);
    }
    for (size_t i = begin; i < end; ++i) {
      const AgingStep::Result result = results[i - begin];
      deaths[chunk] += result == AgingStep::died;
      if (result != AgingStep::lives) continue;
      const float chance = chance_of_mist[store_.source[i]];
      if (misting && chance > 0) {
        if (draw[i - begin] < chance) {
          store_.age[i] = -1;
          ++deaths[chunk];
          ++misted[chunk];
          replaced[chunk] += turn_into_mist(i);
        }
      }
    }
  });
  for (size_t c = 0; c < deaths.size(); ++c) {
    died_ += deaths[c];
    if (mist_) mist_->count(misted[c], replaced[c]);
  }
  emit(ctx);
}

float FountainSystem::mist_chance(const FountainParams& fountain, const Nozzle& nozzle, float dt) {
  if (!fountain.mist) return 0;
  const float s = nozzle.speed / 8.0f;
  return fountain.mist->probability * s * s * dt;
}

bool FountainSystem::turn_into_mist(size_t i) {
  auto& m = mist_->store();
  const bool replaced = mist_->place(i);
  m.generation[i] = store_.generation[i];
  m.set_position(i, store_.position(i));
  m.set_velocity(i, store_.velocity(i));
  m.size[i] = store_.size[i];
  RandomDraws r(settings_.seed, emitter_index_, Stream::secondary, store_.spawn_index(i));
  m.phase[i] = r.unit(kMistSpin) * kTwoPi;
  return replaced;
}

void FountainSystem::emit(const StepContext& ctx) {
  const std::vector<Burst> bursts = plan_emission(fountain_.nozzles, ctx.step - first_step_, steps_per_second_, emitted_);
  uint64_t total = 0;
  for (const Burst& b : bursts) total += b.count;
  if (total == 0 || store_.capacity() == 0) {
    emitted_ += total;
    spawned_ += int64_t(total);
    died_ += int64_t(total);  // no slots at all: every drop is gone at once
    return;
  }
  // More drops than slots in one step: only the newest `capacity` can live.
  const uint64_t capacity = store_.capacity();
  const uint64_t skipped = total > capacity ? total - capacity : 0;
  std::vector<uint64_t> starts;  // where each burst begins among this step's drops
  uint64_t running = 0;
  for (const Burst& b : bursts) {
    starts.push_back(running);
    running += b.count;
  }
  const glm::vec3 gravity = ctx.gravity * fountain_.gravity_scale;
  const glm::vec3 uniform_wind = wind_.uniform_part(ctx.t0);
  const double start_time = double(first_step_) / steps_per_second_;
  std::vector<int64_t> replaced(chunk_count(total - skipped), 0);
  for_chunks(threads_, total - skipped, [&](size_t begin, size_t end, size_t chunk) {
    for (size_t n = begin; n < end; ++n) {
      const uint64_t offset = skipped + n;  // position among this step's drops
      const size_t b = size_t(std::upper_bound(starts.begin(), starts.end(), offset) - starts.begin()) - 1;
      const Burst& burst = bursts[b];
      const Nozzle& nozzle = fountain_.nozzles[burst.nozzle];
      const uint64_t j = burst.first_of_nozzle + (offset - starts[b]);
      const uint64_t spawn = burst.first_spawn + (offset - starts[b]);
      const size_t slot = size_t(spawn % capacity);
      if (store_.age[slot] >= 0) ++replaced[chunk];  // the ring is full: the oldest drop goes
      store_.generation[slot] = uint32_t(spawn / capacity);
      RandomDraws r(settings_.seed, emitter_index_, Stream::birth, spawn);
      // Direction: uniform in the cone of half-angle `spread` about the nozzle's axis.
      glm::vec3 a, c;
      perpendiculars(nozzle.direction, a, c);
      const float cos_max = std::cos(glm::radians(nozzle.spread));
      const float cos_t = 1.0f - r.unit(kDropConeCos) * (1.0f - cos_max);
      const float sin_t = std::sqrt(std::max(0.0f, 1.0f - cos_t * cos_t));
      const float around = r.unit(kDropConeAngle) * kTwoPi;
      const glm::vec3 dir = nozzle.direction * cos_t + (a * std::cos(around) + c * std::sin(around)) * sin_t;
      // Position: uniform over the jet's cross-section.
      const float radius = nozzle.radius * std::sqrt(r.unit(kDropDiscRadius));
      const float angle = r.unit(kDropDiscAngle) * kTwoPi;
      const glm::vec3 p0 = nozzle.position + (a * std::cos(angle) + c * std::sin(angle)) * radius;
      // Born at the instant its count was reached, then stepped to the end of this step.
      const double born = start_time + double(j + 1) / nozzle.rate;
      const float remaining = float(std::clamp(ctx.t1 - born, 0.0, double(ctx.dt)));
      const float speed = nozzle.speed * (1.0f + nozzle.speed_variation * r.signed_unit(kDropSpeed));
      const MotionStep first = DragStep(gravity, fountain_.drag, remaining)(p0, dir * speed, uniform_wind);
      store_.set_position(slot, first.position);
      store_.set_velocity(slot, first.velocity);
      store_.age[slot] = remaining;
      store_.size[slot] = settings_.size * (1.0f + settings_.size_variation * r.signed_unit(kDropSize));
      store_.source[slot] = burst.nozzle;
      store_.shape[slot] = 0;
      store_.phase[slot] = 0;
    }
  });
  for (int64_t n : replaced) died_ += n;
  emitted_ += total;
  spawned_ += int64_t(total);
  died_ += int64_t(skipped);
}

void FountainSystem::take_stats(FrameStats& out, bool active) {
  EmitterStats s = particle_stats_of_live_slots(store_, threads_);
  label(s, settings_.name, settings_.type_name(), active);
  s.spawned = spawned_;
  s.died = died_;
  out.emitters.push_back(std::move(s));
  if (mist_) {
    EmitterStats m = mist_->stats();
    label(m, settings_.name + ".mist", "mist", active);
    out.emitters.push_back(std::move(m));
  }
  reset_counters();
}

void FountainSystem::hash_state(StateSink& hasher) const {
  hasher.add_store(store_, store_.capacity());
  if (mist_) hasher.add_store(mist_->store(), mist_->store().capacity());
}

void FountainSystem::add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out) {
  glm::vec3 center(0);
  for (const Nozzle& n : fountain_.nozzles) center += n.position;
  center /= float(std::max<size_t>(1, fountain_.nozzles.size()));
  const float distance = glm::length(center - camera.position);
  if (mist_) {
    SpriteBatch mist;
    mist.emitter = emitter_index_;
    mist.look = SpriteLook::secondary;
    mist.opacity = fountain_.mist->opacity;
    mist.distance = distance;
    mist_->add_sprites(mist, 0.0f, camera.velocity);
    out.push_back(std::move(mist));
  }
  SpriteBatch drops;
  drops.emitter = emitter_index_;
  drops.distance = distance;
  // Slot order, skipping empty slots: count per chunk, then fill in place.
  const size_t n = store_.capacity();
  std::vector<size_t> counts(chunk_count(n), 0);
  for_chunks(threads_, n, [&](size_t begin, size_t end, size_t chunk) {
    for (size_t i = begin; i < end; ++i) counts[chunk] += store_.age[i] >= 0;
  });
  std::vector<size_t> offsets(counts.size() + 1, 0);
  for (size_t c = 0; c < counts.size(); ++c) offsets[c + 1] = offsets[c] + counts[c];
  drops.sprites.resize(offsets.back());
  if (previous_.remembered()) drops.previous.resize(offsets.back());
  for_chunks(threads_, n, [&](size_t begin, size_t end, size_t chunk) {
    size_t at = offsets[chunk];
    for (size_t i = begin; i < end; ++i) {
      if (store_.age[i] < 0) continue;
      // Small, bright, slightly stretched along half a frame of travel.
      if (previous_.remembered()) drops.previous[at] = previous_.of(store_, i);
      drops.sprites[at++] = {store_.position(i), store_.size[i], (store_.velocity(i) - camera.velocity) * exposure_,
                             1.0f, 0.0f, 0.0f};
    }
  });
  out.push_back(std::move(drops));
}

}  // namespace fxsim
