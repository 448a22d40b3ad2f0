#pragma once
// Curl-noise turbulence precomputed into a grid and sampled trilinearly: the
// cheap form of the wind's turbulence (core/wind.h), the same on both backends.
//
// The pattern of one time slice is the curl of a gradient-noise vector
// potential made periodic over kTurbulencePeriodCells features along each axis
// (the lattice hash wraps there, so the field tiles seamlessly), sampled at
// kTurbulenceSamplesPerCell points per feature: a 64³ grid of velocities. The
// field at a moment is the blend of two slices' grids; a particle reads it by
// trilinear interpolation (8 taps instead of 8 lattice hashes and three noise
// gradients for each of two slices). The GPU reads the same grid, uploaded
// (render/gpu_turbulence.h), with the same arithmetic.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <glm/vec3.hpp>

namespace fxsim {

class ThreadPool;

constexpr int kTurbulencePeriodCells = 16;     // the pattern repeats every 16 features
constexpr int kTurbulenceSamplesPerCell = 4;   // grid points per feature along an axis
constexpr int kTurbulenceGridSide = kTurbulencePeriodCells * kTurbulenceSamplesPerCell;  // a power of two
constexpr size_t kTurbulenceGridPoints = size_t(kTurbulenceGridSide) * kTurbulenceGridSide * kTurbulenceGridSide;
static_assert((kTurbulenceGridSide & (kTurbulenceGridSide - 1)) == 0, "wrapping relies on a power of two");
static_assert(kTurbulenceGridSide == 64, "a plane's rows are the bits of a 64-bit word");

// Floats a grid point takes: x, y, z and a zero, so that a GPU reads a point
// in one 16-byte load.
constexpr int kTurbulencePointFloats = 4;

// The raw curl of slice `slice_seed`'s periodic potential at every grid point:
// x fastest, then y, then z; kTurbulencePointFloats floats a point. With
// `threads`, its planes are shared among them (the same values: each point is
// computed on its own).
std::vector<float> turbulence_slice_grid(uint32_t slice_seed, ThreadPool* threads = nullptr);

// The widest vectors TurbulenceField::sample uses where the CPU has them:
// 16 floats (AVX-512, the default), 8 (AVX2) or 1 (one particle at a
// time). The results are the same bits whichever (tests compare each with at()).
void limit_turbulence_vector_width(int lanes);

// Grids TurbulenceField has done with, for the next field to take: a step's
// field is 4.1 MiB, which a new allocation maps and faults in afresh where
// the allocator does not reuse its heap (ASan's never does: the sanitized
// tests spent up to a fifth of a turbulent render faulting in fields).
// Shared by a wind's fields, on any thread.
class TurbulenceFieldGrids {
 public:
  std::unique_ptr<float[]> take();  // a spare, or a new grid (contents undefined)
  void give_back(std::unique_ptr<float[]> grid);

 private:
  static constexpr size_t kSparesKept = 2;
  std::mutex mutex_;
  std::vector<std::unique_ptr<float[]>> spares_;
};

// The turbulence velocity at one moment, in m/s, on the grid; `scale` is the
// feature size in metres (the grid's spacing is scale / kTurbulenceSamplesPerCell).
//
// The field is (a + (b − a)·blend)·gain, float by float (render/gpu_turbulence.cpp's
// blend kernel computes the same), blended row by row when a reader first
// needs the row: a step's field is 4.1 MiB, blended anew each step from two
// slices out of the caches, and most scenes' particles fill a part of the
// grid's period (`fxsim bench --effect rain`'s box: 17 % of its rows).
// Readers on several threads share the work: each row is blended once, by
// whichever thread takes it on, and read by every thread once written; any
// order gives the same floats.
class TurbulenceField {
 public:
  using Slice = std::shared_ptr<const std::vector<float>>;  // turbulence_slice_grid's
  // `grids`, where given, lends the field its grid and takes it back.
  TurbulenceField(Slice a, Slice b, float blend, float gain, float scale,
                  std::shared_ptr<TurbulenceFieldGrids> grids = nullptr);
  ~TurbulenceField();
  TurbulenceField(const TurbulenceField&) = delete;
  TurbulenceField& operator=(const TurbulenceField&) = delete;

  glm::vec3 at(glm::vec3 p) const;
  // at() for particles [begin, end) of position arrays (x, y, z each):
  // out[c][i − begin], bit for bit at()'s results.
  void sample(const float* const p[3], size_t begin, size_t end, float* const out[3]) const;
  float scale() const { return scale_; }

 private:
  // Makes the rows `rows` (bit y: row y) of planes z_first … z_last + 1
  // (not yet wrapped; z_first ≤ z_last, both in int32_t's range) readable:
  // blends those that no thread has taken on, then waits for any that
  // another is blending.
  void make_ready(uint64_t rows, int64_t z_first, int64_t z_last) const;
  void blend_rows(int z, uint64_t rows) const;

  Slice from_, to_;
  float blend_, gain_, scale_;
  std::shared_ptr<TurbulenceFieldGrids> grids_;
  // The grid's rows, each with a copy of its first point past its last (so
  // a cell's two points along x are side by side); a row is written only
  // when first needed.
  std::unique_ptr<float[]> velocities_;
  // Per plane, a bit a row: taken on by a thread to blend; blended.
  mutable std::array<std::atomic<uint64_t>, kTurbulenceGridSide> taken_{}, blended_{};
};

}  // namespace fxsim
