#include "core/sha256.h"
#include "core/scene_parser.h"

#include <algorithm>
#include <map>
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
#include "core/depth_of_field.h"
#include "core/frame_output.h"
#include "core/image.h"
#include "core/json_locations.h"
#include "core/value_ranges.h"
#include "core/limits.h"
#include "core/rng.h"
#include "core/scene_reader.h"

namespace fxsim {


namespace {


class Parser {
 public:
  Parser(const Json& root, std::filesystem::path base_dir, std::string stem, int last_frame)
      : root_(root), base_dir_(std::move(base_dir)), textures_(base_dir_), stem_(std::move(stem)), last_frame_(last_frame) {}

  Scene parse() {
    ObjectReader top(&root_, "", problems_);
    if (!root_.is_object()) {
      problems_.push_back({"", "expected a scene object { \"fxsim\": 1, … }, " + describe_json(root_), false, std::nullopt});
      return {};
    }
    top.require("fxsim", "the format version, 1");
    top.string("$schema", "");  // an editor's pointer to the JSON Schema (fxsim schema): not read
    if (top.present("fxsim")) top.integer("fxsim", 1, IntRange{1, 1});
    scene_.seed = uint64_t(top.integer("seed", 1, kSeed));
    parse_output(top.object("output"));
    parse_camera(top.object("camera"));
    parse_environment(top.object("environment"));
    top.require("emitters", "an array of at least one emitter");
    top.accepts("emitters", Json{{"type", "array"}, {"minItems", 1}, {"maxItems", kMaxEmitters}});
    if (const Json* emitters = top.array("emitters")) {
      if (emitters->empty()) top.error(top.child("emitters"), "expected at least one emitter, got an empty array");
      if (emitters->size() > kMaxEmitters)
        top.error(top.child("emitters"), fmt::format("expected at most {} emitters, got {}", kMaxEmitters, emitters->size()));
      else
        for (size_t i = 0; i < emitters->size(); ++i) parse_emitter((*emitters)[i], i);
      check_secondary_names();
    }
    check_light_count(top);
    top.finish();
    apply_shutter();
    scene_.texture_files = textures_.files();
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
    o.frames = int(r.integer("frames", o.frames, IntRange{1, kMaxFrames}));
    o.path = r.string("path", stem_ + "_####.png");
    if (o.path.empty()) r.error(r.child("path"), "expected a file path, got an empty string");
    else if (o.frames > 1 && o.path.find('#') == std::string::npos && !video_format_of(o.path))
      r.error(r.child("path"), fmt::format("expected a run of '#' for the frame number (the scene has {} frames), got \"{}\"",
                                           o.frames, o.path));
    r.accepts("background", Json{{"const", "transparent"}});
    if (const Json* bg = r.raw("background"); bg && bg->is_string() && bg->get<std::string>() == "transparent")
      o.background = Color{{0, 0, 0, 0}};
    else
      o.background = r.color("background", o.background);
    o.samples = int(r.integer_of("samples", o.samples, {1, 2, 4, 8}));
    if (!std::has_single_bit(unsigned(o.samples))) {
      r.error(r.child("samples"), fmt::format("expected an integer of 1, 2, 4 or 8, got {}", o.samples));
      o.samples = 4;
    }
    o.png_level = int(r.integer("png_level", o.png_level, IntRange{0, 9}));
    o.bit_depth = int(r.integer_of("bit_depth", o.bit_depth, {8, 16}));
    if (o.bit_depth != 8 && o.bit_depth != 16) {
      r.error(r.child("bit_depth"), fmt::format("expected 8 or 16, got {}", o.bit_depth));
      o.bit_depth = 8;
    }
    for (const char* key : {"plate", "plate_depth"}) {
      const std::string written = r.string(key, "");
      if (written.empty()) continue;
      const std::filesystem::path resolved = base_dir_ / std::filesystem::path(written);  // an absolute path stays as it is
      if (!image_format_of(written))
        r.error(r.child(key), fmt::format("expected a .png or .exr image (a run of '#' for a sequence), got \"{}\"", written));
      (std::string(key) == "plate" ? o.plate : o.plate_depth) = resolved;
    }
    // Drawn opaque behind the particles: the frames would be opaque, without a word.
    if (!o.plate.empty() && o.transparent())
      r.error(r.child("plate"), "a plate hides a transparent background: give one or the other");
    o.plate_soft = float(r.number("plate_soft", 0, Range{0, 100}));
    if (o.plate_soft > 0 && o.plate_depth.empty()) r.error(r.child("plate_soft"), "a soft plate edge needs output.plate_depth");
    r.accepts("layers", Json{{"type", "array"}, {"items", Json{{"enum", {"depth", "mask", "motion", "plate"}}}}, {"uniqueItems", true}});
    if (const Json* layers = r.array("layers")) {
      for (size_t i = 0; i < layers->size(); ++i) {
        const Json& layer = (*layers)[i];
        const std::string name = layer.is_string() ? layer.get<std::string>() : "";
        if (!name.empty() && std::find(layers->begin(), layers->begin() + ptrdiff_t(i), layer) != layers->begin() + ptrdiff_t(i))
          r.error(r.child("layers") + "/" + std::to_string(i), fmt::format("\"{}\" is already in the list", name));
        else if (name == "depth") o.depth_layer = true;
        else if (name == "mask") o.mask_layers = true;
        else if (name == "motion") o.motion_layer = true;
        else if (name == "plate") o.plate_layer = true;
        else r.error(r.child("layers") + "/" + std::to_string(i),
                     "expected \"depth\", \"mask\", \"motion\" or \"plate\", " + describe_json(layer));
      }
    }
    if (o.plate_layer && o.plate.empty()) r.error(r.child("layers"), "the \"plate\" layer needs output.plate");
    o.tone = r.choice("tone", o.tone, {{"clip", OutputSettings::Tone::clip}, {"filmic", OutputSettings::Tone::filmic}});
    if (const Json* bloom = r.object("bloom")) {
      ObjectReader b(bloom, "/output/bloom", problems_);
      OutputSettings::Bloom value;
      value.strength = float(b.number("strength", value.strength, Range{0, 10}));
      value.threshold = float(b.number("threshold", value.threshold, Range{0, 1e4}));
      value.radius = float(b.number("radius", value.radius, Range{0.001, 0.5}));
      b.finish();
      o.bloom = value;
    }
    if (const auto problem = video_output_problem(o, o.path))
      r.error(r.child(problem->key), fmt::format("{} (output.path is \"{}\")", problem->message, o.path));
    if (!o.path.empty() && !image_format_of(o.path) && !video_format_of(o.path))
      r.error(r.child("path"), fmt::format("expected a path ending in .png or .exr (frames) or .mp4, .webm, .mov or "
                                           ".gif (a video) after a file name, got \"{}\"", o.path));
    r.finish();
  }

