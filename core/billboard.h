#pragma once
// The axes a sprite's quad spans for each billboard mode (paper 002 section
// 2.1), as the sprite vertex shader computes them (kept in step; tested):
//   screen:    the camera's right and up: parallel to the image plane;
//   viewpoint: facing the eye: the normal points from the sprite to the eye;
//   axial:     turning only about world +Y: up stays vertical.
#include <glm/vec3.hpp>

#include "core/camera_path.h"
#include "core/scene.h"

namespace fxsim {

struct BillboardAxes {
  glm::vec3 right, up;
};

BillboardAxes billboard_axes(BillboardMode mode, const CameraPose& camera, glm::vec3 center);

}  // namespace fxsim
