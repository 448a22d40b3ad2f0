#include "core/scene_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <utility>

#include "core/json_locations.h"
#include "core/value_ranges.h"

namespace fxsim {

namespace {
constexpr size_t kDescribeLength = 60;

// Appends a compact rendering of `value` to `out`, stopping once `out` passes
// the budget: a huge array or string costs no more than a short one.
void brief(const Json& value, std::string& out, size_t budget) {
  if (out.size() > budget) return;
  if (value.is_array() || value.is_object()) {
    out += value.is_array() ? '[' : '{';
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (out.size() > budget) break;
      if (!first) out += ", ";
      first = false;
      if (value.is_object()) out += Json(it.key()).dump() + ": ";
      brief(*it, out, budget);
    }
    out += value.is_array() ? ']' : '}';
  } else if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    out += Json(text.size() > budget ? text.substr(0, budget) : text).dump(-1, ' ', false, Json::error_handler_t::replace);
  } else {
    out += value.dump();
  }
}
}  // namespace

std::string describe_json(const Json& value) {
  std::string text;
  brief(value, text, kDescribeLength);
  if (text.size() > kDescribeLength) text = text.substr(0, kDescribeLength - 3) + "...";
  if (value.is_object()) return "got an object " + text;
  if (value.is_array()) return "got an array " + text;
  if (value.is_null()) return "got null";
  return "got " + text;
}

std::string Range::text() const { return fmt::format("in {}..{}", lo, hi); }
std::string IntRange::text() const { return fmt::format("in {}..{}", lo, hi); }

ObjectReader::ObjectReader(const Json* node, std::string pointer, std::vector<Diagnostic>& out)
    : node_(node && node->is_object() ? node : nullptr), pointer_(std::move(pointer)), out_(out) {}

std::string ObjectReader::child(const std::string& key) const {
  return pointer_ + "/" + json_pointer_token(key);
}

void ObjectReader::error(const std::string& pointer, const std::string& message, bool at_key) {
  out_.push_back({pointer, message, at_key, std::nullopt});
}

void ObjectReader::missing_file(const std::string& pointer, const std::string& message) {
  out_.push_back({pointer, message, false, std::nullopt, true});
}

bool ObjectReader::present(const std::string& key) { return raw(key) != nullptr; }

namespace {
thread_local AcceptedKeys* t_accepted_keys = nullptr;

// "/emitters/3/nozzles/0" → "/emitters/*/nozzles/*"
std::string pointer_pattern(const std::string& pointer) {
  std::string out;
  for (const auto& token : json_pointer_tokens(pointer))
    out += "/" + (!token.empty() && token.find_first_not_of("0123456789") == std::string::npos ? "*" : token);
  return out;
}
}  // namespace

AcceptedKeys::AcceptedKeys() : previous_(std::exchange(t_accepted_keys, this)) {}
AcceptedKeys::~AcceptedKeys() { t_accepted_keys = previous_; }

namespace {
thread_local SchemaRecorder* t_schema = nullptr;
}  // namespace

SchemaRecorder::SchemaRecorder() : previous_(std::exchange(t_schema, this)) {}
SchemaRecorder::~SchemaRecorder() { t_schema = previous_; }

bool ObjectReader::recording_schema() { return t_schema != nullptr; }

void ObjectReader::describe(const std::string& key, Json fragment) {
  if (!t_schema) return;
  std::vector<Json>& fragments = t_schema->keys_[child(key)].fragments;
  if (std::find(fragments.begin(), fragments.end(), fragment) == fragments.end()) fragments.push_back(std::move(fragment));
}

void ObjectReader::accepts(const std::string& key, Json fragment) { describe(key, std::move(fragment)); }

namespace {
Json number_schema(const char* type, double lo, double hi) {
  return Json{{"type", type}, {"minimum", lo}, {"maximum", hi}};
}
}  // namespace

const Json* ObjectReader::raw(const std::string& key) {
  accepted_.push_back(key);
  if (t_accepted_keys) t_accepted_keys->keys_.insert(pointer_pattern(pointer_) + "/" + key);
  if (t_schema) t_schema->keys_[child(key)];  // read: part of the format
  if (!node_) return nullptr;
  const auto it = node_->find(key);
  return it == node_->end() ? nullptr : &*it;
}

