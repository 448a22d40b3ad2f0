#pragma once
// The sprites' look in GLSL, shared by the two ways a batch is drawn: the GL
// rasteriser (render/sprite_pass.cpp: a vertex and a fragment shader) and the
// compute rasteriser (render/compute_rasteriser.cpp). One copy of the code, so
// both draw the same shapes, streaks, lens blur, lighting and fog.
//
// kSpriteGeometryGlsl declares the camera's uniforms and
//   SpriteVertex sprite_vertex(vec4 center_size, vec4 stretch_alpha, vec4 layer_spin, vec2 corner)
// a quad corner (corner in [-1, 1]²) of a SpriteInstance: billboard, streak,
// minimum size, thin lens. Compiled with FXSIM_DOF and FXSIM_SHUTTER.
//
// kSpriteShadingGlsl declares the look's uniforms and
//   vec4 shade_sprite(SpriteFragment f)
// the premultiplied colour of one fragment. The stage defines
//   vec4 sample_shape(vec3 uv_layer, float lod_bias)
// before it (implicit derivatives in a fragment shader, explicit gradients in
// a compute shader). Compiled with FXSIM_DOF, FXSIM_SOFT, FXSIM_PLATE_SOFT and
// FXSIM_LIT; needs kFogGlsl and kLightingGlsl first.

