#include "render/sprite_pass.h"

#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "render/device_instances.h"
#include "render/fog_glsl.h"
#include "render/lighting_glsl.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// The look's parts are compiled in only where the scene uses them
// (FXSIM_DOF, FXSIM_SHUTTER, FXSIM_SOFT, FXSIM_LIT: see sprite_program):
// llvmpipe pays for every branch of a fragment shader, taken or not.
constexpr const char* kVertexShader = R"(
layout(location = 0) in vec2 corner;              // quad corner in [-1, 1]²
layout(location = 1) in vec4 center_size;         // SpriteInstance.position, .size
layout(location = 2) in vec4 stretch_alpha;       // .stretch, .alpha
layout(location = 3) in vec4 layer_spin;          // .layer, .spin, .aspect, .anchor_bottom
layout(location = 4) in vec4 previous;            // the motion layer: the centre at the previous frame, w = 1 if any
uniform bool u_motion;                            // drawing the motion layer
uniform mat4 u_previous_view_projection;
uniform mat4 u_view;
uniform mat4 u_projection;
uniform vec3 u_eye;
uniform vec3 u_right;     // camera right and up, world space
uniform vec3 u_up;
uniform int u_billboard;  // 0 screen, 1 viewpoint, 2 axial
uniform vec2 u_viewport;  // pixels
uniform float u_min_pixels;
uniform float u_near;
uniform vec2 u_dof;           // depth of field: circle of confusion u_dof.x · |d − u_dof.y| / d pixels (0: none)
out vec2 v_uv;
out float v_blur;        // depth of field: how far the shape is blurred towards a disc, 0..1
out float v_confusion;   // the circle of confusion, pixels
flat out float v_layer;
out float v_alpha;
out float v_view_depth;  // distance along the view (the depth layer)
out vec3 v_world;        // the fragment's world position (fog)
flat out vec2 v_motion;  // pixels since the previous frame, x right, y down (the motion layer)

// The thin lens's circle of confusion (diameter, pixels) at view distance d.
float confusion(float d) { return u_dof.x > 0.0 ? u_dof.x * abs(d - u_dof.y) / max(d, 1e-6) : 0.0; }

vec2 to_pixels(vec4 clip) { return (clip.xy / clip.w * 0.5 + 0.5) * u_viewport; }

// The sprite's centre projected now and at the previous frame; false when it
// has no previous position or lies behind the eye at either time.
bool screen_motion(vec3 center, out vec2 motion) {
  motion = vec2(0.0);
  if (previous.w < 0.5) return false;
  vec4 now = u_projection * u_view * vec4(center, 1.0);
  vec4 then = u_previous_view_projection * vec4(previous.xyz, 1.0);
  if (now.w <= 0.0 || then.w <= 0.0) return false;
  motion = to_pixels(now) - to_pixels(then);
  motion.y = -motion.y;  // image rows run downwards
  return true;
}

