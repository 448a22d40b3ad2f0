// glibc_cosf against the C library's cosf: the same bits wherever glibc runs
// its FMA variant (any x86-64 CPU with AVX2 and FMA), and the vector loop the
// same as the scalar function everywhere. (All 2^32 floats were compared once,
// vector against cosf, with no difference: too long for every test run.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/glibc_cosf.h"

using namespace fxsim;

namespace {
uint32_t bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
float float_of(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}
bool same(float a, float b) { return bits_of(a) == bits_of(b) || (std::isnan(a) && std::isnan(b)); }

// Every float from `from` to `to` (bit patterns) with the given stride, and
// the edges of glibc's paths: 2^-12, π/4, 120, zero, infinities, NaN.
std::vector<float> arguments(uint32_t from, uint32_t to, uint32_t stride) {
  std::vector<float> xs;
  for (uint64_t b = from; b <= to; b += stride) xs.push_back(float_of(uint32_t(b)));
  for (const float edge : {0x1p-12f, 0.78539816f, 120.0f, 0.0f, 1.0f, 12.566371f})
    for (const float x : {edge, std::nextafter(edge, 0.0f), std::nextafter(edge, 1e9f)}) xs.push_back(x), xs.push_back(-x);
  for (const float x : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 1e30f, 123.0f})
    xs.push_back(x), xs.push_back(-x);
  return xs;
}

bool glibc_uses_fma() {
#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 28))
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}
}  // namespace

TEST(GlibcCosf, TheVectorLoopGivesTheScalarFunctionsBits) {
  // The sway's arguments (0 to 4π) densely, and every sign and exponent
  // sparsely; each width the CPU has (AVX-512, AVX2) on its own.
  for (const int lanes : {8, 4}) {
    limit_cosf_vector_width(lanes);
    for (const auto& xs : {arguments(0, bits_of(12.566371f), 127), arguments(0, 0xffffffffu, 4099)}) {
      std::vector<float> out(xs.size());
      glibc_cosf_array(xs.data(), out.data(), xs.size());
      size_t differ = 0;
      for (size_t i = 0; i < xs.size(); ++i)
        if (!same(out[i], glibc_cosf(xs[i])) && differ++ < 5) ADD_FAILURE() << lanes << " lanes: " << std::hexfloat << xs[i];
      EXPECT_EQ(differ, 0u) << lanes << " lanes";
    }
  }
  limit_cosf_vector_width(8);
}

TEST(GlibcCosf, WorksInPlace) {
  // As the snow step calls it; the arguments include those the C library does (120 and more, NaN).
  const std::vector<float> xs = arguments(0, 0xffffffffu, 40009);
  std::vector<float> in_place = xs;
  glibc_cosf_array(in_place.data(), in_place.data(), in_place.size());
  for (size_t i = 0; i < xs.size(); ++i) ASSERT_TRUE(same(in_place[i], glibc_cosf(xs[i]))) << std::hexfloat << xs[i];
}

TEST(GlibcCosf, GivesTheCLibrarysBitsWhereItRunsItsFmaVariant) {
  if (!glibc_uses_fma()) GTEST_SKIP() << "glibc's cosf is not its FMA variant on this CPU";
  for (const auto& xs : {arguments(0, bits_of(12.566371f), 127), arguments(0, 0xffffffffu, 4099)}) {
    std::vector<float> out(xs.size());
    glibc_cosf_array(xs.data(), out.data(), xs.size());
    size_t differ = 0;
    for (size_t i = 0; i < xs.size(); ++i)
      if (!same(out[i], std::cos(xs[i])) && differ++ < 5)
        ADD_FAILURE() << std::hexfloat << xs[i] << ": " << out[i] << ", cosf " << std::cos(xs[i]);
    EXPECT_EQ(differ, 0u);
  }
}

TEST(GlibcCosf, IsCloseToTheTrueCosine) {
  // Not a check of the bits: that the reduction and the polynomials are the right ones.
  for (float x = -119.0f; x < 119.0f; x += 0.37f) EXPECT_NEAR(glibc_cosf(x), std::cos(double(x)), 1e-7) << x;
}
