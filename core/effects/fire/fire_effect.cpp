// Fire as an effect type: its keys, slots, CPU system and textures.
#include <fmt/format.h>

#include "core/effects/fire/fire.h"
#include "core/particle_images.h"
#include "core/scene.h"
#include "core/scene_reader.h"
#include "core/value_ranges.h"

namespace fxsim {

void Effect<FireParams>::parse(ObjectReader& r, EmitterSettings&, FireParams& f, const ParseContext&) {
  f.position = r.vector("position", f.position, kCoordinate);
  const Json metres = Json{{"type", "number"}, {"minimum", kExtent.lo}, {"maximum", kExtent.hi}};
  r.accepts("size", metres);
  r.accepts("size", Json{{"type", "array"}, {"items", metres}, {"minItems", 2}, {"maxItems", 2}});
  if (const Json* size = r.raw("size")) {
    const auto side = [](const Json& v) { return v.is_number() && kExtent.contains(v.get<double>()); };
    if (side(*size)) {
      f.size = glm::vec2(size->get<float>());
    } else if (size->is_array() && size->size() == 2 && side((*size)[0]) && side((*size)[1])) {
      f.size = {(*size)[0].get<float>(), (*size)[1].get<float>()};
    } else {
      r.error(r.child("size"), "expected [width, height] in metres, each " + kExtent.text() + ", " + describe_json(*size));
    }
  }
  r.accepts("grid", Json{{"type", "array"},
                         {"prefixItems", {Json{{"type", "integer"}, {"minimum", 2}, {"maximum", 1024}},
                                          Json{{"type", "integer"}, {"minimum", 3}, {"maximum", 1024}}}},
                         {"minItems", 2}, {"maxItems", 2}});
  if (const Json* grid = r.raw("grid")) {
    const bool ok = grid->is_array() && grid->size() == 2 && (*grid)[0].is_number_integer() &&
                    (*grid)[1].is_number_integer() && (*grid)[0].get<int64_t>() >= 2 &&
                    (*grid)[0].get<int64_t>() <= 1024 && (*grid)[1].get<int64_t>() >= 3 &&
                    (*grid)[1].get<int64_t>() <= 1024;
    if (ok) {
      f.rows = (*grid)[0].get<int>();
      f.columns = (*grid)[1].get<int>();
    } else {
      r.error(r.child("grid"), "expected [rows, columns] with rows in 2..1024 and columns in 3..1024, " +
                                   describe_json(*grid));
    }
  }
  // The truncating mean loses up to a unit a row, so MAX sets how far a
  // flame rises: under 16 none shows (1..15 gave a black fire, exit 0).
  f.max_intensity = float(r.number("max_intensity", f.max_intensity, Range{16, 1e6}));
  f.seed_fraction = float(r.number("seed_fraction", f.seed_fraction, kUnit));
  f.update_rate = r.number("update_rate", f.update_rate, Range{1e-3, 1000});
  f.embers = r.number("embers", f.embers, kRate);
}

SlotPlan Effect<FireParams>::slots(const EmitterSettings& e, const Environment&) {
  // The grid has no particles; its embers are a pool (of at least one slot).
  return {0, {{"embers", size_t(std::max<int64_t>(1, e.max_particles))}}};
}

std::unique_ptr<ParticleSystem> Effect<FireParams>::make_cpu(const Scene& scene, size_t index, const WindField& wind,
                                                             ThreadPool& threads) {
  return std::make_unique<FireSystem>(scene.emitters[index], index, wind, cpu_pool_maker(threads));
}

namespace {
constexpr int kEmberTexels = 8;
}  // namespace

std::vector<Image> Effect<FireParams>::looks(const EmitterSettings&, SpriteLook) {
  return {droplet_image(kEmberTexels)};  // embers; the flame is the grid, drawn from a texture made each frame
}

size_t Effect<FireParams>::procedural_look_bytes(const EmitterSettings&) {
  return 2 * size_t(kEmberTexels) * kEmberTexels * 4;  // both looks
}

}  // namespace fxsim
