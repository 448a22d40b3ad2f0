#include "core/turbulence_grid.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>
#include <utility>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/noise.h"
#include "core/parallel.h"

#if defined(__SANITIZE_ADDRESS__)
#define FXSIM_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#define FXSIM_ADDRESS_SANITIZER __has_feature(address_sanitizer)
#else
#define FXSIM_ADDRESS_SANITIZER 0
#endif

namespace fxsim {

namespace {
std::atomic<int> g_vector_lanes{16};  // limit_turbulence_vector_width's
static_assert(kTurbulencePointFloats == 4, "a grid point is read as four floats");
constexpr int kSide = kTurbulenceGridSide;

// A slice's grid: rows of kSide points, x fastest, then y, then z.
constexpr size_t kSliceRowFloats = size_t(kSide) * kTurbulencePointFloats;
constexpr size_t kSlicePlaneFloats = size_t(kSide) * kSliceRowFloats;
// The field keeps each row with a 65th point, a copy of its first, so that
// a cell's two points along x are side by side even where the grid wraps:
// one 32-byte load.
constexpr size_t kRowPoints = size_t(kSide) + 1;
constexpr size_t kRowFloats = kRowPoints * kTurbulencePointFloats;
constexpr size_t kFieldFloats = size_t(kSide) * kSide * kRowFloats;

// Runs task(0) … task(count − 1) on `threads`, or here in order without them.
void run_tasks(ThreadPool* threads, size_t count, const std::function<void(size_t)>& task) {
  if (threads) {
    threads->run(count, task);
  } else {
    for (size_t k = 0; k < count; ++k) task(k);
  }
}

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

// The cell holding p, along each axis.
struct Cell {
  Axis x, y, z;
};
inline Cell cell_of(float scale, glm::vec3 p) {
  // The same operations in the same order as the GLSL of render/gpu_turbulence.cpp.
  const glm::vec3 q = p / scale;
  const glm::vec3 g = q * float(kTurbulenceSamplesPerCell);
  return {axis_of(g.x), axis_of(g.y), axis_of(g.z)};
}

// The rows of cells first … last (y, not yet wrapped; first ≤ last) and the
// row after last (a cell's second row, y + 1), wrapped, as bits.
inline uint64_t rows_between(int64_t first, int64_t last) {
  if (last - first >= kSide - 2) return ~uint64_t(0);
  return std::rotl((uint64_t(4) << (last - first)) - 1, int(first & (kSide - 1)));  // last − first + 2 rows
}

inline glm::vec3 sample_cell(const float* v, const Cell& cell) {
  const Axis &ax = cell.x, &ay = cell.y, &az = cell.z;
  const int x0 = ax.index, x1 = ax.index + 1;  // the row's copy of its first point past its last
  const int y0 = ay.index, y1 = (ay.index + 1) & (kSide - 1);
  const int z0 = az.index, z1 = (az.index + 1) & (kSide - 1);
  auto tap = [&](int x, int y, int z) {
    Float4 t;
    std::memcpy(&t, v + (size_t(z) * kSide + size_t(y)) * kRowFloats + size_t(x) * kTurbulencePointFloats, sizeof t);
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

void limit_turbulence_vector_width(int lanes) { g_vector_lanes.store(lanes, std::memory_order_relaxed); }

std::vector<float> turbulence_slice_grid(uint32_t slice_seed, ThreadPool* threads) {
  std::vector<float> grid(kTurbulenceGridPoints * kTurbulencePointFloats, 0.0f);
  const float spacing = 1.0f / float(kTurbulenceSamplesPerCell);  // exact: a power of two
  run_tasks(threads, kSide, [&](size_t plane) {
    const int z = int(plane);
    size_t n = plane * kSlicePlaneFloats;
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

std::unique_ptr<float[]> TurbulenceFieldGrids::take() {
  {
    std::lock_guard lock(mutex_);
    if (!spares_.empty()) {
      std::unique_ptr<float[]> grid = std::move(spares_.back());
      spares_.pop_back();
      return grid;
    }
  }
  return std::make_unique_for_overwrite<float[]>(kFieldFloats);
}

void TurbulenceFieldGrids::give_back(std::unique_ptr<float[]> grid) {
  std::lock_guard lock(mutex_);
  if (spares_.size() < kSparesKept) spares_.push_back(std::move(grid));
}

TurbulenceField::TurbulenceField(Slice a, Slice b, float blend, float gain, float scale,
                                 std::shared_ptr<TurbulenceFieldGrids> grids)
    : from_(std::move(a)),
      to_(std::move(b)),
      blend_(blend),
      gain_(gain),
      scale_(scale),
      grids_(std::move(grids)),
      velocities_(grids_ ? grids_->take() : std::make_unique_for_overwrite<float[]>(kFieldFloats)) {
#if FXSIM_ADDRESS_SANITIZER
  // In the sanitized build (scripts/sanitize) a row read before it was
  // blended reads NaN, which the tests comparing with at() and the goldens see.
  std::fill_n(velocities_.get(), kFieldFloats, std::numeric_limits<float>::quiet_NaN());
#endif
}

TurbulenceField::~TurbulenceField() {
  if (grids_) grids_->give_back(std::move(velocities_));
}

void TurbulenceField::blend_rows(int z, uint64_t rows) const {
  const float *a = from_->data(), *b = to_->data();
  const float blend = blend_, gain = gain_;
  for (; rows != 0; rows &= rows - 1) {
    const size_t y = size_t(std::countr_zero(rows));
    const size_t from = (size_t(z) * kSide + y) * kSliceRowFloats;
    float* const row = velocities_.get() + (size_t(z) * kSide + y) * kRowFloats;
    for (size_t i = 0; i < kSliceRowFloats; ++i) row[i] = (a[from + i] + (b[from + i] - a[from + i]) * blend) * gain;
    std::copy(row, row + kTurbulencePointFloats, row + kSliceRowFloats);
  }
}

void TurbulenceField::make_ready(uint64_t rows, int64_t z_first, int64_t z_last) const {
  const int planes = int(std::min<int64_t>(z_last - z_first + 2, kSide));
  bool waiting = false;
  for (int k = 0; k < planes; ++k) {
    const int z = int((z_first + k) & (kSide - 1));
    if ((blended_[z].load(std::memory_order_acquire) & rows) == rows) continue;
    // The rows no thread had taken on are this one's to blend (fetch_or hands each to one).
    const uint64_t mine = rows & ~taken_[z].fetch_or(rows, std::memory_order_relaxed);
    if (mine != 0) {
      blend_rows(z, mine);
      blended_[z].fetch_or(mine, std::memory_order_release);
    }
    waiting |= mine != rows;
  }
  if (!waiting) return;
  for (int k = 0; k < planes; ++k) {  // rows another thread took on: written in a moment
    const int z = int((z_first + k) & (kSide - 1));
    while ((blended_[z].load(std::memory_order_acquire) & rows) != rows) std::this_thread::yield();
  }
}

glm::vec3 TurbulenceField::at(glm::vec3 p) const {
  const Cell cell = cell_of(scale_, p);
  make_ready(rows_between(cell.y.index, cell.y.index), cell.z.index, cell.z.index);
  return sample_cell(velocities_.get(), cell);
}

#if defined(__x86_64__) && defined(__GNUC__)
// at() for 8 particles at once with AVX2, where the CPU has it: lane
// by lane the same float operations in the same order (no fused
// multiply-add: AVX2 does not enable it, and fxsim builds with
// -ffp-contract=off), so bit for bit at()'s results. In blocks of 512
// particles, two passes: the first finds each particle's four rows and its
// fractions, into arrays that stay in the first-level cache (14 KiB); the
// second reads each row's two points, side by side in the padded row, as
// one 32-byte load a particle, turns 8 particles' loads into six registers
// (x0's and x1's components), and blends. Measured on a 2-core AMD EPYC VM
// (`fxsim bench --effect rain --particles 1000000 --frames 0`, 2 threads;
// the steady step 1.5-2.1 ms), each step the same bits: AVX2's gathers, one
// a tap and component (24 for 8 particles), 9.2-9.9 ms, held back more by
// the gathers than by the grid's size in the cache (an 8 KiB grid in a
// throw-away build: 7.6 -> 6.6 ms); a 16-byte load a tap, transposed, 6.1-7.7
// ms; the taps found in a first pass, 4.6-5.5 ms (snow 7.1-7.3 -> 5.6-5.8);
// the rows padded and read as pairs, rain 4.3-4.8 against 4.4-4.7 ms, snow
// 5.2-5.6 against 5.7-6.1. Measured and not kept: each particle's taps
// blended 4 wide, a point a register, with the taps of the particles 64
// ahead prefetched (no clear gain over the gathers); a grid padded along
// every axis, read as four 32-byte loads a particle and blended two planes
// at a time (5.2-6.3 ms against 5.4-6.1 ms for the 16-byte loads); and
// prefetching the cells of the particles 32 or 64 ahead, or from the first
// pass (worse each time). Each block's span of cells, found in the first
// pass, says which rows it reads, blended then if no thread has (the rain
// bench's 30 x 12 x 30 m box touches 17 % of the grid's rows; a program
// timing one field's blend and 1 M drops' sampling on 2 threads, caches
// flushed between fields: 3.3-4.0 ms with every row blended first, 2.7-2.9
// blended as needed). Measured and not kept, with it: particles k and k + 4
// of 8 blended side by side in one register, their points put together by
// broadcast loads and blends instead of the transposes (a tenth fewer
// instructions, no shuffles until the last): 2.87-3.04 ms against
// 2.67-2.71 in that program, slower in `bench` here and on the H200's Xeon.
// Nor the step's velocities brought into the cache while the sampling
// computes, for the motion's loop after it (rain, 1 M drops, 2 threads, a
// program timing the step alone: 4.41-4.70 ms against 4.41-4.53 without):
// the loop stalled less, the sampling more.
namespace {
struct Axes8 {
  __m256i index;    // the cell modulo the side
  __m256 fraction;  // towards the next point
  __m256i cell;     // not wrapped (0x80000000 where out of range), for the block's span
};
__attribute__((target("avx2"))) inline Axes8 axes_of(__m256 x) {
  // axis_of: floor by integer truncation, exact; here floor(), plus 0 so
  // that floor(-0) is +0 as float(int64_t(-0.0f)) is (x - cell keeps -0's sign).
  const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 within = _mm256_cmp_ps(magnitude, _mm256_set1_ps(4.0e18f), _CMP_LT_OQ);  // false for NaN
  const __m256 cell = _mm256_add_ps(_mm256_floor_ps(x), _mm256_setzero_ps());
  // A cell of 2^31 or more is a multiple of 256 (a float's spacing there), 0
  // modulo the side: the conversion's out-of-range 0x80000000 is too.
  const __m256i whole = _mm256_cvttps_epi32(cell);
  const __m256i index = _mm256_and_si256(whole, _mm256_set1_epi32(kSide - 1));
  return {_mm256_and_si256(index, _mm256_castps_si256(within)), _mm256_and_ps(_mm256_sub_ps(x, cell), within),
          whole};
}
__attribute__((target("avx2"))) inline __m256 lerp8(__m256 a, __m256 b, __m256 f) {
  return _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), f));
}
static_assert(kSide == 64 && kRowPoints == 65, "row8 multiplies with shifts");
// A row's first point, (z × side + y) × 65, for 8 particles.
__attribute__((target("avx2"))) inline __m256i row8(__m256i y, __m256i z) {
  const __m256i row = _mm256_add_epi32(_mm256_slli_epi32(z, 6), y);
  return _mm256_add_epi32(_mm256_slli_epi32(row, 6), row);
}
// A point of 8 particles' cells as its x, y and z components, a particle a lane.
struct Tap8 {
  __m256 c[3];
};
struct Pair8 {
  Tap8 near, far;  // a row's x0 and x1
};
__attribute__((target("avx2"))) inline Tap8 lerp8(const Tap8& a, const Tap8& b, __m256 f) {
  Tap8 r;
  for (int c = 0; c < 3; ++c) r.c[c] = lerp8(a.c[c], b.c[c], f);
  return r;
}
// A row's two points x0 and x1 for 8 particles; `at`: their x0 points, in
// floats from the grid's start. Each particle's pair is one 32-byte load;
// the 8 pairs are turned by a 4×4 transpose within each half, and the
// halves regrouped.
__attribute__((target("avx2"))) inline Pair8 pair8(const float* v, const int32_t* at) {
  __m256 d[8];
  for (int k = 0; k < 8; ++k) d[k] = _mm256_loadu_ps(v + at[k]);  // x0 | x1 of particle k
  __m256 u[2][3];  // particles 0-3 and 4-7: component c of x0 (low half) and of x1 (high)
  for (int h = 0; h < 2; ++h) {
    const __m256 *q = d + 4 * h;
    const __m256 ab_low = _mm256_unpacklo_ps(q[0], q[1]), ab_high = _mm256_unpackhi_ps(q[0], q[1]);
    const __m256 cd_low = _mm256_unpacklo_ps(q[2], q[3]), cd_high = _mm256_unpackhi_ps(q[2], q[3]);
    u[h][0] = _mm256_shuffle_ps(ab_low, cd_low, 0x44);
    u[h][1] = _mm256_shuffle_ps(ab_low, cd_low, 0xEE);
    u[h][2] = _mm256_shuffle_ps(ab_high, cd_high, 0x44);
  }
  Pair8 r;
  for (int c = 0; c < 3; ++c) {
    r.near.c[c] = _mm256_permute2f128_ps(u[0][c], u[1][c], 0x20);
    r.far.c[c] = _mm256_permute2f128_ps(u[0][c], u[1][c], 0x31);
  }
  return r;
}
__attribute__((target("avx2"))) inline Tap8 along_x(const float* v, const int32_t* at, __m256 fx) {
  const Pair8 p = pair8(v, at);
  return lerp8(p.near, p.far, fx);
}
// GCC 12's AVX-512 intrinsics pass an undefined vector as the operand of
// lanes a mask leaves out (none here), which -W(maybe-)uninitialized
// reports once they are inlined into sample_grid_avx2.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
// Both passes 16 particles at a time with AVX-512 where the CPU has it
// (measured on the 2-core AMD EPYC VM, 2 December 2026, `fxsim bench
// --effect rain --particles 1000000 --frames 0`, five runs alternating with
// the AVX2 binary: the turbulent step 3.15-3.41 ms against 3.67-3.99, steady
// 1.72-1.96 ms: 0.52-0.56 of its rate against 0.44-0.50; snow 4.24-4.25
// against 4.71-4.75 ms). Measured and not kept (7 December 2026, a program
// sampling 4 M particles on the same VM, 1 and 2 threads, in a 30 m box and
// in a 0.6 m one): a field whose rows hold each point beside the one a
// plane above (planes z and z + 1 interleaved: two rows of two 32-byte
// loads a particle, no transposes but its result's), each particle blended
// on its own in 256-bit registers; the same bits, 15-20 % slower than the
// 16-wide blend even with its field built beforehand: the lanes it wastes
// cost more adds and multiplies than the transposes it saves.
//
// The same blend for 16 particles with AVX-512: each
// row's pairs for particles m and m + 4 (m + 8 and m + 12) share a register,
// transposed 4×4 within its 128-bit lanes and regrouped by lane, so that a
// lane holds a particle's component as in pair8, 16 particles a register.
// Lane by lane the same float operations in the same order: the same bits.
struct Tap16 {
  __m512 c[3];
};
__attribute__((target("avx512f"))) inline Tap16 lerp16(const Tap16& a, const Tap16& b, __m512 f) {
  Tap16 r;
  for (int c = 0; c < 3; ++c) r.c[c] = _mm512_add_ps(a.c[c], _mm512_mul_ps(_mm512_sub_ps(b.c[c], a.c[c]), f));
  return r;
}
// A row's x0 and x1 points of 16 particles (`at`: their x0 points, in floats from the grid's start), blended by fx.
__attribute__((target("avx512f"))) inline Tap16 along_x16(const float* v, const int32_t* at, __m512 fx) {
  __m512 u[2][3];  // particles 0-7 and 8-15: component c of x0 (lanes 0, 2) and of x1 (lanes 1, 3)
  for (int h = 0; h < 2; ++h) {
    __m512 d[4];  // x0 | x1 of particle 8h + m, then of 8h + m + 4
    for (int m = 0; m < 4; ++m)
      d[m] = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_zextpd256_pd512(_mm256_castps_pd(_mm256_loadu_ps(v + at[8 * h + m]))),
                                                 _mm256_castps_pd(_mm256_loadu_ps(v + at[8 * h + m + 4])), 1));
    const __m512 ab_low = _mm512_unpacklo_ps(d[0], d[1]), ab_high = _mm512_unpackhi_ps(d[0], d[1]);
    const __m512 cd_low = _mm512_unpacklo_ps(d[2], d[3]), cd_high = _mm512_unpackhi_ps(d[2], d[3]);
    u[h][0] = _mm512_shuffle_ps(ab_low, cd_low, 0x44);
    u[h][1] = _mm512_shuffle_ps(ab_low, cd_low, 0xEE);
    u[h][2] = _mm512_shuffle_ps(ab_high, cd_high, 0x44);
  }
  Tap16 near, far;
  for (int c = 0; c < 3; ++c) {
    near.c[c] = _mm512_shuffle_f32x4(u[0][c], u[1][c], _MM_SHUFFLE(2, 0, 2, 0));
    far.c[c] = _mm512_shuffle_f32x4(u[0][c], u[1][c], _MM_SHUFFLE(3, 1, 3, 1));
  }
  return lerp16(near, far, fx);
}
// The second pass for particles [j, n) of a block, 16 at a time; returns where it stopped.
constexpr size_t kSampleBlock = 512;  // particles a block of sample_grid_avx2
__attribute__((target("avx512f"))) size_t blend_rows16(const float* v, const int32_t (*rows)[kSampleBlock],
                                                       const float (*fraction)[kSampleBlock], size_t j, size_t n,
                                                       float* const out[3], size_t out_at) {
  for (; j + 16 <= n; j += 16) {
    const __m512 fx = _mm512_load_ps(fraction[0] + j), fy = _mm512_load_ps(fraction[1] + j);
    const Tap16 x00 = along_x16(v, rows[0] + j, fx), x10 = along_x16(v, rows[1] + j, fx);
    const Tap16 low = lerp16(x00, x10, fy);
    const Tap16 x01 = along_x16(v, rows[2] + j, fx), x11 = along_x16(v, rows[3] + j, fx);
    const Tap16 r = lerp16(low, lerp16(x01, x11, fy), _mm512_load_ps(fraction[2] + j));
    for (int c = 0; c < 3; ++c) _mm512_storeu_ps(out[c] + out_at + j, r.c[c]);
  }
  return j;
}

struct Axes16 {
  __m512i index;
  __m512 fraction;
  __m512i cell;
};
__attribute__((target("avx512f"))) inline Axes16 axes_of16(__m512 x) {  // axes_of, 16 wide
  const __mmask16 within = _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(4.0e18f), _CMP_LT_OQ);
  const __m512 cell = _mm512_add_ps(_mm512_roundscale_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
                                    _mm512_setzero_ps());
  const __m512i whole = _mm512_cvttps_epi32(cell);
  return {_mm512_maskz_and_epi32(within, whole, _mm512_set1_epi32(kSide - 1)), _mm512_maskz_sub_ps(within, x, cell),
          whole};
}
__attribute__((target("avx512f"))) inline __m512i row16(__m512i y, __m512i z) {  // row8, 16 wide
  const __m512i row = _mm512_add_epi32(_mm512_slli_epi32(z, 6), y);
  return _mm512_add_epi32(_mm512_slli_epi32(row, 6), row);
}
// The first pass for particles [at, at + n) of a block, 16 at a time, as
// sample_grid_avx2's: each particle's 4 rows and 3 fractions; `span`: the
// least and greatest y cell, then z (not wrapped), of those it found.
// Returns how many it found.
__attribute__((target("avx512f"))) size_t find_rows16(const float* const p[3], size_t at, size_t n, float scale,
                                                      int32_t (*rows)[kSampleBlock], float (*fraction)[kSampleBlock],
                                                      int32_t span[4]) {
  const __m512 scale16 = _mm512_set1_ps(scale), per_cell = _mm512_set1_ps(float(kTurbulenceSamplesPerCell));
  const __m512i wrap = _mm512_set1_epi32(kSide - 1), one = _mm512_set1_epi32(1);
  __m512i y_least = _mm512_set1_epi32(INT32_MAX), y_greatest = _mm512_set1_epi32(INT32_MIN);
  __m512i z_least = y_least, z_greatest = y_greatest;
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    Axes16 a[3];
    for (int c = 0; c < 3; ++c) {
      a[c] = axes_of16(_mm512_mul_ps(_mm512_div_ps(_mm512_loadu_ps(p[c] + at + j), scale16), per_cell));
      _mm512_store_ps(fraction[c] + j, a[c].fraction);
    }
    y_least = _mm512_min_epi32(y_least, a[1].cell), y_greatest = _mm512_max_epi32(y_greatest, a[1].cell);
    z_least = _mm512_min_epi32(z_least, a[2].cell), z_greatest = _mm512_max_epi32(z_greatest, a[2].cell);
    const __m512i y[2] = {a[1].index, _mm512_and_epi32(_mm512_add_epi32(a[1].index, one), wrap)};
    const __m512i z[2] = {a[2].index, _mm512_and_epi32(_mm512_add_epi32(a[2].index, one), wrap)};
    for (int t = 0; t < 4; ++t)
      _mm512_store_si512(rows[t] + j, _mm512_slli_epi32(_mm512_add_epi32(row16(y[t & 1], z[t >> 1]), a[0].index), 2));
  }
  span[0] = _mm512_reduce_min_epi32(y_least), span[1] = _mm512_reduce_max_epi32(y_greatest);
  span[2] = _mm512_reduce_min_epi32(z_least), span[3] = _mm512_reduce_max_epi32(z_greatest);
  return j;
}

// The least and the greatest of 8 cells. (Taken before wrapping: a box
// across the grid's edge, cells −20 … 19, spans 40 cells, not all 64. A
// cell out of int32_t's range, or not a number, is converted to INT32_MIN,
// whose index is 0, the one read: alone it spans rows and planes 0 and 1;
// among ordinary cells, everything, more than is read but never less.)
struct Span {
  int64_t first, last;
};
__attribute__((target("avx2"))) inline Span span_of(__m256i least, __m256i greatest) {
  alignas(32) int32_t l[8], g[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(l), least);
  _mm256_store_si256(reinterpret_cast<__m256i*>(g), greatest);
  return {*std::min_element(l, l + 8), *std::max_element(g, g + 8)};
}
// Particles [begin, begin + 8k) of the batch; returns where it stopped.
// `ready(rows, z_first, z_last)`: TurbulenceField::make_ready, for each
// block's rows before they are read.
template <class Ready>
__attribute__((target("avx2"))) size_t sample_grid_avx2(const float* v, float scale, const float* const p[3],
                                                        size_t begin, size_t end, float* const out[3],
                                                        const Ready& ready, int vector_lanes) {
  static const bool cpu_has_avx512 = __builtin_cpu_supports("avx512f");
  const bool avx512 = vector_lanes >= 16 && cpu_has_avx512;
  const __m256 scale8 = _mm256_set1_ps(scale);  // divided, as cell_of does
  const __m256 per_cell = _mm256_set1_ps(float(kTurbulenceSamplesPerCell));
  const __m256i wrap = _mm256_set1_epi32(kSide - 1), one = _mm256_set1_epi32(1);
  // In blocks of particles, two passes: first every particle's 4 rows and
  // fractions, into arrays that stay in the first-level cache; then the
  // loads, which no longer wait behind the arithmetic that finds them.
  constexpr size_t kBlock = kSampleBlock;
  alignas(64) int32_t rows[4][kBlock];  // a row's x0 point (y, z bits: y0/y1, z0/z1), then particle
  alignas(64) float fraction[3][kBlock];
  size_t i = begin;
  while (i + 8 <= end) {
    const size_t n = std::min(kBlock, (end - i) & ~size_t(7));
    __m256i y_least = _mm256_set1_epi32(INT32_MAX), y_greatest = _mm256_set1_epi32(INT32_MIN);
    __m256i z_least = y_least, z_greatest = y_greatest;
    int32_t span16[4] = {INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN};  // find_rows16's
    for (size_t j = avx512 ? find_rows16(p, i, n, scale, rows, fraction, span16) : 0; j < n; j += 8) {
      Axes8 a[3];
      for (int c = 0; c < 3; ++c) {
        a[c] = axes_of(_mm256_mul_ps(_mm256_div_ps(_mm256_loadu_ps(p[c] + i + j), scale8), per_cell));
        _mm256_store_ps(fraction[c] + j, a[c].fraction);
      }
      y_least = _mm256_min_epi32(y_least, a[1].cell), y_greatest = _mm256_max_epi32(y_greatest, a[1].cell);
      z_least = _mm256_min_epi32(z_least, a[2].cell), z_greatest = _mm256_max_epi32(z_greatest, a[2].cell);
      const __m256i y[2] = {a[1].index, _mm256_and_si256(_mm256_add_epi32(a[1].index, one), wrap)};
      const __m256i z[2] = {a[2].index, _mm256_and_si256(_mm256_add_epi32(a[2].index, one), wrap)};
      for (int t = 0; t < 4; ++t)
        _mm256_store_si256(reinterpret_cast<__m256i*>(rows[t] + j),
                           _mm256_slli_epi32(_mm256_add_epi32(row8(y[t & 1], z[t >> 1]), a[0].index), 2));
    }
    const Span y8 = span_of(y_least, y_greatest), z8 = span_of(z_least, z_greatest);
    const Span ys{std::min<int64_t>(y8.first, span16[0]), std::max<int64_t>(y8.last, span16[1])};
    const Span zs{std::min<int64_t>(z8.first, span16[2]), std::max<int64_t>(z8.last, span16[3])};
    ready(rows_between(ys.first, ys.last), zs.first, zs.last);
    for (size_t j = avx512 ? blend_rows16(v, rows, fraction, 0, n, out, i - begin) : 0; j < n; j += 8) {
      const __m256 fx = _mm256_load_ps(fraction[0] + j), fy = _mm256_load_ps(fraction[1] + j);
      const Tap8 x00 = along_x(v, rows[0] + j, fx), x10 = along_x(v, rows[1] + j, fx);
      const Tap8 low = lerp8(x00, x10, fy);
      const Tap8 x01 = along_x(v, rows[2] + j, fx), x11 = along_x(v, rows[3] + j, fx);
      const Tap8 r = lerp8(low, lerp8(x01, x11, fy), _mm256_load_ps(fraction[2] + j));
      for (int c = 0; c < 3; ++c) _mm256_storeu_ps(out[c] + (i + j - begin), r.c[c]);
    }
    i += n;
  }
  return i;
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}  // namespace
#endif

void TurbulenceField::sample(const float* const p[3], size_t begin, size_t end, float* const out[3]) const {
  size_t first = begin;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const int lanes = g_vector_lanes.load(std::memory_order_relaxed);
  if (avx2 && lanes >= 8)
    first = sample_grid_avx2(velocities_.get(), scale_, p, begin, end, out,
                             [this](uint64_t rows, int64_t z_first, int64_t z_last) {
                               make_ready(rows, z_first, z_last);
                             },
                             lanes);
#endif
  for (size_t i = first; i < end; ++i) {
    const glm::vec3 w = at(glm::vec3(p[0][i], p[1][i], p[2][i]));
    out[0][i - begin] = w.x;
    out[1][i - begin] = w.y;
    out[2][i - begin] = w.z;
  }
}

}  // namespace fxsim
