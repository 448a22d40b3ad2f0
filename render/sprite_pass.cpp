#include "render/sprite_pass.h"

#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "render/compute_rasteriser.h"
#include "render/cpu_sprite_path.h"
#include "render/device_instances.h"
#include "render/ground_pass.h"
#include "render/fog_glsl.h"
#include "render/lighting_glsl.h"
#include "render/reduced_resolution.h"
#include "render/screen_coverage.h"
#include "render/shader.h"
#include "render/sprite_glsl.h"

namespace fxsim {

namespace {
// The look's parts are compiled in only where the scene uses them
// (FXSIM_DOF, FXSIM_SHUTTER, FXSIM_SOFT, FXSIM_LIT: see sprite_program):
// llvmpipe pays for every branch of a fragment shader, taken or not.
constexpr const char* kSpriteVertexShader = R"(
layout(location = 0) in vec2 corner;              // quad corner in [-1, 1]²
layout(location = 1) in vec4 center_size;         // SpriteInstance.position, .size
layout(location = 2) in vec4 stretch_alpha;       // .stretch, .alpha
layout(location = 3) in vec4 layer_spin;          // .layer, .spin, .aspect, .anchor_bottom
layout(location = 4) in vec4 previous;            // the motion layer: the centre at the previous frame, w = 1 if any
uniform bool u_motion;                            // drawing the motion layer
uniform mat4 u_previous_view_projection;
out vec2 v_uv;
out float v_blur;
out float v_confusion;
flat out float v_layer;
out float v_alpha;
out float v_view_depth;
out vec3 v_world;
flat out vec2 v_motion;  // pixels since the previous frame, x right, y down (the motion layer)

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

void main() {
  v_motion = vec2(0.0);
  v_blur = 0.0;
  v_confusion = 0.0;
  if (u_motion && !screen_motion(center_size.xyz, v_motion)) {  // nothing to say: drawn nowhere
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    v_alpha = 0.0;
    return;
  }
  v_uv = corner * 0.5 + 0.5;
  v_layer = layer_spin.x;
  SpriteVertex v = sprite_vertex(center_size, stretch_alpha, layer_spin, corner);
  gl_Position = v.clip;
  v_alpha = v.alpha;
  v_view_depth = v.view_depth;
  v_world = v.world;
  v_blur = v.blur;
  v_confusion = v.confusion;
}
)";

constexpr const char* kSpriteFragmentShader = R"(
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
out vec4 out_color;

// The rasteriser's derivatives pick the mipmap.
vec4 sample_shape(vec3 uv_layer, float lod_bias) { return texture(u_texture, uv_layer, lod_bias); }

void main() {
  out_color = shade_sprite(SpriteFragment(v_uv, v_layer, v_alpha, v_view_depth, v_world, v_blur, v_confusion,
                                          gl_FragCoord.xy));
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
  // (The scene's limit, kMaxTextureLayers, is what every GL 4.5 holds; a
  // GL error here was blamed on whatever checked the GL next.)
  GLint most_layers = 0;
  glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &most_layers);
  if (layers.size() > size_t(most_layers))
    throw FxError(ExitCode::invalid_scene, fmt::format("{} texture layers (a flipbook's frames, or textures), but this "
                                                       "GL holds at most {} in one texture array", layers.size(),
                                                       most_layers));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_SRGB8_ALPHA8, w, h, GLsizei(layers.size()), 0, GL_RGBA, GL_UNSIGNED_BYTE,
               nullptr);
  check_gl(fmt::format("making a texture array of {} layers of {}x{}", layers.size(), w, h));
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
// The look's parts as #define lines, for the GL program and the compute rasteriser's kernels.
std::string look_defines(bool dof, bool shutter, bool soft, bool lit, bool plate_soft) {
  return fmt::format("#define FXSIM_DOF {:d}\n#define FXSIM_SHUTTER {:d}\n#define FXSIM_SOFT {:d}\n"
                     "#define FXSIM_LIT {:d}\n#define FXSIM_PLATE_SOFT {:d}\n",
                     dof, shutter, soft, lit, plate_soft);
}