// A streak (rain): the quad from the projected tail (center - stretch) to the
// projected head, as wide as the drop, with caps; the same construction as
// render/streak_geometry.cpp.
void streak(vec3 head, vec3 tail, float width, float alpha) {
  vec4 a = u_view * vec4(tail, 1.0), b = u_view * vec4(head, 1.0);
  float z_near = -u_near * 1.001;
  if (a.z > z_near && b.z > z_near) { gl_Position = vec4(2.0, 2.0, 2.0, 1.0); v_alpha = 0.0; return; }
  if (a.z > z_near) a = a + (b - a) * ((z_near - a.z) / (b.z - a.z));
  if (b.z > z_near) b = b + (a - b) * ((z_near - b.z) / (a.z - b.z));
  vec4 ca = u_projection * a, cb = u_projection * b;
  vec2 pa = (ca.xy / ca.w * 0.5 + 0.5) * u_viewport, pb = (cb.xy / cb.w * 0.5 + 0.5) * u_viewport;
  vec2 along = pb - pa;
  float len = length(along);
  along = len > 1e-4 ? along / len : vec2(0.0, 1.0);
  vec2 across = vec2(-along.y, along.x);
  float wa = width * u_projection[1][1] * 0.5 * u_viewport.y / ca.w;
  float wb = width * u_projection[1][1] * 0.5 * u_viewport.y / cb.w;
#if FXSIM_DOF
  // Out of focus: as wide as the drop and its circle of confusion, the light spread over that width.
  float ka = confusion(-a.z) / 0.9, kb = confusion(-b.z) / 0.9;
  v_blur = kb / (wb + kb);
  v_confusion = kb * 0.9;
  alpha *= wb / (wb + kb);
  wa += ka;
  wb += kb;
#endif
#if FXSIM_SHUTTER
  // The shutter: the sprite's light spread along its travel (the streak's length over its width).
  alpha *= wb / (wb + len);
#endif
  if (wb < u_min_pixels) alpha *= wb / u_min_pixels;
  wa = max(wa, u_min_pixels);
  wb = max(wb, u_min_pixels);
  bool at_head = corner.y > 0.0;
  float w = at_head ? wb : wa;
  vec4 c = at_head ? cb : ca;
  vec2 p = (at_head ? pb + along * (0.5 * w) : pa - along * (0.5 * w)) - across * (0.5 * w * corner.x);
  gl_Position = vec4((p / u_viewport * 2.0 - 1.0) * c.w, c.z, c.w);
  v_alpha = alpha;
  v_view_depth = -(at_head ? b.z : a.z);
  v_world = at_head ? head : tail;
}

void main() {
  vec3 center = center_size.xyz;
  float size = center_size.w;
  v_motion = vec2(0.0);
  v_blur = 0.0;
  v_confusion = 0.0;
  if (u_motion && !screen_motion(center, v_motion)) {  // nothing to say: drawn nowhere
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    v_alpha = 0.0;
    return;
  }
  v_uv = corner * 0.5 + 0.5;
  v_layer = layer_spin.x;
  if (dot(stretch_alpha.xyz, stretch_alpha.xyz) > 0.0) {
    streak(center, center - stretch_alpha.xyz, size, stretch_alpha.w);
    return;
  }
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
  v_blur = 0.0;
#if FXSIM_DOF
  float blur = confusion(clip_center.w);
  if (blur > 0.0 && pixels > 0.0) {
    float wide = pixels + blur / 0.9;
    v_blur = blur / wide;
    v_confusion = blur;
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
  gl_Position = u_projection * view_position;
  v_alpha = alpha;
  v_view_depth = -view_position.z;
  v_world = world;
}
)";

constexpr const char* kFragmentShader = R"(
uniform sampler2DArray u_texture;  // premultiplied
uniform vec4 u_tint;               // linear rgb; a = colour alpha × opacity
in vec2 v_uv;
uniform int u_output;              // 0: colour or coverage; 1: depth; 2: motion
uniform float u_depth_coverage;
flat in float v_layer;
in float v_alpha;
in float v_view_depth;
in vec3 v_world;
flat in vec2 v_motion;
in float v_blur;
in float v_confusion;
uniform vec3 u_eye;
uniform float u_disc_mean;         // the mean of disc() over the quad
uniform vec3 u_soft;               // soft particles: fade distance (m, 0: none), ground height
uniform bool u_colour;             // drawing the frame's colour (lit), not a layer
uniform sampler2D u_plate_depth;   // output.plate_soft: the plate's depth, metres along the view
uniform float u_plate_soft;
uniform vec2 u_viewport;
uniform int u_fog_mode;            // 0: none (layers); 1: "over" (fog scattered in where the sprite covers); 2: additive (dimmed only)
out vec4 out_color;

// A disc filling the quad with a soft rim: the shape of an out-of-focus point.
float disc(vec2 uv) { return 1.0 - smoothstep(0.8, 1.0, length(uv * 2.0 - 1.0)); }

