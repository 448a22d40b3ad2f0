#include "core/scene_parser.h"

#include <bit>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>
#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>
#include <glm/trigonometric.hpp>

#include "core/camera_path.h"
#include "core/image.h"
#include "core/json_locations.h"
#include "core/limits.h"
#include "core/rng.h"
#include "core/scene_reader.h"

namespace fxsim {

const char* to_string(EmitterType type) {
  switch (type) {
    case EmitterType::snow: return "snow";
    case EmitterType::rain: return "rain";
    case EmitterType::fountain: return "fountain";
    case EmitterType::fire: return "fire";
    case EmitterType::explosion: return "explosion";
  }
  return "?";
}

namespace {

// The ranges of the scene's numbers (docs/scene-format.md, "Limits"). They are
// generous for any real effect and keep every value, and what the simulation
// computes from it, finite in single precision: a world of ±10^6 m, speeds up to
// 10^4 m/s, times up to 10^7 s. A quantity the code divides by or normalises
// has a positive lower bound.
constexpr Range kCoordinate{-1e6, 1e6};      // m
constexpr Range kVelocity{-1e4, 1e4};        // m/s, per component
constexpr Range kSpeed{0, 1e4};              // m/s
constexpr Range kAcceleration{-1e3, 1e3};    // m/s²
constexpr Range kWindSpeed{-1e3, 1e3};       // m/s, per component
constexpr Range kExtent{1e-3, 1e6};          // m, a box side or a length scale
constexpr Range kSpriteSize{1e-6, 1e4};      // m
constexpr Range kRadius{0, 1e3};             // m
constexpr Range kUnit{0, 1};
constexpr Range kTime{0, 1e7};               // s
constexpr Range kDuration{1e-6, 1e7};        // s
constexpr Range kLifetime{1e-4, 1e6};        // s
constexpr Range kPeriod{1e-3, 1e6};          // s
constexpr Range kDrag{0, 1e4};               // 1/s
constexpr Range kScale{-1e3, 1e3};           // a dimensionless factor
constexpr Range kRate{0, 1e9};               // per second
constexpr Range kFrequency{0, 1e3};          // Hz
constexpr IntRange kSeed{0, INT64_MAX};

class Parser {
 public:
  Parser(const Json& root, std::filesystem::path base_dir, std::string stem)
      : root_(root), base_dir_(std::move(base_dir)), stem_(std::move(stem)) {}

  Scene parse() {
    ObjectReader top(&root_, "", problems_);
    if (!root_.is_object()) {
      problems_.push_back({"", "expected a scene object { \"fxsim\": 1, … }, " + describe_json(root_), false, std::nullopt});
      return {};
    }
    top.require("fxsim", "the format version, 1");
    if (top.present("fxsim")) top.integer("fxsim", 1, IntRange{1, 1});
    scene_.seed = uint64_t(top.integer("seed", 1, kSeed));
    parse_output(top.object("output"));
    parse_camera(top.object("camera"));
    parse_environment(top.object("environment"));
    top.require("emitters", "an array of at least one emitter");
    if (const Json* emitters = top.array("emitters")) {
      if (emitters->empty()) top.error(top.child("emitters"), "expected at least one emitter, got an empty array");
      if (emitters->size() > kMaxEmitters)
        top.error(top.child("emitters"), fmt::format("expected at most {} emitters, got {}", kMaxEmitters, emitters->size()));
      else
        for (size_t i = 0; i < emitters->size(); ++i) parse_emitter((*emitters)[i], i);
    }
    top.finish();
    return std::move(scene_);
  }

  std::vector<Diagnostic>& problems() { return problems_; }