GlProgram sprite_program(const std::string& defines) {
  const std::string header = "#version 330 core\n" + defines;
  return link_program(header + kSpriteGeometryGlsl + kSpriteVertexShader,
                      header + kFogGlsl + kLightingGlsl + kSpriteShadingGlsl + kSpriteFragmentShader);
}
}  // namespace

SpritePass::SpritePass() {
  defines_ = look_defines(false, false, false, false, false);
  program_ = sprite_program(defines_);
  make_buffers();
}

SpritePass::SpritePass(const Scene& scene, const RasteriserChoice& choice)
    : fog_(scene.environment.fog), f_number_(scene.camera.aperture), focus_distance_(scene.camera.focus_distance),
      plate_soft_(scene.output.plate_soft), choice_(choice) {
  if (scene.environment.ground && scene.environment.ground->soft > 0)
    soft_ = {scene.environment.ground->soft, scene.environment.ground->height};
  if (scene.environment.ground && scene.environment.ground->color) ground_height_ = scene.environment.ground->height;
  defines_ = look_defines(f_number_.has_value(), scene.camera.shutter.has_value(), soft_.x > 0, is_lit(scene),
                          plate_soft_ > 0);
  program_ = sprite_program(defines_);
  make_buffers();
}

SpritePass::~SpritePass() = default;

void SpritePass::profile_compute(bool on) {
  profile_compute_ = on;
  if (compute_) compute_->set_profiling(on);
}

void SpritePass::count_compute_samples(bool on) {
  count_compute_samples_ = on;
  if (compute_) compute_->set_counting(on);
}

uint64_t SpritePass::compute_samples() const { return compute_ ? compute_->samples_blended() : 0; }

std::optional<ComputeStageTimes> SpritePass::compute_stage_times() const {
  if (!compute_) return std::nullopt;
  return compute_->stage_times();
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
  for (GLuint a = 1; a <= 3; ++a) {  // (their buffer is bound at each draw)
    glEnableVertexAttribArray(a);
    glVertexAttribDivisor(a, 1);
  }
  glBindVertexArray(0);
}


void SpritePass::begin_frame(const CameraPose& camera, int width, int height) {
  camera_ = camera;
  if (cpu_) cpu_->begin_frame();
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
  const bool has_previous = batch.device_instances ? batch.device_instances->has_previous : !batch.previous.empty();
  if (output == SpriteOutput::motion && !has_previous) return;  // nothing remembered: no sprite has a motion
  uploaded_batch_ = nullptr;  // uploaded at most once in this draw (a batch's sprites change between draws)
  const bool reduced = output == SpriteOutput::colour && draws_reduced(batch, emitter, texture);
  if (output == SpriteOutput::colour) {
    ++counts_.batches;
    counts_.reduced += reduced;
  }
  if (reduced) draw_reduced(batch, emitter, texture);
  else draw_at_target_size(batch, emitter, texture, output);
  uploaded_batch_ = nullptr;
}

const DeviceBuffer& SpritePass::instances_of(const SpriteBatch& batch) {
  if (batch.device_instances) return batch.device_instances->buffer;
  if (uploaded_batch_ != &batch) {
    uploaded_.assign(batch.sprites, DeviceBuffer::Use::host_writes);
    uploaded_batch_ = &batch;
  }
  return uploaded_;
}

bool SpritePass::draws_reduced(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture) {
  switch (choice_.fill) {
    case FillResolution::full: return false;
    case FillResolution::half: return true;
    case FillResolution::automatic: break;
  }
  if (!choice_.compute_shaders) return false;  // nothing to measure with: full size
  if (!coverage_) coverage_ = std::make_unique<ScreenCoverage>(defines_);
  set_uniforms(coverage_->program(), batch, emitter, texture, SpriteOutput::colour);
  const size_t count = batch.device_instances ? batch.device_count : batch.sprites.size();
  return fill_bound(coverage_->measure(instances_of(batch), count), width_, height_);
}

