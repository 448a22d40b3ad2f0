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
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <glm/vec3.hpp>

namespace fxsim {

class ThreadPool;

constexpr int kTurbulencePeriodCells = 16;     // the pattern repeats every 16 features
constexpr int kTurbulenceSamplesPerCell = 4;   // grid points per feature along an axis
constexpr int kTurbulenceGridSide = kTurbulencePeriodCells * kTurbulenceSamplesPerCell;  // a power of two
constexpr size_t kTurbulenceGridPoints = size_t(kTurbulenceGridSide) * kTurbulenceGridSide * kTurbulenceGridSide;
static_assert((kTurbulenceGridSide & (kTurbulenceGridSide - 1)) == 0, "wrapping relies on a power of two");

// Floats a grid point takes: x, y, z and a zero, so that a GPU reads a point
// in one 16-byte load.
constexpr int kTurbulencePointFloats = 4;

// The raw curl of slice `slice_seed`'s periodic potential at every grid point:
// x fastest, then y, then z; kTurbulencePointFloats floats a point. With
// `threads`, its planes are shared among them (the same values: each point is
// computed on its own).
std::vector<float> turbulence_slice_grid(uint32_t slice_seed, ThreadPool* threads = nullptr);

// The turbulence velocity at one moment, in m/s, on the grid; `scale` is the
// feature size in metres (the grid's spacing is scale / kTurbulenceSamplesPerCell).
class TurbulenceField {
 public:
  // (a + (b − a)·blend)·gain, float by float (render/gpu_turbulence.cpp's
  // blend kernel computes the same), its planes shared among `threads` if given.
  TurbulenceField(const std::vector<float>& a, const std::vector<float>& b, float blend, float gain, float scale,
                  ThreadPool* threads = nullptr);

  glm::vec3 at(glm::vec3 p) const;
  // at() for particles [begin, end) of position arrays (x, y, z each):
  // out[c][i − begin], bit for bit at()'s results.
  void sample(const float* const p[3], size_t begin, size_t end, float* const out[3]) const;
  float scale() const { return scale_; }

 private:
  // The grid's rows, each with a copy of its first point past its last (so
  // a cell's two points along x are side by side); not zeroed first: the
  // blend writes every float (4.2 MiB, a step).
  std::unique_ptr<float[]> velocities_;
  float scale_;
};

}  // namespace fxsim
