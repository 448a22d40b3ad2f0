#include "core/scene_schema.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <string>

#include "core/diagnostics.h"
#include "core/effects/registry.h"
#include "core/json_locations.h"
#include "core/scene_format_docs.h"
#include "core/scene_parser.h"
#include "core/scene_reader.h"

namespace fxsim {

namespace {
// The arrays whose items have keys by their "type": emitters and lights.
const Json* typed_items(const std::vector<std::string>& tokens, size_t i, const Json& root) {
  if (i == 1 && tokens[0] == "emitters") return &root["emitters"];
  if (i == 2 && tokens[0] == "environment" && tokens[1] == "lights") return &root["environment"]["lights"];
  return nullptr;
}

// Where an emitter's or a light's keys are kept apart by type:
// "/emitters/3/region" of a snow emitter is "/emitters/<snow>/region",
// "/environment/lights/0/inner_cone" of a spot light
// "/environment/lights/<spot>/inner_cone"; other array indices are "*".
std::string schema_pattern(const std::string& pointer, const Json& root) {
  std::string out;
  const std::vector<std::string> tokens = json_pointer_tokens(pointer);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    const Json* typed = index ? typed_items(tokens, i, root) : nullptr;
    if (typed) {
      out += fmt::format("/<{}>", (*typed)[std::stoul(token)].value("type", std::string()));
    } else {
      out += fmt::format("/{}", index ? std::string("*") : json_pointer_token(token));
    }
  }
  return out;
}

struct Records {
  std::map<std::string, std::vector<Json>> fragments;  // by pattern
  std::set<std::string> required;
  std::map<std::string, std::set<std::string>> children;  // pattern → its child tokens ("*", "<snow>", keys)
  std::map<std::string, KeyDoc> docs;                      // docs/scene-format.md's keys, by pattern

  void add(const std::string& pattern, const SchemaRecorder::Key& key) {
    std::vector<Json>& list = fragments[pattern];
    for (const Json& f : key.fragments)
      if (std::find(list.begin(), list.end(), f) == list.end()) list.push_back(f);
    if (key.required) required.insert(pattern);
    const size_t slash = pattern.rfind('/');
    children[pattern.substr(0, slash)].insert(pattern.substr(slash + 1));
    if (slash > 0) add_parent(pattern.substr(0, slash));
  }
  void add_parent(const std::string& pattern) {  // an array item or emitter type has no record of its own
    const size_t slash = pattern.rfind('/');
    children[pattern.substr(0, slash)].insert(pattern.substr(slash + 1));
    if (slash > 0) add_parent(pattern.substr(0, slash));
  }
};

bool is_type(const Json& fragment, const char* type) {
  const auto it = fragment.find("type");
  return it != fragment.end() && *it == type;
}

Json schema_at(const Records& r, const std::string& pattern);

// Whether the parser read an array's items (each an object read by its own reader).
bool has_items(const Records& r, const std::string& pattern) {
  const auto it = r.children.find(pattern);
  return it != r.children.end() &&
         std::any_of(it->second.begin(), it->second.end(), [](const std::string& t) { return t == "*" || t.front() == '<'; });
}

// The manual's words for the key at `pattern`, and its default. An emitter's
// key may be documented for its type, for every emitter ("<>"), or, for rain,
// as snow's ("Same keys as `snow`"): the first meaning and the first default
// along that chain. A light's keys are documented in one table for every type
// ("*").
void describe(const Records& r, const std::string& pattern, Json& property) {
  std::vector<std::string> chain = {pattern};
  static const std::string emitters = "/emitters/<";
  if (pattern.rfind(emitters, 0) == 0) {
    const size_t close = pattern.find('>');
    const std::string type = pattern.substr(emitters.size(), close - emitters.size()), rest = pattern.substr(close + 1);
    if (type == "rain") chain.push_back(emitters + "snow>" + rest);
    chain.push_back(emitters + ">" + rest);
  }
  static const std::string lights = "/environment/lights/<";
  if (pattern.rfind(lights, 0) == 0) chain.push_back("/environment/lights/*" + pattern.substr(pattern.find('>') + 1));
  std::string meaning;
  std::optional<Json> value;
  for (const std::string& p : chain) {
    const auto doc = r.docs.find(p);
    if (doc == r.docs.end()) continue;
    if (meaning.empty()) meaning = doc->second.meaning;
    if (!value) value = doc->second.value;
  }
  if (!meaning.empty()) {
    property["description"] = plain_text(meaning);
    // VS Code's own keyword: the same words with their code spans.
    property["markdownDescription"] = without_links(meaning);
  }
  if (value) property["default"] = *value;
}

// The object whose keys are `pattern`'s children (no "*" or "<type>" among them).
Json object_schema(const Records& r, const std::string& pattern, Json base) {
  Json properties = Json::object(), required = Json::array();
  const auto it = r.children.find(pattern);
  if (it != r.children.end())
    for (const std::string& token : it->second) {
      if (token == "*" || token.front() == '<') continue;
      const std::string key = json_pointer_tokens("/" + token).front();
      properties[key] = schema_at(r, pattern + "/" + token);
      describe(r, pattern + "/" + token, properties[key]);
      if (r.required.count(pattern + "/" + token)) required.push_back(key);
    }
  base["type"] = "object";
  base["properties"] = properties;
  if (!required.empty()) base["required"] = required;
  base["additionalProperties"] = false;
  return base;
}

// An array's items: one schema ("*"), or one per emitter or light type, told apart by "type".
Json items_schema(const Records& r, const std::string& pattern) {
  const auto it = r.children.find(pattern);
  if (it == r.children.end()) return Json::object();
  if (it->second.count("*")) return schema_at(r, pattern + "/*");
  Json names = Json::array(), cases = Json::array();
  for (const std::string& token : it->second) {
    if (token.front() != '<') continue;
    const std::string type = token.substr(1, token.size() - 2);
    names.push_back(type);
    Json then = schema_at(r, pattern + "/" + token);
    Json& type_key = then["properties"]["type"];  // this case's type, with the manual's words for the key
    Json words = Json::object();
    for (const char* annotation : {"description", "markdownDescription"})
      if (type_key.contains(annotation)) words[annotation] = type_key[annotation];
    type_key = Json{{"const", type}};
    type_key.update(words);
    cases.push_back(Json{{"if", Json{{"properties", Json{{"type", Json{{"const", type}}}}}, {"required", {"type"}}}},
                         {"then", then}});
  }
  return Json{{"type", "object"},
              {"required", {"type"}},
              {"properties", Json{{"type", Json{{"enum", names}}}}},
              {"allOf", cases}};
}

Json schema_at(const Records& r, const std::string& pattern) {
  const auto found = r.fragments.find(pattern);
  std::vector<Json> fragments = found == r.fragments.end() ? std::vector<Json>{} : found->second;
  const bool has_children = r.children.count(pattern) > 0;
  if (fragments.empty()) return has_children ? object_schema(r, pattern, Json::object()) : Json::object();
  // A key's own array fragment (items and sizes) says more than array()'s bare {"type": "array"}.
  const bool specific_array = std::any_of(fragments.begin(), fragments.end(),
                                          [](const Json& f) { return is_type(f, "array") && f.size() > 1; });
  Json alternatives = Json::array();
  for (const Json& f : fragments) {
    if (is_type(f, "object")) alternatives.push_back(object_schema(r, pattern, f));
    else if (is_type(f, "array") && f.size() == 1 && specific_array) continue;
    else if (is_type(f, "array") && !f.contains("items") && !f.contains("prefixItems") && has_items(r, pattern)) {
      Json with_items = f;
      with_items["items"] = items_schema(r, pattern);
      alternatives.push_back(with_items);
    } else {
      alternatives.push_back(f);
    }
  }
  if (alternatives.size() == 1) return alternatives[0];
  return Json{{"anyOf", alternatives}};
}
}  // namespace