void SpritePass::draw_reduced(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture) {
  GLint frame = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &frame);
  if (!reduced_) reduced_ = std::make_unique<ReducedResolutionTarget>();
  const int width = width_, height = height_;
  const ThinLens lens = lens_;
  reduced_->begin(GLuint(frame), width, height);
  // Sizes in pixels (the minimum width, the circle of confusion) keep their size in the frame's pixels.
  width_ = ReducedResolutionTarget::reduced(width);
  height_ = ReducedResolutionTarget::reduced(height);
  const float scale = float(height_) / float(height);
  min_pixels_ = kMinSpritePixels * scale;
  lens_.scale *= scale;
  draw_at_target_size(batch, emitter, texture, SpriteOutput::colour);
  width_ = width;
  height_ = height;
  lens_ = lens;
  min_pixels_ = kMinSpritePixels;
  reduced_->composite(GLuint(frame), camera_.near_plane, camera_.far_plane);
}

void SpritePass::draw_at_target_size(const SpriteBatch& batch, const EmitterSettings& emitter,
                                     const GlTexture& texture, SpriteOutput output) {
  const size_t count = batch.device_instances ? batch.device_count : batch.sprites.size();
  const bool motion = output == SpriteOutput::motion;
  if (uses_compute(count, output) && draw_with_compute(batch, emitter, texture)) return;
  if (output == SpriteOutput::colour && choice_.rasteriser != SpriteRasteriser::gl &&
      choice_.rasteriser != SpriteRasteriser::compute && draw_with_cpu(batch, emitter, texture))
    return;
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
  }
  // (instances built on the GPU are drawn where they lie)
  draw_instances(instances_of(batch).gl_name(), count, batch, emitter, texture, output);
}

void SpritePass::draw_instances(GLuint instances, size_t count, const SpriteBatch& batch,
                                const EmitterSettings& emitter, const GlTexture& texture, SpriteOutput output) {
  const bool motion = output == SpriteOutput::motion;
  glBindVertexArray(vao_.get());
  if (!motion) glDisableVertexAttribArray(4);
  glBindBuffer(GL_ARRAY_BUFFER, instances);
  const GLsizei stride = sizeof(SpriteInstance);
  for (GLuint a = 1; a <= 3; ++a)
    glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<const void*>(size_t(a - 1) * 16));
  set_uniforms(program_, batch, emitter, texture, output);
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

bool SpritePass::uses_compute(size_t count, SpriteOutput output) const {
  if (output != SpriteOutput::colour) return false;
  switch (choice_.rasteriser) {
    case SpriteRasteriser::gl:
    case SpriteRasteriser::cpu: return false;
    case SpriteRasteriser::compute: return true;
    case SpriteRasteriser::automatic: return !choice_.software && count >= kComputeRasteriserMinSprites;
  }
  return false;
}

bool SpritePass::draw_with_compute(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture) {
  if (!compute_) {
    compute_ = std::make_unique<ComputeRasteriser>(defines_, choice_.software);
    compute_->set_profiling(profile_compute_);
    compute_->set_counting(count_compute_samples_);
    compute_->set_tile_lists(choice_.tile_lists);
    compute_->set_coverage(choice_.coverage);
    compute_->set_part_sprites(choice_.part_sprites);
  }
  const size_t count = batch.device_instances ? batch.device_count : batch.sprites.size();
  const DeviceBuffer& instances = instances_of(batch);
  GLint samples = 0;  // the frame's (the bound framebuffer's)
  glGetIntegerv(GL_SAMPLES, &samples);
  samples = std::max(samples, 1);
  set_uniforms(compute_->setup_program(), batch, emitter, texture, SpriteOutput::colour);
  SpriteOccluders occluders;
  occluders.ground_height = ground_height_;
  occluders.ground_extent = ground_extent(camera_.near_plane, camera_.far_plane);
  occluders.plate_depth = plate_depth_;
  // Sprites reaching through the near plane are drawn by GL (which clips
  // them) after the rest of their part (of the batch, where it is drawn in
  // parts): they are the nearest.
  const auto draw_near = [&](const DeviceBuffer& near, size_t near_count) {
    draw_instances(near.gl_name(), near_count, batch, emitter, texture, SpriteOutput::colour);
  };
  const auto set_look = [&](const GlProgram& blend) {
    set_uniforms(blend, batch, emitter, texture, SpriteOutput::colour);
  };
  return compute_->draw(instances, count, width_, height_, samples,
                        batch.blend.value_or(emitter.blend) == BlendMode::additive, camera_, occluders, set_look,
                        draw_near);
}

