// The scene format's JSON Schema (`fxsim schema`, core/scene_schema.h) judged
// by Debian's python3-jsonschema (tests/schema_check.py): it is a valid draft
// 2020-12 schema; every example scene and every scene the documentation shows
// passes it; every hostile scene of the suite (tests/hostile_scenes.h) that a
// schema can judge fails it; the copy in docs/ is what fxsim prints; and fxsim
// accepts a scene naming it in "$schema".
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "hostile_scenes.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
// Hostile scenes no schema can refuse: rules across values (a camera looking
// at itself or along its up, a zero up, a path through a degenerate view, a
// nozzle direction too short to normalise) and a duplicate key (a schema sees
// the parsed object, with one "seed").
const std::set<std::string> kBeyondASchema = {"eye_on_target", "key_eye_on_target",  "up_along_view",
                                              "up_zero",       "path_crosses_itself", "escaped_duplicate_key",
                                              "nozzle_direction_tiny"};
// Nested deeper than Python's parser goes (fxsim refuses them at 256 levels).
const std::set<std::string> kUnparsable = {"deep_arrays", "deep_objects"};

// Each file's verdict: "valid", "invalid: …" or "unparsable: …".
std::map<fs::path, std::string> judge(const TempDir& dir, const std::vector<fs::path>& files) {
  const CliResult schema = run_fxsim("schema");
  EXPECT_EQ(schema.exit_code, 0);
  write_text_file(dir / "scene.schema.json", schema.out);
  std::string command = fmt::format("/usr/bin/python3 '{}/tests/schema_check.py' '{}'", FXSIM_SOURCE_DIR,
                                    (dir / "scene.schema.json").string());
  for (const fs::path& f : files) command += " '" + f.string() + "'";
  const CliResult r = run_command(command);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::map<fs::path, std::string> verdicts;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.find(' ');
    const std::string verdict = line.substr(0, space);
    std::string rest = line.substr(space + 1);
    const size_t colon = rest.find(": ");
    const fs::path file = colon == std::string::npos ? rest : rest.substr(0, colon);
    verdicts[file] = verdict + (colon == std::string::npos ? "" : rest.substr(colon));
  }
  return verdicts;
}

// The ```json blocks of a document that are scenes.
std::vector<std::string> documented_scenes(const fs::path& document) {
  const std::string text = read_text_file(document);
  std::vector<std::string> scenes;
  const std::regex block("```json\n([^`]*)```");
  for (std::sregex_iterator it(text.begin(), text.end(), block), end; it != end; ++it)
    if ((*it)[1].str().find("\"fxsim\"") != std::string::npos) scenes.push_back((*it)[1]);
  return scenes;
}
}  // namespace

TEST(SceneSchema, EveryExampleAndDocumentedScenePassesIt) {
  TempDir dir("schema-examples");
  std::vector<fs::path> files;
  for (const std::string& name : example_scene_names())
    files.push_back(example_scene(name));
  for (const char* document : {"docs/scene-format.md", "README.md"}) {
    const std::vector<std::string> scenes = documented_scenes(fs::path(FXSIM_SOURCE_DIR) / document);
    EXPECT_FALSE(scenes.empty()) << document;
    for (size_t i = 0; i < scenes.size(); ++i) {
      files.push_back(dir / fmt::format("{}-{}.json", fs::path(document).stem().string(), i));
      write_text_file(files.back(), scenes[i]);
    }
  }
  const auto verdicts = judge(dir, files);
  ASSERT_EQ(verdicts.size(), files.size());
  for (const fs::path& f : files) EXPECT_EQ(verdicts.at(f), "valid") << f;
}

