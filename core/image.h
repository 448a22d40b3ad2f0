#pragma once
// 8-bit RGBA images: reading and resizing PNGs (writing: core/png_writer.h). Reading checks what a hostile or
// broken file could do before decoding: only regular files, at most
// kMaxTextureBytes, the PNG signature, and the size in the header against
// kMaxTextureSide (a 60000×60000 header would otherwise ask for 14 GB).
// `validate` and `render` use the same checks, so they give the same verdict.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fxsim {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // rows top to bottom, 4 bytes per pixel
};

// Reads and decodes a PNG (any bit depth and colour type, converted to 8-bit
// RGBA). Throws FxError(input_missing) saying what is wrong with the file.
Image read_png(const std::filesystem::path& path);

// The same checks and decoding, for validation: "" when the file is a usable
// PNG, else why not ("not a PNG file", "is 60000×60000 pixels; at most …").
std::string png_problem(const std::filesystem::path& path, int* width = nullptr, int* height = nullptr);

// Resamples to the given size (linear filtering, sRGB-aware), for texture arrays.
Image resize_image(const Image& image, int width, int height);

}  // namespace fxsim
