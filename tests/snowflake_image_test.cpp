#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>

#include "core/effects/precipitation/snowflake_image.h"

using namespace fxsim;

namespace {
float alpha_at(const Image& im, float u, float v) {  // u, v in [-1, 1], bilinear
  const float x = (u + 1) * 0.5f * float(im.width) - 0.5f, y = (v + 1) * 0.5f * float(im.height) - 0.5f;
  const int x0 = int(std::floor(x)), y0 = int(std::floor(y));
  const float fx = x - float(x0), fy = y - float(y0);
  auto at = [&](int xi, int yi) {
    xi = std::clamp(xi, 0, im.width - 1);
    yi = std::clamp(yi, 0, im.height - 1);
    return float(im.rgba[(size_t(yi) * size_t(im.width) + size_t(xi)) * 4 + 3]);
  };
  return (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
}
}  // namespace

TEST(SnowflakeImage, IsSixFoldSymmetric) {
  const Image im = snowflake_image(128, 5, 2);
  double diff = 0, total = 0;
  for (int i = 0; i < 2000; ++i) {
    const float r = 0.9f * float(i % 40) / 40.0f, a = 0.0031f * float(i);
    const float base = alpha_at(im, r * std::cos(a), r * std::sin(a));
    const float turned = alpha_at(im, r * std::cos(a + 1.0471976f), r * std::sin(a + 1.0471976f));
    diff += std::fabs(base - turned);
    total += base;
  }
  EXPECT_LT(diff / total, 0.1);
}

TEST(SnowflakeImage, ShapesDifferAndHaveSoftEdges) {
  std::vector<std::vector<uint8_t>> shapes;
  for (uint32_t s = 0; s < 6; ++s) {
    const Image im = snowflake_image(64, 1, s);
    ASSERT_EQ(im.width, 64);
    EXPECT_EQ(std::count(shapes.begin(), shapes.end(), im.rgba), 0) << "shape " << s << " repeats another";
    shapes.push_back(im.rgba);
    int partial = 0, solid = 0;
    for (size_t i = 3; i < im.rgba.size(); i += 4) {
      partial += im.rgba[i] > 20 && im.rgba[i] < 200;
      solid += im.rgba[i] >= 200;
    }
    EXPECT_GT(solid, 50) << s;
    EXPECT_GT(partial, 100) << s;
    EXPECT_EQ(im.rgba[3], 0);  // the corners are transparent
  }
}