void ObjectReader::require(const std::string& key, const std::string& what) {
  if (t_schema) t_schema->keys_[child(key)].required = true;
  if (node_ && !node_->contains(key)) error(child(key), "missing required key: expected " + what);
}

std::optional<double> ObjectReader::optional_number(const std::string& key, Range range) {
  describe(key, number_schema("number", range.lo, range.hi));
  const Json* value = raw(key);
  if (!value) return std::nullopt;
  if (!value->is_number() || !range.contains(value->get<double>())) {
    error(child(key), "expected a number " + range.text() + ", " + describe_json(*value));
    return std::nullopt;
  }
  return value->get<double>();
}

double ObjectReader::number(const std::string& key, double fallback, Range range) {
  return optional_number(key, range).value_or(fallback);
}

double ObjectReader::drag(const std::string& key, double fallback) {
  // The schema: 0, or kLeastDrag..kDrag.hi.
  describe(key, Json{{"type", "number"}, {"const", 0}});
  describe(key, number_schema("number", kLeastDrag, kDrag.hi));
  const Json* value = raw(key);
  if (!value) return fallback;
  const double drag = value->is_number() ? value->get<double>() : -1;
  if (drag == 0 || (drag >= kLeastDrag && drag <= kDrag.hi)) return drag;
  if (drag > 0 && drag < kLeastDrag)
    error(child(key), fmt::format("expected 0 (no drag) or a drag of {:g} to {:g} per second, got {:g}: a drag this "
                                  "small loses the motion in rounding (its terminal speed, g / drag, is {:.0e} m/s); "
                                  "give 0 for none",
                                  kLeastDrag, kDrag.hi, drag, 9.81 / drag));
  else
    error(child(key), fmt::format("expected 0 (no drag) or a number in {:g}..{:g}, ", kLeastDrag, kDrag.hi) +
                          describe_json(*value));
  return fallback;
}

int64_t ObjectReader::integer(const std::string& key, int64_t fallback, IntRange range) {
  // The bounds as integers: as doubles, 2^63 - 1 rounded up to 2^63, which the schema then allowed.
  describe(key, Json{{"type", "integer"}, {"minimum", range.lo}, {"maximum", range.hi}});
  return read_integer(key, fallback, range);
}

int64_t ObjectReader::integer_of(const std::string& key, int64_t fallback, const std::vector<int64_t>& values) {
  describe(key, Json{{"type", "integer"}, {"enum", values}});
  return read_integer(key, fallback, IntRange{*std::min_element(values.begin(), values.end()),
                                              *std::max_element(values.begin(), values.end())});
}

int64_t ObjectReader::read_integer(const std::string& key, int64_t fallback, IntRange range) {
  const Json* value = raw(key);
  if (!value) return fallback;
  // A whole number written as 3.0 counts; beyond ±9e15 a double is not exact.
  const bool whole = value->is_number_integer() ||
                     (value->is_number_float() && std::trunc(value->get<double>()) == value->get<double>() &&
                      std::fabs(value->get<double>()) < 9.0e15);
  const bool fits = value->is_number_unsigned() ? value->get<uint64_t>() <= uint64_t(INT64_MAX) : true;
  if (!whole || !fits || !range.contains(value->get<int64_t>())) {
    error(child(key), "expected an integer " + range.text() + ", " + describe_json(*value));
    return fallback;
  }
  return value->get<int64_t>();
}

bool ObjectReader::boolean(const std::string& key, bool fallback) {
  describe(key, Json{{"type", "boolean"}});
  const Json* value = raw(key);
  if (!value) return fallback;
  if (!value->is_boolean()) {
    error(child(key), "expected true or false, " + describe_json(*value));
    return fallback;
  }
  return value->get<bool>();
}

