#include "core/fog.h"

#include <cmath>
#include <glm/geometric.hpp>

namespace fxsim {

float fog_transmittance(const Fog& fog, glm::vec3 eye, glm::vec3 point) {
  const float d = glm::length(point - eye);
  float depth = fog.density * d;
  if (fog.height_falloff > 0) {
    const float k = fog.height_falloff, rise = k * (point.y - eye.y);
    depth *= std::exp(-k * (eye.y - fog.base));
    if (std::fabs(rise) > 1e-4f) depth *= -std::expm1(-rise) / rise;
  }
  return std::exp(-depth);
}

}  // namespace fxsim
