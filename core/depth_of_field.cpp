#include "core/depth_of_field.h"

#include <algorithm>
#include <cmath>

namespace fxsim {

float ThinLens::circle_of_confusion(float distance) const {
  return scale * std::fabs(distance - focus) / std::max(distance, 1e-6f);
}

float focal_length(float fov_degrees) {
  return 0.5f * kSensorHeight / std::tan(0.5f * fov_degrees * 3.14159265358979f / 180.0f);
}

ThinLens thin_lens(float fov_degrees, float f_number, float focus_distance, int image_height) {
  const float f = focal_length(fov_degrees);
  const float aperture = f / f_number;
  // Focused nearer than the focal length the lens cannot image: treated as
  // just beyond it (a focus_distance so near is refused; the distance to a
  // target a few centimetres from the eye is not).
  const float focus = std::max(focus_distance, 1.001f * f);
  return {aperture * f / (focus - f) * float(image_height) / kSensorHeight, focus};
}

}  // namespace fxsim