  void parse_camera(const Json* node) {
    ObjectReader r(node, "/camera", problems_);
    auto& c = scene_.camera;
    // The view is judged only from values that were read: a target out of
    // range stood as the default one, and was said to look along up too.
    const size_t problems_before_view = problems_.size();
    c.position = r.vector("position", c.position, kCoordinate);
    const bool position_read = problems_.size() == problems_before_view;
    const size_t problems_before_target = problems_.size();
    c.target = r.vector("target", c.target, kCoordinate);
    const bool target_read = problems_.size() == problems_before_target;
    const size_t problems_before_up = problems_.size();
    c.up = r.vector("up", c.up, kCoordinate, "of length > 0.001", [](glm::vec3 v) { return glm::length(v) > 1e-3f; });
    const bool up_read = problems_.size() == problems_before_up;
    const bool view_read = up_read && problems_before_up == problems_before_view;
    c.fov = float(r.number("fov", c.fov, Range{1, 179}));
    c.near_plane = float(r.number("near", c.near_plane, Range{1e-4, 1e5}));
    // far beyond near by a thousandth at least: the depth range the GL keeps.
    if (const auto far = r.optional_number("far", Range{1e-4, 1e7})) {
      if (*far > c.near_plane * 1.001) c.far_plane = float(*far);
      else
        r.error(r.child("far"),
                fmt::format("expected a number > 1.001 × near ({} × 1.001), got {}", c.near_plane, *far));
    } else if (!r.present("far") && !(c.far_plane > c.near_plane * 1.001)) {  // (a far given is its own problem)
      r.error(r.child("near"), fmt::format("expected a number < far / 1.001 (far is {} when not given), got {}: give "
                                           "/camera/far beyond it",
                                           c.far_plane, c.near_plane));
    }
    if (const Json* keys = r.array("keys")) {
      CameraKey previous{0, c.position, c.target};
      // Whether the previous key's position and target (the camera's before
      // the first key) were read: a key without its own takes them, and one
      // that stood in for a value refused is no view to judge.
      bool previous_position_read = position_read, previous_target_read = target_read;
      for (size_t i = 0; i < keys->size(); ++i) {
        ObjectReader k(&(*keys)[i], fmt::format("/camera/keys/{}", i), problems_);
        if (!(*keys)[i].is_object()) {
          r.error(k.pointer(), "expected a keyframe { \"time\": s, \"position\": v, \"target\": v }, " +
                                   describe_json((*keys)[i]));
          continue;
        }
        k.require("time", "the key's time in seconds");
        CameraKey key;
        const size_t problems_before = problems_.size();
        key.time = k.number("time", previous.time, kTime);
        // (A time out of range is its problem already, and stands as the previous key's.)
        if (i > 0 && key.time <= previous.time && k.present("time") && problems_.size() == problems_before)
          k.error(k.child("time"), fmt::format("expected a time later than the previous key's {}, got {}",
                                               previous.time, key.time));
        size_t problems_before_key_value = problems_.size();
        key.position = k.vector("position", previous.position, kCoordinate);
        const bool key_position_read =
            problems_.size() == problems_before_key_value && (k.present("position") || previous_position_read);
        problems_before_key_value = problems_.size();
        key.target = k.vector("target", previous.target, kCoordinate);
        const bool key_target_read =
            problems_.size() == problems_before_key_value && (k.present("target") || previous_target_read);
        if (up_read && key_position_read && key_target_read) check_view(k, key.position, key.target, c.up);
        k.finish();
        c.keys.push_back(key);
        previous = key;
        previous_position_read = key_position_read, previous_target_read = key_target_read;
      }
    }
    c.shutter = optional_float(r, "shutter", Range{0, 1});
    c.aperture = optional_float(r, "aperture", Range{0.5, 128});
    c.focus_distance = optional_float(r, "focus_distance", Range{1e-3, 1e6});
    // Nearer than the focal length a lens focuses nothing: every particle
    // was spread over a disc the size of the frame, and the frames came out
    // empty, without a word.
    if (const float f = focal_length(c.fov); c.focus_distance && *c.focus_distance <= f)
      r.error(r.child("focus_distance"),
              fmt::format("expected a distance beyond the lens's focal length, {:.4g} m (a 24 mm sensor at fov {:g}), "
                          "got {:g}: nearer, the lens focuses nothing",
                          f, c.fov, *c.focus_distance));
    c.exposure = float(r.number("exposure", c.exposure, Range{-20, 20}));
    if (c.keys.empty() && view_read) {
      check_view(r, c.position, c.target, c.up);
      if (const std::string why = focus_at_target_problem(glm::distance(c.position, c.target)); !why.empty())
        r.error(r.child("target"), why);
    } else if (problems_.empty()) {
      check_path(r);
    }
    r.finish();
  }

