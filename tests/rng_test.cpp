#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/rng.h"
#include "core/rng_batch.h"

using namespace fxsim;

// Known-answer values from the Random123 distribution (kat_vectors, philox4x32 R=10).
TEST(Philox, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(philox4x32({0, 0, 0, 0}, {0, 0}), (Philox4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (Philox4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (Philox4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(RandomDraws, AreAPureFunctionOfTheirKey) {
  RandomDraws a(42, 3, Stream::birth, 1000), b(42, 3, Stream::birth, 1000);
  for (uint32_t d = 0; d < 20; ++d) EXPECT_EQ(a.bits(d), b.bits(d));
  // Drawing out of order gives the same values.
  RandomDraws c(42, 3, Stream::birth, 1000);
  EXPECT_EQ(c.bits(13), a.bits(13));
  EXPECT_EQ(c.bits(2), a.bits(2));
}

TEST(RandomDraws, EveryKeyPartMatters) {
  const uint32_t base = RandomDraws(42, 3, Stream::birth, 1000).bits(0);
  EXPECT_NE(RandomDraws(43, 3, Stream::birth, 1000).bits(0), base);
  EXPECT_NE(RandomDraws(42, 4, Stream::birth, 1000).bits(0), base);
  EXPECT_NE(RandomDraws(42, 3, Stream::secondary, 1000).bits(0), base);
  EXPECT_NE(RandomDraws(42, 3, Stream::birth, 1001).bits(0), base);
  EXPECT_NE(RandomDraws(42, 3, Stream::birth, 1000).bits(1), base);
  EXPECT_NE(RandomDraws(42, 3, Stream::birth, 1000ull + (1ull << 32)).bits(0), base);
}

TEST(RandomDraws, UnitValuesAreUniform) {
  constexpr int kBins = 64, kSamples = 640000;
  std::vector<int> bins(kBins, 0);
  double sum = 0;
  for (int i = 0; i < kSamples; ++i) {
    RandomDraws r(7, 0, Stream::birth, uint64_t(i));
    const float u = r.unit(uint32_t(i % 7));
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    sum += u;
    ++bins[int(u * kBins)];
  }
  EXPECT_NEAR(sum / kSamples, 0.5, 0.002);
  // Chi-square with 63 degrees of freedom: 99.9th percentile is about 103.4.
  double chi2 = 0;
  const double expected = double(kSamples) / kBins;
  for (int count : bins) chi2 += (count - expected) * (count - expected) / expected;
  EXPECT_LT(chi2, 103.4);
}

TEST(RandomDraws, SignedValuesAreSymmetricAndOpen) {
  double sum = 0;
  float lo = 1, hi = -1;
  for (int i = 0; i < 200000; ++i) {
    const float s = RandomDraws(9, 1, Stream::birth, uint64_t(i)).signed_unit(0);
    lo = std::min(lo, s);
    hi = std::max(hi, s);
    sum += s;
  }
  EXPECT_GT(lo, -1.0f);
  EXPECT_LT(hi, 1.0f);
  EXPECT_LT(lo, -0.999f);
  EXPECT_GT(hi, 0.999f);
  EXPECT_NEAR(sum / 200000, 0.0, 0.005);
  EXPECT_EQ(to_signed(0), -to_signed(0xFFFFFFFFu));
}

TEST(RandomDraws, NeighbouringIndicesAreUncorrelated) {
  // Serial correlation between draw 0 of index i and of index i + 1.
  double sxy = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double x = RandomDraws(5, 0, Stream::birth, uint64_t(i)).unit(0);
    const double y = RandomDraws(5, 0, Stream::birth, uint64_t(i + 1)).unit(0);
    sxy += x * y, sx += x, sy += y, sxx += x * x, syy += y * y;
  }
  const double r = (n * sxy - sx * sy) / std::sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
  EXPECT_LT(std::fabs(r), 0.015);
}

TEST(RandomDraws, ManyIndicesAtOnceGiveEachIndexsOwnDraw) {
  // Indices using both 32-bit halves, every lane of a block and blocks past
  // the first, lists that do not fill the last eight.
  std::vector<uint64_t> index;
  for (uint64_t k = 0; k < 1003; ++k) index.push_back(k * 0x9E3779B97F4A7C15ull ^ (k << 40));
  for (const uint32_t draw : {0u, 1u, 2u, 3u, 5u, 130u, 0xFFFFFFFFu})
    for (const size_t n : {size_t(0), size_t(7), size_t(8), size_t(1003)}) {
      std::vector<float> out(n, -1.0f);
      unit_draws(0x123456789ABCDEFull, 7, Stream::transition, index.data(), draw, out.data(), n);
      for (size_t k = 0; k < n; ++k)
        ASSERT_EQ(out[k], RandomDraws(0x123456789ABCDEFull, 7, Stream::transition, index[k]).unit(draw))
            << "index " << k << " of " << n << ", draw " << draw;
    }
}
