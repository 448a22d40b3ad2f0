#pragma once
// The camera at any time: keyframes interpolated with a Catmull–Rom spline
// (tangents from the neighbouring keys over their time span, so unevenly spaced
// keys move smoothly), clamped at both ends.
#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "core/scene.h"

namespace fxsim {

struct CameraPose {
  glm::vec3 position;
  glm::vec3 target;
  glm::vec3 up;
  float fov_degrees;
  float near_plane, far_plane;
  glm::vec3 velocity{0};  // of the eye, m/s (for streaks seen from a moving camera)

  glm::vec3 forward() const;
  // World-from-camera rotation: columns are camera x (right), y (up), z (backward).
  glm::mat3 basis() const;
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;
};

CameraPose camera_at(const CameraSettings& camera, double t);
// The same without the eye's velocity (three times cheaper): for checks.
CameraPose camera_view_at(const CameraSettings& camera, double t);

// Why a view is undefined, if it is: the target within 0.001 m of the eye, or
// the view along `up` (the image's orientation would be undefined).
enum class ViewProblem { none, target_at_eye, along_up };
ViewProblem view_problem(glm::vec3 position, glm::vec3 target, glm::vec3 up);

}  // namespace fxsim
