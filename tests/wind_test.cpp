#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>
#include <glm/geometric.hpp>

#include "core/noise.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "core/turbulence_grid.h"
#include "core/wind.h"

using namespace fxsim;

namespace {
WindSettings turbulent(float strength, float scale) {
  WindSettings w;
  w.turbulence = Turbulence{strength, scale};
  return w;
}
}  // namespace

// The grid's field is the trilinear interpolation of a divergence-free one:
// divergent only where the interpolation departs from the curl, a small part
// of the field's gradient (a field with no such structure would have about
// 1/√3 ≈ 0.58).
TEST(Wind, TurbulenceIsNearlyDivergenceFree) {
  const WindField wind(turbulent(2.0f, 3.0f), 11);
  const float h = 1e-3f;
  double divergence2 = 0, gradient2 = 0;
  for (int i = 0; i < 4000; ++i) {  // at four times, one after the other (each builds its field)
    RandomDraws r(1, 0, Stream::birth, uint64_t(i));
    const glm::vec3 p{r.signed_unit(0) * 20, r.signed_unit(1) * 20, r.signed_unit(2) * 20};
    const double t = double(i / 1000) * 7.3;
    glm::vec3 d[3];  // d[axis] = ∂v/∂axis by central differences
    for (int axis = 0; axis < 3; ++axis) {
      glm::vec3 dp(0);
      dp[axis] = h;
      d[axis] = (wind.turbulence(p + dp, t) - wind.turbulence(p - dp, t)) / (2 * h);
    }
    const double div = d[0].x + d[1].y + d[2].z;
    divergence2 += div * div;
    gradient2 += glm::dot(d[0], d[0]) + glm::dot(d[1], d[1]) + glm::dot(d[2], d[2]);
  }
  EXPECT_GT(std::sqrt(gradient2 / 4000), 0.3);  // about strength / scale per second: the field varies
  EXPECT_LT(std::sqrt(divergence2 / gradient2), 0.2);
}

// The RMS speed of the turbulence is its strength.
TEST(Wind, TurbulenceHasItsStrength) {
  const WindField wind(turbulent(1.5f, 2.0f), 5);
  double sum2 = 0;
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    RandomDraws r(2, 0, Stream::birth, uint64_t(i));
    const glm::vec3 p{r.signed_unit(0) * 50, r.signed_unit(1) * 50, r.signed_unit(2) * 50};
    const glm::vec3 v = wind.turbulence(p, double(i / 5000) * 11.0);
    sum2 += glm::dot(v, v);
  }
  EXPECT_NEAR(std::sqrt(sum2 / n), 1.5, 0.15);
}

