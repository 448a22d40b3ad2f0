#pragma once
// The lights one can see (a `size` given): each point or spot light's source
// drawn as a glowing disc facing the eye at core/lighting.h's
// source_radiance, added to the frame (no coverage), hidden by what is in
// front of it and dimmed by the fog. Bloom makes it glow.
#include <optional>

#include "core/camera_path.h"
#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {

class LightSourcePass {
 public:
  LightSourcePass();
  // `lighting`: the lights where they are this frame (lighting_at); `height`:
  // the frame's, in pixels (a far lamp is drawn at least a few pixels wide).
  void draw(const Lighting& lighting, const CameraPose& camera, float aspect, int height,
            const std::optional<Fog>& fog);

 private:
  GlProgram program_;
  GlVertexArray vao_;
};

}  // namespace fxsim
