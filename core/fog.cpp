#include "core/fog.h"

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>

namespace fxsim {

float fog_transmittance(const Fog& fog, glm::vec3 eye, glm::vec3 point) {
  const float d = glm::length(point - eye);
  float depth = fog.density * d;
  if (!(depth > 0)) return 1;  // (no fog, or no path: the factors below could be 0 × ∞)
  if (fog.height_falloff > 0) {
    const float k = fog.height_falloff, above = k * (eye.y - fog.base), rise = k * (point.y - eye.y);
    if (std::fabs(above) <= kFogExponentLimit && std::fabs(rise) <= kFogExponentLimit) {
      depth *= std::exp(-above);
      if (std::fabs(rise) > 1e-4f) depth *= -std::expm1(-rise) / rise;
    } else {
      // Far above or below the base (a camera 100 m up, k = 1): e^(−above)
      // underflowed to 0 and the rise's term overflowed, 0 × ∞, a NaN that
      // turned the frame black. The same product as e^(−lowest) × the mean
      // of e^(−x) over the rise from there, in logarithms, is ∞ or 0 at worst.
      const float lowest = std::min(above, above + rise), span = std::fabs(rise);
      const float mean = span > 1e-4f ? -std::expm1(-span) / span : 1.0f;
      depth = std::exp(std::log(depth) - lowest) * mean;
    }
  }
  return std::exp(-depth);
}

}  // namespace fxsim
