#include "core/scene_overrides.h"

#include <cstring>
#include <fmt/format.h>

#include "core/exit_codes.h"

namespace fxsim {

SceneOverride parse_set_override(const std::string& text) {
  const std::string label = "--set " + text;
  const size_t equals = text.find('=');
  if (text.empty() || text[0] != '/' || equals == std::string::npos)
    throw FxError(ExitCode::usage, fmt::format("{}: expected /json/pointer=VALUE, such as /output/fps=30", label));
  SceneOverride o{label, text.substr(0, equals), {}, false, {}};
  try {
    (void)nlohmann::json::json_pointer(o.pointer);
  } catch (const nlohmann::json::exception& e) {
    throw FxError(ExitCode::usage, fmt::format("{}: {} is not a JSON pointer (~ must be written ~0, / inside a key ~1)",
                                               label, o.pointer));
  }
  const std::string value = text.substr(equals + 1);
  o.value = nlohmann::json::parse(value, nullptr, false);
  const JsonLocations scan(value);
  o.value_problems = scan.duplicate_keys();
  if (!o.value.is_discarded()) return o;
  // JSON but for numbers beyond a double (each read as 0, it parses)? Else not JSON: a string.
  std::string zeroed = value;
  for (const JsonScanProblem& n : scan.out_of_range_numbers())
    for (size_t i = n.offset; i < zeroed.size() && std::strchr("+-.0123456789eE", zeroed[i]) && zeroed[i]; ++i)
      zeroed[i] = i == n.offset ? '0' : ' ';
  if (!scan.out_of_range_numbers().empty() && !nlohmann::json::parse(zeroed, nullptr, false).is_discarded()) {
    for (const JsonScanProblem& n : scan.out_of_range_numbers()) o.value_problems.push_back(n);
    o.value = nullptr;  // refused before it is used
  } else {
    o.value = value;
  }
  return o;
}

SceneOverride parse_unset_override(const std::string& text) {
  const std::string label = "--unset " + text;
  if (text.empty() || text[0] != '/')
    throw FxError(ExitCode::usage, fmt::format("{}: expected /json/pointer, such as /environment/fog", label));
  try {
    (void)nlohmann::json::json_pointer(text);
  } catch (const nlohmann::json::exception& e) {
    throw FxError(ExitCode::usage, fmt::format("{}: {} is not a JSON pointer (~ must be written ~0, / inside a key ~1)",
                                               label, text));
  }
  return SceneOverride{label, text, {}, true, {}};
}

namespace {

std::string kind_of(const nlohmann::json& value) {
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return "null";
}

// Removes an object's key; the pointer's value must be there.
void remove_key(nlohmann::json& root, const SceneOverride& o) {
  const nlohmann::json::json_pointer pointer(o.pointer);
  if (!root.contains(pointer))
    throw FxError(ExitCode::usage, fmt::format("{}: the scene has no {} to remove", o.label, o.pointer));
  nlohmann::json& parent = root.at(pointer.parent_pointer());
  if (!parent.is_object())
    throw FxError(ExitCode::usage, fmt::format("{}: only an object's key can be removed ({} is an array's element; "
                                               "--set the whole array instead)", o.label, o.pointer));
  parent.erase(pointer.back());
}

// Why `o` cannot be set: the value on its way that is no object or array,
// and the override before it that made that value, if one did.
std::string blocked_because(const nlohmann::json& root, const std::vector<SceneOverride>& overrides,
                            const SceneOverride& o) {
  std::vector<nlohmann::json::json_pointer> path;
  for (auto p = nlohmann::json::json_pointer(o.pointer).parent_pointer(); !p.empty(); p = p.parent_pointer())
    path.insert(path.begin(), p);
  for (const auto& step : path) {
    if (!root.contains(step)) break;
    const nlohmann::json& value = root.at(step);
    if (value.is_structured() || value.is_null()) continue;
    const std::string at = step.to_string();
    const SceneOverride* made = nullptr;
    for (const SceneOverride& before : overrides) {
      if (&before == &o) break;
      if (!before.remove && is_at_or_below(at, before.pointer)) made = &before;
    }
    if (made) return fmt::format("{} made {} {}, not an object", made->label, at, kind_of(value));
    return fmt::format("{} is {} in the scene, not an object", at, kind_of(value));
  }
  return "a value on the way is not an object or array";
}

}  // namespace

void apply_overrides(nlohmann::json& root, const std::vector<SceneOverride>& overrides) {
  for (const SceneOverride& o : overrides) {
    if (o.remove) {
      remove_key(root, o);
      continue;
    }
    try {
      const nlohmann::json::json_pointer pointer(o.pointer);
      // An array index on the way must name an element that is there: padding
      // an array with nulls would report problems at places the file does not have.
      std::vector<nlohmann::json::json_pointer> path;
      for (auto p = pointer; !p.empty(); p = p.parent_pointer()) path.insert(path.begin(), p);
      for (const auto& step : path) {
        const auto parent = step.parent_pointer();
        const std::string& token = step.back();
        if (!root.contains(parent) || root.at(parent).is_null()) {
          // Made here, as an object: an index would make an array padded
          // with nulls, whose problems the file would be blamed for.
          if (token == "-" || (!token.empty() && token.find_first_not_of("0123456789") == std::string::npos))
            throw FxError(ExitCode::usage,
                          fmt::format("{}: the scene has no array at {} to set an element of; set the whole array "
                                      "(--set '{}=[…]')", o.label, parent.to_string(), parent.to_string()));
          continue;
        }
        const auto& container = root.at(parent);
        if (!container.is_array()) continue;
        const std::string& index = token;
        if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos || index.size() > 9 ||
            std::stoul(index) >= container.size())
          throw FxError(ExitCode::usage,
                        container.empty()
                            ? fmt::format("{}: {} is empty; set the whole array (--set '{}=[…]')", o.label,
                                          parent.to_string(), parent.to_string())
                            : fmt::format("{}: {} has {} element{}; the index must be 0..{}", o.label,
                                          parent.to_string(), container.size(), container.size() == 1 ? "" : "s",
                                          int(container.size()) - 1));
      }
      root[pointer] = o.value;
    } catch (const nlohmann::json::exception& e) {
      throw FxError(ExitCode::usage, fmt::format("{}: cannot set {} in this scene: {}", o.label, o.pointer,
                                                 blocked_because(root, overrides, o)));
    }
  }
}

