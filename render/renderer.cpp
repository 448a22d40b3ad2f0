#include "render/renderer.h"

#include "core/frame_output.h"

#include <fmt/format.h>

#include "render/gl_checks.h"

namespace fxsim {

Renderer::Renderer(const Scene& scene, int width, int height)
    : scene_(scene),
      target_(width, height, scene.output.samples,
              needs_float_target(scene.output) ? TargetFormat::float16 : TargetFormat::srgb8,
              !scene.output.transparent()) {
  for (const auto& emitter : scene.emitters) {
    textures_.push_back(make_texture_array(effect_looks(emitter, SpriteLook::primary)));
    secondary_textures_.push_back(make_texture_array(effect_looks(emitter, SpriteLook::secondary)));
  }
}

bool needs_float_target(const OutputSettings& output) {
  return output.transparent() || output.bit_depth == 16 || image_format_of(output.path) == ImageFormat::exr;
}

Image Renderer::render(Simulation& simulation) {
  draw(simulation);
  return take_frame().image;
}

RenderedFrame Renderer::take_frame() { return target_.finish_read(); }

void Renderer::draw(Simulation& simulation) {
  const CameraPose camera = simulation.camera();
  const float aspect = float(target_.width()) / float(target_.height());
  target_.bind_for_drawing();
  const glm::vec4 background = scene_.output.background.linear();
  // Premultiplied, as blending keeps the frame: a transparent background is (0, 0, 0, 0).
  glClearColor(background.r * background.a, background.g * background.a, background.b * background.a, background.a);
  glClearDepth(1.0);
  glDepthMask(GL_TRUE);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  if (scene_.environment.ground) ground_.draw(*scene_.environment.ground, scene_.output.background, camera, aspect);
  sprites_.begin_frame(camera, target_.width(), target_.height());
  for (const auto& batch : simulation.sprites()) {
    if (batch.dynamic_texture) {  // made this frame (a fire's grid)
      const Image frame{batch.dynamic_width, batch.dynamic_height, *batch.dynamic_texture};
      const GlTexture texture = make_texture_array({frame});
      sprites_.draw(batch, scene_.emitters[batch.emitter], texture);
      continue;
    }
    sprites_.draw(batch, scene_.emitters[batch.emitter],
                  batch.look == SpriteLook::primary ? textures_[batch.emitter] : secondary_textures_[batch.emitter]);
  }
  check_gl(fmt::format("drawing frame {}", simulation.frame()));
  target_.start_read();
}

}  // namespace fxsim
