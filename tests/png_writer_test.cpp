// PNG encoding (core/png_writer.h): lossless at every level, RGB for opaque
// frames, and frames encoded by the previous encoder (stb, the committed
// goldens) decode to the pixels the new one writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

#include "core/exit_codes.h"
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

TEST(PngWriter, ColourFramesSaySRgbWithTheGammaAndPrimariesForReadersThatDoNotKnowIt) {
  // Chunk types in the file's order, and a chunk's data by type.
  const auto chunks = [](const std::vector<uint8_t>& png) {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> found;
    for (size_t at = 8; at + 12 <= png.size();) {
      const size_t length = size_t(png[at]) << 24 | size_t(png[at + 1]) << 16 | size_t(png[at + 2]) << 8 | png[at + 3];
      if (at + 12 + length > png.size()) {
        ADD_FAILURE() << "a chunk's length (" << length << ") runs past the file's end";
        break;
      }
      found.emplace_back(std::string(png.begin() + ptrdiff_t(at + 4), png.begin() + ptrdiff_t(at + 8)),
                         std::vector<uint8_t>(png.begin() + ptrdiff_t(at + 8), png.begin() + ptrdiff_t(at + 8 + length)));
      at += 12 + length;
    }
    return found;
  };
  const auto be32 = [](const std::vector<uint8_t>& d, size_t at) {
    return uint32_t(d[at]) << 24 | uint32_t(d[at + 1]) << 16 | uint32_t(d[at + 2]) << 8 | d[at + 3];
  };
  const auto colour = chunks(encode_png(test_image(8, 8, true)));
  std::vector<std::string> types;
  for (const auto& [type, data] : colour) types.push_back(type);
  // Before the image data, as the specification orders them (among themselves in any order).
  ASSERT_EQ(types.size(), 6u);
  EXPECT_EQ(types.front(), "IHDR");
  EXPECT_EQ((std::set<std::string>(types.begin() + 1, types.begin() + 4)), (std::set<std::string>{"gAMA", "cHRM", "sRGB"}));
  EXPECT_EQ(types[4], "IDAT");
  EXPECT_EQ(types[5], "IEND");
  for (const auto& [type, data] : colour) {
    if (type == "gAMA") {
      ASSERT_EQ(data.size(), 4u);
      EXPECT_EQ(be32(data, 0), 45455u);  // 1/2.2, as the specification gives with sRGB
    }
    if (type == "sRGB") {
      EXPECT_EQ(data, std::vector<uint8_t>{0});  // perceptual intent
    }
    if (type == "cHRM") {
      ASSERT_EQ(data.size(), 32u);
      // White point D65 and the BT.709 primaries, in 1/100 000.
      const std::vector<uint32_t> expected{31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000};
      for (size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(be32(data, 4 * k), expected[k]) << "cHRM value " << k;
    }
  }
  // Data (masks, depth) carries none of them: its samples are not colour.
  PngSettings data;
  data.srgb = false;
  for (const auto& [type, bytes] : chunks(encode_png(test_image(8, 8, true), data)))
    EXPECT_TRUE(type != "gAMA" && type != "cHRM" && type != "sRGB") << type;
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

TEST(PngReader, ACriticalChunkWhoseCrcDoesNotMatchIsRefused) {
  // stb decodes without looking at CRCs: a PNG damaged inside its image data
  // was compared by its pixels, as libpng (OpenImageIO's idiff) would refuse it.
  const std::vector<uint8_t> png = encode_png(test_image(32, 16, true));
  const auto find = [&](const char* type) {
    const auto it = std::search(png.begin(), png.end(), type, type + 4);
    EXPECT_NE(it, png.end()) << type;
    return size_t(it - png.begin());
  };
  const auto path = std::filesystem::temp_directory_path() / ("fxsim_crc_test_" + std::to_string(getpid()) + ".png");
  const auto read_back = [&](const std::vector<uint8_t>& bytes) -> std::string {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    try {
      read_png(path, PngUse::frame);
      return "";
    } catch (const FxError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(read_back(png), "");
  std::vector<uint8_t> damaged = png;
  damaged[find("IDAT") + 4 + 20] ^= 0x01;  // one bit of the image data
  EXPECT_NE(read_back(damaged).find("its IDAT chunk is damaged: its CRC does not match its bytes"), std::string::npos)
      << read_back(damaged);
  damaged = png;
  damaged[find("IHDR") + 4 + 13] ^= 0x01;  // IHDR's CRC itself
  EXPECT_NE(read_back(damaged).find("its IHDR chunk is damaged"), std::string::npos) << read_back(damaged);
  // An ancillary chunk's CRC (sRGB) is passed over, as libpng does.
  damaged = png;
  damaged[find("sRGB") + 4] ^= 0x01;  // its rendering intent, 0 to 1
  EXPECT_EQ(read_back(damaged), "");
  std::filesystem::remove(path);
}