 private:
  void parse_output(const Json* node) {
    ObjectReader r(node, "/output", problems_);
    auto& o = scene_.output;
    o.width = int(r.integer("width", o.width, IntRange{1, kMaxImageSide}));
    o.height = int(r.integer("height", o.height, IntRange{1, kMaxImageSide}));
    o.fps = r.number("fps", o.fps, Range{0.01, 1000});
    o.substeps = int(r.integer("substeps", o.substeps, IntRange{1, 1000}));
    o.frames = int(r.integer("frames", o.frames, IntRange{1, 10000000}));
    o.path = r.string("path", stem_ + "_####.png");
    if (o.path.empty()) r.error(r.child("path"), "expected a file path, got an empty string");
    else if (o.frames > 1 && o.path.find('#') == std::string::npos)
      r.error(r.child("path"), fmt::format("expected a run of '#' for the frame number (the scene has {} frames), got \"{}\"",
                                           o.frames, o.path));
    o.background = r.color("background", o.background);
    o.samples = int(r.integer("samples", o.samples, IntRange{1, 8}));
    if (!std::has_single_bit(unsigned(o.samples))) {
      r.error(r.child("samples"), fmt::format("expected an integer of 1, 2, 4 or 8, got {}", o.samples));
      o.samples = 4;
    }
    r.finish();
  }

  void parse_camera(const Json* node) {
    ObjectReader r(node, "/camera", problems_);
    auto& c = scene_.camera;
    c.position = r.vector("position", c.position, kCoordinate);
    c.target = r.vector("target", c.target, kCoordinate);
    c.up = r.vector("up", c.up, kCoordinate, "of length > 0.001", [](glm::vec3 v) { return glm::length(v) > 1e-3f; });
    c.fov = float(r.number("fov", c.fov, Range{1, 179}));
    c.near_plane = float(r.number("near", c.near_plane, Range{1e-4, 1e5}));
    if (const auto far = r.optional_number("far", Range{1e-4, 1e7})) {
      if (*far > c.near_plane * 1.001) c.far_plane = float(*far);
      else r.error(r.child("far"), fmt::format("expected a number > near ({}), got {}", c.near_plane, *far));
    }
    if (const Json* keys = r.array("keys")) {
      CameraKey previous{0, c.position, c.target};
      for (size_t i = 0; i < keys->size(); ++i) {
        ObjectReader k(&(*keys)[i], fmt::format("/camera/keys/{}", i), problems_);
        if (!(*keys)[i].is_object()) {
          r.error(k.pointer(), "expected a keyframe { \"time\": s, \"position\": v, \"target\": v }, " +
                                   describe_json((*keys)[i]));
          continue;
        }
        k.require("time", "the key's time in seconds");
        CameraKey key;
        key.time = k.number("time", previous.time, kTime);
        if (i > 0 && key.time <= previous.time && k.present("time"))
          k.error(k.child("time"), fmt::format("expected a time later than the previous key's {}, got {}",
                                               previous.time, key.time));
        key.position = k.vector("position", previous.position, kCoordinate);
        key.target = k.vector("target", previous.target, kCoordinate);
        check_view(k, key.position, key.target, c.up);
        k.finish();
        c.keys.push_back(key);
        previous = key;
      }
    }
    if (c.keys.empty()) check_view(r, c.position, c.target, c.up);
    else if (problems_.empty()) check_path(r);
    r.finish();
  }

  // The camera must look somewhere: a target apart from the eye, and an `up`
  // that is not along the view (the image's orientation would be undefined).
  void check_view(ObjectReader& r, glm::vec3 position, glm::vec3 target, glm::vec3 up) {
    const glm::vec3 view = target - position;
    if (glm::length(view) < 1e-3f) {
      r.error(r.child("target"), fmt::format("expected a target at least 0.001 m from the camera position [{}, {}, {}]",
                                             position.x, position.y, position.z));
    } else if (glm::length(glm::cross(glm::normalize(view), glm::normalize(up))) < 1e-3f) {
      r.error(r.child("target"), fmt::format("expected a view direction not parallel to the camera's up [{}, {}, {}]",
                                             up.x, up.y, up.z));
    }
  }