// The grid holds the curl of the periodic noise at its points, the field
// reads those values there, repeats every kTurbulencePeriodCells features, and
// the batch form is the one-point form bit for bit.
TEST(Wind, TurbulenceGridSamplesThePeriodicCurl) {
  const std::vector<float> grid = turbulence_slice_grid(99);
  ASSERT_EQ(grid.size(), kTurbulenceGridPoints * kTurbulencePointFloats);
  const float spacing = 1.0f / kTurbulenceSamplesPerCell;
  const auto shared_grid = std::make_shared<const std::vector<float>>(grid);
  const TurbulenceField field(shared_grid, shared_grid, 0.0f, 1.0f, 2.0f);  // scale 2 m: a point every 0.5 m
  for (int i = 0; i < 300; ++i) {
    RandomDraws r(3, 0, Stream::birth, uint64_t(i));
    const int x = int(r.unit(0) * kTurbulenceGridSide), y = int(r.unit(1) * kTurbulenceGridSide),
              z = int(r.unit(2) * kTurbulenceGridSide);
    glm::vec3 g[3];
    gradient_noise_3d_x3(99, glm::vec3(float(x), float(y), float(z)) * spacing, g, kTurbulencePeriodCells);
    const glm::vec3 curl{g[2].y - g[1].z, g[0].z - g[2].x, g[1].x - g[0].y};
    const size_t k = kTurbulencePointFloats * ((size_t(z) * kTurbulenceGridSide + size_t(y)) * kTurbulenceGridSide + size_t(x));
    EXPECT_EQ(glm::vec3(grid[k], grid[k + 1], grid[k + 2]), curl);
    const glm::vec3 at_point = glm::vec3(float(x), float(y), float(z)) * (2.0f * spacing);
    EXPECT_EQ(field.at(at_point), curl);
    const float period = 2.0f * kTurbulencePeriodCells;  // metres
    EXPECT_EQ(field.at(at_point + glm::vec3(period, -3 * period, 7 * period)), curl);
  }
  // Inside one period the periodic noise is the plain noise: only the wrap differs.
  glm::vec3 a[3], b[3];
  gradient_noise_3d_x3(99, {3.3f, 7.1f, 2.6f}, a, kTurbulencePeriodCells);
  gradient_noise_3d_x3(99, {3.3f, 7.1f, 2.6f}, b);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(a[k], b[k]);
  // Batch and one-point sampling, between grid points, far out and at non-finite places.
  constexpr size_t n = 257;
  std::vector<float> p[3], out[3];
  for (int c = 0; c < 3; ++c) p[c].resize(n), out[c].resize(n);
  for (size_t i = 0; i < n; ++i) {
    RandomDraws r(4, 0, Stream::birth, uint64_t(i));
    for (int c = 0; c < 3; ++c) p[c][i] = r.signed_unit(uint32_t(c)) * (i % 3 == 0 ? 1e7f : 40.0f);
  }
  p[0][7] = std::numeric_limits<float>::quiet_NaN();
  p[1][8] = std::numeric_limits<float>::infinity();
  p[2][9] = 3e19f;
  const float* const pp[3] = {p[0].data(), p[1].data(), p[2].data()};
  float* const op[3] = {out[0].data(), out[1].data(), out[2].data()};
  field.sample(pp, 0, n, op);
  for (size_t i = 0; i < n; ++i) {
    const glm::vec3 one = field.at({p[0][i], p[1][i], p[2][i]});
    for (int c = 0; c < 3; ++c) ASSERT_EQ(std::memcmp(&out[c][i], &one[c], 4), 0) << i;
    ASSERT_TRUE(std::isfinite(one.x) && std::isfinite(one.y) && std::isfinite(one.z)) << i;
  }
}

// The batch form (8 at a time with AVX2 where the CPU has it) is the
// one-point form bit for bit at the places where floor, the wrap and the
// sign of zero are delicate, and at a million random ones.
TEST(Wind, TurbulenceBatchSamplingIsThePointSamplingBitForBit) {
  const TurbulenceField field(std::make_shared<const std::vector<float>>(turbulence_slice_grid(5)),
                              std::make_shared<const std::vector<float>>(turbulence_slice_grid(6)), 0.3f, 1.7f, 1.25f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> special = {0.0f, -0.0f, 1e-40f, -1e-40f, 0.3f, -0.3f, 1.0f, -1.0f, 15.999999f, 16.0f, -16.0f,
                                79.99f, 80.0f, -80.0f, 0x1p23f, -0x1p23f, 0x1p24f, 0x1p24f + 2.0f, -0x1p24f, 0x1p31f,
                                -0x1p31f, 0x1p31f + 256.0f, 3e9f, -3e9f, 3.9e18f, -3.9e18f, 4e18f, 5e18f, -5e18f,
                                3e38f, -3e38f, inf, -inf, nan};
  std::vector<float> p[3], out[3];
  // Every special value in every axis, next to ordinary ones.
  for (size_t a = 0; a < special.size(); ++a)
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 3; ++k) p[k].push_back(k == c ? special[a] : 2.5f + float(k));
    }
  for (uint64_t i = 0; i < 1000000; ++i) {
    RandomDraws r(11, 0, Stream::birth, i);
    const float range = i % 4 == 0 ? 1e6f : i % 4 == 1 ? 100.0f : 3.0f;
    for (int c = 0; c < 3; ++c) p[c].push_back(r.signed_unit(uint32_t(c)) * range);
  }
  const size_t n = p[0].size();
  for (int c = 0; c < 3; ++c) out[c].assign(n, 0.0f);
  const float* const pp[3] = {p[0].data(), p[1].data(), p[2].data()};
  float* const op[3] = {out[0].data(), out[1].data(), out[2].data()};
  // Each vector width the CPU has (AVX-512, AVX2, none), also starting off
  // the 8- and 16-particle strides (3; 11: a block's last 8 by AVX2).
  for (int lanes : {16, 8, 1}) {
    limit_turbulence_vector_width(lanes);
    for (size_t begin : {size_t(0), size_t(3), size_t(11)}) {
      field.sample(pp, begin, n, op);
      for (size_t i = begin; i < n; ++i) {
        const glm::vec3 one = field.at({p[0][i], p[1][i], p[2][i]});
        for (int c = 0; c < 3; ++c)
          ASSERT_EQ(std::memcmp(&out[c][i - begin], &one[c], 4), 0)
              << lanes << " lanes, particle " << i << " at (" << p[0][i] << ", " << p[1][i] << ", " << p[2][i]
              << "), component " << c;
      }
    }
  }
  limit_turbulence_vector_width(16);
}