namespace fxsim {

constexpr const char* kSpriteGeometryGlsl = R"(
uniform mat4 u_view;
uniform mat4 u_projection;
uniform vec3 u_eye;
uniform vec3 u_right;     // camera right and up, world space
uniform vec3 u_up;
uniform int u_billboard;  // 0 screen, 1 viewpoint, 2 axial
uniform vec2 u_viewport;  // pixels
uniform float u_min_pixels;
uniform float u_near;
uniform vec2 u_dof;       // depth of field: circle of confusion u_dof.x · |d − u_dof.y| / d pixels (0: none)
#define FXSIM_SPRITE_CAMERA 1

struct SpriteVertex {
  vec4 clip;
  float alpha;
  float view_depth;  // distance along the view (the depth layer)
  vec3 world;        // the fragment's world position (fog, light)
  float blur;        // depth of field: how far the shape is blurred towards a disc, 0..1
  float confusion;   // the circle of confusion, pixels
};

// A clip-space position's window position, pixels.
vec2 to_pixels(vec4 clip) { return (clip.xy / clip.w * 0.5 + 0.5) * u_viewport; }

// The thin lens's circle of confusion (diameter, pixels) at view distance d.
float confusion(float d) { return u_dof.x > 0.0 ? u_dof.x * abs(d - u_dof.y) / max(d, 1e-6) : 0.0; }

// A streak (rain): the quad from the projected tail (center - stretch) to the
// projected head, as wide as the drop, with caps; the same construction as
// render/streak_geometry.cpp.
SpriteVertex streak_vertex(vec3 head, vec3 tail, float width, float alpha, vec2 corner) {
  SpriteVertex v;
  v.blur = 0.0;
  v.confusion = 0.0;
  vec4 a = u_view * vec4(tail, 1.0), b = u_view * vec4(head, 1.0);
  float z_near = -u_near * 1.001;
  if (a.z > z_near && b.z > z_near) {
    v.clip = vec4(2.0, 2.0, 2.0, 1.0);
    v.alpha = 0.0;
    v.view_depth = 0.0;
    v.world = head;
    return v;
  }
  if (a.z > z_near) a = a + (b - a) * ((z_near - a.z) / (b.z - a.z));
  if (b.z > z_near) b = b + (a - b) * ((z_near - b.z) / (a.z - b.z));
  vec4 ca = u_projection * a, cb = u_projection * b;
  vec2 pa = to_pixels(ca), pb = to_pixels(cb);
  vec2 along = pb - pa;
  float len = length(along);
  along = len > 1e-4 ? along / len : vec2(0.0, 1.0);
  vec2 across = vec2(-along.y, along.x);
  float wa = width * u_projection[1][1] * 0.5 * u_viewport.y / ca.w;
  float wb = width * u_projection[1][1] * 0.5 * u_viewport.y / cb.w;
#if FXSIM_DOF
  // Out of focus: as wide as the drop and its circle of confusion, the light spread over that width.
  float ka = confusion(-a.z) / 0.9, kb = confusion(-b.z) / 0.9;
  v.blur = kb / (wb + kb);
  v.confusion = kb * 0.9;
  alpha *= wb / (wb + kb);
  wa += ka;
  wb += kb;
#endif
#if FXSIM_SHUTTER
  // The shutter: the sprite's light spread along its travel (the streak's
  // length over its width), over the quad as drawn, at least u_min_pixels wide.
  alpha *= wb / (max(wb, u_min_pixels) + len);
#endif
  if (wb < u_min_pixels) alpha *= wb / u_min_pixels;
  wa = max(wa, u_min_pixels);
  wb = max(wb, u_min_pixels);
  bool at_head = corner.y > 0.0;
  float w = at_head ? wb : wa;
  vec4 c = at_head ? cb : ca;
  vec2 p = (at_head ? pb + along * (0.5 * w) : pa - along * (0.5 * w)) - across * (0.5 * w * corner.x);
  v.clip = vec4((p / u_viewport * 2.0 - 1.0) * c.w, c.z, c.w);
  v.alpha = alpha;
  v.view_depth = -(at_head ? b.z : a.z);
  v.world = at_head ? head : tail;
  return v;
}

SpriteVertex sprite_vertex(vec4 center_size, vec4 stretch_alpha, vec4 layer_spin, vec2 corner) {
  vec3 center = center_size.xyz;
  float size = center_size.w;
  if (dot(stretch_alpha.xyz, stretch_alpha.xyz) > 0.0)
    return streak_vertex(center, center - stretch_alpha.xyz, size, stretch_alpha.w, corner);
  SpriteVertex v;
  vec3 right = u_right, up = u_up;
  if (u_billboard == 1) {          // facing the eye
    vec3 n = normalize(u_eye - center);
    vec3 r = cross(u_up, n);
    right = length(r) > 1e-6 ? normalize(r) : u_right;
    up = cross(n, right);
  } else if (u_billboard == 2) {   // turning about world +Y only
    vec3 n = u_eye - center;
    n.y = 0.0;
    n = length(n) > 1e-6 ? normalize(n) : vec3(0.0, 0.0, 1.0);
    right = cross(vec3(0.0, 1.0, 0.0), n);
    up = vec3(0.0, 1.0, 0.0);
  }
  // Sprites smaller than a few pixels alias and flicker: draw them at the
  // minimum size with their coverage turned into transparency instead.
  // (The same axes as render/billboard.cpp.)
  float alpha = stretch_alpha.w;
  vec4 clip_center = u_projection * u_view * vec4(center, 1.0);
  float pixels = size * u_projection[1][1] * 0.5 * u_viewport.y / max(clip_center.w, 1e-6);
  // Out of focus: the sprite convolved with the circle of confusion, as wide
  // as both, its light (alpha × area) kept. The disc it turns into is half
  // bright at 0.9 of the quad's half-width: c / 0.9 makes that circle c wide.
  v.blur = 0.0;
  v.confusion = 0.0;
#if FXSIM_DOF
  float blur = confusion(clip_center.w);
  if (blur > 0.0 && pixels > 0.0) {
    float wide = pixels + blur / 0.9;
    v.blur = blur / wide;
    v.confusion = blur;
    alpha *= (pixels / wide) * (pixels / wide);
    size *= wide / pixels;
    pixels = wide;
  }
#endif
  if (pixels < u_min_pixels && pixels > 0.0) {
    alpha *= (pixels / u_min_pixels) * (pixels / u_min_pixels);
    size *= u_min_pixels / pixels;
  }
  float c = cos(layer_spin.y), s = sin(layer_spin.y);
  vec2 k = vec2(c * corner.x - s * corner.y, s * corner.x + c * corner.y);
  float aspect = layer_spin.z > 0.0 ? layer_spin.z : 1.0;  // height / width
  if (layer_spin.w > 0.5) center += up * (0.5 * size * aspect);  // anchored at the bottom edge
  vec3 world = center + (right * k.x + up * (k.y * aspect)) * (0.5 * size);
  vec4 view_position = u_view * vec4(world, 1.0);
  v.clip = u_projection * view_position;
  v.alpha = alpha;
  v.view_depth = -view_position.z;
  v.world = world;
  return v;
}
)";

