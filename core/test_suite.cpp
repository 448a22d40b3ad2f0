#include "core/test_suite.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <fmt/format.h>

#include "core/exit_codes.h"
#include "core/frame_output.h"
#include "core/scene_parser.h"
#include "core/utf8.h"

namespace fxsim {

namespace fs = std::filesystem;

namespace {
// Reads the settings an entry may give (defaults, or one scene) over `into`.
void read_settings(ObjectReader& r, SuiteScene& into, std::string& frames_text) {
  into.width = int(r.integer("width", into.width, IntRange{1, 16384}));
  into.height = int(r.integer("height", into.height, IntRange{1, 16384}));
  into.backend = r.choice<std::string>("backend", into.backend, {{"cpu", "cpu"}, {"gpu", "gpu"}, {"auto", "auto"}});
  into.hashes = r.boolean("hashes", into.hashes);
  frames_text = r.string("frames", frames_text);
  if (const Json* t = r.object("tolerance")) {
    ObjectReader tr(t, r.child("tolerance"), r.diagnostics());
    CompareThresholds& c = into.tolerance;
    c.fail = tr.number("fail", c.fail, Range{0, 1});
    c.fail_percent = tr.number("failpercent", c.fail_percent, Range{0, 100});
    c.hard_fail = tr.optional_number("hardfail", Range{0, 1}).value_or(c.hard_fail);
    c.warn = tr.number("warn", c.warn, Range{0, 1});
    c.warn_percent = tr.number("warnpercent", c.warn_percent, Range{0, 100});
    c.hard_warn = tr.optional_number("hardwarn", Range{0, 1}).value_or(c.hard_warn);
    tr.finish();
  }
}

// "first,middle,last" (the default), or a frame list as --frames takes it.
std::optional<std::vector<int>> frames_of(const std::string& text, int scene_frames) {
  if (text == "first,middle,last") {
    std::vector<int> f{1, (scene_frames + 1) / 2, scene_frames};
    f.erase(std::unique(f.begin(), f.end()), f.end());
    return f;
  }
  const auto selection = parse_frame_selection(text);
  if (!selection) return std::nullopt;
  return selection->frames();
}

Diagnostic bad_frames(const std::string& pointer, const std::string& frames_text) {
  return Diagnostic{pointer, fmt::format("expected \"first,middle,last\" or frames such as \"1,24,48\" or \"1-48:8\", got \"{}\"",
                                         frames_text), false, {}};
}

SuiteScene resolve(const fs::path& scene_file, SuiteScene settings, const std::string& frames_text,
                   std::vector<Diagnostic>& problems, const std::string& pointer) {
  settings.scene = scene_file;
  settings.name = scene_file.stem().string();
  const Scene scene = parse_scene_file(scene_file);  // a broken scene stops the suite (65)
  const auto frames = frames_of(frames_text, scene.output.frames);
  if (!frames) problems.push_back(bad_frames(pointer, frames_text));
  else settings.frames = *frames;
  return settings;
}
}  // namespace

std::string golden_frame_name(int frame, const std::string& layer) {
  return layer.empty() ? fmt::format("frame_{:04}.png", frame) : fmt::format("frame_{:04}.{}.png", frame, layer);
}

std::optional<int> golden_frame_of(const std::string& name) {
  constexpr std::string_view prefix = "frame_", suffix = ".png";
  if (name.size() < prefix.size() + 4 + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const size_t end = name.find_first_not_of("0123456789", prefix.size());
  const size_t digits = end - prefix.size();
  // golden_frame_name's digits: four at least, no leading zero beyond them, within a frame's range.
  if (digits < 4 || digits > 8 || (digits > 4 && name[prefix.size()] == '0') || name[end] != '.') return std::nullopt;
  const int frame = std::stoi(name.substr(prefix.size(), digits));
  if (frame < 1) return std::nullopt;
  return frame;
}

Suite load_suite(const fs::path& path, const std::optional<std::string>& backend) {
  if (!fs::exists(path)) throw FxError(ExitCode::input_missing, fmt::format("{}: no such suite file or folder", path.string()));
  Suite suite;
  suite.file = path;
  const bool folder = fs::is_directory(path);
  const fs::path file = folder ? path / "suite.json" : path;
  SuiteScene defaults;
  defaults.tolerance.fail = defaults.tolerance.warn = 3 / 255.0;  // a few steps of rounding
  defaults.tolerance.fail_percent = defaults.tolerance.warn_percent = 1;
  std::string default_frames = "first,middle,last";
  if (folder && !fs::exists(file)) {
    // A plain folder of scenes: every *.json, the defaults, goldens beside them.
    suite.every_json = true;
    suite.name = fs::weakly_canonical(path).filename().string();
    suite.goldens = path / "golden";
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(path))
      if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    if (backend) defaults.backend = *backend;
    std::vector<Diagnostic> problems;
    for (const auto& f : files) suite.scenes.push_back(resolve(f, defaults, default_frames, problems, ""));
    if (suite.scenes.empty()) throw FxError(ExitCode::input_missing, fmt::format("{}: no scene files (*.json) in it", path.string()));
    return suite;
  }
  const std::string text = read_scene_file(file);
  const JsonLocations where(text);
  const Json root = parse_located_json(text, file.string(), where);
  std::vector<Diagnostic> problems;
  ObjectReader top(&root, "", problems);
  if (!root.is_object()) problems.push_back({"", "expected a suite object {\"fxsim_suite\": 1, \"scenes\": [...]}", false, {}});
  const int64_t version = top.integer("fxsim_suite", 1, IntRange{1, 1});
  (void)version;
  top.require("fxsim_suite", "the suite format version, 1");
  suite.name = file.stem().string() == "suite" ? fs::weakly_canonical(file).parent_path().filename().string()
                                               : file.stem().string();
  const fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  suite.goldens = dir / top.string("goldens", "golden");
  suite.base_class = top.string("base_class", suite.base_class);
  if (const Json* d = top.object("defaults")) {
    ObjectReader dr(d, "/defaults", problems);
    read_settings(dr, defaults, default_frames);
    // Said once, where it is written (it was said at each scene's own
    // /scenes/N/frames, a key none of them had); the scenes take the default.
    if (!frames_of(default_frames, 1)) {
      problems.push_back(bad_frames("/defaults/frames", default_frames));
      default_frames = "first,middle,last";
    }
    dr.finish();
  }
  if (backend) defaults.backend = *backend;
  top.require("scenes", "the scenes to test");
  if (const Json* scenes = top.array("scenes")) {
    // A suite of none passed, testing nothing; two scenes of one name shared
    // one golden folder (and ran twice, where it was one file listed twice).
    if (scenes->empty()) problems.push_back({"/scenes", "no scenes: a suite tests at least one", false, {}});
    std::map<std::string, std::string> first_of_name;  // goldens' folder name → the pointer that took it
    for (size_t i = 0; i < scenes->size(); ++i) {
      const Json& entry = (*scenes)[i];
      const std::string pointer = fmt::format("/scenes/{}", i);
      SuiteScene settings = defaults;
      std::string frames_text = default_frames;
      std::string scene_path;
      if (entry.is_string()) {
        scene_path = entry.get<std::string>();
      } else if (entry.is_object()) {
        ObjectReader er(&entry, pointer, problems);
        scene_path = er.string("scene", "");
        er.require("scene", "the scene file, relative to the suite file");
        read_settings(er, settings, frames_text);
        if (backend) settings.backend = *backend;
        er.finish();
      } else {
        problems.push_back({pointer, "expected a scene file name or {\"scene\": …, settings}, " + describe_json(entry), false, {}});
        continue;
      }
      if (scene_path.empty()) continue;
      const fs::path scene_file = dir / scene_path;
      if (!fs::is_regular_file(scene_file)) {
        problems.push_back({pointer, fmt::format("no scene file {}", scene_file.string()), false, {}, true});
        continue;
      }
      const std::string name = scene_file.stem().string();
      if (!is_utf8(scene_file.string())) {  // (its render refuses it: JSON, XML and HTML hold text)
        problems.push_back({pointer, fmt::format("the scene file's path is not UTF-8 text ({}): rename it",
                                                 valid_utf8(scene_file.string())), false, {}});
        continue;
      }
      if (name == "." || name == "..") {  // its goldens folder would be golden/.. (the suite's folder) or golden/
        problems.push_back({pointer, fmt::format("a scene named \"{}\" ({}): its goldens would be golden/{}, not a "
                                                 "folder of its own; rename the file", name, scene_path, name),
                            false, {}});
        continue;
      }
      if (const auto [taken, fresh] = first_of_name.emplace(name, pointer); !fresh) {
        problems.push_back({pointer, fmt::format("a second scene named {} (as at {}): their goldens would share "
                                                 "golden/{}", name, taken->second, name), false, {}});
        continue;
      }
      suite.scenes.push_back(resolve(scene_file, settings, frames_text, problems, pointer + "/frames"));
    }
  }
  top.finish();
  if (!problems.empty())
    throw SceneError(format_diagnostics(file.string(), where, problems), problems.size(),
                     std::all_of(problems.begin(), problems.end(), [](const Diagnostic& d) { return d.missing_file; }));
  return suite;
}

GoldenSet golden_set(const Suite& suite, const SuiteScene& scene, const DeviceClass& device) {
  const fs::path base = suite.goldens / scene.name;
  const std::string suffix = scene.backend == "gpu" ? "-gpu" : "";
  GoldenSet set;
  for (const std::string& c : {device.exact, device.base})
    if (!c.empty()) set.lookup.push_back(base / (c + suffix));
  set.lookup.erase(std::unique(set.lookup.begin(), set.lookup.end()), set.lookup.end());
  set.lookup.push_back(base);
  if (scene.backend == "cpu" && device.base == suite.base_class) {
    set.folder = base;
    set.name = "base set";
  } else {
    set.folder = base / (device.base + suffix);
    set.name = device.base + suffix;
  }
  // CPU hashes do not depend on the device; GPU hashes are the set's.
  set.hashes = scene.backend == "cpu" ? base / "state-hashes.txt" : set.folder / "state-hashes.txt";
  return set;
}

}  // namespace fxsim
