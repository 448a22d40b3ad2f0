// Command-line overrides of scene values (core/scene_overrides.h), applied
// before validation and named in the errors they cause.
#include <gtest/gtest.h>

#include "core/diagnostics.h"
#include "core/exit_codes.h"
#include "core/scene_parser.h"

using namespace fxsim;

namespace {
const char* kScene = R"({"fxsim": 1, "output": {"frames": 2, "path": "f_#.png"},
  "emitters": [{"name": "s", "type": "snow", "max_particles": 100}]})";

Scene parse_with(const std::vector<std::string>& sets) {
  std::vector<SceneOverride> overrides;
  for (const auto& s : sets) overrides.push_back(parse_set_override(s));
  return parse_scene_text(kScene, "scene.json", ".", overrides);
}

Scene parse_with_unsets(const std::vector<std::string>& unsets, const std::vector<std::string>& sets = {}) {
  std::vector<SceneOverride> overrides;
  for (const auto& u : unsets) overrides.push_back(parse_unset_override(u));
  for (const auto& s : sets) overrides.push_back(parse_set_override(s));
  return parse_scene_text(kScene, "scene.json", ".", overrides);
}

std::string usage_message(const std::vector<std::string>& unsets, const std::vector<std::string>& sets) {
  try {
    parse_with_unsets(unsets, sets);
  } catch (const FxError& e) {
    return e.code() == ExitCode::usage ? e.what() : "";
  }
  return "";
}

int usage_error(const std::vector<std::string>& sets) {
  try {
    parse_with(sets);
  } catch (const SceneError&) {
    return -1;
  } catch (const FxError& e) {
    return int(e.code());
  }
  return 0;
}
}  // namespace

TEST(SceneOverrides, ValuesAreJsonOrElseStrings) {
  const Scene scene = parse_with({"/output/fps=30", "/seed=7", "/output/path=out/x_####.png",
                                  "/emitters/0/max_particles=250", "/output/background=\"#ff0000\""});
  EXPECT_EQ(scene.output.fps, 30);
  EXPECT_EQ(scene.seed, 7u);
  EXPECT_EQ(scene.output.path, "out/x_####.png");
  EXPECT_EQ(scene.emitters[0].max_particles, 250);
  EXPECT_FLOAT_EQ(scene.output.background.srgb[0], 1.0f);
}

TEST(SceneOverrides, LaterOverridesWinAndMissingKeysAreCreated) {
  const Scene scene = parse_with({"/output/png_level=3", "/output/png_level=9"});
  EXPECT_EQ(scene.output.png_level, 9);
}

TEST(SceneOverrides, AnOverriddenValueIsValidatedAndTheErrorNamesTheOverride) {
  try {
    parse_with({"/output/fps=0", "/emitters/0/colour=1"});
    FAIL() << "accepted";
  } catch (const SceneError& e) {
    ASSERT_EQ(e.lines().size(), 2u);
    std::string all;
    for (const auto& l : e.lines()) all += l + "\n";
    EXPECT_NE(all.find("--set /output/fps=0: /output/fps: expected a number"), std::string::npos) << all;
    EXPECT_NE(all.find("--set /emitters/0/colour=1: /emitters/0/colour: unknown key"), std::string::npos) << all;
  }
}

TEST(SceneOverrides, AValueTheFileWouldRefuseIsRefusedAsAnOverrides) {
  // 1e400 is JSON: it became the string "1e400" ("expected a number …, got
  // \"1e400\""), and a key given twice in a value took the last.
  try {
    parse_with({"/output/fps=1e400", "/environment={\"fog\": {}, \"fog\": null}"});
    FAIL() << "accepted";
  } catch (const SceneError& e) {
    ASSERT_EQ(e.lines().size(), 2u);
    EXPECT_EQ(e.lines()[0], "--set /output/fps=1e400: /output/fps: expected a number within the range of a double "
                            "(about ±1.8e308), got 1e400");
    EXPECT_NE(e.lines()[1].find("/environment/fog: duplicate key"), std::string::npos) << e.lines()[1];
  }
  EXPECT_EQ(parse_with({"/output/path=1e400_#.png"}).output.path, "1e400_#.png");  // not JSON: a string
}