bool is_at_or_below(const std::string& pointer, const std::string& at) {
  return pointer == at || pointer.rfind(at + "/", 0) == 0;
}

const SceneOverride* override_of(const std::vector<SceneOverride>& overrides, const std::string& pointer,
                                 const nlohmann::json* file) {
  const SceneOverride* found = nullptr;
  for (const SceneOverride& o : overrides)
    if (is_at_or_below(pointer, o.pointer)) found = &o;  // the last one applied wins
  if (found || !file) return found;
  bool in_file = false, array_in_file = false;
  try {
    const nlohmann::json::json_pointer at(pointer);
    in_file = file->contains(at);
    // (Not the root: no override goes into a scene that is no object.)
    array_in_file = in_file && !pointer.empty() && file->at(at).is_array();
  } catch (const nlohmann::json::exception&) {
  }
  // An array the file has, one of whose elements an override set: a problem
  // with the array (a vector with a negative size) is that override's.
  if (array_in_file) {
    for (const SceneOverride& o : overrides)
      if (!o.remove && o.pointer != pointer && is_at_or_below(o.pointer, pointer)) found = &o;
    return found;
  }
  if (in_file) return nullptr;
  for (const SceneOverride& o : overrides)
    if (!o.remove && is_at_or_below(o.pointer, pointer)) found = &o;  // (none is at it: found would be set)
  return found;
}

}  // namespace fxsim
