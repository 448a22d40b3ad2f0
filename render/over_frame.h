#pragma once
// Puts a layer of premultiplied light "over" the bound draw framebuffer, as
// GL blending (ONE, ONE_MINUS_SRC_ALPHA) does: how the batches drawn off the
// frame (the compute rasteriser's layer, the half-size sprites) join it.
// Where the frame's colour is a multisampled float texture that kernels can
// write (render/frame_target.h), a kernel blends every sample at memory speed
// (H200, 1080p with 4 float samples: the half-size mist's upsample 1.23 ->
// 0.18 ms, a compute-rasterised layer 0.44 -> 0.13 ms, against the GL
// blending a full-screen triangle); elsewhere the GL blends a full-screen
// triangle.
#include <functional>
#include <string>

#include "render/gl_objects.h"

namespace fxsim {

class OverFrame {
 public:
  // `layer_glsl`: the layer's uniforms and `vec4 layer_colour(vec2 centre)`,
  // the premultiplied light at a pixel's centre (window coordinates, as
  // gl_FragCoord.xy), without a #version line.
  explicit OverFrame(const std::string& layer_glsl);
  // Over the viewport of the bound draw framebuffer, without a depth test.
  // `set_uniforms` sets the layer's uniforms (and binds its textures) on the
  // program that runs, which is in use when it is called.
  void composite(const std::function<void(const GlProgram&)>& set_uniforms);
  // Whether composite() blends the bound draw framebuffer with the kernel.
  static bool uses_kernel();

 private:
  std::string layer_glsl_;
  GlProgram raster_, kernel_;  // each made when first needed
  GlVertexArray empty_vao_;
};

}  // namespace fxsim
