#include "core/state_archive.h"
#include "core/effects/fire/fire.h"
#include "core/effects/fire/flame_texture.h"

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>

#include "core/rng.h"
#include "core/scalar_math.h"
#include "core/value_ranges.h"

namespace fxsim {

FireGrid::FireGrid(int rows, int columns, float seed_fraction)
    : rows_(rows), columns_(columns), cells_(size_t(rows) * size_t(columns), 0.0f) {
  const int seeded = std::clamp(int(std::lround(seed_fraction * float(columns))), 0, columns);
  first_seed_ = (columns - seeded) / 2;
  last_seed_ = first_seed_ + seeded;
}

float flame_mask(float u, float v) {
  const float width = 0.5f * (1.0f - 0.8f * std::pow(std::clamp(v, 0.0f, 1.0f), 1.3f));  // narrows upward
  const float side = std::clamp((width - std::fabs(u - 0.5f)) / (0.35f * width + 1e-3f), 0.0f, 1.0f);
  const float top = std::clamp((1.0f - v) / 0.3f, 0.0f, 1.0f);
  return side * side * (3.0f - 2.0f * side) * top * top * (3.0f - 2.0f * top);
}

glm::vec4 fire_color(float intensity, float max_intensity) {
  const float x = std::clamp(intensity / max_intensity, 0.0f, 1.0f);
  glm::vec3 rgb;
  if (x < 1.0f / 3.0f) rgb = {x * 3.0f, 0, 0};                                    // dark → red
  else if (x < 2.0f / 3.0f) rgb = {1, (x - 1.0f / 3.0f) * 3.0f, 0};                // red → yellow
  else rgb = {1, 1, (x - 2.0f / 3.0f) * 3.0f};                                     // yellow → white
  return {rgb, std::min(1.0f, x * 1.5f)};
}

namespace {

PoolRules ember_rules() {
  PoolRules rules;
  rules.lifetime = 1.6f;
  rules.drag = 1.5f;             // carried by the wind
  rules.gravity_scale = -0.25f;  // hot air lifts them
  return rules;
}
}  // namespace

FireSystem::FireSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                       const PoolMaker& make_pool)
    : settings_(settings), fire_(settings.as<FireParams>()), emitter_index_(uint32_t(emitter_index)), wind_(wind),
      grid_(fire_.rows, fire_.columns, fire_.seed_fraction),
      embers_(make_pool(ember_rules(), Effect<FireParams>::slots(settings, {}).pool_slots("embers"))) {}

void FireSystem::save(StateWriter& out) {
  out.tag("FIRE");
  out.vector(grid_.cells());
  out.value(start_);
  out.value(updates_);
  out.value(embers_thrown_);
  out.value(prewarm_updates_);
  out.value(now_);
  embers_->save(out);
}

void FireSystem::load(StateReader& in) {
  in.tag("FIRE");
  std::vector<float> cells;
  in.vector(cells, grid_.cells().size());
  grid_.set_cells(std::move(cells));
  in.value(start_);
  in.require(kTime.contains(start_), "a start time " + kTime.text());
  in.value(updates_);
  in.value(embers_thrown_);
  in.value(prewarm_updates_);
  in.value(now_);
  in.require(kTime.contains(now_) && now_ >= start_, "a time " + kTime.text() + ", not before the start");
  embers_->load(in);
  remembered_ = false;
}

void FireSystem::remember_positions() {
  remembered_ = true;
  embers_->remember_positions();
}

void FireSystem::begin(double t, const CameraPose&) {
  start_ = now_ = t;
  remembered_ = false;
  embers_->forget_positions();
  updates_ = 0;
  embers_thrown_ = 0;
  grid_ = FireGrid(fire_.rows, fire_.columns, fire_.seed_fraction);
  // A fire appears burning: the grid has already run long enough for the heat
  // to climb its whole height (two updates per row), keyed like any other update.
  for (int k = 0; k < 2 * fire_.rows; ++k) update_grid(uint64_t(k));
  prewarm_updates_ = uint64_t(2 * fire_.rows);
}

void FireSystem::update_grid(uint64_t number) {
  RandomDraws r(settings_.seed, emitter_index_, Stream::grid, number);
  grid_.update([&](int column) { return std::floor(r.unit(uint32_t(column)) * (fire_.max_intensity + 1.0f)); });
}

void FireSystem::end() { embers_->clear(); }

void FireSystem::reset_counters() { embers_->reset_counters(); }

