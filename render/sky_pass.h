#pragma once
// The sky (environment.sky): every pixel the colour of its view direction's
// elevation, from the horizon colour at and below the horizon to the zenith
// colour overhead, mixed as horizon + (zenith − horizon) · sin(elevation)^0.45
// in linear light (the horizon band stays wide, as in a real sky), seen
// through the fog at the far plane (so with fog thinning upwards the horizon
// is the fog's colour, and the ground fades into it without a line). Drawn
// first, behind everything, writing no depth.
#include <optional>

#include "core/camera_path.h"
#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {

class SkyPass {
 public:
  SkyPass();
  void draw(const Sky& sky, const CameraPose& camera, float aspect, const std::optional<Fog>& fog);

 private:
  GlProgram program_;
  GlVertexArray vao_;
};

}  // namespace fxsim
