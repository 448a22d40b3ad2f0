#pragma once
// The ground plane, when the scene gives it a colour: a horizontal quad under
// the camera reaching out to the far plane, lit by the scene's lights
// (Lambertian, core/lighting.h) or flat, fading into the background colour
// (the sky's horizon) over its far part. It writes depth, so
// particles behind the horizon line are hidden.
#include "core/camera_path.h"
#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {

// The ground is a square this fraction of the far distance on each side of
// the point under the eye (corners at the far distance would be clipped).
constexpr float kGroundExtentOfFar = 0.7f;

class GroundPass {
 public:
  GroundPass();
  void draw(const Ground& ground, const Color& background, const CameraPose& camera, float aspect,
            const std::optional<Fog>& fog = std::nullopt, const std::optional<Lighting>& lighting = std::nullopt,
            bool sky = false);  // `background` is the sky's horizon

 private:
  GlProgram program_;
  GlVertexArray vao_;
};

}  // namespace fxsim
