// OpenEXR frames (core/exr_file.h): half-float colour and layers, depth in
// 32-bit float.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

#include "core/exr_file.h"

using namespace fxsim;

TEST(ExrFile, DepthKeepsFullFloatAndTheOtherLayersHalf) {
  LinearImage colour{2, 1, {0.1f, 0.2f, 0.3f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f}};
  const float inf = std::numeric_limits<float>::infinity();
  // 100.01 m is 100 in half (steps of 1/16 there), 1e6 m infinity; a mask of
  // 0.3 is 0.2998 in half.
  const std::vector<ExrLayer> layers = {{"Z", {100.01f, 1.0e6f}, true}, {"mask.a", {0.3f, inf}}};
  const std::vector<uint8_t> bytes = encode_exr(colour, layers);
  const auto path = std::filesystem::temp_directory_path() / ("fxsim_exr_test_" + std::to_string(getpid()) + ".exr");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  const ExrChannels exr = read_exr(path);
  std::filesystem::remove(path);
  ASSERT_EQ(exr.width, 2);
  EXPECT_EQ(exr.channels.at("Z")[0], 100.01f);
  EXPECT_EQ(exr.channels.at("Z")[1], 1.0e6f);
  EXPECT_NE(exr.channels.at("mask.a")[0], 0.3f);  // half
  EXPECT_NEAR(exr.channels.at("mask.a")[0], 0.3f, 1e-3f);
  EXPECT_NEAR(exr.channels.at("R")[0], 0.1f, 1e-3f);
}

TEST(ExrFile, LightBeyondHalfsRangeIsTheLargestHalfNotInfinity) {
  // A lamp's core at 100 000 candela: +infinity in half, which a compositor's
  // blur or resize turns into NaN.
  LinearImage colour{2, 1, {1.0e6f, 70000.0f, 65504.0f, 1.0f, -1.0e6f, 0.5f, 0.0f, 1.0f}};
  const std::vector<uint8_t> bytes = encode_exr(colour, {{"motion.x", {1.0e9f, -3.0f}}});
  const auto path = std::filesystem::temp_directory_path() / ("fxsim_exr_big_" + std::to_string(getpid()) + ".exr");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  const ExrChannels exr = read_exr(path);
  std::filesystem::remove(path);
  EXPECT_EQ(exr.channels.at("R")[0], 65504.0f);
  EXPECT_EQ(exr.channels.at("G")[0], 65504.0f);
  EXPECT_EQ(exr.channels.at("B")[0], 65504.0f);
  EXPECT_EQ(exr.channels.at("R")[1], -65504.0f);
  EXPECT_EQ(exr.channels.at("G")[1], 0.5f);
  EXPECT_EQ(exr.channels.at("motion.x")[0], 65504.0f);
  EXPECT_EQ(exr.channels.at("motion.x")[1], -3.0f);
}
