// PNG encoding (core/png_writer.h): lossless at every level, RGB for opaque
// frames, and frames encoded by the previous encoder (stb, the committed
// goldens) decode to the pixels the new one writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/image.h"
#include "core/png_writer.h"

using namespace fxsim;

namespace {
Image decode(const std::vector<uint8_t>& png) {
  const auto path = std::filesystem::temp_directory_path() / ("fxsim_png_test_" + std::to_string(getpid()) + ".png");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
  Image image = read_png(path);
  std::filesystem::remove(path);
  return image;
}

Image test_image(int width, int height, bool opaque) {
  Image image{width, height, std::vector<uint8_t>(size_t(width) * size_t(height) * 4)};
  uint32_t state = 12345;
  for (size_t i = 0; i < image.rgba.size(); ++i) {
    state = state * 1664525u + 1013904223u;  // grain, as in rain frames, and smooth gradients
    image.rgba[i] = i % 4 == 3 ? (opaque ? 255 : uint8_t(state >> 24)) : uint8_t((i / 4 % size_t(width)) + (state >> 30));
  }
  return image;
}

// PNG colour type: byte 25 of the file (after the signature and IHDR's length, type, size, depth).
int colour_type(const std::vector<uint8_t>& png) { return png.at(25); }
}  // namespace

TEST(PngWriter, DecodesToTheSamePixelsAtEveryLevel) {
  for (const bool opaque : {true, false})
    for (const int level : {0, 1, 6, 9}) {
      const Image image = test_image(37, 23, opaque);
      const Image back = decode(encode_png(image, {level}));
      EXPECT_EQ(back.width, 37);
      EXPECT_EQ(back.height, 23);
      EXPECT_EQ(back.rgba, image.rgba) << "level " << level << (opaque ? " opaque" : " translucent");
    }
}

TEST(PngWriter, WritesRgbWhenEveryPixelIsOpaqueAndRgbaOtherwise) {
  EXPECT_EQ(colour_type(encode_png(test_image(8, 8, true))), 2);   // RGB
  EXPECT_EQ(colour_type(encode_png(test_image(8, 8, false))), 6);  // RGBA
  // Unless alpha is asked for: a transparent render's frame that happens to be covered all over.
  PngSettings alpha;
  alpha.alpha = true;
  EXPECT_EQ(colour_type(encode_png(test_image(8, 8, true), alpha)), 6);
  const Image back = decode(encode_png(test_image(8, 8, true), alpha));
  EXPECT_EQ(back.rgba, test_image(8, 8, true).rgba);
}

TEST(PngWriter, HigherLevelsWriteSmallerFiles) {
  const Image image = test_image(256, 128, true);
  EXPECT_GT(encode_png(image, {0}).size(), encode_png(image, {1}).size());
  EXPECT_GE(encode_png(image, {1}).size(), encode_png(image, {9}).size());
}

TEST(PngWriter, AFrameOfThePreviousEncoderComesBackIdentical) {
  // The goldens were written by stb_image_write: re-encoding one changes no pixel.
  const Image golden = read_png(FXSIM_SOURCE_DIR "/golden/rain/frame_0024.png");
  EXPECT_EQ(decode(encode_png(golden)).rgba, golden.rgba);
}

TEST(PngWriter, RefusesAnImageWhosePixelsDoNotMatchItsSize) {
  Image image{4, 4, std::vector<uint8_t>(10)};
  EXPECT_ANY_THROW(encode_png(image));
}