void main() {
  vec4 t;
#if FXSIM_DOF
  if (v_blur > 0.0) {
    // Defocused: the shape blurred over the circle of confusion (a mipmap
    // whose texels are that wide on screen: log2 of its width in pixels above
    // the level the sprite's size picks) turning into a disc of the same
    // light (the shape's mean, its 1×1 mipmap, spread over the disc) as the
    // circle of confusion takes over.
    ivec3 texels = textureSize(u_texture, 0);
    vec4 shape = texture(u_texture, vec3(v_uv, v_layer), log2(max(v_confusion, 1.0)));
    vec4 mean = textureLod(u_texture, vec3(v_uv, v_layer), log2(float(max(texels.x, texels.y))));
    // (Fully a disc once the circle of confusion is half the sprite: a
    // coarse mipmap of the shape is a blurred square.)
    t = mix(shape, mean * (disc(v_uv) / u_disc_mean), min(1.0, 2.0 * v_blur));
  } else {
    t = texture(u_texture, vec3(v_uv, v_layer));
  }
#else
  t = texture(u_texture, vec3(v_uv, v_layer));
#endif
  out_color = vec4(t.rgb * u_tint.rgb, t.a) * (u_tint.a * v_alpha);
#if FXSIM_SOFT
  {  // fading where the sprite nears the ground behind it
    vec3 ray = normalize(v_world - u_eye);
    if (ray.y < -1e-4) out_color *= clamp((v_world.y - u_soft.y) / (-ray.y * u_soft.x), 0.0, 1.0);
  }
#endif
#if FXSIM_PLATE_SOFT
  {  // fading where the sprite nears the plate's geometry behind it
    float plate = texture(u_plate_depth, vec2(gl_FragCoord.x / u_viewport.x, 1.0 - gl_FragCoord.y / u_viewport.y)).r;
    if (plate > 0.0 && plate < 3.0e38) out_color *= clamp((plate - v_view_depth) / u_plate_soft, 0.0, 1.0);
  }
#endif
#if FXSIM_LIT
  if (u_colour) out_color.rgb *= lit_factor(v_world, u_eye);  // the frame's colour, not the layers
#endif
  if (u_fog_mode > 0) {  // core/fog.h
    float transmitted = fog_transmittance(v_world);
    out_color.rgb = out_color.rgb * transmitted + (u_fog_mode == 1 ? u_fog.rgb * out_color.a * (1.0 - transmitted) : vec3(0.0));
  }
  if (u_output == 1) {  // the view depth of fragments covering more than u_depth_coverage
    if (out_color.a <= u_depth_coverage) discard;
    out_color = vec4(v_view_depth, 0.0, 0.0, 1.0);
  } else if (u_output == 2) {  // coverage-weighted motion, summed
    out_color = vec4(v_motion * out_color.a, out_color.a, 0.0);
  }
}
)";

}  // namespace

GlTexture make_texture_array(const std::vector<Image>& layers) {
  GlTexture texture(gl_gen(glGenTextures));
  glBindTexture(GL_TEXTURE_2D_ARRAY, texture.get());
  const int w = layers.front().width, h = layers.front().height;
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_SRGB8_ALPHA8, w, h, GLsizei(layers.size()), 0, GL_RGBA, GL_UNSIGNED_BYTE,
               nullptr);
  for (size_t i = 0; i < layers.size(); ++i)
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, GLint(i), w, h, 1, GL_RGBA, GL_UNSIGNED_BYTE, layers[i].rgba.data());
  glGenerateMipmap(GL_TEXTURE_2D_ARRAY);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

namespace {
GlProgram sprite_program(bool dof, bool shutter, bool soft, bool lit, bool plate_soft) {
  const std::string header = fmt::format("#version 330 core\n#define FXSIM_DOF {:d}\n#define FXSIM_SHUTTER {:d}\n"
                                         "#define FXSIM_SOFT {:d}\n#define FXSIM_LIT {:d}\n#define FXSIM_PLATE_SOFT {:d}\n",
                                         dof, shutter, soft, lit, plate_soft);
  return link_program(header + kVertexShader, header + kFogGlsl + kLightingGlsl + kFragmentShader);
}
}  // namespace

SpritePass::SpritePass() {
  program_ = sprite_program(false, false, false, false, false);
  make_buffers();
}

SpritePass::SpritePass(const Scene& scene)
    : fog_(scene.environment.fog), f_number_(scene.camera.aperture), focus_distance_(scene.camera.focus_distance),
      plate_soft_(scene.output.plate_soft) {
  if (scene.environment.ground && scene.environment.ground->soft > 0)
    soft_ = {scene.environment.ground->soft, scene.environment.ground->height};
  program_ = sprite_program(f_number_.has_value(), scene.camera.shutter.has_value(), soft_.x > 0, is_lit(scene),
                            plate_soft_ > 0);
  make_buffers();
}

