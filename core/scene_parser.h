#pragma once
// Reads a scene file into a Scene: JSON syntax, then every key and value checked
// against docs/scene-format.md. All problems are collected and thrown together
// as one SceneError (exit 65) whose lines read "file:line:col: /pointer: …".
#include <filesystem>
#include <string>
#include <string_view>

#include "core/json_locations.h"
#include "core/scene.h"
#include "core/scene_reader.h"
#include "core/scene_overrides.h"

namespace fxsim {

// Throws FxError(input_missing) when the file cannot be read, SceneError when
// invalid. "-" reads the scene from standard input (relative paths in it then
// resolve against the working directory). The overrides are applied before
// validation. `last_frame`: the last frame a render asks for, where past
// output.frames (what is checked at every frame, the camera's path, is checked up to it).
Scene parse_scene_file(const std::filesystem::path& file, const std::vector<SceneOverride>& overrides = {},
                       int last_frame = 0);

// The text of a scene file: only a regular file is opened (a FIFO or device is
// refused without blocking); past kMaxSceneBytes reading stops. Throws
// FxError(input_missing) when it cannot be read.
std::string read_scene_file(const std::filesystem::path& file);

// A problem found after parsing (the memory a render needs, a plate frame)
// located as a scene error is: "file:line:col: /pointer: message"; where
// the file cannot be read again (standard input), "file: /pointer: message".
std::string locate_scene_problem(const Scene& scene, const std::string& pointer, const std::string& message);

// JSON text (after its byte-order mark) parsed with its problems located:
// too deep, not JSON, numbers beyond a double throw SceneError naming
// label:line:column. Shared by scene and suite files.
Json parse_located_json(std::string_view text, std::string_view label, const JsonLocations& where);

// `label` is what messages call the file; relative texture paths resolve against `base_dir`.
Scene parse_scene_text(std::string_view text, std::string_view label, const std::filesystem::path& base_dir,
                       const std::vector<SceneOverride>& overrides = {}, int last_frame = 0);

}  // namespace fxsim