  // camera.shutter sets every streak: rain's and snow's (their `streak`, in
  // frames) and the fountain's drops.
  void apply_shutter() {
    if (!scene_.camera.shutter) return;
    const float shutter = *scene_.camera.shutter;
    for (EmitterSettings& e : scene_.emitters) {
      if (auto* rain = std::get_if<RainParams>(&e.params)) rain->streak = shutter;
      if (auto* snow = std::get_if<SnowParams>(&e.params)) snow->streak = shutter;
      if (auto* fountain = std::get_if<FountainParams>(&e.params)) fountain->shutter = shutter;
    }
  }

  static std::optional<float> optional_float(ObjectReader& r, const std::string& key, Range range) {
    const std::optional<double> value = r.optional_number(key, range);
    return value ? std::optional<float>(float(*value)) : std::nullopt;
  }

  // The camera must look somewhere: a target apart from the eye, and an `up`
  // that is not along the view (the image's orientation would be undefined).
  void check_view(ObjectReader& r, glm::vec3 position, glm::vec3 target, glm::vec3 up) {
    const ViewProblem problem = view_problem(position, target, up);
    if (problem == ViewProblem::target_at_eye)
      r.error(r.child("target"), fmt::format("expected a target at least 0.001 m from the camera position [{}, {}, {}]",
                                             position.x, position.y, position.z));
    else if (problem == ViewProblem::along_up)
      r.error(r.child("target"), fmt::format("expected a view direction not parallel to the camera's up [{}, {}, {}]",
                                             up.x, up.y, up.z));
  }

  // Keys that are each fine can still pass through a degenerate view between
  // them (the eye's and the target's paths crossing): each frame is checked,
  // up to the last a render asks for (--frames may go past output.frames).
  // Without a focus_distance the lens focuses at the target: one nearer
  // than the focal length (a target a few centimetres from the eye, a long
  // lens) focused nothing, and every frame came out black with exit 0,
  // where the same distance given as focus_distance was refused.
  std::string focus_at_target_problem(float distance) const {
    const CameraSettings& c = scene_.camera;
    const float f = focal_length(c.fov);
    if (!c.aperture || c.focus_distance || distance > f) return "";
    return fmt::format("expected the target farther from the eye than the lens's focal length, {:.4g} m (a 24 mm "
                       "sensor at fov {:g}), as the lens focuses at the target when no focus_distance is given; it is "
                       "{:.4g} m away, and nearer the lens focuses nothing: give camera.focus_distance, or move the "
                       "target away",
                       f, c.fov, distance);
  }