void SpritePass::make_buffers() {
  vao_ = GlVertexArray(gl_gen(glGenVertexArrays));
  glBindVertexArray(vao_.get());
  static constexpr float kCorners[] = {-1, -1, 1, -1, -1, 1, 1, 1};
  corners_ = GlBuffer(gl_gen(glGenBuffers));
  glBindBuffer(GL_ARRAY_BUFFER, corners_.get());
  glBufferData(GL_ARRAY_BUFFER, sizeof kCorners, kCorners, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  previous_ = GlBuffer(gl_gen(glGenBuffers));
  instances_ = GlBuffer(gl_gen(glGenBuffers));
  glBindBuffer(GL_ARRAY_BUFFER, instances_.get());
  const GLsizei stride = sizeof(SpriteInstance);
  for (GLuint a = 1; a <= 3; ++a) {
    glEnableVertexAttribArray(a);
    glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<const void*>(size_t(a - 1) * 16));
    glVertexAttribDivisor(a, 1);
  }
  glBindVertexArray(0);
}


void SpritePass::begin_frame(const CameraPose& camera, int width, int height) {
  camera_ = camera;
  width_ = width;
  height_ = height;
  view_ = camera.view();
  projection_ = camera.projection(float(width) / float(height));
  lens_ = {};
  if (f_number_)
    lens_ = thin_lens(camera.fov_degrees, *f_number_,
                      focus_distance_.value_or(glm::length(camera.target - camera.position)), height);
}

namespace {
// The mean of the fragment shader's disc() over its quad (a disc of radius 1
// in [-1, 1]² whose rim fades from 0.8 to 1): it keeps a defocused sprite's light.
float disc_mean() {
  constexpr int n = 400;
  double sum = 0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double u = (x + 0.5) / n * 2 - 1, v = (y + 0.5) / n * 2 - 1, r = std::sqrt(u * u + v * v);
      const double t = std::clamp((r - 0.8) / 0.2, 0.0, 1.0);
      sum += 1 - t * t * (3 - 2 * t);
    }
  return float(sum / (double(n) * n));
}
}  // namespace

void SpritePass::set_previous_camera(const CameraPose& camera) {
  previous_view_projection_ = camera.projection(float(width_) / float(height_)) * camera.view();
}

