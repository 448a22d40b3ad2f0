// Bad input through the real executable: each malformed scene must be rejected
// with exit code 65 by `fxsim validate`, naming the JSON pointer of the problem,
// and `fxsim render` must write nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
struct BadScene {
  const char* name;
  const char* json;
  const char* pointer;  // must appear in the message
  const char* words;    // and so must this
  int code = 65;        // 66: a file it names is missing
};

const BadScene kBadScenes[] = {
    {"missing_version", R"({"emitters": [{"type": "snow"}]})", "/fxsim", "missing required key"},
    {"wrong_version", R"({"fxsim": 2, "emitters": [{"type": "snow"}]})", "/fxsim", "got 2"},
    {"missing_emitters", R"({"fxsim": 1})", "/emitters", "missing required key"},
    {"empty_emitters", R"({"fxsim": 1, "emitters": []})", "/emitters", "at least one emitter"},
    {"negative_seed", R"({"fxsim": 1, "seed": -1, "emitters": [{"type": "snow"}]})", "/seed", "got -1"},
    {"zero_width", R"({"fxsim": 1, "output": {"width": 0}, "emitters": [{"type": "snow"}]})", "/output/width", "1..16384"},
    {"huge_height", R"({"fxsim": 1, "output": {"height": 20000}, "emitters": [{"type": "snow"}]})", "/output/height", "got 20000"},
    {"zero_fps", R"({"fxsim": 1, "output": {"fps": 0}, "emitters": [{"type": "snow"}]})", "/output/fps", "in 0.01..1000"},
    {"fractional_frames", R"({"fxsim": 1, "output": {"frames": 2.5}, "emitters": [{"type": "snow"}]})", "/output/frames", "integer"},
    {"bad_samples", R"({"fxsim": 1, "output": {"samples": 3}, "emitters": [{"type": "snow"}]})", "/output/samples", "1, 2, 4 or 8"},
    {"path_without_hash", R"({"fxsim": 1, "output": {"path": "a.png"}, "emitters": [{"type": "snow"}]})", "/output/path", "'#'"},
    {"bad_background", R"({"fxsim": 1, "output": {"background": "#12345"}, "emitters": [{"type": "snow"}]})", "/output/background", "colour"},
    {"colour_out_of_range", R"({"fxsim": 1, "emitters": [{"type": "snow", "color": [1, 2, 0]}]})", "/emitters/0/color", "0..1"},
    {"fov_too_wide", R"({"fxsim": 1, "camera": {"fov": 180}, "emitters": [{"type": "snow"}]})", "/camera/fov", "1..179"},
    {"short_vector", R"({"fxsim": 1, "camera": {"position": [1, 2]}, "emitters": [{"type": "snow"}]})", "/camera/position", "3 numbers"},
    {"keys_out_of_order", R"({"fxsim": 1, "camera": {"keys": [{"time": 2}, {"time": 1}]}, "emitters": [{"type": "snow"}]})", "/camera/keys/1/time", "later"},
    // A drag of 1e-40 passed validate and the render stopped with 70 ("a bug"): g / drag overflowed.
    {"drag_too_small", R"({"fxsim": 1, "emitters": [{"type": "rain", "drag": 1e-40}]})", "/emitters/0/drag", "0 (no drag) or a drag of 0.01"},
    {"mist_drag_too_small", R"({"fxsim": 1, "emitters": [{"type": "fountain", "nozzles": [{"position": [0, 0, 0], "direction": [0, 1, 0], "speed": 5, "spread": 5, "rate": 100}], "mist": {"drag": 1e-6}}]})", "/emitters/0/mist/drag", "give 0 for none"},
    {"far_before_near", R"({"fxsim": 1, "camera": {"near": 5, "far": 1}, "emitters": [{"type": "snow"}]})", "/camera/far", "> 1.001 × near (5 × 1.001), got 1"},
    {"far_just_past_near", R"({"fxsim": 1, "camera": {"near": 0.1, "far": 0.10005}, "emitters": [{"type": "snow"}]})", "/camera/far", "> 1.001 × near"},
    {"near_past_the_default_far", R"({"fxsim": 1, "camera": {"near": 2000}, "emitters": [{"type": "snow"}]})", "/camera/near", "far is 1000 when not given"},
    {"name_leaving_the_folder", R"({"fxsim": 1, "emitters": [{"type": "snow", "name": "../../evil"}]})", "/emitters/0/name", "without '/'"},
    {"name_of_a_secondary", R"({"fxsim": 1, "emitters": [{"type": "fountain", "name": "a"}, {"type": "snow", "name": "a.mist"}]})",
     "/emitters/1/name", "which names the mist of emitter 0 (\"a\") in the statistics"},
    {"layer_twice", R"({"fxsim": 1, "output": {"layers": ["mask", "depth", "mask"]}, "emitters": [{"type": "snow"}]})", "/output/layers/2", "already in the list"},
    {"empty_name", R"({"fxsim": 1, "emitters": [{"type": "snow", "name": ""}]})", "/emitters/0/name", "1 to 64 bytes of UTF-8"},
    {"unknown_top_key", R"({"fxsim": 1, "emiters": [], "emitters": [{"type": "snow"}]})", "/emiters", "did you mean \"emitters\""},
    {"unknown_emitter_key", R"({"fxsim": 1, "emitters": [{"type": "snow", "max_particle": 5}]})", "/emitters/0/max_particle", "did you mean \"max_particles\""},
    {"unknown_type", R"({"fxsim": 1, "emitters": [{"type": "hail"}]})", "/emitters/0/type", "one of"},
    {"negative_max_particles", R"({"fxsim": 1, "emitters": [{"type": "snow", "max_particles": -5}]})", "/emitters/0/max_particles", "got -5"},
    {"opacity_above_one", R"({"fxsim": 1, "emitters": [{"type": "snow", "opacity": 1.5}]})", "/emitters/0/opacity", "0..1"},
    {"bad_blend", R"({"fxsim": 1, "emitters": [{"type": "snow", "blend": "add"}]})", "/emitters/0/blend", "\"additive\""},
    {"flat_region", R"({"fxsim": 1, "emitters": [{"type": "snow", "region": {"size": [1, 0, 1]}}]})", "/emitters/0/region/size", "each in 0.001..1000000"},
    {"bad_recycle", R"({"fxsim": 1, "emitters": [{"type": "snow", "recycle": "loop"}]})", "/emitters/0/recycle", "\"wrap\""},
    {"string_drag", R"({"fxsim": 1, "emitters": [{"type": "snow", "drag": "8"}]})", "/emitters/0/drag", "a number"},
    {"missing_texture", R"({"fxsim": 1, "emitters": [{"type": "snow", "textures": ["nope.png"]}]})", "/emitters/0/textures/0", "No such file", 66},
    // A NUL in a path: the system reads the name up to it. output.path "a\u0000b…" wrote a file "a" (exit 0), and a
    // texture's message stopped at the NUL.
    {"nul_in_output_path", R"({"fxsim": 1, "output": {"path": "a\u0000b_####.png"}, "emitters": [{"type": "snow"}]})", "/output/path", "without a NUL character"},
    {"nul_in_texture", R"({"fxsim": 1, "emitters": [{"type": "snow", "textures": ["\u0000.png"]}]})", "/emitters/0/textures/0", "got \"\\u0000.png\" (", 66},
    {"duplicate_names", R"({"fxsim": 1, "emitters": [{"type": "snow", "name": "a"}, {"type": "snow", "name": "a"}]})", "/emitters/1/name", "unique"},
    {"duplicate_key", R"({"fxsim": 1, "seed": 1, "seed": 2, "emitters": [{"type": "snow"}]})", "/seed", "duplicate key"},
    {"negative_gust_period", R"({"fxsim": 1, "environment": {"wind": {"gust": {"amplitude": [1, 0, 0], "period": -1}}}, "emitters": [{"type": "snow"}]})", "/environment/wind/gust/period", "in 0.001..1000000"},
    {"turbulence_scale_zero", R"({"fxsim": 1, "environment": {"wind": {"turbulence": {"strength": 1, "scale": 0}}}, "emitters": [{"type": "snow"}]})", "/environment/wind/turbulence/scale", "in 0.001..1000000"},
    {"fountain_without_nozzles", R"({"fxsim": 1, "emitters": [{"type": "fountain"}]})", "/emitters/0/nozzles", "missing required key"},
    {"nozzle_spread", R"({"fxsim": 1, "emitters": [{"type": "fountain", "nozzles": [{"spread": 120}]}]})", "/emitters/0/nozzles/0/spread", "0..90"},
    {"zero_direction", R"({"fxsim": 1, "emitters": [{"type": "fountain", "nozzles": [{"direction": [0, 0, 0]}]}]})", "/emitters/0/nozzles/0/direction", "of length > 0.001"},
    {"bad_mist", R"({"fxsim": 1, "emitters": [{"type": "fountain", "ring": {"count": 4}, "mist": {"opacity": 2}}]})", "/emitters/0/mist/opacity", "0..1"},
    {"fire_grid", R"({"fxsim": 1, "emitters": [{"type": "fire", "grid": [1, 32]}]})", "/emitters/0/grid", "rows in 2..1024"},
    {"fire_size", R"({"fxsim": 1, "emitters": [{"type": "fire", "size": [1]}]})", "/emitters/0/size", "[width, height]"},
    {"explosion_forever", R"({"fxsim": 1, "emitters": [{"type": "explosion", "duration": null}]})", "/emitters/0/duration", "finite"},
    {"explosion_flipbook", R"({"fxsim": 1, "emitters": [{"type": "explosion", "flipbook": [0, 4]}]})", "/emitters/0/flipbook", "1..64"},
    {"splash_count", R"({"fxsim": 1, "emitters": [{"type": "rain", "splash": {"count": -1}}]})", "/emitters/0/splash/count", "0..64"},
    {"syntax_error", "{\"fxsim\": 1,\n \"emitters\": [{\"type\": \"snow\"},]}", "2:", "not valid JSON"},
    {"not_an_object", R"([1, 2, 3])", "/", "scene object"},
};

class BadSceneTest : public ::testing::TestWithParam<BadScene> {};
}  // namespace

TEST_P(BadSceneTest, ValidateNamesThePointerAndExitsWithItsCode) {
  const BadScene& bad = GetParam();
  TempDir dir(bad.name);
  const fs::path scene = dir / (std::string(bad.name) + ".json");
  write_text_file(scene, bad.json);
  const CliResult result = run_fxsim("validate '" + scene.string() + "'");
  EXPECT_EQ(result.exit_code, bad.code) << result.err;
  EXPECT_NE(result.err.find(scene.string() + ":"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(bad.pointer), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(bad.words), std::string::npos) << result.err;
}

TEST_P(BadSceneTest, RenderWritesNothing) {
  const BadScene& bad = GetParam();
  TempDir dir(bad.name);
  const fs::path scene = dir / "scene.json";
  write_text_file(scene, bad.json);
  const CliResult result = run_fxsim("render '" + scene.string() + "' -o '" + (dir / "out/f_####.png").string() +
                                     "' --stats '" + (dir / "stats.jsonl").string() + "'");
  EXPECT_EQ(result.exit_code, bad.code) << result.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_FALSE(fs::exists(dir / "stats.jsonl"));
}

INSTANTIATE_TEST_SUITE_P(Scenes, BadSceneTest, ::testing::ValuesIn(kBadScenes),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(Cli, ReportsAllProblemsAtOnce) {
  TempDir dir("all");
  write_text_file(dir / "s.json", R"({"fxsim": 1, "output": {"width": -1, "fps": 0},
    "emitters": [{"type": "snow", "size": -1, "colour": "#fff"}]})");
  const CliResult result = run_fxsim("validate '" + (dir / "s.json").string() + "'");
  EXPECT_EQ(result.exit_code, 65);
  for (const char* p : {"/output/width", "/output/fps", "/emitters/0/size", "/emitters/0/colour"})
    EXPECT_NE(result.err.find(p), std::string::npos) << p;
  EXPECT_NE(result.err.find("4 problems"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("did you mean \"color\""), std::string::npos);
}

TEST(Cli, AFarOutOfRangeIsOneProblemNotAlsoNears) {
  // near was also said to need "far / 1.001 (far is 1000 when not given)",
  // with a far given.
  TempDir dir("far_range");
  write_text_file(dir / "s.json", R"({"fxsim": 1, "camera": {"near": 50000, "far": 10000001},
    "emitters": [{"type": "snow"}]})");
  const CliResult result = run_fxsim("validate '" + (dir / "s.json").string() + "'");
  EXPECT_EQ(result.exit_code, 65);
  EXPECT_NE(result.err.find("/camera/far"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("/camera/near"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("1 problem"), std::string::npos) << result.err;
}

TEST(Cli, NoSceneObjectIsAnInvalidSceneWithOverridesToo) {
  // With --width or --set, "[]" gave 64 and "--width 32:  has 0 elements".
  TempDir dir("not_an_object");
  for (const char* text : {"[]", "\"str\"", "null", "7"}) {
    write_text_file(dir / "s.json", text);
    for (const char* flags : {"", " --width 32", " --set /seed=3"}) {
      const CliResult r = run_fxsim("render '" + (dir / "s.json").string() + "'" + flags + " -o '" +
                                    (dir / "f_#.png").string() + "'");
      EXPECT_EQ(r.exit_code, 65) << text << flags << r.err;
      EXPECT_NE(r.err.find("s.json:1:1: /: expected a scene object"), std::string::npos) << text << flags << r.err;
    }
  }
  EXPECT_FALSE(fs::exists(dir / "f_1.png"));
  // What follows a NUL byte was never read: the scene validated.
  write_text_file(dir / "s.json", std::string("{\"fxsim\": 1, \"emitters\": [{\"type\": \"snow\"}]}\n\0{garbage", 54));
  const CliResult nul = run_fxsim("validate '" + (dir / "s.json").string() + "'");
  EXPECT_EQ(nul.exit_code, 65) << nul.err;
  EXPECT_NE(nul.err.find("s.json:2:1: not valid JSON: a NUL byte"), std::string::npos) << nul.err;
}

TEST(Cli, MissingSceneFileExitsWith66) {
  const CliResult result = run_fxsim("validate /nonexistent/scene.json");
  EXPECT_EQ(result.exit_code, 66);
  EXPECT_NE(result.err.find("/nonexistent/scene.json"), std::string::npos);
}

TEST(Cli, UsageErrorsExitWith64) {
  // In fxsim's voice, naming the command (CLI11 said "A subcommand is
  // required", "scene is required" with no word of whose).
  const CliResult none = run_fxsim("");
  EXPECT_EQ(none.exit_code, 64);
  EXPECT_EQ(none.err.find("fxsim: a command is needed: render, validate"), 0u) << none.err;
  const CliResult no_scene = run_fxsim("render");
  EXPECT_EQ(no_scene.exit_code, 64);
  EXPECT_EQ(no_scene.err.find("fxsim render: scene is required\n"), 0u) << no_scene.err;
  const CliResult narrow = run_fxsim("validate x.json --unset");
  EXPECT_EQ(narrow.exit_code, 64);
  EXPECT_EQ(narrow.err.find("fxsim validate: --unset"), 0u) << narrow.err;
  EXPECT_EQ(run_fxsim("render x.json --threads 0").exit_code, 64);
  const CliResult unknown = run_fxsim("frobnicate");
  EXPECT_EQ(unknown.exit_code, 64);
  EXPECT_NE(unknown.err.find("frobnicate: no such command; the commands are render, validate"), std::string::npos)
      << unknown.err;
  const CliResult option_first = run_fxsim("--bogus render x.json");  // (it said "A subcommand is required")
  EXPECT_EQ(option_first.exit_code, 64);
  EXPECT_EQ(option_first.err.find("fxsim: --bogus: no such option; options go after the command"), 0u) << option_first.err;
  EXPECT_EQ(run_fxsim("render " FXSIM_SOURCE_DIR "/scenes/snow.json --frames 9-3").exit_code, 64);
  // Extra arguments in the order given (CLI11 listed them last first).
  const CliResult extras = run_fxsim("render a.json b.json c.json");
  EXPECT_EQ(extras.exit_code, 64);
  EXPECT_NE(extras.err.find("fxsim render: the following arguments were not expected: b.json c.json\n"),
            std::string::npos) << extras.err;
  const CliResult dashes = run_fxsim("render -- -name.json -q");
  EXPECT_EQ(dashes.exit_code, 64);
  EXPECT_NE(dashes.err.find("was not expected: -q (options go before --)"), std::string::npos) << dashes.err;
  const CliResult after = run_fxsim("render a.json b.json -- c.json");  // CLI11 dropped c.json and the command's name
  EXPECT_NE(after.err.find("fxsim render: the following arguments were not expected: b.json c.json (options go"),
            std::string::npos) << after.err;
}

TEST(Cli, ExampleScenesValidate) {
  for (const std::string& name : example_scene_names()) {
    const CliResult result = run_fxsim("validate '" FXSIM_SOURCE_DIR "/scenes/" + name + ".json'");
    EXPECT_EQ(result.exit_code, 0) << name << "\n" << result.err;
  }
}

TEST(Cli, VersionAndHelp) {
  const CliResult version = run_fxsim("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("fxsim "), std::string::npos);
  EXPECT_EQ(run_fxsim("--help").exit_code, 0);
  EXPECT_EQ(run_fxsim("render --help").exit_code, 0);
}
