#pragma once
// The sprites' look on the CPU: the C++ twin of render/sprite_glsl.h, line for
// line (sprite_corners: sprite_vertex of the four corners: billboards, streaks, the minimum size, the thin lens;
// shade_sprite: texture, tint, soft edges, lights, fog), for the CPU
// rasteriser (core/sprite_rasteriser.h). Kept in step with the GLSL: the
// tests draw scenes both ways and compare the frames.
#include <optional>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "core/lighting.h"
#include "core/particle_system.h"
#include "core/scene.h"

namespace fxsim {

// kSpriteGeometryGlsl's uniforms.
struct SpriteCamera {
  glm::mat4 view{1}, projection{1};
  glm::vec3 eye{0}, right{1, 0, 0}, up{0, 1, 0};
  BillboardMode billboard = BillboardMode::screen;
  glm::vec2 viewport{1};  // pixels
  float min_pixels = 1.5f;
  float near_plane = 0.1f;
  glm::vec2 dof{0};       // thin lens: scale (pixels), focus distance (m)
  bool lens = false;      // FXSIM_DOF
  bool shutter = false;   // FXSIM_SHUTTER
};

struct SpriteVertex {
  glm::vec4 clip{0};
  float alpha = 0;
  float view_depth = 0;  // distance along the view
  glm::vec3 world{0};    // world position (fog, light)
  float blur = 0;        // depth of field: how far the shape is blurred towards a disc, 0..1
  float confusion = 0;   // the circle of confusion, pixels
};

// The quad's corners (-1, -1), (1, -1), (-1, 1), (1, 1), as the GL draws its triangle strip.
inline constexpr glm::vec2 kSpriteCorners[4] = {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
// A sprite's four corners: sprite_vertex of each of kSpriteCorners (what
// they share computed once).
void sprite_corners(const SpriteCamera& camera, const SpriteInstance& sprite, SpriteVertex out[4]);

// A texture array as GL samples it: premultiplied linear RGBA per texel (the
// sRGB bytes decoded), every mipmap level, clamped to its edges.
struct SpriteTexels {
  struct Level {
    int width = 0, height = 0;
    std::vector<glm::vec4> texels;  // layer by layer, rows as uploaded (v = 0 first)
  };
  int layers = 0;
  std::vector<Level> levels;
  // GL_LINEAR_MIPMAP_LINEAR at level of detail `lod` (GL_LINEAR from level 0 when lod <= 0).
  glm::vec4 sample(glm::vec2 uv, float layer, float lod) const;
  // The level whose largest side is one texel: the shape's mean.
  float mean_level() const;
};

// The plate's depth (metres along the view; 0 or beyond 3e38: nothing),
// rows bottom to top as GL keeps them.
struct PlateDepth {
  int width = 0, height = 0;
  std::vector<float> depth;
  // Its nearest texel behind window position `frag_coord` of a viewport.
  float at(glm::vec2 frag_coord, glm::vec2 viewport) const;
};

// kSpriteShadingGlsl's uniforms, for the frame's colour.
struct SpriteShading {
  glm::vec4 tint{1};            // linear rgb; a = colour alpha × opacity
  float disc_mean = 1;
  bool lens = false;            // FXSIM_DOF
  glm::vec2 soft{0};            // FXSIM_SOFT: fade distance (m, 0: none), ground height
  float plate_soft = 0;         // FXSIM_PLATE_SOFT (m, 0: none)
  const PlateDepth* plate = nullptr;
  std::optional<Lighting> lighting;  // FXSIM_LIT with the frame's lights; none: unlit
  Scattering scattering;
  std::optional<Fog> fog;
  int fog_mode = 0;             // 0 none, 1 "over", 2 additive
  glm::vec3 eye{0};
};

struct SpriteFragment {
  glm::vec2 uv{0};
  float layer = 0;
  float alpha = 0;
  float view_depth = 0;
  glm::vec3 world{0};
  float blur = 0;
  float confusion = 0;
  glm::vec2 frag_coord{0};  // window position, pixels
};

// The premultiplied colour of one fragment; `lod`: the level of detail the
// uv's derivatives give (sample_shape's before its bias).
glm::vec4 shade_sprite(const SpriteShading& shading, const SpriteTexels& texels, const SpriteFragment& f, float lod,
                       glm::vec2 viewport);

}  // namespace fxsim
