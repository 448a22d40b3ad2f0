#pragma once
// Smooth seeded noise, pure functions of (seed, position): value noise in time
// for gusts, gradient (Perlin) noise with its analytic gradient in space for
// curl-noise turbulence. The analytic gradient is what makes the curl exactly
// divergence-free.
#include <cstdint>

#include <glm/vec3.hpp>

namespace fxsim {

uint32_t hash_u32(uint32_t x);
uint32_t hash_lattice(uint32_t seed, int32_t x, int32_t y, int32_t z);

// Smooth 1-D value noise in [-1, 1], one lattice value per unit of x (quintic blend).
float value_noise_1d(uint32_t seed, double x);

struct NoiseSample {
  float value;
  glm::vec3 gradient;  // d value / d p
};

// 3-D gradient noise in about [-1, 1] with its exact gradient.
NoiseSample gradient_noise_3d(uint32_t seed, glm::vec3 p);

// The gradients of three independent gradient-noise fields at p, sharing the
// lattice lookups (one hash per corner feeds all three): the vector potential
// of curl noise, at a third of the cost of three separate calls. With a
// `period` > 0 the lattice wraps every `period` cells along each axis (for
// 0 <= p < period), so the fields tile seamlessly.
void gradient_noise_3d_x3(uint32_t seed, glm::vec3 p, glm::vec3 gradients[3], int32_t period = 0);

}  // namespace fxsim