TEST(SceneSchema, RefusesTheHostileScenesASchemaCanJudge) {
  TempDir dir("schema-hostile");
  std::vector<fs::path> files;
  std::map<fs::path, std::string> names;
  for (const Hostile& h : hostile_scenes()) {
    files.push_back(dir / (std::string(h.name) + ".json"));
    names[files.back()] = h.name;
    write_text_file(files.back(), h.text());
  }
  // And mistakes an editor should flag as they are typed.
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"unknown_top_key", R"({"fxsim": 1, "emiters": [], "emitters": [{"type": "snow"}]})"},
           {"unknown_effect", R"({"fxsim": 1, "emitters": [{"type": "hail"}]})"},
           {"key_of_another_effect", R"({"fxsim": 1, "emitters": [{"type": "snow", "nozzles": []}]})"},
           {"blend_misspelt", R"({"fxsim": 1, "emitters": [{"type": "rain", "blend": "add"}]})"},
           {"colour_not_hex", R"({"fxsim": 1, "output": {"background": "#12345"}, "emitters": [{"type": "snow"}]})"},
           {"no_emitters", R"({"fxsim": 1, "emitters": []})"},
           {"no_version", R"({"emitters": [{"type": "snow"}]})"},
           // Within the old ranges, refused by fxsim: the schema said 8..16, 1..8 and 2^63 at most.
           {"bit_depth_9", R"({"fxsim": 1, "output": {"bit_depth": 9}, "emitters": [{"type": "snow"}]})"},
           {"samples_7", R"({"fxsim": 1, "output": {"samples": 7}, "emitters": [{"type": "snow"}]})"},
           {"drag_tiny", R"({"fxsim": 1, "emitters": [{"type": "rain", "drag": 0.001}]})"},
           {"layer_twice", R"({"fxsim": 1, "output": {"layers": ["mask", "mask"]}, "emitters": [{"type": "snow"}]})"},
           {"seed_2_63", R"({"fxsim": 1, "emitters": [{"type": "snow", "seed": 9223372036854775808}]})"}}) {
    files.push_back(dir / (name + ".json"));
    names[files.back()] = name;
    write_text_file(files.back(), text);
  }
  const auto verdicts = judge(dir, files);
  ASSERT_EQ(verdicts.size(), files.size());
  for (const fs::path& f : files) {
    const std::string& name = names[f];
    const std::string& verdict = verdicts.at(f);
    if (kBeyondASchema.count(name)) EXPECT_EQ(verdict, "valid") << name << ": beyond a schema, said to be";
    else if (kUnparsable.count(name)) EXPECT_EQ(verdict.rfind("unparsable", 0), 0u) << name << ": " << verdict;
    else EXPECT_EQ(verdict.rfind("invalid", 0), 0u) << name << " passes the schema";
  }
}

TEST(SceneSchema, ThePublishedFileIsWhatFxsimPrints) {
  const CliResult schema = run_fxsim("schema");
  ASSERT_EQ(schema.exit_code, 0);
  EXPECT_EQ(read_text_file(fs::path(FXSIM_SOURCE_DIR) / "docs/scene.schema.json"), schema.out)
      << "docs/scene.schema.json is out of date: build/fxsim schema > docs/scene.schema.json";
}

TEST(SceneSchema, ASceneMayNameItsSchema) {
  TempDir dir("schema-named");
  write_text_file(dir / "s.json", R"({"$schema": "/usr/share/fxsim/scene.schema.json", "fxsim": 1,
    "emitters": [{"type": "snow", "max_particles": 10}]})");
  const CliResult r = run_fxsim("validate '" + (dir / "s.json").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(SceneSchema, EveryDefaultItGivesIsAValueItAccepts) {
  // The defaults come from docs/scene-format.md's tables (core/scene_format_docs.h):
  // each is judged by the schema of the key it stands in.
  TempDir dir("schema-defaults");
  const CliResult schema = run_fxsim("schema");
  ASSERT_EQ(schema.exit_code, 0);
  write_text_file(dir / "scene.schema.json", schema.out);
  const CliResult r = run_command(fmt::format("/usr/bin/python3 '{}/tests/schema_check.py' --defaults '{}'",
                                              FXSIM_SOURCE_DIR, (dir / "scene.schema.json").string()));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::istringstream lines(r.out);
  int judged = 0;
  for (std::string line; std::getline(lines, line); ++judged)
    EXPECT_TRUE(line.size() > 4 && line.substr(line.size() - 4) == ": ok") << line;
  EXPECT_GT(judged, 100);
}