  // Keys that are each fine can still pass through a degenerate view between
  // them (the eye's and the target's paths crossing): each frame is checked.
  void check_path(ObjectReader& r) {
    const auto& o = scene_.output;
    for (int frame = 0; frame <= o.frames; ++frame) {
      const double t = double(frame) / o.fps;
      const CameraPose pose = camera_at(scene_.camera, t);
      const glm::vec3 view = pose.target - pose.position;
      const bool apart = glm::length(view) >= 1e-3f;
      if (apart && glm::length(glm::cross(glm::normalize(view), glm::normalize(pose.up))) >= 1e-3f) continue;
      r.error(r.child("keys"), fmt::format("expected a camera path whose target stays apart from the eye and off its "
                                           "up axis, but at frame {} (t = {} s) the view is degenerate ({})",
                                           frame, t, apart ? "looking along up" : "the target meets the eye"));
      return;
    }
  }

  void parse_environment(const Json* node) {
    ObjectReader r(node, "/environment", problems_);
    auto& e = scene_.environment;
    e.gravity = r.vector("gravity", e.gravity, kAcceleration);
    if (const Json* ground = r.raw("ground"); ground && ground->is_null()) {
      e.ground.reset();
    } else if (const Json* g = r.object("ground")) {
      ObjectReader gr(g, "/environment/ground", problems_);
      e.ground->height = float(gr.number("height", 0, kCoordinate));
      e.ground->color = gr.optional_color("color");
      gr.finish();
    }
    if (const Json* wind = r.object("wind")) {
      ObjectReader w(wind, "/environment/wind", problems_);
      e.wind.velocity = w.vector("velocity", glm::vec3(0), kWindSpeed);
      if (const Json* gust = w.object("gust")) {
        ObjectReader g(gust, "/environment/wind/gust", problems_);
        Gust value;
        value.amplitude = g.vector("amplitude", value.amplitude, kWindSpeed);
        value.period = g.number("period", value.period, kPeriod);
        g.finish();
        e.wind.gust = value;
      }
      if (const Json* turbulence = w.object("turbulence")) {
        ObjectReader t(turbulence, "/environment/wind/turbulence", problems_);
        Turbulence value;
        value.strength = float(t.number("strength", value.strength, Range{0, 1e3}));
        value.scale = float(t.number("scale", value.scale, kExtent));
        t.finish();
        e.wind.turbulence = value;
      }
      w.finish();
    }
    r.finish();
  }

  void parse_emitter(const Json& node, size_t index) {
    const std::string pointer = fmt::format("/emitters/{}", index);
    if (!node.is_object()) {
      problems_.push_back({pointer, "expected an emitter object { \"type\": … }, " + describe_json(node), false, std::nullopt});
      return;
    }
    ObjectReader r(&node, pointer, problems_);
    r.require("type", "one of \"snow\", \"rain\", \"fountain\", \"fire\", \"explosion\"");
    EmitterSettings e;
    e.type = r.choice("type", EmitterType::snow,
                      {{"snow", EmitterType::snow}, {"rain", EmitterType::rain},
                       {"fountain", EmitterType::fountain}, {"fire", EmitterType::fire},
                       {"explosion", EmitterType::explosion}});
    e.name = r.string("name", fmt::format("{}{}", to_string(e.type), index));
    if (!emitter_names_.insert(e.name).second)
      r.error(r.child("name"), fmt::format("expected a unique emitter name, got \"{}\" again", e.name));
    const uint64_t derived = mix64(scene_.seed ^ mix64(uint64_t(index) + 0x5EED));
    e.seed = uint64_t(r.integer("seed", int64_t(derived >> 1), kSeed));

    if (e.type == EmitterType::snow) {
      parse_common(r, e, {.max_particles = 20000, .color = "#ffffff", .opacity = 0.9, .size = 0.05,
                          .blend = BlendMode::alpha, .billboard = BillboardMode::screen});
      parse_precipitation(r, e.precipitation, EmitterType::snow);
    } else if (e.type == EmitterType::rain) {
      parse_common(r, e, {.max_particles = 50000, .color = "#aab4c8", .opacity = 0.35, .size = 0.01,
                          .blend = BlendMode::alpha, .billboard = BillboardMode::screen});
      parse_precipitation(r, e.precipitation, EmitterType::rain);
    } else if (e.type == EmitterType::fountain) {
      parse_common(r, e, {.max_particles = 200000, .color = "#cfe3ff", .opacity = 0.6, .size = 0.04,
                          .blend = BlendMode::alpha, .billboard = BillboardMode::screen});
      parse_fountain(r, e.fountain);
    } else if (e.type == EmitterType::fire) {
      // `size` is the plane's [width, height] here: read by parse_fire, not as a sprite diameter.
      parse_common(r, e, {.max_particles = 4000, .color = "#ffffff", .opacity = 1.0, .size = 0.03,
                          .blend = BlendMode::additive, .billboard = BillboardMode::screen}, false);
      parse_fire(r, e);
    } else {
      parse_common(r, e, {.max_particles = 0, .color = "#ffffff", .opacity = 1.0, .size = 0.04,
                          .blend = BlendMode::alpha, .billboard = BillboardMode::viewpoint});
      parse_explosion(r, e);
    }
    r.finish();
    scene_.emitters.push_back(std::move(e));
  }