constexpr const char* kSpriteShadingGlsl = R"(
#ifndef FXSIM_SPRITE_CAMERA
uniform vec3 u_eye;
uniform vec2 u_viewport;  // pixels
#endif
uniform sampler2DArray u_texture;  // premultiplied
uniform vec4 u_tint;               // linear rgb; a = colour alpha × opacity
uniform float u_disc_mean;         // the mean of disc() over the quad
uniform vec3 u_soft;               // soft particles: fade distance (m, 0: none), ground height
uniform bool u_colour;             // drawing the frame's colour (lit), not a layer
uniform sampler2D u_plate_depth;   // output.plate_soft: the plate's depth, metres along the view
uniform float u_plate_soft;
uniform int u_fog_mode;            // 0: none (layers); 1: "over" (fog scattered in where the sprite covers); 2: additive (dimmed only)

struct SpriteFragment {
  vec2 uv;
  float layer;
  float alpha;
  float view_depth;
  vec3 world;
  float blur;
  float confusion;
  vec2 frag_coord;  // window position, pixels
};

vec4 sample_shape(vec3 uv_layer, float lod_bias);  // the stage's texture lookup

// The plate's depth behind a window position: its nearest texel (its rows
// run top to bottom). A fetch, not a filtered lookup: the same in a compute
// shader, which has no derivatives (and llvmpipe's LLVM 15 crashes compiling
// our blend kernel with a lookup there).
float plate_depth_at(vec2 frag_coord) {
  ivec2 size = textureSize(u_plate_depth, 0);
  vec2 uv = vec2(frag_coord.x / u_viewport.x, 1.0 - frag_coord.y / u_viewport.y);
  return texelFetch(u_plate_depth, clamp(ivec2(floor(uv * vec2(size))), ivec2(0), size - 1), 0).r;
}

// A disc filling the quad with a soft rim: the shape of an out-of-focus point.
float disc(vec2 uv) { return 1.0 - smoothstep(0.8, 1.0, length(uv * 2.0 - 1.0)); }

vec4 shade_sprite(SpriteFragment f) {
  vec4 t;
#if FXSIM_DOF
  if (f.blur > 0.0) {
    // Defocused: the shape blurred over the circle of confusion (a mipmap
    // whose texels are that wide on screen: log2 of its width in pixels above
    // the level the sprite's size picks) turning into a disc of the same
    // light (the shape's mean, its 1×1 mipmap, spread over the disc) as the
    // circle of confusion takes over.
    ivec3 texels = textureSize(u_texture, 0);
    vec4 shape = sample_shape(vec3(f.uv, f.layer), log2(max(f.confusion, 1.0)));
    vec4 mean = textureLod(u_texture, vec3(f.uv, f.layer), log2(float(max(texels.x, texels.y))));
    // (Fully a disc once the circle of confusion is half the sprite: a
    // coarse mipmap of the shape is a blurred square.)
    t = mix(shape, mean * (disc(f.uv) / u_disc_mean), min(1.0, 2.0 * f.blur));
  } else {
    t = sample_shape(vec3(f.uv, f.layer), 0.0);
  }
#else
  t = sample_shape(vec3(f.uv, f.layer), 0.0);
#endif
  vec4 color = vec4(t.rgb * u_tint.rgb, t.a) * (u_tint.a * f.alpha);
#if FXSIM_SOFT
  {  // fading where the sprite nears the ground behind it
    vec3 ray = normalize(f.world - u_eye);
    if (ray.y < -1e-4) color *= clamp((f.world.y - u_soft.y) / (-ray.y * u_soft.x), 0.0, 1.0);
  }
#endif
#if FXSIM_PLATE_SOFT
  {  // fading where the sprite nears the plate's geometry behind it
    float plate = plate_depth_at(f.frag_coord);
    if (plate > 0.0 && plate < 3.0e38) color *= clamp((plate - f.view_depth) / u_plate_soft, 0.0, 1.0);
  }
#endif
#if FXSIM_LIT
  if (u_colour) color.rgb *= lit_factor(f.world, u_eye);  // the frame's colour, not the layers
#endif
  if (u_fog_mode > 0) {  // core/fog.h
    float transmitted = fog_transmittance(f.world);
    color.rgb = color.rgb * transmitted + (u_fog_mode == 1 ? u_fog.rgb * color.a * (1.0 - transmitted) : vec3(0.0));
  }
  return color;
}
)";

}  // namespace fxsim
