#include "core/noise.h"

#include <cmath>
#include <glm/common.hpp>

namespace fxsim {

uint32_t hash_u32(uint32_t x) {  // "lowbias32" by Chris Wellons
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

uint32_t hash_lattice(uint32_t seed, int32_t x, int32_t y, int32_t z) {
  // Odd multipliers spread the coordinates over all bits before one strong mix.
  return hash_u32(seed ^ (uint32_t(x) * 0x8DA6B343u) ^ (uint32_t(y) * 0xD8163841u) ^ (uint32_t(z) * 0xCB1AB31Fu));
}

namespace {
// The lattice cell of a coordinate as a 32-bit integer. Beyond ±2^31 the cell
// index wraps (noise repeats there) instead of overflowing, which is undefined
// behaviour in C++; within that range it is the plain conversion, so results
// are unchanged.
int32_t lattice_cell(double cell) {
  if (std::fabs(cell) < 2147483648.0) return int32_t(cell);
  if (!std::isfinite(cell)) return 0;
  return int32_t(uint32_t(int64_t(std::fmod(cell, 4294967296.0)) & 0xFFFFFFFFll));
}

// The hash of the cell corner (ix + cx, …), the sums wrapping like the cells.
uint32_t hash_corner(uint32_t seed, int32_t ix, int32_t iy, int32_t iz, int cx, int cy, int cz) {
  const auto next = [](int32_t i, int c) { return int32_t(uint32_t(i) + uint32_t(c)); };
  return hash_lattice(seed, next(ix, cx), next(iy, cy), next(iz, cz));
}

float quintic(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
float quintic_slope(float t) { return 30.0f * t * t * (t * (t - 2.0f) + 1.0f); }

// The 12 edge directions of a cube (Perlin's "improved noise" gradients).
glm::vec3 lattice_gradient(uint32_t h) {
  static constexpr float kDirs[12][3] = {{1, 1, 0}, {-1, 1, 0}, {1, -1, 0}, {-1, -1, 0},
                                         {1, 0, 1}, {-1, 0, 1}, {1, 0, -1}, {-1, 0, -1},
                                         {0, 1, 1}, {0, -1, 1}, {0, 1, -1}, {0, -1, -1}};
  const float* d = kDirs[(h & 1023u) % 12u];
  return {d[0], d[1], d[2]};
}
}  // namespace

float value_noise_1d(uint32_t seed, double x) {
  const double cell = std::floor(x);
  const float f = float(x - cell);
  const int32_t i = lattice_cell(cell);
  auto lattice = [&](int32_t k) { return float(hash_lattice(seed, k, 0, 0) >> 8) * (2.0f / 16777216.0f) - 1.0f; };
  const float a = lattice(i), b = lattice(int32_t(uint32_t(i) + 1u));  // wraps, never overflows
  return a + (b - a) * quintic(f);
}

void gradient_noise_3d_x3(uint32_t seed, glm::vec3 p, glm::vec3 gradients[3], int32_t period) {
  const glm::vec3 cell = glm::floor(p);
  const glm::vec3 f = p - cell;
  const int32_t ix = lattice_cell(cell.x), iy = lattice_cell(cell.y), iz = lattice_cell(cell.z);
  const glm::vec3 w{quintic(f.x), quintic(f.y), quintic(f.z)};
  const glm::vec3 dw{quintic_slope(f.x), quintic_slope(f.y), quintic_slope(f.z)};
  gradients[0] = gradients[1] = gradients[2] = glm::vec3(0);
  for (int corner = 0; corner < 8; ++corner) {
    const int cx = corner & 1, cy = (corner >> 1) & 1, cz = (corner >> 2) & 1;
    const uint32_t h = period > 0 ? hash_lattice(seed, (ix + cx) % period, (iy + cy) % period, (iz + cz) % period)
                                  : hash_corner(seed, ix, iy, iz, cx, cy, cz);
    const glm::vec3 d = f - glm::vec3(float(cx), float(cy), float(cz));
    const float wx = cx ? w.x : 1.0f - w.x, wy = cy ? w.y : 1.0f - w.y, wz = cz ? w.z : 1.0f - w.z;
    const float sx = cx ? dw.x : -dw.x, sy = cy ? dw.y : -dw.y, sz = cz ? dw.z : -dw.z;
    const float weight = wx * wy * wz;
    const glm::vec3 weight_slope(sx * wy * wz, wx * sy * wz, wx * wy * sz);
    for (int k = 0; k < 3; ++k) {
      const glm::vec3 g = lattice_gradient(h >> (10 * k));  // bits 0, 10, 20: three fields
      const float dot = g.x * d.x + g.y * d.y + g.z * d.z;
      gradients[k] += weight * g + dot * weight_slope;
    }
  }
}

NoiseSample gradient_noise_3d(uint32_t seed, glm::vec3 p) {
  const glm::vec3 cell = glm::floor(p);
  const glm::vec3 f = p - cell;
  const int32_t ix = lattice_cell(cell.x), iy = lattice_cell(cell.y), iz = lattice_cell(cell.z);
  const glm::vec3 w{quintic(f.x), quintic(f.y), quintic(f.z)};
  const glm::vec3 dw{quintic_slope(f.x), quintic_slope(f.y), quintic_slope(f.z)};
  NoiseSample out{0, glm::vec3(0)};
  for (int corner = 0; corner < 8; ++corner) {
    const int cx = corner & 1, cy = (corner >> 1) & 1, cz = (corner >> 2) & 1;
    const glm::vec3 g = lattice_gradient(hash_corner(seed, ix, iy, iz, cx, cy, cz));
    const glm::vec3 d = f - glm::vec3(float(cx), float(cy), float(cz));
    const float dot = g.x * d.x + g.y * d.y + g.z * d.z;
    // Trilinear weight of this corner and its derivative along each axis.
    const float wx = cx ? w.x : 1.0f - w.x, wy = cy ? w.y : 1.0f - w.y, wz = cz ? w.z : 1.0f - w.z;
    const float sx = cx ? dw.x : -dw.x, sy = cy ? dw.y : -dw.y, sz = cz ? dw.z : -dw.z;
    const float weight = wx * wy * wz;
    out.value += weight * dot;
    out.gradient += weight * g + dot * glm::vec3(sx * wy * wz, wx * sy * wz, wx * wy * sz);
  }
  return out;
}

}  // namespace fxsim
