#include "core/turbulence_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/noise.h"
#include "core/parallel.h"

namespace fxsim {

namespace {
static_assert(kTurbulencePointFloats == 4, "a grid point is read as four floats");
constexpr int kSide = kTurbulenceGridSide;

// The grid index of a coordinate in grid units (x = p / scale × samples per
// cell) and the fraction towards the next point: the cell floor(x) modulo the
// side, a non-finite coordinate reading cell 0. (The GPU computes the same
// values with float floor(); here integer conversion, which is exact, spares
// a call to the maths library where the CPU has no rounding instruction.)
struct Axis {
  int index;
  float fraction;
};
inline Axis axis_of(float x) {
  if (std::fabs(x) < 4.0e18f) {  // within int64_t
    int64_t cell = int64_t(x);     // truncates towards zero
    if (float(cell) > x) --cell;   // floor
    return {int(cell & (kSide - 1)), x - float(cell)};
  }
  // Not finite, or |x| ≥ 2^61, where x is a multiple of 2^38: floor(x) = x ≡ 0 modulo the side.
  return {0, 0.0f};
}

// A grid point's four floats as one SSE register (GCC/Clang vector extension):
// lane by lane the same float operations as three scalar ones, 4 at a time.
using Float4 = float __attribute__((vector_size(16)));
inline Float4 lerp(Float4 a, Float4 b, float f) { return a + (b - a) * f; }

inline glm::vec3 sample_grid(const float* v, float scale, glm::vec3 p) {
  // The same operations in the same order as the GLSL of render/gpu_turbulence.cpp.
  const glm::vec3 q = p / scale;
  const glm::vec3 g = q * float(kTurbulenceSamplesPerCell);
  const Axis ax = axis_of(g.x), ay = axis_of(g.y), az = axis_of(g.z);
  const int x0 = ax.index, x1 = (ax.index + 1) & (kSide - 1);
  const int y0 = ay.index, y1 = (ay.index + 1) & (kSide - 1);
  const int z0 = az.index, z1 = (az.index + 1) & (kSide - 1);
  auto tap = [&](int x, int y, int z) {
    Float4 t;
    std::memcpy(&t, v + kTurbulencePointFloats * ((size_t(z) * kSide + size_t(y)) * kSide + size_t(x)), sizeof t);
    return t;
  };
  const Float4 x00 = lerp(tap(x0, y0, z0), tap(x1, y0, z0), ax.fraction);
  const Float4 x10 = lerp(tap(x0, y1, z0), tap(x1, y1, z0), ax.fraction);
  const Float4 x01 = lerp(tap(x0, y0, z1), tap(x1, y0, z1), ax.fraction);
  const Float4 x11 = lerp(tap(x0, y1, z1), tap(x1, y1, z1), ax.fraction);
  const Float4 r = lerp(lerp(x00, x10, ay.fraction), lerp(x01, x11, ay.fraction), az.fraction);
  return {r[0], r[1], r[2]};
}
}  // namespace

namespace {
// Runs task(0) … task(count − 1) on `threads`, or here in order without them.
void run_tasks(ThreadPool* threads, size_t count, const std::function<void(size_t)>& task) {
  if (threads) {
    threads->run(count, task);
  } else {
    for (size_t k = 0; k < count; ++k) task(k);
  }
}
constexpr size_t kPlaneFloats = size_t(kSide) * kSide * kTurbulencePointFloats;
}  // namespace

std::vector<float> turbulence_slice_grid(uint32_t slice_seed, ThreadPool* threads) {
  std::vector<float> grid(kTurbulenceGridPoints * kTurbulencePointFloats, 0.0f);
  const float spacing = 1.0f / float(kTurbulenceSamplesPerCell);  // exact: a power of two
  run_tasks(threads, kSide, [&](size_t plane) {
    const int z = int(plane);
    size_t n = plane * kPlaneFloats;
    for (int y = 0; y < kSide; ++y)
      for (int x = 0; x < kSide; ++x) {
        glm::vec3 g[3];  // gradients of the potential's components ψx, ψy, ψz
        gradient_noise_3d_x3(slice_seed, glm::vec3(float(x), float(y), float(z)) * spacing, g,
                             kTurbulencePeriodCells);
        grid[n + 0] = g[2].y - g[1].z;
        grid[n + 1] = g[0].z - g[2].x;
        grid[n + 2] = g[1].x - g[0].y;
        n += kTurbulencePointFloats;
      }
  });
  return grid;
}

TurbulenceField::TurbulenceField(const std::vector<float>& a, const std::vector<float>& b, float blend, float gain,
                                 float scale, ThreadPool* threads)
    : velocities_(std::make_unique_for_overwrite<float[]>(a.size())), scale_(scale) {
  // Four planes a piece: the threads share 16 pieces of 256 KiB.
  constexpr size_t kPieceFloats = 4 * kPlaneFloats;
  const size_t pieces = (a.size() + kPieceFloats - 1) / kPieceFloats;
  float* const out = velocities_.get();
  run_tasks(threads, pieces, [&](size_t piece) {
    const size_t end = std::min(a.size(), (piece + 1) * kPieceFloats);
    for (size_t i = piece * kPieceFloats; i < end; ++i) out[i] = (a[i] + (b[i] - a[i]) * blend) * gain;
  });
}

glm::vec3 TurbulenceField::at(glm::vec3 p) const { return sample_grid(velocities_.get(), scale_, p); }

#if defined(__x86_64__) && defined(__GNUC__)
// sample_grid for 8 particles at once with AVX2, where the CPU has it: lane
// by lane the same float operations in the same order (no fused
// multiply-add: AVX2 does not enable it, and fxsim builds with
// -ffp-contract=off), so bit for bit at()'s results. A tap's three
// components come from one 16-byte load a particle, transposed into three
// registers; AVX2's gathers, one a component (24 for 8 particles), held the
// turbulent step back more than the grid's size in the cache did (on a
// 2-core AMD EPYC VM, `fxsim bench --effect rain --particles 1000000
// --frames 0`, 2 threads: 9.2-9.9 ms with gathers, 6.1-7.7 ms with the
// transposed loads, 1.5-2.1 ms without turbulence). Then the taps found for
// a block of particles first, and read after: the loads of a block no
// longer queue behind the arithmetic that places each (6.0-6.4 ms -> 4.6-5.4
// ms; snow 7.1-7.3 -> 5.6-5.8 ms; blocks of 512 a little faster than of 128
// or 256, and their 22 KiB of taps stay in the first-level cache). Measured and not kept,
// the same bits either way: each lane's taps read as 16-byte points and
// blended 4 wide, with the taps of the particles 64 ahead prefetched (no
// clear gain over the gathers in this machine's noise); and per-particle
// 256-bit loads of each (x0, x1) pair from a grid padded in x (faster than
// the gathers only while the grid stayed in cache); and, against these
// transposed loads, a grid padded to 65 points an axis read as four 32-byte
// loads a particle, blended along x and y for both planes of z in one
// register (5.2-6.3 ms against 5.4-6.1 ms: nothing gained for more code);
// and, again, the cells of the particles 32 or 64 ahead prefetched, 2 or 4
// rows each (6.2-7.7 ms against 6.0-7.2 ms: worse).
namespace {
struct Axes8 {
  __m256i index;    // the cell modulo the side
  __m256 fraction;  // towards the next point
};
__attribute__((target("avx2"))) inline Axes8 axes_of(__m256 x) {
  // axis_of: floor by integer truncation, exact; here floor(), plus 0 so
  // that floor(-0) is +0 as float(int64_t(-0.0f)) is (x - cell keeps -0's sign).
  const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 within = _mm256_cmp_ps(magnitude, _mm256_set1_ps(4.0e18f), _CMP_LT_OQ);  // false for NaN
  const __m256 cell = _mm256_add_ps(_mm256_floor_ps(x), _mm256_setzero_ps());
  // A cell of 2^31 or more is a multiple of 256 (a float's spacing there), 0
  // modulo the side: the conversion's out-of-range 0x80000000 is too.
  const __m256i index = _mm256_and_si256(_mm256_cvttps_epi32(cell), _mm256_set1_epi32(kSide - 1));
  return {_mm256_and_si256(index, _mm256_castps_si256(within)),
          _mm256_and_ps(_mm256_sub_ps(x, cell), within)};
}
__attribute__((target("avx2"))) inline __m256 lerp8(__m256 a, __m256 b, __m256 f) {
  return _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), f));
}
static_assert(kSide == 64, "row8 multiplies by the side with shifts");
// A grid row's first point, (z × side + y) × side, for 8 particles.
__attribute__((target("avx2"))) inline __m256i row8(__m256i y, __m256i z) {
  return _mm256_slli_epi32(_mm256_add_epi32(_mm256_slli_epi32(z, 6), y), 6);
}
// The points (row + x) of 8 particles, as their x, y and z components: each
// point one 16-byte load, the eight turned into three registers by a 4×4
// transpose in each half (particles 0-3 in the low half, 4-7 in the high).
struct Tap8 {
  __m256 c[3];
};
// Two points: one in the low half, one in the high.
__attribute__((target("avx2"))) inline __m256 points2(const float* v, int32_t low, int32_t high) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v + low)), _mm_loadu_ps(v + high), 1);
}
__attribute__((target("avx2"))) inline Tap8 lerp8(const Tap8& a, const Tap8& b, __m256 f) {
  Tap8 r;
  for (int c = 0; c < 3; ++c) r.c[c] = lerp8(a.c[c], b.c[c], f);
  return r;
}
// `at`: the 8 particles' points, in floats from the grid's start.
__attribute__((target("avx2"))) inline Tap8 tap8(const float* v, const int32_t* at) {
  const __m256 a = points2(v, at[0], at[4]), b = points2(v, at[1], at[5]), c = points2(v, at[2], at[6]),
               d = points2(v, at[3], at[7]);
  const __m256 ab_low = _mm256_unpacklo_ps(a, b), ab_high = _mm256_unpackhi_ps(a, b);  // a.x b.x a.y b.y | a.z b.z ..
  const __m256 cd_low = _mm256_unpacklo_ps(c, d), cd_high = _mm256_unpackhi_ps(c, d);
  return {{_mm256_shuffle_ps(ab_low, cd_low, 0x44), _mm256_shuffle_ps(ab_low, cd_low, 0xEE),
           _mm256_shuffle_ps(ab_high, cd_high, 0x44)}};
}
// Particles [begin, begin + 8k) of the batch; returns where it stopped.
__attribute__((target("avx2"))) size_t sample_grid_avx2(const float* v, float scale, const float* const p[3],
                                                        size_t begin, size_t end, float* const out[3]) {
  const __m256 scale8 = _mm256_set1_ps(scale);  // divided, as sample_grid does
  const __m256 per_cell = _mm256_set1_ps(float(kTurbulenceSamplesPerCell));
  const __m256i wrap = _mm256_set1_epi32(kSide - 1), one = _mm256_set1_epi32(1);
  // In blocks of particles, two passes: first every particle's 8 taps and
  // fractions, into arrays that stay in the first-level cache; then the
  // loads, which no longer wait behind the arithmetic that finds them.
  constexpr size_t kBlock = 512;
  alignas(32) int32_t taps[8][kBlock];  // tap (x, y, z bits: x0/x1, y0/y1, z0/z1), then particle
  alignas(32) float fraction[3][kBlock];
  size_t i = begin;
  while (i + 8 <= end) {
    const size_t n = std::min(kBlock, (end - i) & ~size_t(7));
    for (size_t j = 0; j < n; j += 8) {
      Axes8 a[3];
      for (int c = 0; c < 3; ++c) {
        a[c] = axes_of(_mm256_mul_ps(_mm256_div_ps(_mm256_loadu_ps(p[c] + i + j), scale8), per_cell));
        _mm256_store_ps(fraction[c] + j, a[c].fraction);
      }
      const __m256i x[2] = {a[0].index, _mm256_and_si256(_mm256_add_epi32(a[0].index, one), wrap)};
      const __m256i y[2] = {a[1].index, _mm256_and_si256(_mm256_add_epi32(a[1].index, one), wrap)};
      const __m256i z[2] = {a[2].index, _mm256_and_si256(_mm256_add_epi32(a[2].index, one), wrap)};
      for (int t = 0; t < 8; ++t)
        _mm256_store_si256(reinterpret_cast<__m256i*>(taps[t] + j),
                           _mm256_slli_epi32(_mm256_add_epi32(row8(y[(t >> 1) & 1], z[t >> 2]), x[t & 1]), 2));
    }
    for (size_t j = 0; j < n; j += 8) {
      const __m256 fx = _mm256_load_ps(fraction[0] + j), fy = _mm256_load_ps(fraction[1] + j);
      const Tap8 x00 = lerp8(tap8(v, taps[0] + j), tap8(v, taps[1] + j), fx);
      const Tap8 x10 = lerp8(tap8(v, taps[2] + j), tap8(v, taps[3] + j), fx);
      const Tap8 low = lerp8(x00, x10, fy);
      const Tap8 x01 = lerp8(tap8(v, taps[4] + j), tap8(v, taps[5] + j), fx);
      const Tap8 x11 = lerp8(tap8(v, taps[6] + j), tap8(v, taps[7] + j), fx);
      const Tap8 r = lerp8(low, lerp8(x01, x11, fy), _mm256_load_ps(fraction[2] + j));
      for (int c = 0; c < 3; ++c) _mm256_storeu_ps(out[c] + (i + j - begin), r.c[c]);
    }
    i += n;
  }
  return i;
}
}  // namespace
#endif

void TurbulenceField::sample(const float* const p[3], size_t begin, size_t end, float* const out[3]) const {
  const float* v = velocities_.get();
  size_t first = begin;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) first = sample_grid_avx2(v, scale_, p, begin, end, out);
#endif
  for (size_t i = first; i < end; ++i) {
    const glm::vec3 w = sample_grid(v, scale_, glm::vec3(p[0][i], p[1][i], p[2][i]));
    out[0][i - begin] = w.x;
    out[1][i - begin] = w.y;
    out[2][i - begin] = w.z;
  }
}

}  // namespace fxsim