// Slices built by a pool of threads are the serial ones bit for bit; a
// field read by several threads at once, each blending the rows it first
// needs or waiting for those another is blending, reads as one read by a
// single thread; and a wind given threads serves the same field as one without.
TEST(Wind, TurbulenceBuiltByThreadsIsTheSerialOneBitForBit) {
  ThreadPool threads(3);
  const auto a = std::make_shared<const std::vector<float>>(turbulence_slice_grid(21));
  const auto b = std::make_shared<const std::vector<float>>(turbulence_slice_grid(22));
  ASSERT_EQ(std::memcmp(turbulence_slice_grid(21, &threads).data(), a->data(), a->size() * sizeof(float)), 0);
  const TurbulenceField serial(a, b, 0.37f, 1.3f, 1.5f), shared(a, b, 0.37f, 1.3f, 1.5f);
  // Batches of 64 points: every other one inside a 2 m box somewhere (a few
  // rows), the others anywhere in 60 m (the whole 24 m period: every row).
  constexpr size_t kBatch = 64, kBatches = 256, n = kBatch * kBatches;
  std::vector<float> p[3], out[3];
  for (int c = 0; c < 3; ++c) p[c].resize(n), out[c].resize(n);
  for (size_t i = 0; i < n; ++i) {
    RandomDraws r(4, 0, Stream::birth, uint64_t(i)), centre(5, 0, Stream::birth, uint64_t(i / kBatch));
    for (int c = 0; c < 3; ++c)
      p[c][i] = (i / kBatch) % 2 == 0 ? centre.unit(uint32_t(c)) * 60 - 30 + r.unit(uint32_t(c)) * 2
                                      : r.unit(uint32_t(c)) * 60 - 30;
  }
  const float* const pp[3] = {p[0].data(), p[1].data(), p[2].data()};
  threads.run(kBatches, [&](size_t k) {
    float* const op[3] = {out[0].data() + k * kBatch, out[1].data() + k * kBatch, out[2].data() + k * kBatch};
    shared.sample(pp, k * kBatch, (k + 1) * kBatch, op);
  });
  for (size_t i = 0; i < n; ++i) {
    const glm::vec3 s = serial.at({p[0][i], p[1][i], p[2][i]});
    for (int c = 0; c < 3; ++c) ASSERT_EQ(std::memcmp(&out[c][i], &s[c], 4), 0) << i;
  }
  const WindField by_threads(turbulent(2.0f, 3.0f), 5), alone(turbulent(2.0f, 3.0f), 5);
  const auto field_by_threads = by_threads.turbulence_field(1.25, &threads), field_alone = alone.turbulence_field(1.25);
  for (int i = 0; i < 2000; ++i) {
    RandomDraws r(4, 0, Stream::birth, uint64_t(i));
    const glm::vec3 q(r.unit(0) * 60 - 30, r.unit(1) * 60 - 30, r.unit(2) * 60 - 30);
    const glm::vec3 u = field_by_threads->at(q), v = field_alone->at(q);
    ASSERT_EQ(std::memcmp(&u, &v, sizeof u), 0) << i;
  }
}

