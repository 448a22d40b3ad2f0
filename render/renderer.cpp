#include "render/renderer.h"

#include "core/effects/explosion/explosion.h"
#include <fmt/format.h>

#include "core/effects/explosion/fireball_images.h"
#include "render/gl_checks.h"
#include "core/particle_images.h"
#include "core/effects/precipitation/snowflake_image.h"

namespace fxsim {

namespace {
constexpr int kFlakeTexels = 64;

Image premultiplied(Image image) {
  for (size_t i = 0; i < image.rgba.size(); i += 4)
    for (int c = 0; c < 3; ++c) image.rgba[i + c] = uint8_t((image.rgba[i + c] * image.rgba[i + 3] + 127) / 255);
  return image;
}
}  // namespace

std::vector<Image> emitter_texture_layers(const EmitterSettings& emitter, SpriteLook look) {
  std::vector<Image> layers;
  if (emitter.type == EmitterType::explosion && look == SpriteLook::primary) {
    const ExplosionParams& x = emitter.explosion;
    if (x.texture) return keyed_flipbook(read_png(*x.texture), x.flipbook_rows, x.flipbook_columns, x.key_color);
    return fireball_flipbook(kFireballFrames, 96, emitter.seed);
  }
  if (emitter.type == EmitterType::fire && look == SpriteLook::primary) return {droplet_image(8)};  // unused: the grid is drawn
  if (emitter.type == EmitterType::fountain)
    return {look == SpriteLook::primary ? droplet_image(32) : mist_image(64, emitter.seed)};
  if (look == SpriteLook::secondary) return {droplet_image(32)};
  if (!emitter.precipitation.textures.empty()) {
    for (const auto& path : emitter.precipitation.textures) {
      Image image = read_png(path);
      if (!layers.empty()) image = resize_image(image, layers.front().width, layers.front().height);
      layers.push_back(premultiplied(std::move(image)));
    }
    return layers;
  }
  if (emitter.type == EmitterType::rain) return {rain_streak_image(16, 64)};
  for (int shape = 0; shape < emitter.precipitation.shapes; ++shape)
    layers.push_back(snowflake_image(kFlakeTexels, emitter.seed, uint32_t(shape)));
  return layers;
}

Renderer::Renderer(const Scene& scene, int width, int height)
    : scene_(scene), target_(width, height, scene.output.samples) {
  for (const auto& emitter : scene.emitters) {
    textures_.push_back(make_texture_array(emitter_texture_layers(emitter, SpriteLook::primary)));
    secondary_textures_.push_back(make_texture_array(emitter_texture_layers(emitter, SpriteLook::secondary)));
  }
}

Image Renderer::render(Simulation& simulation) {
  const CameraPose camera = simulation.camera();
  const float aspect = float(target_.width()) / float(target_.height());
  target_.bind_for_drawing();
  const glm::vec4 background = scene_.output.background.linear();
  glClearColor(background.r, background.g, background.b, 1.0f);
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
  return target_.read();
}

}  // namespace fxsim
