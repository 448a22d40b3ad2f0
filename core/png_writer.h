#pragma once
// PNG encoding through libpng, tuned for frames: zlib level 1 and no row
// filter by default. Measured on this project's 1080p frames (2-core
// machine, one thread): rain 50 ms and 2.0 MB, snow 55 ms and 1.0 MB, against
// stb_image_write's 400 ms / 2.7 MB and 490 ms / 1.6 MB; the "up" filter was
// slower by 5-45 % and smaller only on the fire frame, libpng's adaptive
// choice twice as slow; level 3 four times slower on rain for 5 % less.
// An image whose alpha is everywhere opaque is written as RGB, which decodes
// to the same RGBA, unless the settings ask for alpha (a transparent
// render's frames: every frame of the sequence one layout).
#include <cstdint>
#include <vector>

#include "core/image.h"

namespace fxsim {

constexpr int kDefaultPngLevel = 1;

struct PngSettings {
  int level = kDefaultPngLevel;  // zlib compression level, 0 (none, fastest) to 9 (smallest)
  bool srgb = true;              // colour in sRGB (an sRGB chunk); false: data such as masks and depth
  bool alpha = false;            // RGBA even where every pixel is opaque (else such an image is RGB)
};

std::vector<uint8_t> encode_png(const Image& image, const PngSettings& settings = {});
// 16 bits a sample, sRGB-encoded, straight alpha (RGB when every pixel is
// opaque), from a linear premultiplied image.
// With settings.srgb false the samples are written as they are (data such as depth, not colour).
std::vector<uint8_t> encode_png16(const LinearImage& image, const PngSettings& settings = {});
// One pixel's four samples (RGBA) as encode_png16 writes them, from its
// linear premultiplied `rgba`, before the file's layout and byte order.
void png16_pixel(const float* rgba, bool srgb, uint16_t out[4]);
// One sample a pixel (a grey PNG, colour type 0), 8 or 16 bits, as they are:
// data layers such as depth and coverage, which a loader reads as one channel.
std::vector<uint8_t> encode_grey_png(const std::vector<uint16_t>& samples, int width, int height, int bit_depth,
                                     const PngSettings& settings = {});

}  // namespace fxsim