  void check_path(ObjectReader& r) {
    const auto& o = scene_.output;
    const int last = std::max(o.frames, last_frame_);
    for (int frame = 0; frame <= last; ++frame) {
      const double t = double(frame) / o.fps;
      const CameraPose pose = camera_view_at(scene_.camera, t);
      const ViewProblem problem = view_problem(pose.position, pose.target, pose.up);
      if (const std::string why = focus_at_target_problem(glm::distance(pose.position, pose.target)); !why.empty()) {
        r.error(r.child("keys"), fmt::format("at frame {} (t = {} s): {}", frame, t, why));
        return;
      }
      if (problem == ViewProblem::none) continue;
      r.error(r.child("keys"), fmt::format("expected a camera path whose target stays apart from the eye and off its "
                                           "up axis, but at frame {} (t = {} s{}) the view is degenerate ({})", frame, t,
                                           frame > o.frames ? fmt::format("; --frames goes past output.frames, {}", o.frames) : "",
                                           problem == ViewProblem::along_up ? "looking along up" : "the target meets the eye"));
      return;
    }
  }

  void parse_environment(const Json* node) {
    ObjectReader r(node, "/environment", problems_);
    auto& e = scene_.environment;
    e.gravity = r.vector("gravity", e.gravity, kAcceleration);
    r.accepts("ground", Json{{"type", "null"}});
    if (const Json* ground = r.raw("ground"); ground && ground->is_null()) {
      e.ground.reset();
    } else if (const Json* g = r.object("ground")) {
      ObjectReader gr(g, "/environment/ground", problems_);
      e.ground->height = float(gr.number("height", 0, kCoordinate));
      e.ground->color = gr.optional_color("color");
      e.ground->soft = float(gr.number("soft", 0, Range{0, 100}));
      gr.finish();
    }
    if (const Json* fog = r.object("fog")) {
      ObjectReader f(fog, "/environment/fog", problems_);
      Fog value;
      value.color = f.color("color", value.color);
      value.density = float(f.number("density", value.density, Range{0, 10}));
      value.height_falloff = float(f.number("height_falloff", value.height_falloff, Range{0, 10}));
      value.base = float(f.number("base", value.base, kCoordinate));
      f.finish();
      e.fog = value;
    }
    parse_lighting(r);
    if (const Json* sky = r.object("sky")) {
      ObjectReader s(sky, "/environment/sky", problems_);
      s.require("horizon", "the sky's colour at the horizon");
      s.require("zenith", "the sky's colour overhead");
      e.sky = Sky{s.color("horizon", Color{}), s.color("zenith", Color{})};
      if (scene_.output.transparent())
        r.error(r.child("sky"), "a sky hides a transparent background: give one or the other");
      s.finish();
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

  void parse_lighting(ObjectReader& r) {
    const Json* ambient = r.object("ambient");
    r.accepts("lights", Json{{"type", "array"}, {"maxItems", kMaxLights}});
    const Json* lights = r.array("lights");
    if (!ambient && !lights) return;
    Lighting lighting;
    if (ambient) {
      ObjectReader a(ambient, "/environment/ambient", problems_);
      lighting.ambient_color = a.color("color", lighting.ambient_color);
      lighting.ambient = float(a.number("intensity", 0.2, Range{0, 1e4}));
      a.finish();
    }
    if (lights && lights->size() > kMaxLights)
      r.error(r.child("lights"), fmt::format("expected at most {} lights, got {}", kMaxLights, lights->size()));
    else if (lights)
      for (size_t i = 0; i < lights->size(); ++i) {
        ObjectReader l(&(*lights)[i], fmt::format("/environment/lights/{}", i), problems_);
        if (!(*lights)[i].is_object()) {
          r.error(l.pointer(), "expected a light { \"type\": \"directional\", \"point\" or \"spot\", … }, " +
                                   describe_json((*lights)[i]));
          continue;
        }
        l.require("type", "\"directional\", \"point\" or \"spot\"");
        Light light;
        light.type = l.choice("type", light.type, {{"directional", LightType::directional}, {"point", LightType::point},
                                                   {"spot", LightType::spot}});
        const auto nonzero = [](glm::vec3 v) { return glm::length(v) > 1e-6f; };
        if (light.type != LightType::directional) light.position = l.vector("position", light.position, kCoordinate);
        if (light.type != LightType::point)
          light.direction = glm::normalize(l.vector("direction", light.direction, kCoordinate, "of length > 0.000001", nonzero));
        light.color = l.color("color", light.color);
        light.intensity = float(l.number("intensity", light.intensity, Range{0, 1e7}));
        if (light.type != LightType::directional) light.range = float(l.number("range", light.range, Range{0.01, 1e5}));
        light.follow_camera = l.boolean("follow_camera", false);
        if (light.type != LightType::directional) light.size = float(l.number("size", 0, Range{0, 100}));
        if (light.type == LightType::spot) {
          light.inner_cone = float(l.number("inner_cone", light.inner_cone, Range{0, 89}));
          // Without outer_cone: 35°, or 10° past a wider inner cone (a default
          // equal to inner_cone was refused, naming a key the scene lacks).
          const double outer = light.inner_cone < light.outer_cone ? light.outer_cone
                                                                    : std::min(89.9, double(light.inner_cone) + 10.0);
          light.outer_cone = float(l.number("outer_cone", outer, Range{0.1, 89.9}));
          if (light.outer_cone <= light.inner_cone)
            l.error(l.child("outer_cone"), fmt::format("expected an angle larger than inner_cone ({}°), got {}°",
                                                       light.inner_cone, light.outer_cone));
        }
        // Another type's keys, named as such ("unknown key" read as a typo).
        const char* kind = light.type == LightType::directional ? "directional"
                           : light.type == LightType::point     ? "point"
                                                                : "spot";
        const auto elsewhere = [&](const char* key, const char* which) {
          l.not_for(key, fmt::format("a {} light has no \"{}\" ({} lights have one)", kind, key, which));
        };
        if (light.type == LightType::directional)
          for (const char* key : {"position", "range", "size"}) elsewhere(key, "point and spot");
        if (light.type == LightType::point) elsewhere("direction", "directional and spot");
        if (light.type != LightType::spot)
          for (const char* key : {"inner_cone", "outer_cone"}) elsewhere(key, "spot");
        l.finish();
        lighting.lights.push_back(light);
      }
    scene_.environment.lighting = std::move(lighting);
  }

  void parse_emitter(const Json& node, size_t index) {
    const std::string pointer = fmt::format("/emitters/{}", index);
    if (!node.is_object()) {
      problems_.push_back({pointer, "expected an emitter object { \"type\": … }, " + describe_json(node), false, std::nullopt});
      return;
    }
    ObjectReader r(&node, pointer, problems_);
    std::string types;
    for (const auto& name : effect_type_names()) types += (types.empty() ? "\"" : ", \"") + name + "\"";
    r.require("type", "one of " + types);
    EmitterSettings e;
    if (const Json* type = r.raw("type")) {
      const auto params = type->is_string() ? effect_params_named(type->get<std::string>()) : std::nullopt;
      if (params) e.params = *params;
      else r.error(r.child("type"), "expected one of " + types + ", " + describe_json(*type));
    }
    // (Its length is counted in bytes here, at most 64; a schema counts
    // characters, so it says at most 64 characters, a bound no longer name
    // passes either way.)
    e.name = r.string("name", fmt::format("{}{}", e.type_name(), index),
                      Json{{"type", "string"}, {"minLength", 1}, {"maxLength", 64},
                           {"pattern", R"(^[^/\\\x00-\x1f\x7f]*$)"}, {"not", Json{{"enum", {".", ".."}}}}});
    // It names files (a mask layer's PNG beside each frame): nothing that
    // could lead out of the folder or into another one.
    const bool safe_name = !e.name.empty() && e.name.size() <= 64 && e.name != "." && e.name != ".." &&
                           std::none_of(e.name.begin(), e.name.end(), [](char c) {
                             return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
                           });
    if (!safe_name)
      r.error(r.child("name"), fmt::format("expected a name of 1 to 64 bytes of UTF-8, not . or .., without '/', '\\' or "
                                           "control characters (it names mask files), got {}",
                                           Json(e.name).dump()));
    else if (!emitter_names_.insert(e.name).second)
      r.error(r.child("name"), fmt::format("expected a unique emitter name, got \"{}\" again", e.name));
    const uint64_t derived = mix64(scene_.seed ^ mix64(uint64_t(index) + 0x5EED));
    e.seed = uint64_t(r.integer("seed", int64_t(derived >> 1), kSeed));
    parse_common(r, e, effect_defaults(e.params));
    parse_effect_keys(r, e, textures_);
    if (e.is_precipitation() && e.precipitation().sizes) apply_weather(r, e);
    if (e.is_precipitation() && !e.precipitation().follow_camera)  // (carried by the camera: where it lies moves)
      warn_of_a_box_under_the_ground(r, e.precipitation().region);
    if (e.is<FireParams>() || e.is<ExplosionParams>()) parse_effect_light(r, e);
    r.finish();
    scene_.emitters.push_back(std::move(e));
    emitter_indices_.push_back(index);
  }

  // An emitter's secondary particles are counted in the statistics as
  // "<name>.<kind>" (the fountain's mist, rain's splashes, the fire's embers,
  // an explosion's debris): no other emitter may have that name.
  void check_secondary_names() {
    std::map<std::string, size_t> by_name;  // name → index in scene_.emitters
    for (size_t k = 0; k < scene_.emitters.size(); ++k) by_name.emplace(scene_.emitters[k].name, k);
    for (size_t k = 0; k < scene_.emitters.size(); ++k) {
      const EmitterSettings& e = scene_.emitters[k];
      const char* kind = e.is<FountainParams>() ? "mist"
                         : e.is_precipitation() ? "splash"
                         : e.is<FireParams>()   ? "embers"
                         : e.is<ExplosionParams>() ? "debris"
                                                   : nullptr;
      if (!kind) continue;
      const auto clash = by_name.find(e.name + "." + kind);
      if (clash == by_name.end()) continue;
      problems_.push_back({fmt::format("/emitters/{}/name", emitter_indices_[clash->second]),
                           fmt::format("expected a name other than \"{}.{}\", which names the {} of emitter {} (\"{}\") "
                                       "in the statistics", e.name, kind, kind, emitter_indices_[k], e.name),
                           false, std::nullopt});
    }
  }

  // Rain or snow in physical units: as many particles as fill its box (the
  // cap, max_particles when given, limits them with a warning); snow's drag
  // gives its flakes' mean fall speed under this scene's gravity.
  void apply_weather(ObjectReader& r, EmitterSettings& e) {
    PrecipitationParams& p = e.is<SnowParams>() ? static_cast<PrecipitationParams&>(std::get<SnowParams>(e.params))
                                                 : std::get<RainParams>(e.params);
    const SizeDistribution& sizes = *p.sizes;
    if (e.is<SnowParams>() && p.motion == Motion::wind)
      p.drag = glm::length(scene_.environment.gravity) * std::fabs(p.gravity_scale) / float(sizes.mean_fall_speed());
    const double volume = double(p.region.size.x) * p.region.size.y * p.region.size.z;
    const double wanted = std::ceil(sizes.per_cubic_metre() * volume);
    const bool given = r.present("max_particles");
    const int64_t cap = given ? e.max_particles : kMaxPhysicalParticles;
    e.max_particles = int64_t(std::min(wanted, double(cap)));
    if (wanted > double(cap))
      scene_.warnings.push_back(fmt::format(
          "{}: {} {} per m³ fill its {:g} m³ box with {:.0f}; drawing {} ({}): lower the intensity or the box to see "
          "all of it", r.pointer(), sizes.per_cubic_metre() < 10 ? fmt::format("{:.2f}", sizes.per_cubic_metre())
                                                                : fmt::format("{:.0f}", sizes.per_cubic_metre()),
          e.is<SnowParams>() ? "flakes" : "drops", volume, wanted, e.max_particles,
          given ? "its max_particles" : "fxsim's cap for physical weather"));
  }

  // Rain or snow whose box lies wholly under the ground is born there, and
  // lay in one flat sheet at the box's top, dying and born again each frame,
  // without a word.
  void warn_of_a_box_under_the_ground(ObjectReader& r, const Region& region) {
    const auto& ground = scene_.environment.ground;
    if (!ground || region.center.y + region.size.y * 0.5f > ground->height) return;
    scene_.warnings.push_back(fmt::format(
        "{}/region: the box (top at {:g} m) lies wholly under the ground (at {:g} m): its particles are born under it "
        "and lie on it; raise the box's center",
        r.pointer(), region.center.y + region.size.y * 0.5f, ground->height));
  }

  // The shaders hold kMaxLights: the scene's and the effects' together.
  void check_light_count(ObjectReader& top) {
    const size_t scene_lights = scene_.environment.lighting ? scene_.environment.lighting->lights.size() : 0;
    const size_t effect_lights = size_t(std::count_if(scene_.emitters.begin(), scene_.emitters.end(),
                                                      [](const EmitterSettings& e) { return e.light.has_value(); }));
    if (scene_lights + effect_lights > kMaxLights)
      top.error(top.child("emitters"), fmt::format("expected at most {} lights in all, got {} in environment.lights and "
                                                   "{} fires and explosions with a light", kMaxLights, scene_lights,
                                                   effect_lights));
  }

  void parse_effect_light(ObjectReader& r, EmitterSettings& e) {
    r.accepts("light", Json{{"type", "null"}});
    r.accepts("light", Json{{"type", "boolean"}});
    const Json* node = r.raw("light");
    if (!node || node->is_null() || (node->is_boolean() && !node->get<bool>())) return;
    EffectLight light;
    if (e.is<ExplosionParams>()) light.intensity = 60, light.range = 30;
    if (!node->is_boolean()) {
      const Json* object = r.object("light");
      if (!object) return;
      ObjectReader l(object, r.child("light"), problems_);
      light.color = l.color("color", light.color);
      light.intensity = float(l.number("intensity", light.intensity, Range{0, 1e7}));
      light.range = float(l.number("range", light.range, Range{0.01, 1e5}));
      l.finish();
    }
    e.light = light;
  }

  void parse_common(ObjectReader& r, EmitterSettings& e, const CommonDefaults& d) {
    e.max_particles = r.integer("max_particles", d.max_particles, IntRange{0, 0x7FFFFFFF});
    e.start = r.number("start", 0, kTime);
    if (d.endless) r.accepts("duration", Json{{"type", "null"}});  // (an explosion's null is refused by its parser)
    if (const Json* duration = r.raw("duration"); !duration || !duration->is_null())
      e.duration = r.optional_number("duration", kDuration);  // (absent: none)
    e.color = r.color("color", *parse_hex_color(d.color));
    e.opacity = float(r.number("opacity", d.opacity, kUnit));
    e.size = float(d.size);
    if (d.sprite_size) e.size = float(r.number("size", d.size, kSpriteSize));
    if (d.size_varies)
      e.size_variation = float(r.number("size_variation", 0, kUnit));
    else
      r.not_for("size_variation", fmt::format("{} emitters have no \"size_variation\" (their {} vary in size on their own)",
                                              e.type_name(), d.secondaries));
    e.blend = r.choice("blend", d.blend, {{"alpha", BlendMode::alpha}, {"additive", BlendMode::additive}});
    e.billboard = r.choice("billboard", d.billboard,
                           {{"screen", BillboardMode::screen}, {"viewpoint", BillboardMode::viewpoint},
                            {"axial", BillboardMode::axial}});
  }

  const Json& root_;
  std::filesystem::path base_dir_;
  ParseContext textures_;  // one for the scene: each texture file checked once
  std::string stem_;
  int last_frame_ = 0;                   // the last frame a render asks for, when past output.frames
  std::vector<size_t> emitter_indices_;  // each parsed emitter's index in the file's "emitters"
  Scene scene_;
  std::vector<Diagnostic> problems_;
  std::unordered_set<std::string> emitter_names_;
};

}  // namespace

Json parse_located_json(std::string_view text, std::string_view label, const JsonLocations& where) {
  if (const auto& deep = where.too_deep())
    throw SceneError(format_diagnostics(label, where, {{deep->pointer, deep->message, false, deep->offset}}));
  // The parser took a NUL byte for the end of the text, and what followed was never read.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const LineColumn at = where.at_offset(nul);
    throw SceneError({fmt::format("{}:{}:{}: not valid JSON: a NUL byte (is it a binary file?)", label, at.line, at.column)});
  }
  try {
    return Json::parse(text.begin(), text.end());
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
}

Scene parse_scene_text(std::string_view text, std::string_view label, const std::filesystem::path& base_dir,
                       const std::vector<SceneOverride>& overrides, int last_frame) {
  if (text.size() > kMaxSceneBytes)
    throw SceneError({fmt::format("{}: the scene is larger than {} bytes (16 MiB), the most fxsim reads", label,
                                  kMaxSceneBytes)});
  // Editors may write a UTF-8 byte-order mark; JSON parsers refuse it. Columns
  // are counted after it, as an editor shows them.
  text.remove_prefix(utf8_bom_length(text));
  const JsonLocations where(text);
  Json root = parse_located_json(text, label, where);
  const Json file = overrides.empty() ? Json() : root;  // as written, to tell the overrides' problems from the file's
  // An override's value refused as a file's would be (--set /camera/fov=1e400 became the string "1e400").
  std::vector<std::string> value_problems;
  for (const SceneOverride& o : overrides)
    for (const JsonScanProblem& p : o.value_problems)
      value_problems.push_back(fmt::format("{}: {}{}: {}", o.label, o.pointer, p.pointer, p.message));
  if (!value_problems.empty()) {
    const size_t count = value_problems.size();
    throw SceneError(std::move(value_problems), count);
  }
  // Not into what is no scene ([] or "text"): the parser says what it is
  // (an override there gave a garbled usage error).
  if (root.is_object()) apply_overrides(root, overrides);
  std::string stem = std::filesystem::path(std::string(label)).stem().string();
  Parser parser(root, base_dir, stem.empty() || label == "<stdin>" ? "frame" : stem, last_frame);
  Scene scene = parser.parse();
  for (const SceneOverride& o : overrides) scene.overridden.emplace_back(o.pointer, o.label);
  for (const auto& d : where.duplicate_keys()) parser.problems().push_back({d.pointer, d.message, true, d.offset});
  if (!parser.problems().empty()) {
    // A problem with an overridden value is the override's, not the file's.
    std::vector<std::string> lines;
    std::vector<Diagnostic> in_file;
    for (const Diagnostic& d : parser.problems()) {
      if (const SceneOverride* o = override_of(overrides, d.pointer, &file))
        lines.push_back(fmt::format("{}: {}: {}", o->label, d.pointer, d.message));
      else
        in_file.push_back(d);
    }
    for (std::string& line : format_diagnostics(label, where, in_file)) lines.push_back(std::move(line));
    const bool all_missing = std::all_of(parser.problems().begin(), parser.problems().end(),
                                         [](const Diagnostic& d) { return d.missing_file; });
    throw SceneError(std::move(lines), parser.problems().size(), all_missing);
  }
  // Values, not their spelling: 24, 24.0 and 2.4e1 are one fps (--fps gave
  // 24.0 for a scene's 24, and its checkpoints were ignored as another scene's).
  const auto canonical_numbers = [](auto& self, Json& value) -> void {
    if (value.is_structured())
      for (Json& child : value) self(self, child);
    else if (value.is_number_float() && std::trunc(value.get<double>()) == value.get<double>() &&
             std::fabs(value.get<double>()) < 9007199254740992.0)
      value = int64_t(value.get<double>());
  };
  canonical_numbers(canonical_numbers, root);
  Json look = root;
  if (look.contains("output") && look["output"].is_object())
    for (const char* key : {"path", "frames", "png_level", "width", "height"}) look["output"].erase(key);
  scene.look_key = sha256_hex(look.dump());
  Json simulated = std::move(root);
  if (simulated.contains("output") && simulated["output"].is_object()) {
    Json kept = Json::object();
    for (const char* key : {"fps", "substeps"})
      if (simulated["output"].contains(key)) kept[key] = simulated["output"][key];
    simulated["output"] = kept;
  }
  // The look (fog, light, sky, the soft ground edge, the exposure) is drawn, not simulated.
  if (simulated.contains("environment") && simulated["environment"].is_object()) {
    for (const char* key : {"fog", "ambient", "lights", "sky"}) simulated["environment"].erase(key);
    if (simulated["environment"].contains("ground") && simulated["environment"]["ground"].is_object())
      simulated["environment"]["ground"].erase("soft");
  }
  if (simulated.contains("emitters") && simulated["emitters"].is_array())
    for (Json& emitter : simulated["emitters"])
      if (emitter.is_object()) emitter.erase("light");
  if (simulated.contains("camera") && simulated["camera"].is_object())
    for (const char* key : {"shutter", "aperture", "focus_distance", "exposure"}) simulated["camera"].erase(key);
  scene.simulation_key = sha256_hex(simulated.dump());
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

std::string locate_scene_problem(const Scene& scene, const std::string& pointer, const std::string& message) {
  std::string label;  // the last override that set the value or one above it
  for (const auto& [set, name] : scene.overridden)
    if (!name.empty() && is_at_or_below(pointer, set)) label = name;
  if (!label.empty()) return fmt::format("{}: {}: {}", label, pointer, message);
  // The text is read again (a scene is small) only for such a message.
  Diagnostic problem;
  problem.pointer = pointer;
  problem.message = message;
  try {
    if (scene.file != "<stdin>")
      return format_diagnostics(scene.file.string(), JsonLocations(read_scene_file(scene.file)), {problem}).front();
  } catch (const FxError&) {
  }
  return fmt::format("{}: {}: {}", scene.file.string(), pointer, message);
}

namespace {
// Standard input, up to one byte past kMaxSceneBytes (parse_scene_text refuses more).
std::string read_standard_input() {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FxError(ExitCode::input_missing, fmt::format("<stdin>: cannot read the scene from standard input ({})",
                                                         std::strerror(errno)));
    }
    text.append(buffer, size_t(n));
    if (text.size() > kMaxSceneBytes) break;
  }
  return text;
}
}  // namespace

Scene parse_scene_file(const std::filesystem::path& file, const std::vector<SceneOverride>& overrides, int last_frame) {
  if (file == "-") {
    Scene scene = parse_scene_text(read_standard_input(), "<stdin>", ".", overrides, last_frame);
    scene.file = "<stdin>";
    return scene;
  }
  const std::string text = read_scene_file(file);
  std::filesystem::path base = file.parent_path();
  if (base.empty()) base = ".";
  Scene scene = parse_scene_text(text, file.string(), base, overrides, last_frame);
  scene.file = file;
  return scene;
}

}  // namespace fxsim
