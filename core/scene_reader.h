#pragma once
// Typed, validating access to one JSON object of a scene. Every getter names a
// key the object accepts; a bad value is recorded as a diagnostic (with its JSON
// pointer) and the default is returned, so parsing goes on and every problem is
// reported at once. finish() reports the keys nobody asked for, with the nearest
// accepted key as a suggestion (pbrt's ReportUnused, in spirit).
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>

#include "core/color.h"
#include "core/diagnostics.h"

namespace fxsim {

using Json = nlohmann::json;

// "got 12", "got \"abc\"", "got [1, 2]" — the value as written, shortened
// (without serialising all of a huge value first).
std::string describe_json(const Json& value);

// The closed interval a number must lie in. Every bound is finite and within
// the range of a float, and a positive lower bound is far above float's
// smallest normal number, so a number that passes converts to a finite float
// of the same sign (never to infinity or zero) in the type the code uses.
struct Range {
  double lo, hi;
  bool contains(double v) const { return v >= lo && v <= hi; }
  std::string text() const;  // "in 0.001..1000"
};

struct IntRange {
  int64_t lo, hi;
  bool contains(int64_t v) const { return v >= lo && v <= hi; }
  std::string text() const;
};

class ObjectReader {
 public:
  // `node` may be null (absent object: every getter returns its default).
  ObjectReader(const Json* node, std::string pointer, std::vector<Diagnostic>& out);

  const std::string& pointer() const { return pointer_; }
  // Where problems go: a nested object's reader shares them.
  std::vector<Diagnostic>& diagnostics() { return out_; }
  std::string child(const std::string& key) const;
  bool present(const std::string& key);  // also marks the key as accepted
  const Json* raw(const std::string& key);

  // Numbers must lie in `range` (its text goes into the message).
  double number(const std::string& key, double fallback, Range range);
  std::optional<double> optional_number(const std::string& key, Range range);
  int64_t integer(const std::string& key, int64_t fallback, IntRange range);
  // An integer of `values` only (the schema says so); values between them in
  // its range are the caller's to refuse, with its own message.
  int64_t integer_of(const std::string& key, int64_t fallback, const std::vector<int64_t>& values);
  bool boolean(const std::string& key, bool fallback);
  // `schema`: what the format allows, where it says more than "a string"
  // (the rest of it the caller's to check).
  std::string string(const std::string& key, std::string fallback, Json schema = Json{{"type", "string"}});
  // Every component in `component`; `rule`/`ok` add a condition on the whole vector.
  glm::vec3 vector(const std::string& key, glm::vec3 fallback, Range component, const char* rule = nullptr,
                   std::function<bool(glm::vec3)> ok = {});
  Color color(const std::string& key, Color fallback);
  std::optional<Color> optional_color(const std::string& key);

  template <typename Enum>
  Enum choice(const std::string& key, Enum fallback,
              std::initializer_list<std::pair<const char*, Enum>> options) {
    if (recording_schema()) {
      Json names = Json::array();
      for (const auto& option : options) names.push_back(option.first);
      describe(key, Json{{"enum", names}});
    }
    const Json* value = raw(key);
    if (!value) return fallback;
    std::string expected;
    for (const auto& [name, e] : options) {
      if (value->is_string() && value->get<std::string>() == name) return e;
      expected += (expected.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    }
    error(child(key), "expected one of " + expected + ", " + describe_json(*value));
    return fallback;
  }

  // A nested object: null when absent; a non-object value is reported.
  const Json* object(const std::string& key);
  const Json* array(const std::string& key);

  void require(const std::string& key, const std::string& what);
  void error(const std::string& pointer, const std::string& message, bool at_key = false);
  // A drag (1/s): 0, or kLeastDrag to kDrag's most.
  double drag(const std::string& key, double fallback);
  // A file the scene names is missing, unreadable or not a regular file (exit 66 when all problems are).
  void missing_file(const std::string& pointer, const std::string& message);
  // What a key read with raw() and checked by hand accepts, as a JSON Schema
  // fragment (one alternative: {"type": "null"}), for the scene format's
  // schema (SchemaRecorder); the typed getters describe their own.
  void accepts(const std::string& key, Json fragment);

  // A key of the format that does not apply to this object (a spot light's
  // cone on a point light): reported, where present, with `message` (for
  // example what has it) rather than as an unknown key; not part of this
  // object's schema.
  void not_for(const std::string& key, const std::string& message);

  // Reports every key present but never asked for.
  void finish();

 private:
  static bool recording_schema();
  void describe(const std::string& key, Json fragment);
  int64_t read_integer(const std::string& key, int64_t fallback, IntRange range);

  const Json* node_;
  std::string pointer_;
  std::vector<Diagnostic>& out_;
  std::vector<std::string> accepted_;
};

// While one lives, every key any ObjectReader of this thread accepts is
// recorded, as a pointer pattern with array indices written "*"
// ("/emitters/*/region/size"): what the parser accepts, for the test that
// checks it against docs/scene-format.md.
class AcceptedKeys {
 public:
  AcceptedKeys();
  ~AcceptedKeys();
  AcceptedKeys(const AcceptedKeys&) = delete;
  AcceptedKeys& operator=(const AcceptedKeys&) = delete;
  const std::set<std::string>& keys() const { return keys_; }

 private:
  friend class ObjectReader;
  std::set<std::string> keys_;
  AcceptedKeys* previous_;
};

// While one lives, what every ObjectReader of this thread accepts is recorded
// by JSON pointer (array indices as they are): each key read, the JSON Schema
// fragments of the values its getters and accepts() allow (several: any of
// them), and whether it is required. core/scene_schema.cpp parses probe
// scenes under one and makes the scene format's schema from the records, so
// the schema is the parser's own definition.
class SchemaRecorder {
 public:
  struct Key {
    std::vector<Json> fragments;
    bool required = false;
  };
  SchemaRecorder();
  ~SchemaRecorder();
  SchemaRecorder(const SchemaRecorder&) = delete;
  SchemaRecorder& operator=(const SchemaRecorder&) = delete;
  const std::map<std::string, Key>& keys() const { return keys_; }

 private:
  friend class ObjectReader;
  std::map<std::string, Key> keys_;
  SchemaRecorder* previous_;
};

}  // namespace fxsim
