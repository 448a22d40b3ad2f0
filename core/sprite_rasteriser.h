#pragma once
// Draws a batch of sprites on the CPU: the path for many small sprites where
// the GL is a software rasteriser (llvmpipe shades whole 4×4-pixel blocks and
// pays its pipeline per sprite: about 1.4 µs a 2-pixel flake). The same
// algorithm as the compute rasteriser (render/compute_rasteriser.h), in C++:
//
//   1. prepare   each sprite's quad (core/sprite_look.h's sprite_corners, the
//                twin of the GL path's vertex code) projected to pixels;
//   2. bin       the sprites into bands of kSpriteBandRows rows, in drawing order;
//   3. blend     each band on a thread of its own: for each pixel, its
//                sprites newest first, front to back per sample (the frame's
//                own sample positions): the coverage of the quad's two
//                triangles, the depth test against the ground plane and the
//                plate, one shading at the pixel centre per triangle with the
//                level of detail GL would pick, colour and transmittance in
//                32-bit float; a pixel stops once less than 1/4096 of the
//                light behind gets through;
//   4. layer     the samples' mean (colour, 1 − transmittance) per pixel, for
//                the caller to put "over" the frame.
//
// Deterministic for any number of threads: each pixel is blended by one
// thread, its sprites in a fixed order. Sprites reaching through the near
// plane need clipping: they are listed for the GL path to draw.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

#include "core/parallel.h"
#include "core/particle_system.h"
#include "core/sprite_look.h"

namespace fxsim {

constexpr int kSpriteBandRows = 16;

// What hides sprites, as the depth buffer does for the GL path.
struct SpriteDepthLimits {
  std::optional<float> ground_height;  // a square of ground_extent around ground_centre (x, z)
  float ground_extent = 0;
  glm::vec2 ground_centre{0};
  const PlateDepth* plate = nullptr;   // hides what is farther along the view
  float far_plane = 1000;
};

// The frame drawn into: its size and multisampling.
struct SpriteFrame {
  int width = 1, height = 1;
  std::vector<glm::vec2> sample_positions{glm::vec2(0.5f)};  // within the pixel
  bool clamped = false;  // fixed point: each fragment's colour clamped to [0, 1]
};

class CpuSpriteRasteriser {
 public:
  // Step 1 for `sprites` (kept by reference until blend()).
  void prepare(std::span<const SpriteInstance> sprites, const SpriteCamera& camera, const SpriteDepthLimits& limits,
               ThreadPool& pool);
  // The mean area (pixels) of the quads it will draw: what decides whether a
  // batch is small sprites (core/sprite_rasteriser.h's caller picks by it).
  double mean_quad_pixels() const { return mean_quad_pixels_; }
  size_t drawn() const { return drawn_; }
  // Steps 2-4: the layer, width × height (colour, 1 − transmittance) per pixel, rows bottom to top.
  void blend(const SpriteShading& shading, const SpriteTexels& texels, const SpriteFrame& frame, bool additive,
             ThreadPool& pool, std::vector<glm::vec4>& layer);
  // The samples (covered, not hidden) the last blend() shaded a sprite for.
  size_t samples_blended() const { return samples_blended_; }
  // The sprites crossing the near plane, in drawing order: GL draws them (clipped) after the layer.
  const std::vector<size_t>& near_sprites() const { return near_; }

  // A sprite ready for the bands: its quad's corners in window pixels (y up),
  // their clip w (the view distance), and its look.
  struct Prepared {
    glm::vec2 corner[4];  // (-1, -1), (1, -1), (-1, 1), (1, 1)
    glm::vec4 w;
    glm::vec2 lo, hi;     // bounds, pixels
    glm::vec3 tail, head; // streaks: the world positions of their tail and head corners
    float alpha, layer, blur, confusion;
    bool streak;
    bool clear;           // nothing can hide any of it: no per-sample depth test
    bool drawn;
  };

 private:
  std::span<const SpriteInstance> sprites_;
  SpriteCamera camera_;
  SpriteDepthLimits limits_;
  glm::mat4 inverse_view_{1};
  std::vector<Prepared> prepared_, banded_;
  std::vector<size_t> near_;
  double mean_quad_pixels_ = 0;
  size_t drawn_ = 0;
  size_t samples_blended_ = 0;
};

}  // namespace fxsim