std::string ObjectReader::string(const std::string& key, std::string fallback, Json schema) {
  describe(key, std::move(schema));
  const Json* value = raw(key);
  if (!value) return fallback;
  if (!value->is_string()) {
    error(child(key), "expected a string, " + describe_json(*value));
    return fallback;
  }
  // No string of a scene holds a NUL: in a path the system reads the name up
  // to it (output.path "a\u0000b_####.png" wrote a file "a", exit 0).
  if (value->get_ref<const std::string&>().find('\0') != std::string::npos) {
    error(child(key), "expected a string without a NUL character (\\u0000), " + describe_json(*value));
    return fallback;
  }
  return value->get<std::string>();
}

glm::vec3 ObjectReader::vector(const std::string& key, glm::vec3 fallback, Range component, const char* rule,
                               std::function<bool(glm::vec3)> ok) {
  describe(key, Json{{"type", "array"}, {"items", number_schema("number", component.lo, component.hi)},
                     {"minItems", 3}, {"maxItems", 3}});
  const Json* value = raw(key);
  if (!value) return fallback;
  const bool shaped = value->is_array() && value->size() == 3 &&
                      std::all_of(value->begin(), value->end(), [&](const Json& v) {
                        return v.is_number() && component.contains(v.get<double>());
                      });
  glm::vec3 v = fallback;
  if (shaped) v = {(*value)[0].get<float>(), (*value)[1].get<float>(), (*value)[2].get<float>()};
  if (!shaped || (ok && !ok(v))) {
    error(child(key), "expected a vector [x, y, z] of 3 numbers, each " + component.text() +
                          (rule ? std::string(", ") + rule : std::string()) + ", " + describe_json(*value));
    return fallback;
  }
  return v;
}

std::optional<Color> ObjectReader::optional_color(const std::string& key) {
  describe(key, Json{{"type", "string"}, {"pattern", "^#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$"}});
  describe(key, Json{{"type", "array"}, {"items", number_schema("number", 0, 1)}, {"minItems", 3}, {"maxItems", 4}});
  const Json* value = raw(key);
  if (!value) return std::nullopt;
  if (value->is_string()) {
    if (auto c = parse_hex_color(value->get<std::string>())) return c;
  } else if (value->is_array() && (value->size() == 3 || value->size() == 4) &&
             std::all_of(value->begin(), value->end(), [](const Json& v) {
               return v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1;
             })) {
    Color c;
    for (size_t i = 0; i < value->size(); ++i) c.srgb[int(i)] = (*value)[i].get<float>();
    return c;
  }
  error(child(key),
        "expected a colour \"#rrggbb\", \"#rrggbbaa\" or [r, g, b(, a)] with components in 0..1, " +
            describe_json(*value));
  return std::nullopt;
}

Color ObjectReader::color(const std::string& key, Color fallback) {
  return optional_color(key).value_or(fallback);
}

const Json* ObjectReader::object(const std::string& key) {
  describe(key, Json{{"type", "object"}});
  const Json* value = raw(key);
  if (value && !value->is_object()) {
    error(child(key), "expected an object, " + describe_json(*value));
    return nullptr;
  }
  return value;
}

const Json* ObjectReader::array(const std::string& key) {
  describe(key, Json{{"type", "array"}});
  const Json* value = raw(key);
  if (value && !value->is_array()) {
    error(child(key), "expected an array, " + describe_json(*value));
    return nullptr;
  }
  return value;
}

void ObjectReader::not_for(const std::string& key, const std::string& message) {
  if (!node_ || !node_->contains(key)) return;
  accepted_.push_back(key);  // (not raw(): the schema would list it as this object's)
  error(child(key), message, true);
}

void ObjectReader::finish() {
  if (!node_) return;
  std::sort(accepted_.begin(), accepted_.end());
  accepted_.erase(std::unique(accepted_.begin(), accepted_.end()), accepted_.end());
  for (const auto& [key, value] : node_->items()) {
    if (std::binary_search(accepted_.begin(), accepted_.end(), key)) continue;
    const std::string near = nearest_word(key, accepted_);
    const std::string shown = key.size() > 60 ? key.substr(0, 57) + "..." : key;
    error(child(key),
          "unknown key \"" + shown + "\"" + (near.empty() ? std::string() : " (did you mean \"" + near + "\"?)"),
          true);
  }
}

}  // namespace fxsim