// A block of particles read by a field of its own (no row blended before)
// has every row its cells need blended first: blocks across the grid's wrap,
// at its far edge, spanning 61 to 63 cells, far out, out of int32_t's range
// or not numbers, alone or among ordinary cells, of 8 particles or with a
// few read one at a time, against at() of a field that readies each point
// by itself. (In the sanitized build a row not yet blended holds NaN.)
TEST(Wind, TurbulenceRowsReadAreBlendedFirst) {
  const auto a = std::make_shared<const std::vector<float>>(turbulence_slice_grid(31));
  const auto b = std::make_shared<const std::vector<float>>(turbulence_slice_grid(32));
  constexpr float kScale = 2.0f, kMetresPerCell = kScale / kTurbulenceSamplesPerCell;
  const TurbulenceField reference(a, b, 0.4f, 1.1f, kScale);
  const float nan = std::numeric_limits<float>::quiet_NaN(), far = 3e9f;  // far: a cell out of int32_t's range
  struct Block {
    float y_first, y_last, z_first, z_last;  // in cells
    size_t count;
    float odd_one = 0;  // nonzero: particle 3 at this cell along y and z
  };
  const std::vector<Block> blocks = {
      {-1.0f, 0.99f, -1.0f, 0.99f, 16},   {62.0f, 63.99f, 62.0f, 63.99f, 16}, {0.0f, 61.99f, 3.0f, 4.5f, 64},
      {0.0f, 62.99f, 3.0f, 4.5f, 64},     {0.0f, 63.99f, 3.0f, 4.5f, 64},     {-70.0f, -60.0f, 100.0f, 110.0f, 24},
      {nan, nan, nan, nan, 8},            {far, far, -far, -far, 8},          {10.0f, 20.0f, 10.0f, 20.0f, 16, nan},
      {10.0f, 20.0f, 10.0f, 20.0f, 16, far}, {30.0f, 31.0f, 50.0f, 52.0f, 13}, {-3e6f, -3e6f + 5, 7e6f, 7e6f + 5, 16},
  };
  for (size_t k = 0; k < blocks.size(); ++k) {
    const Block& block = blocks[k];
    std::vector<float> p[3], out[3];
    for (size_t i = 0; i < block.count; ++i) {
      RandomDraws r(6, 0, Stream::birth, k * 1000 + i);
      const float y = block.y_first + (block.y_last - block.y_first) * r.unit(1);
      const float z = block.z_first + (block.z_last - block.z_first) * r.unit(2);
      const bool odd = i == 3 && block.odd_one != 0;
      p[0].push_back((r.unit(0) * 400 - 200) * kMetresPerCell);
      p[1].push_back((odd ? block.odd_one : y) * kMetresPerCell);
      p[2].push_back((odd ? block.odd_one : z) * kMetresPerCell);
    }
    for (int c = 0; c < 3; ++c) out[c].assign(block.count, 0.0f);
    const float* const pp[3] = {p[0].data(), p[1].data(), p[2].data()};
    float* const op[3] = {out[0].data(), out[1].data(), out[2].data()};
    const TurbulenceField fresh(a, b, 0.4f, 1.1f, kScale);
    fresh.sample(pp, 0, block.count, op);
    for (size_t i = 0; i < block.count; ++i) {
      const glm::vec3 expected = reference.at({p[0][i], p[1][i], p[2][i]});
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(std::memcmp(&out[c][i], &expected[c], 4), 0) << "block " << k << ", particle " << i;
    }
  }
}

