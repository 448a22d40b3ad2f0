// Snow and rain as effect types: their keys, slots, CPU system and textures.
#include <fmt/format.h>

#include "core/effects/precipitation/precipitation.h"
#include "core/effects/precipitation/snowflake_image.h"
#include "core/limits.h"
#include "core/particle_images.h"
#include "core/scene.h"
#include "core/scene_reader.h"
#include "core/value_ranges.h"

namespace fxsim {

RainParams::RainParams() {
  velocity = {0, -8, 0};
  drag = 1.3f;
  sway = {0, 0};
  shapes = 1;
  streak = 1.0f;
}

namespace {

void parse_textures(ObjectReader& r, std::vector<std::filesystem::path>& out, const ParseContext& ctx) {
  r.accepts("textures", Json{{"type", "array"}, {"items", Json{{"type", "string"}}}, {"minItems", 1},
                             {"maxItems", kMaxTextureLayers}});
  const Json* list = r.array("textures");
  if (!list) return;
  if (list->empty()) r.error(r.child("textures"), "expected at least one PNG path, got an empty array");
  if (list->size() > size_t(kMaxTextureLayers)) {
    r.error(r.child("textures"), fmt::format("expected at most {} PNG paths (a GL's texture array holds that many), "
                                             "got {}", kMaxTextureLayers, list->size()));
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string pointer = fmt::format("{}/{}", r.child("textures"), i);
    const Json& item = (*list)[i];
    if (!item.is_string()) {
      r.error(pointer, "expected a PNG file path, " + describe_json(item));
      continue;
    }
    out.push_back(ctx.texture(r, pointer, item.get<std::string>()));
  }
}

void parse_splash(ObjectReader& r, PrecipitationParams& s) {
  r.accepts("splash", Json{{"type", "null"}});
  r.accepts("splash", Json{{"type", "object"}});
  const Json* value = r.raw("splash");
  if (!value || value->is_null()) return;
  if (!value->is_object()) {
    r.error(r.child("splash"), "expected null or { \"count\": 4, \"speed\": 1.5, \"size\": 0.02, \"lifetime\": 0.25 }, " +
                                   describe_json(*value));
    return;
  }
  ObjectReader g(value, r.child("splash"), r.diagnostics());
  Splash splash;
  splash.count = int(g.integer("count", splash.count, IntRange{0, 64}));
  splash.speed = float(g.number("speed", splash.speed, kSpeed));
  splash.size = float(g.number("size", splash.size, kSpriteSize));
  splash.lifetime = float(g.number("lifetime", splash.lifetime, kLifetime));
  g.finish();
  s.splash = splash;
}

// Snow's table; rain shares the box, recycling, velocity, drag and textures,
// has no sway, motion, depth scaling or shapes, and adds splash and streak.
void parse_precipitation(ObjectReader& r, PrecipitationParams& s, bool rain, const ParseContext& ctx) {
  if (const Json* region = r.object("region")) {
    ObjectReader g(region, r.child("region"), r.diagnostics());
    s.region.center = g.vector("center", s.region.center, kCoordinate);
    s.region.size = g.vector("size", s.region.size, kExtent);
    g.finish();
  }
  s.follow_camera = r.boolean("follow_camera", s.follow_camera);
  s.recycle = r.choice("recycle", s.recycle, {{"wrap", Recycle::wrap}, {"respawn", Recycle::respawn}});
  s.prewarm = r.boolean("prewarm", s.prewarm);
  if (!rain) s.motion = r.choice("motion", s.motion, {{"wind", Motion::wind}, {"constant", Motion::constant}});
  s.velocity = r.vector("velocity", s.velocity, kVelocity);
  s.velocity_variation = r.vector("velocity_variation", s.velocity_variation, kSpeed);
  s.drag = float(r.drag("drag", s.drag));
  s.gravity_scale = float(r.number("gravity_scale", s.gravity_scale, kScale));
  const std::optional<double> intensity = r.optional_number("intensity", Range{0.01, rain ? 500 : kMaxSnowIntensity});
  const std::optional<double> visibility =
      rain ? std::nullopt : r.optional_number("visibility", Range{kMinSnowVisibility, kMaxSnowVisibility});
  if (intensity && visibility)
    r.error(r.child("visibility"), "expected intensity or visibility, not both (each sets how much snow falls)");
  if (intensity) s.sizes = rain ? rain_of_intensity(*intensity) : snow_of_intensity(*intensity);
  else if (visibility) s.sizes = snow_of_visibility(*visibility);
  if (s.sizes) {
    // The sizes' mean fall speed. Rain: the box's fill rate (each drop is
    // born at its own terminal velocity, with the wind where it was born,
    // and keeps it). Snow: each flake's, for life with motion "constant";
    // in the wind, the speed its drag gives (set from gravity, see
    // Parser::apply_weather), which it is born at. (`velocity` set a
    // flake's: a constant one fell at the key's speed, or the default 1 m/s,
    // whatever its intensity.)
    if (rain) s.motion = Motion::constant;
    s.velocity = {0, -float(s.sizes->mean_fall_speed()), 0};
    s.velocity_variation = glm::vec3(0);
  }
  if (rain) {
    parse_splash(r, s);
    s.streak = float(r.number("streak", s.streak, Range{0, 1e3}));
    parse_textures(r, s.textures, ctx);
    return;
  }
  r.accepts("sway", Json{{"type", "null"}});
  if (const Json* sway = r.raw("sway"); sway && sway->is_null()) {
    s.sway = {0, 0};
  } else if (const Json* sw = r.object("sway")) {
    ObjectReader g(sw, r.child("sway"), r.diagnostics());
    s.sway.amplitude = float(g.number("amplitude", s.sway.amplitude, kRadius));
    s.sway.frequency = float(g.number("frequency", s.sway.frequency, kFrequency));
    g.finish();
  }
  s.depth_scale = r.choice("depth_scale", s.depth_scale,
                           {{"perspective", DepthScale::perspective}, {"exp", DepthScale::exp}});
  s.depth_k = float(r.number("depth_k", s.depth_k, Range{-20, 20}));
  s.shapes = int(r.integer("shapes", s.shapes, IntRange{1, 64}));
  parse_textures(r, s.textures, ctx);
}

SlotPlan precipitation_slots(const EmitterSettings& e, const Environment& environment) {
  SlotPlan plan{size_t(e.max_particles), {}};
  const PrecipitationParams& p = e.precipitation();
  // A drop owns the splash slots [i × count, (i + 1) × count): they are thrown only where there is ground.
  if (const size_t per_drop = PrecipitationSystem::splashes_per_drop(p, environment))
    plan.pools.push_back({"splash", plan.particles * per_drop});
  return plan;
}

std::unique_ptr<ParticleSystem> precipitation_system(const Scene& scene, size_t index, const WindField& wind,
                                                     ThreadPool& threads) {
  return std::make_unique<PrecipitationSystem>(scene.emitters[index], index, wind, scene.environment,
                                               scene.output.fps, threads);
}

constexpr int kFlakeTexels = 64;

Image premultiplied(Image image) {
  for (size_t i = 0; i < image.rgba.size(); i += 4)
    for (int c = 0; c < 3; ++c) image.rgba[i + c] = uint8_t((image.rgba[i + c] * image.rgba[i + 3] + 127) / 255);
  return image;
}

constexpr int kSplashTexels = 32, kStreakWidth = 16, kStreakHeight = 64;

// The user's PNGs (premultiplied, resized to the first one's size), else `procedural`.
template <class Procedural>
std::vector<Image> precipitation_looks(const EmitterSettings& e, SpriteLook look, Procedural procedural) {
  if (look == SpriteLook::secondary) return {droplet_image(kSplashTexels)};  // splashes
  std::vector<Image> layers;
  for (const auto& path : e.precipitation().textures) {
    Image image = read_png(path);
    if (!layers.empty()) image = resize_image(image, layers.front().width, layers.front().height);
    layers.push_back(premultiplied(std::move(image)));
  }
  return layers.empty() ? procedural() : layers;
}

}  // namespace

void Effect<SnowParams>::parse(ObjectReader& r, EmitterSettings&, SnowParams& p, const ParseContext& ctx) {
  parse_precipitation(r, p, false, ctx);
}
void Effect<RainParams>::parse(ObjectReader& r, EmitterSettings&, RainParams& p, const ParseContext& ctx) {
  parse_precipitation(r, p, true, ctx);
}

SlotPlan Effect<SnowParams>::slots(const EmitterSettings& e, const Environment& env) { return precipitation_slots(e, env); }
SlotPlan Effect<RainParams>::slots(const EmitterSettings& e, const Environment& env) { return precipitation_slots(e, env); }

std::unique_ptr<ParticleSystem> Effect<SnowParams>::make_cpu(const Scene& scene, size_t index, const WindField& wind,
                                                             ThreadPool& threads) {
  return precipitation_system(scene, index, wind, threads);
}
std::unique_ptr<ParticleSystem> Effect<RainParams>::make_cpu(const Scene& scene, size_t index, const WindField& wind,
                                                             ThreadPool& threads) {
  return precipitation_system(scene, index, wind, threads);
}

std::vector<Image> Effect<SnowParams>::looks(const EmitterSettings& e, SpriteLook look) {
  return precipitation_looks(e, look, [&] {
    std::vector<Image> layers;
    for (int shape = 0; shape < e.precipitation().shapes; ++shape)
      layers.push_back(snowflake_image(kFlakeTexels, e.seed, uint32_t(shape)));
    return layers;
  });
}
std::vector<Image> Effect<RainParams>::looks(const EmitterSettings& e, SpriteLook look) {
  return precipitation_looks(e, look, [] { return std::vector<Image>{rain_streak_image(kStreakWidth, kStreakHeight)}; });
}

// (The scene's textures, where given, are counted with their files.)
size_t Effect<SnowParams>::procedural_look_bytes(const EmitterSettings& e) {
  const size_t flakes = e.precipitation().textures.empty() ? size_t(e.precipitation().shapes) * kFlakeTexels * kFlakeTexels : 0;
  return (flakes + size_t(kSplashTexels) * kSplashTexels) * 4;
}
size_t Effect<RainParams>::procedural_look_bytes(const EmitterSettings& e) {
  const size_t streak = e.precipitation().textures.empty() ? size_t(kStreakWidth) * kStreakHeight : 0;
  return (streak + size_t(kSplashTexels) * kSplashTexels) * 4;
}

}  // namespace fxsim
