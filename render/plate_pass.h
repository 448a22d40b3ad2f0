#pragma once
// A background plate: an image (or one of a sequence) drawn behind the
// particles in linear light, and optionally its depth, written into the depth
// buffer so particles behind the plate's geometry are hidden (rain behind a
// parked car). PNG plates are sRGB; EXR plates linear (R, G, B). Depth is in
// metres along the view: an EXR's Z channel, or a 16-bit PNG in millimetres
// (0 or infinity: nothing, the far distance).
#include <filesystem>
#include <vector>

#include "core/camera_path.h"
#include "core/input_digest.h"
#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {

// Every plate and depth frame `frames` need exists, decodes and has the
// output's size: checked before anything renders. Throws FxError located as
// a scene's problems are (file:line:col: /output/plate or /output/plate_depth),
// naming the plate's file and frame (66 missing or unreadable, 65 the wrong size).
void check_plates(const Scene& scene, const std::vector<int>& frames);

class PlatePass {
 public:
  PlatePass();
  // Loads frame `frame`'s plate and depth, either of which may be absent, into textures.
  void load(const OutputSettings& output, int frame);
  // Draws the loaded plate over the whole image (its colour, where there is
  // one: a depth alone is a holdout), setting the depth buffer.
  void draw(const CameraPose& camera, float aspect);
  // The loaded depth (metres along the view, GL_R32F, rows top to bottom), 0 if none.
  GLuint depth_texture() const { return has_depth_ ? depth_.get() : 0; }
  // The digests of the files loaded, each taken before its file was read (core/input_digest.h).
  const PlateDigests& digests() const { return digests_; }

 private:
  GlProgram program_;
  GlVertexArray vao_;
  GlTexture color_, depth_;
  bool has_colour_ = false, has_depth_ = false;  // a depth alone (no plate) hides without drawing
  std::filesystem::path loaded_, loaded_depth_;  // the files the textures hold
  PlateDigests digests_;
};

}  // namespace fxsim
