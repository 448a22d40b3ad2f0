#pragma once
// A regression suite for `fxsim test`: which scenes, which frames of each, at
// what size, on which backend, within which tolerance, and where the goldens
// are. SUITE is a suite file (docs/testing.md) or a folder of scenes (its
// suite.json when it has one, else every *.json in it with the defaults and
// goldens in FOLDER/golden).
//
// Goldens of a scene live in GOLDENS/<scene>/:
//   frame_NNNN.png, state-hashes.txt      the base set: images made on the
//                                          suite's base device class with the
//                                          CPU backend, and the CPU backend's
//                                          state hashes (device-independent)
//   <class>/frame_NNNN.png                images of another device class
//   <class>-gpu/frame_NNNN.png, state-hashes.txt
//                                          the GPU backend's images and hashes
// A scene tested on the GPU backend is also simulated on the CPU backend for
// its shared state hashes.
// Images are looked up from the exact class (nvidia-h200) to the base class
// (nvidia), then the base set.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/device_class.h"
#include "core/image_compare.h"

namespace fxsim {

struct SuiteScene {
  std::string name;                 // the scene file's stem: its goldens' folder
  std::filesystem::path scene;      // the scene file
  std::vector<int> frames;          // frames compared
  int width = 160, height = 90;
  std::string backend = "cpu";      // cpu, gpu, or auto (gpu on a hardware GPU, cpu on a software GL)
  bool hashes = true;               // compare the state hashes of every simulated frame
  CompareThresholds tolerance;
};

struct Suite {
  std::filesystem::path file;       // the suite file, or the folder
  bool every_json = false;          // a folder without a suite.json: every *.json in it is a scene
  std::string name;                 // for reports: the file's or folder's name
  std::filesystem::path goldens;
  std::string base_class = "llvmpipe";  // the device class of the base set
  std::vector<SuiteScene> scenes;
};

// Reads a suite (file or folder). Throws FxError(input_missing) for a missing
// path, SceneError (65) for an invalid suite file or scene, naming
// file:line:column and the JSON pointer. `backend` overrides the suite's.
Suite load_suite(const std::filesystem::path& path, const std::optional<std::string>& backend = {});

// Where one scene's goldens are for a device class and backend.
struct GoldenSet {
  std::filesystem::path folder;  // the set images are written to by --update
  std::vector<std::filesystem::path> lookup;  // folders tried for an image, in order
  std::filesystem::path hashes;  // the state-hash file compared and written
  std::string name;              // "base set", "nvidia", "nvidia-gpu"
};
GoldenSet golden_set(const Suite& suite, const SuiteScene& scene, const DeviceClass& device);

// "frame_0024.png", or with a ground-truth layer "frame_0024.mask.rain.png".
std::string golden_frame_name(int frame, const std::string& layer = "");
// The frame of a golden image's file name ("frame_0024.png" and
// "frame_0024.depth.png": 24), or none for any other name.
std::optional<int> golden_frame_of(const std::string& file_name);

}  // namespace fxsim
