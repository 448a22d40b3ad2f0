// The scene format's documentation and the parser agree: every key the parser
// accepts is documented in docs/scene-format.md, and every key the docs' tables
// list is accepted. The parser reports what it accepts (AcceptedKeys) while it
// reads scenes that contain every object of the format.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/json_locations.h"
#include "core/scene_parser.h"
#include "core/scene_reader.h"
#include "core/scene_schema.h"

using namespace fxsim;

namespace {
std::string docs() {
  std::ifstream in(FXSIM_SOURCE_DIR "/docs/scene-format.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Scenes with every object of the format (the JSON Schema's probes).
std::set<std::string> accepted_keys() {
  AcceptedKeys catalog;
  for (const char* probe : schema_probe_scenes()) {
    try {
      parse_scene_text(probe, "everything.json", FXSIM_SOURCE_DIR);
    } catch (const FxError&) {
      // rules across keys broken on purpose: what was read is caught all the same
    }
  }
  return catalog.keys();
}
}  // namespace

TEST(SceneFormatDoc, EveryKeyTheParserAcceptsIsDocumented) {
  const std::string text = docs();
  const std::set<std::string> keys = accepted_keys();
  ASSERT_GT(keys.size(), 80u);  // the scene above reached every object
  for (const auto& pointer : keys) {
    const std::string key = json_pointer_tokens(pointer).back();
    const bool documented = text.find("`" + key + "`") != std::string::npos ||
                            text.find("\"" + key + "\"") != std::string::npos ||
                            text.find("`" + json_pointer_tokens(pointer).end()[-2] + "." + key + "`") != std::string::npos;
    EXPECT_TRUE(documented) << pointer << " is accepted but docs/scene-format.md does not mention `" << key << "`";
  }
}

TEST(SceneFormatDoc, EveryKeyTheDocsListIsAccepted) {
  std::set<std::string> names;
  for (const auto& pointer : accepted_keys()) names.insert(json_pointer_tokens(pointer).back());
  // The first column of the key tables: "| `width`, `height` | …", "| `ground.height` | …".
  std::istringstream lines(docs());
  const std::regex key_cell(R"(`([a-z_.]+)`)");
  int listed = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::string cell = line.substr(1, line.find('|', 1) - 1);
    for (std::sregex_iterator it(cell.begin(), cell.end(), key_cell), end; it != end; ++it) {
      std::string key = (*it)[1];
      if (const size_t dot = key.rfind('.'); dot != std::string::npos) key = key.substr(dot + 1);
      ++listed;
      EXPECT_TRUE(names.count(key)) << "docs/scene-format.md lists `" << (*it)[1] << "`, which the parser does not accept";
    }
  }
  EXPECT_GT(listed, 60);
}