TEST(Wind, TurbulenceEvolvesSmoothlyInTime) {
  const WindField wind(turbulent(1.0f, 1.0f), 5);
  const glm::vec3 p{1.3f, 0.2f, -4.1f};
  glm::vec3 previous = wind.turbulence(p, 0);
  for (double t = 0.01; t < 10; t += 0.01) {
    const glm::vec3 v = wind.turbulence(p, t);
    EXPECT_LT(glm::distance(v, previous), 0.05f) << t;
    previous = v;
  }
  EXPECT_GT(glm::distance(wind.turbulence(p, 0), wind.turbulence(p, 10)), 0.01f);
}

TEST(Wind, GustStaysWithinItsAmplitudeAndVaries) {
  WindSettings settings;
  settings.velocity = {1, 0, 0};
  settings.gust = Gust{{2, 0.5f, 1}, 3};
  const WindField wind(settings, 9);
  float lo = 1e9f, hi = -1e9f;
  glm::vec3 previous = wind.gust(0);
  for (double t = 0; t < 120; t += 0.05) {
    const glm::vec3 g = wind.gust(t);
    ASSERT_LE(std::fabs(g.x), 2.0f);
    ASSERT_LE(std::fabs(g.y), 0.5f);
    ASSERT_LE(std::fabs(g.z), 1.0f);
    EXPECT_LT(glm::distance(g, previous), 0.2f);  // smooth: no jumps
    lo = std::min(lo, g.x);
    hi = std::max(hi, g.x);
    previous = g;
    EXPECT_EQ(wind.at(glm::vec3(5, 1, 2), t), glm::vec3(1, 0, 0) + g);
  }
  EXPECT_LT(lo, -1.0f);
  EXPECT_GT(hi, 1.0f);
}

// Births take the wind's moment once a step (WindField::moment) where they
// asked at(p, t) each: the same bits, or every state hash would move.
TEST(Wind, AMomentGivesWhatAtGivesBitForBit) {
  for (int kind = 0; kind < 4; ++kind) {
    WindSettings settings;
    settings.velocity = {-0.0f, 0.0f, -0.0f};  // signed zeros, which a sum with +0 turns round
    if (kind & 1) settings.velocity = {2.5f, -0.0f, 1.0f / 3.0f}, settings.gust = Gust{{1, 0.25f, 0.5f}, 3};
    if (kind & 2) settings.turbulence = Turbulence{0.7f, 2.5f};
    const WindField wind(settings, 5 + uint64_t(kind));
    for (const double t : {0.0, 1.0 / 48, 7.3, 31.25}) {
      const WindField::Moment moment = wind.moment(t);
      for (int i = 0; i < 200; ++i) {
        RandomDraws r(17, uint32_t(kind), Stream::birth, uint64_t(i));
        const glm::vec3 p{r.signed_unit(0) * 40, r.signed_unit(1) * 15, r.signed_unit(2) * 40};
        const glm::vec3 expected = wind.at(p, t), got = moment.at(p);
        ASSERT_EQ(std::memcmp(&expected, &got, sizeof got), 0)
            << "kind " << kind << ", t " << t << ": (" << expected.x << ", " << expected.y << ", " << expected.z
            << ") against (" << got.x << ", " << got.y << ", " << got.z << ")";
      }
    }
  }
}

TEST(Wind, GradientNoiseGradientMatchesFiniteDifferences) {
  for (int i = 0; i < 200; ++i) {
    RandomDraws r(4, 0, Stream::birth, uint64_t(i));
    const glm::vec3 p{r.signed_unit(0) * 9, r.signed_unit(1) * 9, r.signed_unit(2) * 9};
    const NoiseSample s = gradient_noise_3d(77, p);
    const float h = 1e-3f;
    for (int a = 0; a < 3; ++a) {
      glm::vec3 dp(0);
      dp[a] = h;
      const float fd = (gradient_noise_3d(77, p + dp).value - gradient_noise_3d(77, p - dp).value) / (2 * h);
      EXPECT_NEAR(s.gradient[a], fd, 2e-2f);
    }
  }
}
