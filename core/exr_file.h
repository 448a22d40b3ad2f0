#pragma once
// OpenEXR frames: half-float, premultiplied linear R, G, B, A plus any named
// layers (Z, mask.rain, motion.x …; Z in 32-bit float), ZIP compression (lossless), written to
// memory so the file can be committed atomically like a PNG.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/image.h"

namespace fxsim {

struct ExrLayer {
  std::string name;           // the channel's name: "Z", "mask.rain", "motion.x"
  std::vector<float> values;  // one a pixel, rows top to bottom
  // 32-bit float instead of half: depth, which half would keep in steps of
  // 6 cm at 100 m and turn to infinity past 65 504 m.
  bool full_float = false;
};

std::vector<uint8_t> encode_exr(const LinearImage& color, const std::vector<ExrLayer>& layers = {});
// The value encode_exr stores for `v`: a half (±65504 at most), read back as a float.
float exr_stored(float v);

// Every channel of an EXR file as floats, by name (tests, plates). Throws
// FxError(input_missing) naming the file when it cannot be read.
struct ExrChannels {
  int width = 0, height = 0;
  std::map<std::string, std::vector<float>> channels;
};
ExrChannels read_exr(const std::filesystem::path& path);

}  // namespace fxsim