void SpritePass::draw(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture,
                      SpriteOutput output) {
  const size_t count = batch.device_instances ? batch.device_count : batch.sprites.size();
  if (count == 0) return;
  const bool motion = output == SpriteOutput::motion;
  const bool has_previous = batch.device_instances ? batch.device_instances->has_previous : !batch.previous.empty();
  if (motion && !has_previous) return;  // nothing remembered: no sprite has a motion
  glBindVertexArray(vao_.get());
  if (motion) {
    if (batch.device_instances) {
      glBindBuffer(GL_ARRAY_BUFFER, batch.device_instances->previous.gl_name());
    } else {
      glBindBuffer(GL_ARRAY_BUFFER, previous_.get());
      const size_t bytes = batch.previous.size() * sizeof(glm::vec4);
      if (bytes > previous_capacity_) {
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
        previous_capacity_ = bytes;
      }
      glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(bytes), batch.previous.data());
    }
    glEnableVertexAttribArray(4);
    glVertexAttribPointer(4, 4, GL_FLOAT, GL_FALSE, sizeof(glm::vec4), nullptr);
    glVertexAttribDivisor(4, 1);
  } else {
    glDisableVertexAttribArray(4);
  }
  if (batch.device_instances) {
    glBindBuffer(GL_ARRAY_BUFFER, batch.device_instances->buffer.gl_name());  // built on the GPU: drawn where it lies
  } else {
    glBindBuffer(GL_ARRAY_BUFFER, instances_.get());
    const size_t bytes = batch.sprites.size() * sizeof(SpriteInstance);
    if (bytes > instance_capacity_) {
      glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
      instance_capacity_ = bytes;
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(bytes), batch.sprites.data());
  }
  const GLsizei stride = sizeof(SpriteInstance);
  for (GLuint a = 1; a <= 3; ++a)
    glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<const void*>(size_t(a - 1) * 16));

  glUseProgram(program_.get());
  const glm::mat3 basis = camera_.basis();
  glUniformMatrix4fv(uniform(program_, "u_view"), 1, GL_FALSE, glm::value_ptr(view_));
  glUniformMatrix4fv(uniform(program_, "u_projection"), 1, GL_FALSE, glm::value_ptr(projection_));
  glUniform3fv(uniform(program_, "u_eye"), 1, glm::value_ptr(camera_.position));
  glUniform3fv(uniform(program_, "u_right"), 1, glm::value_ptr(basis[0]));
  glUniform3fv(uniform(program_, "u_up"), 1, glm::value_ptr(basis[1]));
  glUniform1i(uniform(program_, "u_billboard"), int(emitter.billboard));
  glUniform2f(uniform(program_, "u_viewport"), float(width_), float(height_));
  glUniform1f(uniform(program_, "u_min_pixels"), kMinSpritePixels);
  glUniform1f(uniform(program_, "u_near"), camera_.near_plane);
  const glm::vec4 tint = batch.tint.value_or(emitter.color).linear();
  glUniform4f(uniform(program_, "u_tint"), tint.r, tint.g, tint.b, tint.a * batch.opacity.value_or(emitter.opacity));
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D_ARRAY, texture.get());
  glUniform1i(uniform(program_, "u_texture"), 0);

  glUniform1i(uniform(program_, "u_output"), output == SpriteOutput::depth ? 1 : motion ? 2 : 0);
  const bool colour = output == SpriteOutput::colour;
  glUniform1i(uniform(program_, "u_colour"), colour);
  set_lighting_uniforms(program_, colour ? lighting_ : std::nullopt);
  set_scattering_uniform(program_, scattering_of(emitter, batch.look, batch.blend.value_or(emitter.blend)));
  glUniform2f(uniform(program_, "u_dof"), lens_.scale, lens_.focus);
  static const float kDiscMean = disc_mean();
  glUniform1f(uniform(program_, "u_disc_mean"), kDiscMean);
  glUniform3f(uniform(program_, "u_soft"), soft_.x, soft_.y, 0.0f);
  if (plate_soft_ > 0) {
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, plate_depth_);
    glActiveTexture(GL_TEXTURE0);
    glUniform1i(uniform(program_, "u_plate_depth"), 2);
    glUniform1f(uniform(program_, "u_plate_soft"), plate_soft_);
  }
  const bool additive = batch.blend.value_or(emitter.blend) == BlendMode::additive;
  glUniform1i(uniform(program_, "u_fog_mode"), output != SpriteOutput::colour || !fog_ ? 0 : additive ? 2 : 1);
  set_fog_uniforms(program_, fog_, camera_.position);
  glUniform1i(uniform(program_, "u_motion"), motion);
  glUniformMatrix4fv(uniform(program_, "u_previous_view_projection"), 1, GL_FALSE,
                     glm::value_ptr(previous_view_projection_));
  glUniform1f(uniform(program_, "u_depth_coverage"), kDepthCoverage);
  glEnable(GL_BLEND);
  if (output == SpriteOutput::depth) {
    glBlendEquation(GL_MIN);  // the nearest covering particle
    glBlendFunc(GL_ONE, GL_ONE);
  } else if (motion) {
    glBlendFunc(GL_ONE, GL_ONE);  // sums of coverage × motion and of coverage
  } else if (output == SpriteOutput::colour && batch.blend.value_or(emitter.blend) == BlendMode::additive) {
    // Additive light adds colour and no coverage, so a transparent frame keeps
    // it as pure emission (alpha 0 in premultiplied EXR).
    glBlendFuncSeparate(GL_ONE, GL_ONE, GL_ZERO, GL_ONE);
  } else {
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);  // premultiplied "over" (masks: every batch's coverage)
  }
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_FALSE);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, GLsizei(count));
  glDepthMask(GL_TRUE);
  glBlendEquation(GL_FUNC_ADD);
  glDisable(GL_BLEND);
  glBindVertexArray(0);
}

}  // namespace fxsim