bool cpu_rasteriser_pays(double mean_quad_pixels, size_t drawn, int width, int height) {
  return mean_quad_pixels <= kCpuRasteriserMaxMeanPixels &&
         double(drawn) * kCpuRasteriserFramePixelsPerSprite >= double(width) * double(height);
}

bool SpritePass::draw_with_cpu(const SpriteBatch& batch, const EmitterSettings& emitter, const GlTexture& texture) {
  const bool automatic = choice_.rasteriser == SpriteRasteriser::automatic;
  if (automatic && (!choice_.software || batch.device_instances)) return false;
  if (!cpu_) cpu_ = std::make_unique<CpuSpritePath>(choice_.threads);
  std::vector<SpriteInstance> downloaded;  // forced, for a batch made on the GPU
  if (batch.device_instances) {
    downloaded.resize(batch.device_count);
    batch.device_instances->buffer.download(downloaded.data(), downloaded.size() * sizeof(SpriteInstance));
  }
  CpuSpritePath::Batch b;
  b.sprites = batch.device_instances ? std::span<const SpriteInstance>(downloaded)
                                     : std::span<const SpriteInstance>(batch.sprites);
  const glm::mat3 basis = camera_.basis();
  SpriteCamera& camera = b.camera;
  camera.view = view_;
  camera.projection = projection_;
  camera.eye = camera_.position;
  camera.right = basis[0];
  camera.up = basis[1];
  camera.billboard = emitter.billboard;
  camera.viewport = glm::vec2(float(width_), float(height_));
  camera.min_pixels = min_pixels_;
  camera.near_plane = camera_.near_plane;
  camera.dof = glm::vec2(lens_.scale, lens_.focus);
  camera.lens = f_number_.has_value();
  camera.shutter = defines_.find("#define FXSIM_SHUTTER 1") != std::string::npos;
  const BlendMode blend = batch.blend.value_or(emitter.blend);
  SpriteShading& shading = b.shading;
  const glm::vec4 tint = batch.tint.value_or(emitter.color).linear();
  shading.tint = glm::vec4(glm::vec3(tint), tint.a * batch.opacity.value_or(emitter.opacity));
  static const float kDiscMean = disc_mean();
  shading.disc_mean = kDiscMean;
  shading.lens = camera.lens;
  shading.soft = soft_;
  shading.plate_soft = plate_soft_;
  shading.lighting = lighting_;
  shading.scattering = scattering_of(emitter, batch.look, blend);
  shading.fog = fog_;
  shading.fog_mode = !fog_ ? 0 : blend == BlendMode::additive ? 2 : 1;
  shading.eye = camera_.position;
  b.limits.ground_height = ground_height_;
  b.limits.ground_extent = ground_extent(camera_.near_plane, camera_.far_plane);
  b.limits.ground_centre = glm::vec2(camera_.position.x, camera_.position.z);
  b.limits.far_plane = camera_.far_plane;
  b.texture = texture.get();
  b.texture_changes = batch.dynamic_texture != nullptr;
  b.plate_depth = plate_depth_;
  b.additive = blend == BlendMode::additive;
  // Sprites reaching through the near plane are drawn by GL (which clips them) after the rest.
  const auto draw_near = [&](const std::vector<SpriteInstance>& near) {
    DeviceBuffer buffer;
    buffer.assign(near, DeviceBuffer::Use::host_writes);
    draw_instances(buffer.gl_name(), near.size(), batch, emitter, texture, SpriteOutput::colour);
  };
  if (!cpu_->draw(b, width_, height_, automatic ? CpuSpritePath::Pays(cpu_rasteriser_pays) : CpuSpritePath::Pays(),
                  draw_near))
    return false;
  ++counts_.cpu;
  counts_.cpu_samples += cpu_->samples_blended();
  return true;
}

