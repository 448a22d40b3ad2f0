#include "core/png_writer.h"

#include <csetjmp>
#include <algorithm>
#include <cmath>
#include <png.h>
#include <string>

#include "core/color.h"
#include "core/exit_codes.h"

namespace fxsim {

namespace {
bool opaque(const Image& image) {
  for (size_t i = 3; i < image.rgba.size(); i += 4)
    if (image.rgba[i] != 255) return false;
  return true;
}

void append(png_structp png, png_bytep data, size_t size) {
  auto* out = static_cast<std::vector<uint8_t>*>(png_get_io_ptr(png));
  out->insert(out->end(), data, data + size);
}

// libpng reports errors by longjmp: nothing with a destructor may live
// between the setjmp and the calls that can fail, hence this plain function.
// Returns libpng's message, or nullptr on success.
// The samples held a pixel, and how they are written: four (RGBA), four
// written as RGB (an opaque image: the fourth dropped), or one (grey data).
enum class Layout { rgba, rgb_of_rgba, grey };

const char* write_rows(png_structp png, png_infop info, int width, int height, int bit_depth, Layout layout,
                       const PngSettings& settings, std::vector<uint8_t>* out, const png_bytep* rows) {
  if (setjmp(png_jmpbuf(png))) return "libpng failed";
  png_set_write_fn(png, out, append, nullptr);
  png_set_compression_level(png, settings.level);
  // No row filter: the fastest, and on grainy frames (rain, snow) the smallest
  // too (see png_writer.h).
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), bit_depth,
               layout == Layout::grey          ? PNG_COLOR_TYPE_GRAY
               : layout == Layout::rgb_of_rgba ? PNG_COLOR_TYPE_RGB
                                               : PNG_COLOR_TYPE_RGBA,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE,
               PNG_FILTER_TYPE_BASE);
  // The samples are sRGB-encoded: an sRGB chunk, and the gAMA (1/2.2) and
  // cHRM (BT.709 primaries, D65) that the PNG specification asks for beside it,
  // for readers that do not know sRGB (without them some take the samples as
  // linear, or leave their monitor's curve on them).
  if (settings.srgb) png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  png_write_info(png, info);
  if (layout == Layout::rgb_of_rgba) png_set_filler(png, 0, PNG_FILLER_AFTER);  // drops the fourth sample of each pixel
  png_write_image(png, const_cast<png_bytepp>(rows));
  png_write_end(png, nullptr);
  return nullptr;
}
}  // namespace

namespace {
// Encodes rows of samples (8-bit, or 16-bit big-endian) held in `pixels`, as `layout` says.
std::vector<uint8_t> encode(const uint8_t* pixels, int width, int height, int bit_depth, Layout layout,
                            const PngSettings& settings) {
  const size_t row_bytes = size_t(width) * (layout == Layout::grey ? 1 : 4) * size_t(bit_depth / 8);
  std::vector<png_bytep> rows(static_cast<size_t>(height));
  for (size_t y = 0; y < rows.size(); ++y) rows[y] = const_cast<png_bytep>(pixels + y * row_bytes);
  std::vector<uint8_t> out;
  out.reserve(row_bytes * size_t(height) / 4);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  const char* failure = png && info ? write_rows(png, info, width, height, bit_depth, layout, settings, &out, rows.data())
                                    : "libpng could not start";
  png_destroy_write_struct(&png, &info);
  if (failure) throw FxError(ExitCode::internal, std::string("PNG encoding: ") + failure);
  return out;
}
// Image or LinearImage: four samples a pixel.
template <class AnyImage>
void check_pixels(const AnyImage& image) {
  if (image.width <= 0 || image.height <= 0 || image.rgba.size() != size_t(image.width) * size_t(image.height) * 4)
    throw FxError(ExitCode::internal, "PNG encoding: the image's size does not match its pixels");
}
}  // namespace

std::vector<uint8_t> encode_png(const Image& image, const PngSettings& settings) {
  check_pixels(image);
  return encode(image.rgba.data(), image.width, image.height, 8,
                !settings.alpha && opaque(image) ? Layout::rgb_of_rgba : Layout::rgba, settings);
}

void png16_pixel(const float* rgba, bool srgb, uint16_t out[4]) {
  const float a = std::clamp(rgba[3], 0.0f, 1.0f);
  for (size_t c = 0; c < 4; ++c) {
    const float straight = straight_channel(rgba[c], a);
    const float v = c == 3 ? a : srgb ? linear_to_srgb(straight) : straight;
    out[c] = uint16_t(std::lround(v * 65535.0f));
  }
}

std::vector<uint8_t> encode_png16(const LinearImage& image, const PngSettings& settings) {
  check_pixels(image);
  std::vector<uint8_t> samples(image.rgba.size() * 2);
  bool all_opaque = true;
  for (size_t i = 0; i < image.rgba.size(); i += 4) {
    all_opaque = all_opaque && image.rgba[i + 3] >= 1.0f;
    uint16_t q[4];
    png16_pixel(&image.rgba[i], settings.srgb, q);
    for (size_t c = 0; c < 4; ++c) {
      samples[(i + c) * 2] = uint8_t(q[c] >> 8);  // PNG samples are big-endian
      samples[(i + c) * 2 + 1] = uint8_t(q[c] & 0xff);
    }
  }
  return encode(samples.data(), image.width, image.height, 16,
                !settings.alpha && all_opaque ? Layout::rgb_of_rgba : Layout::rgba, settings);
}

std::vector<uint8_t> encode_grey_png(const std::vector<uint16_t>& samples, int width, int height, int bit_depth,
                                     const PngSettings& settings) {
  if (width <= 0 || height <= 0 || samples.size() != size_t(width) * size_t(height) || (bit_depth != 8 && bit_depth != 16))
    throw FxError(ExitCode::internal, "PNG encoding: the grey image's size or depth does not match its samples");
  std::vector<uint8_t> bytes(samples.size() * size_t(bit_depth / 8));
  for (size_t i = 0; i < samples.size(); ++i) {
    if (bit_depth == 8) {
      bytes[i] = uint8_t(std::min<uint16_t>(samples[i], 255));
    } else {
      bytes[i * 2] = uint8_t(samples[i] >> 8);  // big-endian
      bytes[i * 2 + 1] = uint8_t(samples[i] & 0xff);
    }
  }
  return encode(bytes.data(), width, height, bit_depth, Layout::grey, settings);
}

}  // namespace fxsim
