#pragma once
// The ground plane, when the scene gives it a colour: a horizontal quad under
// the camera reaching out to the far plane, lit by the scene's lights
// (Lambertian, core/lighting.h) or flat, fading into the background colour
// (the sky's horizon) over its far part. It writes depth, so
// particles behind the horizon line are hidden.
#include <algorithm>

#include "core/camera_path.h"
#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {

// The ground is a square this fraction of the far distance on each side of
// the point under the eye (corners at the far distance would be clipped),
// and at most kGroundExtentOfNear near distances: the quad's sides cross the
// near plane beside the eye, and the GL's clipper (llvmpipe's, NVIDIA's on
// the H200) lost the whole ground where they crossed 5·10^7 near distances
// out (near 0.1, far 10^7: exit 0, no ground). Only such scenes are
// changed: their ground's fade begins at 5·10^6 near distances instead of a
// quarter of 0.7 far, below the horizon by less than a pixel unless the eye
// is kilometres up.
constexpr float kGroundExtentOfFar = 0.7f;
constexpr float kGroundExtentOfNear = 2.0e7f;
inline float ground_extent(float near_plane, float far_plane) {
  return std::min(far_plane * kGroundExtentOfFar, near_plane * kGroundExtentOfNear);
}

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