void FireSystem::throw_ember(const StepContext& ctx) {
  // The hottest of four cells drawn from the lower half of the grid.
  RandomDraws r(settings_.seed, emitter_index_, Stream::secondary, embers_->next_spawn_index());
  int best_row = grid_.rows() - 1, best_column = grid_.columns() / 2;
  float best = -1;
  for (uint32_t k = 0; k < 4; ++k) {
    const int lower = grid_.rows() / 2, span = grid_.rows() - lower;
    const int row = lower + std::min(int(r.unit(2 * k) * float(span)), span - 1);
    const int column = std::min(int(r.unit(2 * k + 1) * float(grid_.columns())), grid_.columns() - 1);
    if (grid_.at(row, column) > best) best = grid_.at(row, column), best_row = row, best_column = column;
  }
  // The cell's place on the plane, turned like an axial billboard towards the camera.
  glm::vec3 facing = ctx.camera.position - fire_.position;
  facing.y = 0;
  const glm::vec3 right = glm::length(facing) > 1e-6f ? glm::normalize(glm::cross(glm::vec3(0, 1, 0), facing))
                                                       : glm::vec3(1, 0, 0);
  const float u = (float(best_column) + 0.5f) / float(grid_.columns()) - 0.5f;
  const float v = 1.0f - (float(best_row) + 0.5f) / float(grid_.rows());
  const size_t slot = embers_->add();
  auto& e = embers_->store();
  e.set_position(slot, fire_.position + right * (u * fire_.size.x) + glm::vec3(0, v * fire_.size.y, 0));
  const float angle = r.unit(8) * kTwoPi, spread = 0.4f * r.unit(9);
  e.set_velocity(slot, {std::cos(angle) * spread, 1.2f + 1.8f * r.unit(10), std::sin(angle) * spread});
  e.size[slot] = settings_.size * (0.6f + 0.8f * r.unit(11));
}

void FireSystem::step(const StepContext& ctx) {
  embers_->step(ctx, wind_);
  now_ = ctx.t1;
  const double elapsed = std::max(0.0, ctx.t1 - start_ + 1e-9);  // (never negative, even from a hand-made checkpoint)
  const uint64_t due = uint64_t(std::floor(fire_.update_rate * elapsed));
  for (; updates_ < due; ++updates_) update_grid(prewarm_updates_ + updates_);
  const uint64_t embers_due = uint64_t(std::floor(fire_.embers * elapsed));
  // Only the newest `capacity` of a step's embers live to be seen: the rest
  // are skipped, not thrown one by one (10^9 a second took 28 s for 6 frames).
  const uint64_t capacity = embers_->store().capacity();
  if (embers_due > embers_thrown_ && embers_due - embers_thrown_ > capacity) {
    const uint64_t replaced = embers_due - embers_thrown_ - capacity;
    embers_->skip(replaced);
    embers_thrown_ += replaced;
  }
  for (; embers_thrown_ < embers_due; ++embers_thrown_) throw_ember(ctx);
}

void FireSystem::take_stats(FrameStats& out, bool active) {
  EmitterStats fire;  // no particles: live 0, just whether it is shown
  label(fire, settings_.name, "fire", active);
  out.emitters.push_back(fire);
  if (fire_.embers > 0) {
    EmitterStats e = embers_->stats();
    label(e, settings_.name + ".embers", "embers", active);
    out.emitters.push_back(std::move(e));
  }
  reset_counters();
}

void FireSystem::hash_state(StateSink& hasher) const {
  hasher.add(grid_.cells().data(), grid_.cells().size() * sizeof(float));
  hasher.add(&updates_, sizeof updates_);
  if (fire_.embers > 0) embers_->hash_into(hasher);
}

void FireSystem::add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out) {
  const float distance = glm::length(fire_.position + glm::vec3(0, fire_.size.y * 0.5f, 0) - camera.position);
  if (fire_.embers > 0) {
    SpriteBatch sparks;
    sparks.emitter = emitter_index_;
    sparks.look = SpriteLook::secondary;
    sparks.distance = distance;
    sparks.tint = Color{{1.0f, 0.62f, 0.25f, 1.0f}};
    sparks.blend = BlendMode::additive;
    embers_->add_sprites(sparks, 1.0f / 48.0f, camera.velocity);
    out.push_back(std::move(sparks));
  }
  // The grid drawn as a flame (flame_texture.h), moving with the time since it began.
  RandomDraws noise(settings_.seed, emitter_index_, Stream::texture, 0);
  FlameTexture flame = flame_texture(grid_, fire_, now_ - start_, noise.bits(0));
  SpriteBatch plane;
  plane.emitter = emitter_index_;
  plane.distance = distance;
  plane.dynamic_texture = std::make_shared<std::vector<uint8_t>>(std::move(flame.texels));
  plane.dynamic_width = flame.width;
  plane.dynamic_height = flame.height;
  SpriteInstance quad{fire_.position, fire_.size.x, glm::vec3(0), 1.0f, 0.0f, 0.0f};
  quad.aspect = fire_.size.y / fire_.size.x;
  quad.anchor_bottom = 1;
  plane.sprites.push_back(quad);
  if (remembered_) plane.previous.push_back(glm::vec4(fire_.position, 1.0f));
  out.push_back(std::move(plane));
}

}  // namespace fxsim
