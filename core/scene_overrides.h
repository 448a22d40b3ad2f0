#pragma once
// Changes to a scene given on the command line (--set /json/pointer=VALUE,
// --unset /json/pointer, --fps, --seed), applied to the JSON before validation, so an overridden value
// is checked exactly as one written in the file; a problem with it is
// reported under the override's own name instead of a file position.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_locations.h"

namespace fxsim {

struct SceneOverride {
  std::string label;    // how messages name it: "--set /output/fps=0", "--seed 7"
  std::string pointer;  // JSON pointer of the value it sets (or removes)
  nlohmann::json value;
  bool remove = false;  // --unset: the key goes, so the scene's default applies
  // What the scene file's reading refuses in VALUE too: numbers beyond a
  // double (1e400 is JSON, not a string), keys given twice; pointers within VALUE.
  std::vector<JsonScanProblem> value_problems;
};

// "/json/pointer=VALUE": VALUE is read as JSON (2, true, [0,1,0], "x"), and
// when it is not JSON, as a string (out/frame_####.png); JSON but for a
// number beyond a double is JSON with a value problem. Throws FxError(usage)
// naming the override when it is malformed.
SceneOverride parse_set_override(const std::string& text);

// "/json/pointer": removes an object's key. Throws FxError(usage) naming the
// override when the pointer is malformed.
SceneOverride parse_unset_override(const std::string& text);

// Applies the overrides in order; objects on the way are created (the
// parser then reports keys that do not exist). Throws FxError(usage) naming
// an override that cannot be applied (a pointer through a number, and the
// override that made it one; a key to remove that is not there; an array's
// element to remove, which would shift the file's places under its problems).
void apply_overrides(nlohmann::json& root, const std::vector<SceneOverride>& overrides);

// Whether `pointer` is `at` or a value below it ("/output/width" is at
// "/output"; "/outputs" is not).
bool is_at_or_below(const std::string& pointer, const std::string& at);

// The override that set `pointer` or a value above it, or nullptr. With
// `file` (the scene before the overrides), also the one that made `pointer`
// on its way to a value below it, where the file has nothing there
// (--set /nope/x=1 made /nope), or the last that set an element of an
// array the file has there (--set /camera/position/1=1e39).
const SceneOverride* override_of(const std::vector<SceneOverride>& overrides, const std::string& pointer,
                                 const nlohmann::json* file = nullptr);

}  // namespace fxsim