void SpritePass::set_uniforms(const GlProgram& program, const SpriteBatch& batch, const EmitterSettings& emitter,
                              const GlTexture& texture, SpriteOutput output) {
  const bool motion = output == SpriteOutput::motion;
  glUseProgram(program.get());
  const glm::mat3 basis = camera_.basis();
  glUniformMatrix4fv(uniform(program, "u_view"), 1, GL_FALSE, glm::value_ptr(view_));
  glUniformMatrix4fv(uniform(program, "u_projection"), 1, GL_FALSE, glm::value_ptr(projection_));
  glUniform3fv(uniform(program, "u_eye"), 1, glm::value_ptr(camera_.position));
  glUniform3fv(uniform(program, "u_right"), 1, glm::value_ptr(basis[0]));
  glUniform3fv(uniform(program, "u_up"), 1, glm::value_ptr(basis[1]));
  glUniform1i(uniform(program, "u_billboard"), int(emitter.billboard));
  glUniform2f(uniform(program, "u_viewport"), float(width_), float(height_));
  glUniform1f(uniform(program, "u_min_pixels"), min_pixels_);
  glUniform1f(uniform(program, "u_near"), camera_.near_plane);
  const glm::vec4 tint = batch.tint.value_or(emitter.color).linear();
  glUniform4f(uniform(program, "u_tint"), tint.r, tint.g, tint.b, tint.a * batch.opacity.value_or(emitter.opacity));
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D_ARRAY, texture.get());
  glUniform1i(uniform(program, "u_texture"), 0);

  glUniform1i(uniform(program, "u_output"), output == SpriteOutput::depth ? 1 : motion ? 2 : 0);
  const bool colour = output == SpriteOutput::colour;
  glUniform1i(uniform(program, "u_colour"), colour);
  set_lighting_uniforms(program, colour ? lighting_ : std::nullopt);
  set_scattering_uniform(program, scattering_of(emitter, batch.look, batch.blend.value_or(emitter.blend)));
  glUniform2f(uniform(program, "u_dof"), lens_.scale, lens_.focus);
  static const float kDiscMean = disc_mean();
  glUniform1f(uniform(program, "u_disc_mean"), kDiscMean);
  glUniform3f(uniform(program, "u_soft"), soft_.x, soft_.y, 0.0f);
  // The plate's depth: for its soft edge, and for the compute rasteriser
  // its occluder (bound only with plate_soft before: without it the compute
  // rasteriser drew what the plate's geometry hides).
  if (plate_depth_ != 0) {
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, plate_depth_);
    glActiveTexture(GL_TEXTURE0);
    glUniform1i(uniform(program, "u_plate_depth"), 2);
  }
  if (plate_soft_ > 0) glUniform1f(uniform(program, "u_plate_soft"), plate_soft_);
  const bool additive = batch.blend.value_or(emitter.blend) == BlendMode::additive;
  glUniform1i(uniform(program, "u_fog_mode"), output != SpriteOutput::colour || !fog_ ? 0 : additive ? 2 : 1);
  set_fog_uniforms(program, fog_, camera_.position);
  glUniform1i(uniform(program, "u_motion"), motion);
  glUniformMatrix4fv(uniform(program, "u_previous_view_projection"), 1, GL_FALSE,
                     glm::value_ptr(previous_view_projection_));
  glUniform1f(uniform(program, "u_depth_coverage"), kDepthCoverage);
}

}  // namespace fxsim
