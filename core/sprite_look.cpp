#include "core/sprite_look.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/geometric.hpp>

#include "core/fog.h"
#include "core/scalar_math.h"
#include "core/window_position.h"

namespace fxsim {

namespace {
using glm::vec2;
using glm::vec3;
using glm::vec4;

float confusion(const SpriteCamera& c, float d) {
  return c.dof.x > 0 ? c.dof.x * std::fabs(d - c.dof.y) / std::max(d, 1e-6f) : 0.0f;
}

// A streak (rain): the quad from the projected tail to the projected head,
// as wide as the drop, with caps; its four corners.
void streak_corners(const SpriteCamera& cam, vec3 head, vec3 tail, float width, float alpha, SpriteVertex out[4]) {
  vec4 a = cam.view * vec4(tail, 1.0f), b = cam.view * vec4(head, 1.0f);
  const float z_near = -cam.near_plane * 1.001f;
  if (a.z > z_near && b.z > z_near) {
    for (int i = 0; i < 4; ++i) {
      out[i] = SpriteVertex{};
      out[i].clip = vec4(2, 2, 2, 1);
      out[i].world = head;
    }
    return;
  }
  if (a.z > z_near) a = a + (b - a) * ((z_near - a.z) / (b.z - a.z));
  if (b.z > z_near) b = b + (a - b) * ((z_near - b.z) / (a.z - b.z));
  const vec4 ca = cam.projection * a, cb = cam.projection * b;
  const vec2 pa = window_position(ca, cam.viewport), pb = window_position(cb, cam.viewport);
  vec2 along = pb - pa;
  const float len = glm::length(along);
  along = len > 1e-4f ? along / len : vec2(0, 1);
  const vec2 across(-along.y, along.x);
  float wa = width * cam.projection[1][1] * 0.5f * cam.viewport.y / ca.w;
  float wb = width * cam.projection[1][1] * 0.5f * cam.viewport.y / cb.w;
  float blur = 0, circle = 0;
  if (cam.lens) {
    const float ka = confusion(cam, -a.z) / 0.9f, kb = confusion(cam, -b.z) / 0.9f;
    blur = kb / (wb + kb);
    circle = kb * 0.9f;
    alpha *= wb / (wb + kb);
    wa += ka;
    wb += kb;
  }
  // The light spread along the travel: over the quad as drawn, at least
  // min_pixels wide (over the drop's own width, a streak thinner than that
  // gave up to 2.7 times a sharp flake's light).
  if (cam.shutter) alpha *= wb / (std::max(wb, cam.min_pixels) + len);
  if (wb < cam.min_pixels) alpha *= wb / cam.min_pixels;
  wa = std::max(wa, cam.min_pixels);
  wb = std::max(wb, cam.min_pixels);
  for (int i = 0; i < 4; ++i) {
    const vec2 corner = kSpriteCorners[i];
    SpriteVertex& v = out[i];
    const bool at_head = corner.y > 0;
    const float w = at_head ? wb : wa;
    const vec4 c = at_head ? cb : ca;
    const vec2 p = (at_head ? pb + along * (0.5f * w) : pa - along * (0.5f * w)) - across * (0.5f * w * corner.x);
    v.clip = vec4((p / cam.viewport * 2.0f - 1.0f) * c.w, c.z, c.w);
    v.alpha = alpha;
    v.view_depth = -(at_head ? b.z : a.z);
    v.world = at_head ? head : tail;
    v.blur = blur;
    v.confusion = circle;
  }
}

float disc(vec2 uv) { return 1.0f - smoothstep(0.8f, 1.0f, glm::length(uv * 2.0f - 1.0f)); }

// A texel's four channels side by side (GCC's vector extension: one SSE register).
typedef float Float4 __attribute__((vector_size(16)));

Float4 texel(const SpriteTexels::Level& level, int layer, int x, int y) {
  x = std::clamp(x, 0, level.width - 1);
  y = std::clamp(y, 0, level.height - 1);
  Float4 t;
  std::memcpy(&t, &level.texels[(size_t(layer) * size_t(level.height) + size_t(y)) * size_t(level.width) + size_t(x)],
              sizeof t);
  return t;
}

// floor(x) for x in [-1, 2^24] (std::floor is a call into libm without SSE 4.1).
inline int floor_int(float x) {
  const int i = int(x);
  return float(i) > x ? i - 1 : i;
}

Float4 bilinear(const SpriteTexels::Level& level, int layer, vec2 uv) {
  // Beyond [-1, size] every tap is an edge texel whatever the weights: clamped
  // there (NaN too), the texel position stays within an int.
  const float u = std::fmin(std::fmax(uv.x * float(level.width) - 0.5f, -1.0f), float(level.width));
  const float v = std::fmin(std::fmax(uv.y * float(level.height) - 0.5f, -1.0f), float(level.height));
  const int x = floor_int(u), y = floor_int(v);
  const float a = u - float(x), b = v - float(y);
  const Float4 bottom = texel(level, layer, x, y) * (1 - a) + texel(level, layer, x + 1, y) * a;
  const Float4 top = texel(level, layer, x, y + 1) * (1 - a) + texel(level, layer, x + 1, y + 1) * a;
  return bottom * (1 - b) + top * b;
}

vec4 to_vec4(Float4 v) { return vec4(v[0], v[1], v[2], v[3]); }
}  // namespace

void sprite_corners(const SpriteCamera& cam, const SpriteInstance& sprite, SpriteVertex out[4]) {
  vec3 center = sprite.position;
  float size = sprite.size;
  if (glm::dot(sprite.stretch, sprite.stretch) > 0)
    return streak_corners(cam, center, center - sprite.stretch, size, sprite.alpha, out);
  vec3 right = cam.right, up = cam.up;
  if (cam.billboard == BillboardMode::viewpoint) {
    const vec3 n = glm::normalize(cam.eye - center);
    const vec3 r = glm::cross(cam.up, n);
    right = glm::length(r) > 1e-6f ? glm::normalize(r) : cam.right;
    up = glm::cross(n, right);
  } else if (cam.billboard == BillboardMode::axial) {
    vec3 n = cam.eye - center;
    n.y = 0;
    n = glm::length(n) > 1e-6f ? glm::normalize(n) : vec3(0, 0, 1);
    right = glm::cross(vec3(0, 1, 0), n);
    up = vec3(0, 1, 0);
  }
  float alpha = sprite.alpha;
  const vec4 clip_center = cam.projection * cam.view * vec4(center, 1.0f);
  float pixels = size * cam.projection[1][1] * 0.5f * cam.viewport.y / std::max(clip_center.w, 1e-6f);
  float blur_amount = 0, circle = 0;
  if (cam.lens) {
    const float blur = confusion(cam, clip_center.w);
    if (blur > 0 && pixels > 0) {
      const float wide = pixels + blur / 0.9f;
      blur_amount = blur / wide;
      circle = blur;
      alpha *= (pixels / wide) * (pixels / wide);
      size *= wide / pixels;
      pixels = wide;
    }
  }
  if (pixels < cam.min_pixels && pixels > 0) {
    alpha *= (pixels / cam.min_pixels) * (pixels / cam.min_pixels);
    size *= cam.min_pixels / pixels;
  }
  const float c = std::cos(sprite.spin), s = std::sin(sprite.spin);
  const float aspect = sprite.aspect > 0 ? sprite.aspect : 1.0f;
  if (sprite.anchor_bottom > 0.5f) center += up * (0.5f * size * aspect);
  for (int i = 0; i < 4; ++i) {
    const vec2 corner = kSpriteCorners[i];
    const vec2 k(c * corner.x - s * corner.y, s * corner.x + c * corner.y);
    const vec3 world = center + (right * k.x + up * (k.y * aspect)) * (0.5f * size);
    const vec4 view_position = cam.view * vec4(world, 1.0f);
    SpriteVertex& v = out[i];
    v.clip = cam.projection * view_position;
    v.alpha = alpha;
    v.view_depth = -view_position.z;
    v.world = world;
    v.blur = blur_amount;
    v.confusion = circle;
  }
}

glm::vec4 SpriteTexels::sample(vec2 uv, float layer, float lod) const {
  const int l = std::clamp(floor_int(std::fmin(std::fmax(layer + 0.5f, 0.0f), float(layers))), 0, layers - 1);
  const int top = int(levels.size()) - 1;
  if (!(lod > 0)) return to_vec4(bilinear(levels[0], l, uv));
  if (lod >= float(top)) return to_vec4(bilinear(levels[size_t(top)], l, uv));
  const int i = floor_int(lod);
  const float f = lod - float(i);
  return to_vec4(bilinear(levels[size_t(i)], l, uv) * (1 - f) + bilinear(levels[size_t(i) + 1], l, uv) * f);
}

float SpriteTexels::mean_level() const {
  return std::log2(float(std::max(levels.front().width, levels.front().height)));
}

float PlateDepth::at(vec2 frag_coord, vec2 viewport) const {
  if (width <= 0 || height <= 0) return 0;
  const vec2 uv(frag_coord.x / viewport.x, 1.0f - frag_coord.y / viewport.y);
  const int x = std::clamp(int(std::floor(uv.x * float(width))), 0, width - 1);
  const int y = std::clamp(int(std::floor(uv.y * float(height))), 0, height - 1);
  return depth[size_t(y) * size_t(width) + size_t(x)];
}

glm::vec4 shade_sprite(const SpriteShading& shading, const SpriteTexels& texels, const SpriteFragment& f, float lod,
                       vec2 viewport) {
  vec4 t;
  if (shading.lens && f.blur > 0) {
    const vec4 shape = texels.sample(f.uv, f.layer, lod + std::log2(std::max(f.confusion, 1.0f)));
    const vec4 mean = texels.sample(f.uv, f.layer, texels.mean_level());
    const float k = std::min(1.0f, 2.0f * f.blur);
    t = shape * (1 - k) + mean * (disc(f.uv) / shading.disc_mean) * k;
  } else {
    t = texels.sample(f.uv, f.layer, lod);
  }
  vec4 color = vec4(vec3(t) * vec3(shading.tint), t.a) * (shading.tint.a * f.alpha);
  if (shading.soft.x > 0) {  // fading where the sprite nears the ground behind it
    const vec3 ray = glm::normalize(f.world - shading.eye);
    if (ray.y < -1e-4f) color *= std::clamp((f.world.y - shading.soft.y) / (-ray.y * shading.soft.x), 0.0f, 1.0f);
  }
  if (shading.plate_soft > 0 && shading.plate) {  // fading where the sprite nears the plate's geometry behind it
    const float plate = shading.plate->at(f.frag_coord, viewport);
    if (plate > 0 && plate < 3.0e38f) color *= std::clamp((plate - f.view_depth) / shading.plate_soft, 0.0f, 1.0f);
  }
  if (shading.lighting) {
    const vec3 lit = lit_factor(*shading.lighting, shading.scattering, f.world, shading.eye);
    color = vec4(vec3(color) * lit, color.a);
  }
  if (shading.fog_mode > 0 && shading.fog) {
    const float transmitted = fog_transmittance(*shading.fog, shading.eye, f.world);
    const vec3 haze = shading.fog_mode == 1 ? vec3(shading.fog->color.linear()) * color.a * (1 - transmitted) : vec3(0);
    color = vec4(vec3(color) * transmitted + haze, color.a);
  }
  return color;
}

}  // namespace fxsim
