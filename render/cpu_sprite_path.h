#pragma once
// The CPU rasteriser (core/sprite_rasteriser.h) inside a GL frame: it reads
// what the CPU needs from the GL (the frame's multisampling, the sprite
// texture's mipmaps, the plate's depth), draws the batch's layer on the CPU's
// threads, uploads it and puts it "over" the bound framebuffer, as the
// compute rasteriser composites its own layer.
#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <vector>

#include "core/parallel.h"
#include "core/sprite_rasteriser.h"
#include "render/frame_layer.h"
#include "render/gl_objects.h"

namespace fxsim {

class CpuSpritePath {
 public:
  explicit CpuSpritePath(int threads);
  // A new frame: the plate's depth is read again when asked for.
  void begin_frame() { plate_read_ = false; }
  // The look of a batch, given by the caller, and where its textures and the plate lie in GL.
  struct Batch {
    std::span<const SpriteInstance> sprites;
    SpriteCamera camera;
    SpriteShading shading;  // without the plate (read here)
    SpriteDepthLimits limits;  // without the plate
    GLuint texture = 0;     // GL_TEXTURE_2D_ARRAY
    bool texture_changes = false;  // made this frame (a fire's grid): not cached
    GLuint plate_depth = 0;  // 0: no plate
    bool additive = false;
  };
  // Draws the batch into the bound draw framebuffer (width × height). When
  // `pays` is given and says no for the batch's quads (their mean area in
  // pixels, how many are drawn) in a frame of this size, draws nothing and
  // returns false (the GL rasteriser is faster there). `pays` is first asked
  // with the batch's count and a quad of no pixels, before anything is read
  // or prepared: a rule that more sprites and smaller quads never turn
  // against (cpu_rasteriser_pays).
  // `draw_near` draws (with GL, clipped) the sprites crossing the near plane.
  using NearDrawer = std::function<void(const std::vector<SpriteInstance>& near)>;
  using Pays = std::function<bool(double mean_quad_pixels, size_t drawn, int width, int height)>;
  bool draw(const Batch& batch, int width, int height, const Pays& pays, const NearDrawer& draw_near);
  // The samples the last draw blended.
  size_t samples_blended() const { return rasteriser_.samples_blended(); }

 private:
  const SpriteTexels& texels_of(GLuint texture, bool changes);
  const PlateDepth& plate_depth(GLuint texture);

  ThreadPool pool_;
  CpuSpriteRasteriser rasteriser_;
  std::vector<glm::vec4> pixels_;  // the layer, drawn here
  std::map<GLuint, SpriteTexels> texels_;  // the emitters' textures, read once
  SpriteTexels changing_;                  // the last texture made for its frame
  PlateDepth plate_;
  bool plate_read_ = false;
  FrameLayer layer_;
};

}  // namespace fxsim