  struct CommonDefaults {
    int64_t max_particles;
    const char* color;
    double opacity;
    double size;
    BlendMode blend;
    BillboardMode billboard;
  };

  void parse_common(ObjectReader& r, EmitterSettings& e, const CommonDefaults& d, bool sprite_size = true) {
    e.max_particles = r.integer("max_particles", d.max_particles, IntRange{0, 0x7FFFFFFF});
    e.start = r.number("start", 0, kTime);
    if (const Json* duration = r.raw("duration"); duration && !duration->is_null())
      e.duration = r.optional_number("duration", kDuration);
    e.color = r.color("color", *parse_hex_color(d.color));
    e.opacity = float(r.number("opacity", d.opacity, kUnit));
    e.size = float(d.size);
    if (sprite_size) e.size = float(r.number("size", d.size, kSpriteSize));
    e.size_variation = float(r.number("size_variation", 0, kUnit));
    e.blend = r.choice("blend", d.blend, {{"alpha", BlendMode::alpha}, {"additive", BlendMode::additive}});
    e.billboard = r.choice("billboard", d.billboard,
                           {{"screen", BillboardMode::screen}, {"viewpoint", BillboardMode::viewpoint},
                            {"axial", BillboardMode::axial}});
  }

  // Snow's table; rain shares the box, recycling, velocity, drag and textures,
  // has no sway, motion, depth scaling or shapes, and adds splash and streak.
  void parse_precipitation(ObjectReader& r, PrecipitationParams& s, EmitterType type) {
    const bool rain = type == EmitterType::rain;
    if (rain) {
      s.velocity = {0, -8, 0};
      s.drag = 1.3f;
      s.sway = {0, 0};
      s.shapes = 1;
      s.streak = 1.0f;
    }
    if (const Json* region = r.object("region")) {
      ObjectReader g(region, r.child("region"), problems_);
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
    s.drag = float(r.number("drag", s.drag, kDrag));
    s.gravity_scale = float(r.number("gravity_scale", s.gravity_scale, kScale));
    if (rain) {
      parse_splash(r, s);
      s.streak = float(r.number("streak", s.streak, Range{0, 1e3}));
      parse_textures(r, s.textures);
      return;
    }
    if (const Json* sway = r.raw("sway"); sway && sway->is_null()) {
      s.sway = {0, 0};
    } else if (const Json* sw = r.object("sway")) {
      ObjectReader g(sw, r.child("sway"), problems_);
      s.sway.amplitude = float(g.number("amplitude", s.sway.amplitude, kRadius));
      s.sway.frequency = float(g.number("frequency", s.sway.frequency, kFrequency));
      g.finish();
    }
    s.depth_scale = r.choice("depth_scale", s.depth_scale,
                             {{"perspective", DepthScale::perspective}, {"exp", DepthScale::exp}});
    s.depth_k = float(r.number("depth_k", s.depth_k, Range{-20, 20}));
    s.shapes = int(r.integer("shapes", s.shapes, IntRange{1, 64}));
    parse_textures(r, s.textures);
  }

  void parse_fountain(ObjectReader& r, FountainParams& f) {
    const auto unit_direction = [](glm::vec3 v) { return glm::length(v) > 1e-3f; };
    const auto read_jet = [&](ObjectReader& n, Nozzle& nozzle) {
      nozzle.speed = float(n.number("speed", nozzle.speed, kSpeed));
      nozzle.speed_variation = float(n.number("speed_variation", nozzle.speed_variation, kUnit));
      nozzle.spread = float(n.number("spread", nozzle.spread, Range{0, 90}));
      nozzle.rate = n.number("rate", nozzle.rate, kRate);
    };
    if (const Json* list = r.array("nozzles")) {
      if (list->empty()) r.error(r.child("nozzles"), "expected at least one nozzle, got an empty array");
      for (size_t i = 0; i < list->size(); ++i) {
        const std::string pointer = fmt::format("{}/{}", r.child("nozzles"), i);
        if (!(*list)[i].is_object()) {
          r.error(pointer, "expected a nozzle { \"position\": v, \"direction\": v, \"speed\": … }, " +
                               describe_json((*list)[i]));
          continue;
        }
        ObjectReader n(&(*list)[i], pointer, problems_);
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
      ObjectReader g(ring, r.child("ring"), problems_);
      const int count = int(g.integer("count", 8, IntRange{1, 1024}));
      const float radius = float(g.number("radius", 1.0, Range{0, 1e6}));
      const glm::vec3 center = g.vector("center", glm::vec3(0), kCoordinate);
      const float tilt = float(g.number("tilt", 0.0, Range{-90, 90}));
      Nozzle jet;
      read_jet(g, jet);
      g.finish();
      const float tilt_rad = glm::radians(tilt);
      for (int k = 0; k < count; ++k) {
        const float around = 2.0f * glm::pi<float>() * float(k) / float(count);
        const glm::vec3 outward{std::cos(around), 0.0f, std::sin(around)};
        Nozzle nozzle = jet;
        nozzle.position = center + outward * radius;
        nozzle.direction = glm::normalize(glm::vec3(0, std::cos(tilt_rad), 0) + outward * std::sin(tilt_rad));
        f.nozzles.push_back(nozzle);
      }
    }
    if (!r.present("nozzles") && !r.present("ring"))
      r.error(r.child("nozzles"), "missing required key: expected a list of nozzles (or a \"ring\" of them)");
    f.drag = float(r.number("drag", f.drag, kDrag));
    f.gravity_scale = float(r.number("gravity_scale", f.gravity_scale, kScale));
    if (const Json* mist = r.raw("mist"); mist && mist->is_null()) {
      f.mist.reset();
    } else if (const Json* m = r.object("mist")) {
      ObjectReader g(m, r.child("mist"), problems_);
      Mist value;
      value.probability = float(g.number("probability", value.probability, Range{0, 1e6}));
      value.drag = float(g.number("drag", value.drag, kDrag));
      value.size = float(g.number("size", value.size, kSpriteSize));
      value.opacity = float(g.number("opacity", value.opacity, kUnit));
      value.lifetime = float(g.number("lifetime", value.lifetime, kLifetime));
      g.finish();
      f.mist = value;
    }
  }

  void parse_fire(ObjectReader& r, EmitterSettings& e) {
    FireParams& f = e.fire;
    f.position = r.vector("position", f.position, kCoordinate);
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
    f.max_intensity = float(r.number("max_intensity", f.max_intensity, Range{1, 1e6}));
    f.seed_fraction = float(r.number("seed_fraction", f.seed_fraction, kUnit));
    f.update_rate = r.number("update_rate", f.update_rate, Range{1e-3, 1000});
    f.embers = r.number("embers", f.embers, kRate);
  }

  void parse_explosion(ObjectReader& r, EmitterSettings& e) {
    ExplosionParams& x = e.explosion;
    int texture_width = 0, texture_height = 0;
    if (!e.duration) {
      if (const Json* d = r.raw("duration"); d && d->is_null())
        r.error(r.child("duration"), "expected a finite duration in seconds (> 0) for an explosion, got null");
      e.duration = 1.5;
    }
    x.position = r.vector("position", x.position, kCoordinate);
    x.scale = float(r.number("scale", x.scale, kExtent));
    if (const Json* t = r.raw("texture")) {
      if (!t->is_string()) {
        r.error(r.child("texture"), "expected a PNG file path, " + describe_json(*t));
      } else {
        x.texture = check_png(r, r.child("texture"), t->get<std::string>(), &texture_width, &texture_height);
      }
    }
    if (const Json* book = r.raw("flipbook")) {
      const bool ok = book->is_array() && book->size() == 2 && (*book)[0].is_number_integer() &&
                      (*book)[1].is_number_integer() && (*book)[0].get<int64_t>() >= 1 &&
                      (*book)[0].get<int64_t>() <= 64 && (*book)[1].get<int64_t>() >= 1 &&
                      (*book)[1].get<int64_t>() <= 64;
      if (ok) {
        x.flipbook_rows = (*book)[0].get<int>();
        x.flipbook_columns = (*book)[1].get<int>();
      } else {
        r.error(r.child("flipbook"), "expected [rows, columns] of frames, each in 1..64, " + describe_json(*book));
      }
    }
    if (texture_width > 0 && (texture_width < x.flipbook_columns || texture_height < x.flipbook_rows))
      r.error(r.child("flipbook"), fmt::format("expected at most one frame per pixel of the {}×{} texture, got [{}, {}]",
                                               texture_width, texture_height, x.flipbook_rows, x.flipbook_columns));
    x.key_color = r.color("key_color", x.key_color);
    x.debris = int(r.integer("debris", x.debris, IntRange{0, 10000000}));
    if (!r.present("max_particles")) e.max_particles = x.debris;
  }

  void parse_splash(ObjectReader& r, PrecipitationParams& s) {
    const Json* value = r.raw("splash");
    if (!value || value->is_null()) return;
    if (!value->is_object()) {
      r.error(r.child("splash"), "expected null or { \"count\": 4, \"speed\": 1.5, \"size\": 0.02, \"lifetime\": 0.25 }, " +
                                     describe_json(*value));
      return;
    }
    ObjectReader g(value, r.child("splash"), problems_);
    Splash splash;
    splash.count = int(g.integer("count", splash.count, IntRange{0, 64}));
    splash.speed = float(g.number("speed", splash.speed, kSpeed));
    splash.size = float(g.number("size", splash.size, kSpriteSize));
    splash.lifetime = float(g.number("lifetime", splash.lifetime, kLifetime));
    g.finish();
    s.splash = splash;
  }

  // A texture file, resolved against the scene's folder, opened and decoded as
  // render will: validation gives render's verdict.
  std::filesystem::path check_png(ObjectReader& r, const std::string& pointer, const std::string& written,
                                  int* width = nullptr, int* height = nullptr) {
    std::filesystem::path path = written;
    if (path.is_relative()) path = base_dir_ / path;
    if (const std::string why = png_problem(path, width, height); !why.empty())
      r.error(pointer, fmt::format("expected a PNG file of at most {}×{} pixels, got \"{}\" ({}), which cannot be "
                                   "used: {}", kMaxTextureSide, kMaxTextureSide, written, path.string(), why));
    return path;
  }

  void parse_textures(ObjectReader& r, std::vector<std::filesystem::path>& out) {
    const Json* list = r.array("textures");
    if (!list) return;
    if (list->empty()) r.error(r.child("textures"), "expected at least one PNG path, got an empty array");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string pointer = fmt::format("{}/{}", r.child("textures"), i);
      const Json& item = (*list)[i];
      if (!item.is_string()) {
        r.error(pointer, "expected a PNG file path, " + describe_json(item));
        continue;
      }
      out.push_back(check_png(r, pointer, item.get<std::string>()));
    }
  }

  const Json& root_;
  std::filesystem::path base_dir_;
  std::string stem_;
  Scene scene_;
  std::vector<Diagnostic> problems_;
  std::unordered_set<std::string> emitter_names_;
};

}  // namespace

Scene parse_scene_text(std::string_view text, std::string_view label, const std::filesystem::path& base_dir) {
  if (text.size() > kMaxSceneBytes)
    throw SceneError({fmt::format("{}: the scene is larger than {} bytes (16 MiB), the most fxsim reads", label,
                                  kMaxSceneBytes)});
  // Editors may write a UTF-8 byte-order mark; JSON parsers refuse it. Columns
  // are counted after it, as an editor shows them.
  text.remove_prefix(utf8_bom_length(text));
  const JsonLocations where(text);
  if (const auto& deep = where.too_deep())
    throw SceneError(format_diagnostics(label, where, {{deep->pointer, deep->message, false, deep->offset}}));
  Json root;
  try {
    root = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // nlohmann reports the byte after the problem; point at the byte itself.
    const size_t offset = e.byte > 0 ? std::min<size_t>(e.byte - 1, text.size()) : 0;
    const LineColumn at = where.at_offset(offset);
    std::string what = e.what();
    if (const size_t colon = what.find("syntax error"); colon != std::string::npos) what = what.substr(colon);
    throw SceneError({fmt::format("{}:{}:{}: not valid JSON: {}", label, at.line, at.column, what)});
  } catch (const Json::out_of_range&) {
    // A number beyond the range of a double: the scan knows where each one is.
    std::vector<Diagnostic> problems;
    for (const auto& n : where.out_of_range_numbers()) problems.push_back({n.pointer, n.message, false, n.offset});
    if (problems.empty()) throw SceneError({fmt::format("{}: a number is beyond the range of a double", label)});
    throw SceneError(format_diagnostics(label, where, problems), problems.size());
  }
  std::string stem = std::filesystem::path(std::string(label)).stem().string();
  Parser parser(root, base_dir, stem.empty() ? "frame" : stem);
  Scene scene = parser.parse();
  for (const auto& d : where.duplicate_keys()) parser.problems().push_back({d.pointer, d.message, true, d.offset});
  if (!parser.problems().empty())
    throw SceneError(format_diagnostics(label, where, parser.problems()), parser.problems().size());
  return scene;
}

std::string read_scene_file(const std::filesystem::path& file) {
  const auto refuse = [&](const std::string& why) {
    return FxError(ExitCode::input_missing, fmt::format("{}: cannot read the scene file ({})", file.string(), why));
  };
  // Only regular files: a FIFO would block, a device (/dev/zero) never ends.
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) throw refuse(std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw refuse(S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file (a FIFO, socket or device)");
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw refuse(std::strerror(errno));
  struct stat opened {};
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    ::close(fd);
    throw refuse("it is not a regular file");
  }
  // Read one byte past the limit, so that a larger file is refused rather than cut.
  std::string text;
  text.resize(std::min<size_t>(size_t(std::max<off_t>(opened.st_size, 0)), kMaxSceneBytes) + 1);
  size_t done = 0;
  for (;;) {
    if (done == text.size()) {
      if (text.size() > kMaxSceneBytes) break;
      text.resize(std::min(text.size() * 2, kMaxSceneBytes + 1));
    }
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw refuse(std::strerror(error));
    }
    if (n == 0) break;
    done += size_t(n);
  }
  ::close(fd);
  text.resize(done);
  return text;
}

Scene parse_scene_file(const std::filesystem::path& file) {
  const std::string text = read_scene_file(file);
  std::filesystem::path base = file.parent_path();
  if (base.empty()) base = ".";
  Scene scene = parse_scene_text(text, file.string(), base);
  scene.file = file;
  return scene;
}

}  // namespace fxsim