const std::vector<const char*>& schema_probe_scenes() {
  // Every object of the format, each emitter type with its nested objects,
  // rain and snow in both their modes (physical units, and sizes and speeds
  // given), the lights of each type.
  static const std::vector<const char*> probes = {
      R"({"fxsim": 1, "seed": 1,
  "output": {"bloom": {}},
  "environment": {"ground": {}, "fog": {}, "wind": {"gust": {}, "turbulence": {}},
                  "sky": {"horizon": "#000000", "zenith": "#000000"}, "ambient": {},
                  "lights": [{"type": "spot"}, {"type": "point"}, {"type": "directional"}]},
  "camera": {"keys": [{"time": 0}]},
  "emitters": [
    {"type": "snow", "region": {}, "sway": {}, "visibility": 1000},
    {"type": "rain", "region": {}, "splash": {}, "intensity": 5},
    {"type": "fountain", "nozzles": [{}], "ring": {}, "mist": {}},
    {"type": "fire", "light": {}},
    {"type": "explosion", "light": {}}]})",
      R"({"fxsim": 1,
  "emitters": [
    {"type": "snow", "region": {}, "sway": {}},
    {"type": "rain", "region": {}, "splash": {}}]})",
  };
  return probes;
}

Json scene_schema() {
  Records records;
  records.docs = documented_keys(scene_format_markdown());
  for (const char* probe : schema_probe_scenes()) {
    const Json root = Json::parse(probe);
    SchemaRecorder recorder;
    try {
      parse_scene_text(probe, "probe.json", ".");
    } catch (const FxError&) {
      // A probe may break rules across keys (nozzles and a ring): what was read is recorded all the same.
    }
    for (const auto& [pointer, key] : recorder.keys()) records.add(schema_pattern(pointer, root), key);
  }
  Json schema = object_schema(records, "", Json::object());
  Json out = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"$id", "urn:fxsim:scene-format:1"},
              {"title", "fxsim scene"},
              {"description", "A scene for fxsim render (docs/scene-format.md). Made by `fxsim schema` from the "
                              "parser's own definitions; rules across keys are checked by `fxsim validate`."}};
  out.update(schema);
  return out;
}

}  // namespace fxsim
