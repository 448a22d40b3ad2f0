#include "core/turbulence_grid.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/noise.h"

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

std::vector<float> turbulence_slice_grid(uint32_t slice_seed) {
  std::vector<float> grid(kTurbulenceGridPoints * kTurbulencePointFloats, 0.0f);
  const float spacing = 1.0f / float(kTurbulenceSamplesPerCell);  // exact: a power of two
  size_t n = 0;
  for (int z = 0; z < kSide; ++z)
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
  return grid;
}

TurbulenceField::TurbulenceField(const std::vector<float>& a, const std::vector<float>& b, float blend, float gain,
                                 float scale)
    : velocities_(a.size()), scale_(scale) {
  for (size_t i = 0; i < a.size(); ++i) velocities_[i] = (a[i] + (b[i] - a[i]) * blend) * gain;
}

glm::vec3 TurbulenceField::at(glm::vec3 p) const { return sample_grid(velocities_.data(), scale_, p); }

void TurbulenceField::sample(const float* const p[3], size_t begin, size_t end, float* const out[3]) const {
  const float* v = velocities_.data();
  for (size_t i = begin; i < end; ++i) {
    const glm::vec3 w = sample_grid(v, scale_, glm::vec3(p[0][i], p[1][i], p[2][i]));
    out[0][i - begin] = w.x;
    out[1][i - begin] = w.y;
    out[2][i - begin] = w.z;
  }
}

}  // namespace fxsim
