// Fountains as an effect type: their keys, slots, CPU system and textures.
#include <cmath>
#include <fmt/format.h>
#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

#include "core/effects/fountain/fountain.h"
#include "core/particle_images.h"
#include "core/scalar_math.h"
#include "core/scene.h"
#include "core/scene_reader.h"
#include "core/value_ranges.h"

namespace fxsim {

void Effect<FountainParams>::parse(ObjectReader& r, EmitterSettings&, FountainParams& f, const ParseContext&) {
  const auto unit_direction = [](glm::vec3 v) { return glm::length(v) > 1e-3f; };
  const auto read_jet = [&](ObjectReader& n, Nozzle& nozzle) {
    nozzle.speed = float(n.number("speed", nozzle.speed, kSpeed));
    nozzle.speed_variation = float(n.number("speed_variation", nozzle.speed_variation, kUnit));
    nozzle.spread = float(n.number("spread", nozzle.spread, Range{0, 90}));
    nozzle.rate = n.number("rate", nozzle.rate, kRate);
  };
  r.accepts("nozzles", Json{{"type", "array"}, {"minItems", 1}});
  if (const Json* list = r.array("nozzles")) {
    if (list->empty()) r.error(r.child("nozzles"), "expected at least one nozzle, got an empty array");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string pointer = fmt::format("{}/{}", r.child("nozzles"), i);
      if (!(*list)[i].is_object()) {
        r.error(pointer, "expected a nozzle { \"position\": v, \"direction\": v, \"speed\": … }, " +
                             describe_json((*list)[i]));
        continue;
      }
      ObjectReader n(&(*list)[i], pointer, r.diagnostics());
      Nozzle nozzle;
      nozzle.position = n.vector("position", nozzle.position, kCoordinate);
      nozzle.direction =
          glm::normalize(n.vector("direction", nozzle.direction, kCoordinate, "of length > 0.001", unit_direction));
      read_jet(n, nozzle);
      nozzle.radius = float(n.number("radius", nozzle.radius, kRadius));
      n.finish();
      f.nozzles.push_back(nozzle);
    }
  }
  if (const Json* ring = r.object("ring")) {
    ObjectReader g(ring, r.child("ring"), r.diagnostics());
    const int count = int(g.integer("count", 8, IntRange{1, 1024}));
    const float radius = float(g.number("radius", 1.0, Range{0, 1e6}));
    const glm::vec3 center = g.vector("center", glm::vec3(0), kCoordinate);
    const float tilt = float(g.number("tilt", 0.0, Range{-90, 90}));
    Nozzle jet;
    read_jet(g, jet);
    g.finish();
    const float tilt_rad = glm::radians(tilt);
    for (int k = 0; k < count; ++k) {
      const float around = kTwoPi * float(k) / float(count);
      const glm::vec3 outward{std::cos(around), 0.0f, std::sin(around)};
      Nozzle nozzle = jet;
      nozzle.position = center + outward * radius;
      nozzle.direction = glm::normalize(glm::vec3(0, std::cos(tilt_rad), 0) + outward * std::sin(tilt_rad));
      f.nozzles.push_back(nozzle);
    }
  }
  if (!r.present("nozzles") && !r.present("ring"))
    r.error(r.child("nozzles"), "missing required key: expected a list of nozzles (or a \"ring\" of them)");
  f.drag = float(r.drag("drag", f.drag));
  f.gravity_scale = float(r.number("gravity_scale", f.gravity_scale, kScale));
  r.accepts("mist", Json{{"type", "null"}});
  if (const Json* mist = r.raw("mist"); mist && mist->is_null()) {
    f.mist.reset();
  } else if (const Json* m = r.object("mist")) {
    ObjectReader g(m, r.child("mist"), r.diagnostics());
    Mist value;
    value.probability = float(g.number("probability", value.probability, Range{0, 1e6}));
    value.drag = float(g.drag("drag", value.drag));
    value.size = float(g.number("size", value.size, kSpriteSize));
    value.opacity = float(g.number("opacity", value.opacity, kUnit));
    value.lifetime = float(g.number("lifetime", value.lifetime, kLifetime));
    g.finish();
    f.mist = value;
  }
}

SlotPlan Effect<FountainParams>::slots(const EmitterSettings& e, const Environment&) {
  SlotPlan plan{size_t(e.max_particles), {}};
  if (e.as<FountainParams>().mist) plan.pools.push_back({"mist", plan.particles});  // drop slot i → mist slot i
  return plan;
}

std::unique_ptr<ParticleSystem> Effect<FountainParams>::make_cpu(const Scene& scene, size_t index,
                                                                 const WindField& wind, ThreadPool& threads) {
  return std::make_unique<FountainSystem>(scene.emitters[index], index, wind, scene.output, threads);
}

namespace {
constexpr int kDropTexels = 32, kMistTexels = 64;
}  // namespace

std::vector<Image> Effect<FountainParams>::looks(const EmitterSettings& e, SpriteLook look) {
  return {look == SpriteLook::primary ? droplet_image(kDropTexels) : mist_image(kMistTexels, e.seed)};
}

size_t Effect<FountainParams>::procedural_look_bytes(const EmitterSettings&) {
  return (size_t(kDropTexels) * kDropTexels + size_t(kMistTexels) * kMistTexels) * 4;
}

}  // namespace fxsim
