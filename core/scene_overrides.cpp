#include "core/scene_overrides.h"

#include <fmt/format.h>

#include "core/exit_codes.h"

namespace fxsim {

SceneOverride parse_set_override(const std::string& text) {
  const std::string label = "--set " + text;
  const size_t equals = text.find('=');
  if (text.empty() || text[0] != '/' || equals == std::string::npos)
    throw FxError(ExitCode::usage, fmt::format("{}: expected /json/pointer=VALUE, such as /output/fps=30", label));
  SceneOverride o{label, text.substr(0, equals), {}};
  try {
    (void)nlohmann::json::json_pointer(o.pointer);
  } catch (const nlohmann::json::exception& e) {
    throw FxError(ExitCode::usage, fmt::format("{}: {} is not a JSON pointer (~ must be written ~0, / inside a key ~1)",
                                               label, o.pointer));
  }
  const std::string value = text.substr(equals + 1);
  o.value = nlohmann::json::parse(value, nullptr, false);
  if (o.value.is_discarded()) o.value = value;  // not JSON: a string
  return o;
}

void apply_overrides(nlohmann::json& root, const std::vector<SceneOverride>& overrides) {
  for (const SceneOverride& o : overrides) {
    try {
      const nlohmann::json::json_pointer pointer(o.pointer);
      // An array index on the way must name an element that is there: padding
      // an array with nulls would report problems at places the file does not have.
      std::vector<nlohmann::json::json_pointer> path;
      for (auto p = pointer; !p.empty(); p = p.parent_pointer()) path.insert(path.begin(), p);
      for (const auto& step : path) {
        const auto parent = step.parent_pointer();
        if (!root.contains(parent)) break;  // made below, as objects
        const auto& container = root.at(parent);
        if (!container.is_array()) continue;
        const std::string& index = step.back();
        if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos || index.size() > 9 ||
            std::stoul(index) >= container.size())
          throw FxError(ExitCode::usage, fmt::format("{}: {} has {} element{}; the index must be 0..{}", o.label,
                                                     parent.to_string(), container.size(),
                                                     container.size() == 1 ? "" : "s", int(container.size()) - 1));
      }
      root[pointer] = o.value;
    } catch (const nlohmann::json::exception& e) {
      throw FxError(ExitCode::usage, fmt::format("{}: cannot set {} in this scene (a value on the way is not an "
                                                 "object or array)", o.label, o.pointer));
    }
  }
}

const SceneOverride* override_of(const std::vector<SceneOverride>& overrides, const std::string& pointer,
                                 const nlohmann::json* file) {
  const SceneOverride* found = nullptr;
  for (const SceneOverride& o : overrides)
    if (pointer == o.pointer || pointer.rfind(o.pointer + "/", 0) == 0) found = &o;  // the last one applied wins
  if (found || !file) return found;
  bool in_file = false;
  try {
    in_file = file->contains(nlohmann::json::json_pointer(pointer));
  } catch (const nlohmann::json::exception&) {
  }
  if (in_file) return nullptr;
  for (const SceneOverride& o : overrides)
    if (o.pointer.rfind(pointer + "/", 0) == 0) found = &o;
  return found;
}

}  // namespace fxsim
