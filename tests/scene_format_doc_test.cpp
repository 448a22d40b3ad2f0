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
#include "core/scene_format_docs.h"
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

// The schema's descriptions and defaults come from these tables
// (core/scene_format_docs.h): how a table is read.
TEST(SceneFormatDoc, KeysAreReadFromTheTablesUnderTheirHeadings) {
  const std::string markdown = R"(# title
## `output`

| key | type | default | meaning |
| --- | --- | --- | --- |
| `width`, `height` | integer | `640`, `360` | image size in [pixels](#pixels) |
| `background` | colour | `#000000` | clear colour |
| `fps` | number | `24` when not given | a default with words: none |
| `bloom.radius` | number | `0.03` | a nested key, with \|a − b\| in it |

## `environment`

`wind`:

| key | type | default | meaning |
| --- | --- | --- | --- |
| `velocity` | vector | `[0, 0, 0]` | steady wind |

## Emitters

| key | type | default | meaning |
| --- | --- | --- | --- |
| `opacity` | number | per type | |

### `rain`

| key | default | meaning |
| --- | --- | --- |
| `size` `color` | `0.02`, `"#aabbcc"` | |

## Limits

| key | type | default | meaning |
| --- | --- | --- | --- |
| `ignored` | x | `1` | not a section of keys |
)";
  const std::map<std::string, KeyDoc> keys = documented_keys(markdown);
  ASSERT_EQ(keys.size(), 9u);
  EXPECT_EQ(keys.at("/output/width").meaning, "image size in [pixels](#pixels)");
  EXPECT_EQ(plain_text(keys.at("/output/width").meaning), "image size in pixels");
  EXPECT_EQ(keys.at("/output/width").value, Json(640));
  EXPECT_EQ(keys.at("/output/height").value, Json(360));
  EXPECT_EQ(keys.at("/output/background").value, Json("#000000"));
  EXPECT_FALSE(keys.at("/output/fps").value.has_value());
  EXPECT_EQ(keys.at("/output/bloom/radius").meaning, "a nested key, with \\|a − b\\| in it");
  EXPECT_EQ(plain_text(keys.at("/output/bloom/radius").meaning), "a nested key, with |a − b| in it");
  EXPECT_EQ(keys.at("/environment/wind/velocity").value, Json::parse("[0, 0, 0]"));
  EXPECT_FALSE(keys.at("/emitters/<>/opacity").value.has_value());
  EXPECT_EQ(keys.at("/emitters/<rain>/size").value, Json(0.02));
  EXPECT_EQ(keys.at("/emitters/<rain>/color").value, Json("#aabbcc"));
  EXPECT_FALSE(keys.count("/ignored"));
}

namespace {
// The schemas a pattern names: "*" an array's items (every type's case, for
// items with cases by type: lights), "<snow>" an emitter type's case ("<>":
// every type's), a key in an object or in an object among a key's alternatives.
std::vector<const Json*> schemas_at(const Json& schema, const std::string& pattern) {
  std::vector<const Json*> nodes = {&schema};
  for (const std::string& token : json_pointer_tokens(pattern)) {
    std::vector<const Json*> next;
    for (const Json* node : nodes) {
      if (token == "*") {
        if (node->contains("items") && (*node)["items"].contains("allOf"))
          for (const Json& c : (*node)["items"]["allOf"]) next.push_back(&c["then"]);
        else if (node->contains("items"))
          next.push_back(&(*node)["items"]);
      } else if (token.front() == '<') {
        const std::string type = token.substr(1, token.size() - 2);
        if (!node->contains("items") || !(*node)["items"].contains("allOf")) continue;
        for (const Json& c : (*node)["items"]["allOf"])  // (references into the schema: no copies)
          if (type.empty() || c["if"]["properties"]["type"]["const"] == type) next.push_back(&c["then"]);
      } else {
        std::vector<const Json*> objects = {node};
        if (node->contains("anyOf"))
          for (const Json& alternative : (*node)["anyOf"]) objects.push_back(&alternative);
        for (const Json* o : objects)
          if (o->contains("properties") && (*o)["properties"].contains(token)) next.push_back(&(*o)["properties"][token]);
      }
    }
    nodes = next;
  }
  return nodes;
}
}  // namespace

TEST(SceneFormatDoc, TheSchemaGivesEveryDocumentedKeyTheManualsWordsAndDefault) {
  const Json schema = scene_schema();
  const std::map<std::string, KeyDoc> keys = documented_keys(scene_format_markdown());
  ASSERT_GT(keys.size(), 120u);
  for (const auto& [pattern, doc] : keys) {
    const std::vector<const Json*> nodes = schemas_at(schema, pattern);
    EXPECT_FALSE(nodes.empty()) << pattern << " is documented but the schema has no such key";
    const bool every_emitter = pattern.find("<>") != std::string::npos;
    for (const Json* node : nodes) {
      if (!doc.meaning.empty() && !every_emitter) {
        EXPECT_EQ(node->value("description", ""), plain_text(doc.meaning)) << pattern;
      }
      if (doc.value && !every_emitter) {
        EXPECT_EQ(node->value("default", Json()), *doc.value) << pattern;
      }
      if (every_emitter && !doc.meaning.empty()) {  // its type's words or these
        EXPECT_TRUE(node->contains("description")) << pattern;
      }
    }
  }
  // A rain emitter's keys "as snow's" get snow's words and defaults, and its own where it differs.
  const Json& rain = *schemas_at(schema, "/emitters/<rain>").at(0);
  const Json& snow = *schemas_at(schema, "/emitters/<snow>").at(0);
  EXPECT_EQ(rain["properties"]["region"]["description"], snow["properties"]["region"]["description"]);
  EXPECT_EQ(rain["properties"]["region"]["default"], snow["properties"]["region"]["default"]);
  EXPECT_EQ(snow["properties"]["max_particles"]["default"], 20000);
  EXPECT_EQ(rain["properties"]["max_particles"]["default"], 50000);
  // Keys of every emitter read their words from the emitters' table where their type's row has none.
  EXPECT_EQ(snow["properties"]["size_variation"]["description"],
            plain_text(keys.at("/emitters/<>/size_variation").meaning));
}