TEST(SceneOverrides, MalformedOverridesAreUsageErrors) {
  EXPECT_EQ(usage_error({"output/fps=3"}), int(ExitCode::usage));     // not a pointer
  EXPECT_EQ(usage_error({"/output/fps"}), int(ExitCode::usage));      // no value
  EXPECT_EQ(usage_error({"/a~2b=1"}), int(ExitCode::usage));          // bad escape
  EXPECT_EQ(usage_error({"/emitters/3/rate=1"}), int(ExitCode::usage));  // no such element
  EXPECT_EQ(usage_error({"/fxsim/x=1"}), int(ExitCode::usage));       // through a number
  EXPECT_EQ(usage_error({"/environment/lights/0/type=point"}), int(ExitCode::usage));  // no array there
  EXPECT_EQ(usage_error({"/environment/x/-=1"}), int(ExitCode::usage));
  try {
    parse_with({"/emitters/3/rate=1"});
  } catch (const FxError& e) {
    EXPECT_NE(std::string(e.what()).find("--set /emitters/3/rate=1: /emitters has 1 element"), std::string::npos)
        << e.what();
  }
}

TEST(SceneOverrides, UnsetRemovesAKeyBeforeTheSetsApply) {
  EXPECT_EQ(parse_with_unsets({"/output/path"}).output.path, "scene_####.png");  // the default
  EXPECT_EQ(parse_with_unsets({"/output/path"}, {"/output/path=g_#.png"}).output.path, "g_#.png");
  EXPECT_NE(usage_message({"/output/nothere"}, {}).find("--unset /output/nothere: the scene has no /output/nothere"),
            std::string::npos);
  EXPECT_NE(usage_message({"/emitters/0"}, {}).find("only an object's key can be removed"), std::string::npos);
  EXPECT_NE(usage_message({"output"}, {}).find("--unset output: expected /json/pointer"), std::string::npos);
  EXPECT_NE(usage_message({"/a~2"}, {}).find("is not a JSON pointer"), std::string::npos);
}

TEST(SceneOverrides, AnOverrideThroughANumberNamesWhatMadeIt) {
  EXPECT_NE(usage_message({}, {"/output=5", "/output/width=3"})
                .find("--set /output/width=3: cannot set /output/width in this scene: --set /output=5 made /output a "
                      "number, not an object"),
            std::string::npos);
  EXPECT_NE(usage_message({}, {"/fxsim/x=1"}).find("/fxsim is a number in the scene, not an object"),
            std::string::npos);
}

TEST(SceneOverrides, AProblemFoundAfterParsingNamesTheOverrideThatSetItsValue) {
  // The memory check and the plates locate their problems after parsing: a
  // value a flag set is the flag's (it named the file's line of another value).
  const Scene scene = parse_with({"/emitters/0/max_particles=2000000000"});
  EXPECT_EQ(locate_scene_problem(scene, "/emitters/0/max_particles", "too many"),
            "--set /emitters/0/max_particles=2000000000: /emitters/0/max_particles: too many");
  EXPECT_EQ(locate_scene_problem(parse_with({"/output={\"width\": 64}"}), "/output/width", "too wide"),
            "--set /output={\"width\": 64}: /output/width: too wide");
}

TEST(SceneOverrides, AProblemWithAnArrayNamesTheOverrideThatSetOneOfItsElements) {
  // The parser judges a vector whole, at the array's pointer: with one of
  // its elements overridden, the file's line held none of the bad value.
  const char* scene = R"({"fxsim": 1, "output": {"frames": 2, "path": "f_#.png"},
    "camera": {"position": [0, 2, 10]},
    "emitters": [{"name": "s", "type": "snow", "max_particles": 100,
                  "region": {"center": [0, 5, 0], "size": [30, 12, 30]}}]})";
  const auto lines_of = [&](const std::vector<std::string>& sets) {
    std::vector<SceneOverride> overrides;
    for (const auto& s : sets) overrides.push_back(parse_set_override(s));
    try {
      parse_scene_text(scene, "scene.json", ".", overrides);
    } catch (const SceneError& e) {
      std::string all;
      for (const auto& l : e.lines()) all += l + "\n";
      return all;
    }
    return std::string("accepted");
  };
  std::string all = lines_of({"/emitters/0/region/size/1=-1"});
  EXPECT_EQ(all.find("--set /emitters/0/region/size/1=-1: /emitters/0/region/size: "), 0u) << all;
  EXPECT_EQ(all.find("scene.json:"), std::string::npos) << all;
  all = lines_of({"/camera/position/1=1e39", "/camera/position/2=1e39"});  // the last one applied is named
  EXPECT_EQ(all.find("--set /camera/position/2=1e39: /camera/position: "), 0u) << all;
  // A problem with the file's own array, beside an override of another value, stays the file's.
  all = lines_of({"/emitters/0/region/center/1=7", "/emitters/0/region/size=[30, -1, 30]"});
  EXPECT_EQ(all.find("--set /emitters/0/region/size=[30, -1, 30]: /emitters/0/region/size: "), 0u) << all;
  EXPECT_EQ(all.find("center"), std::string::npos) << all;
}
