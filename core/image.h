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
  int file_channels = 4;      // read_png: the file's own (1 grey, 2 grey and alpha, 3 RGB, 4 RGBA), for comparisons
};

// A frame in linear light with premultiplied alpha, as the GPU blended it in
// a float render target: values above 1 (fire, additive light) are kept.
struct LinearImage {
  int width = 0, height = 0;
  std::vector<float> rgba;  // rows top to bottom, 4 floats per pixel
};

// Whether every pixel has the first one's value: a frame in which nothing
// shows (false for an empty image).
bool one_colour(const Image& image);
bool one_colour(const LinearImage& image);

// One premultiplied linear channel as straight (divided by the coverage
// `alpha`, itself clamped to 0..1), clamped to 0..1; 0 where nothing covers.
float straight_channel(float premultiplied, float alpha);

// 8-bit sRGB with straight alpha (what PNG stores): colour divided by alpha,
// clamped to 0..1. Pixels with no coverage are transparent black.
Image to_straight_srgb8(const LinearImage& image);

// What a PNG is read as, for its limits: a texture (kMaxTextureSide a side,
// kMaxTextureBytes), or a frame or plate (kMaxImageSide, as large as fxsim
// renders; compare and verify read 9000-pixel frames that render wrote).
enum class PngUse { texture, frame };

// Reads and decodes a PNG (any bit depth and colour type, converted to 8-bit
// RGBA). Throws FxError(input_missing) saying what is wrong with the file.
Image read_png(const std::filesystem::path& path, PngUse use = PngUse::texture);

// A 16-bit PNG's samples as stored (data such as depth in millimetres or
// motion), `channels` (1..4) a pixel, rows top to bottom; the same checks.
// Throws FxError(input_missing) for anything but a 16-bit PNG.
struct Samples16 {
  int width = 0, height = 0, channels = 0;
  std::vector<uint16_t> samples;
  int file_channels = 4;  // the file's own, as Image's
};
Samples16 read_png16(const std::filesystem::path& path, int channels, PngUse use = PngUse::texture);
// The bit depth a PNG's header declares (8, 16 …), 0 when it is not a PNG.
int png_bit_depth(const std::filesystem::path& path);
// The width and height a PNG's header declares (nothing decoded), false when it is not a PNG.
bool png_header_size(const std::filesystem::path& path, int* width, int* height);

// The same checks and decoding, for validation: "" when the file is a usable
// PNG, else why not ("not a PNG file", "is 60000×60000 pixels; at most …").
std::string png_problem(const std::filesystem::path& path, int* width = nullptr, int* height = nullptr,
                        PngUse use = PngUse::texture);

// Whether `path` is a regular file (links followed) that this process can
// read: what is not is a missing input (exit 66) rather than a bad one.
bool is_readable_file(const std::filesystem::path& path);

// Resamples to the given size (linear filtering, sRGB-aware), for texture arrays.
Image resize_image(const Image& image, int width, int height);

}  // namespace fxsim
