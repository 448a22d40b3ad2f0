#include "render/renderer.h"

#include "core/camera_path.h"
#include "core/frame_output.h"
#include "core/lighting.h"
#include "core/parallel.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "render/gl_checks.h"

namespace fxsim {

Renderer::Renderer(const Scene& scene, int width, int height, RasteriserChoice rasteriser)
    : scene_(scene),
      // Every frame is drawn in 32-bit float: an 8-bit target rounds after
      // each blend (the thousands of faint drops of dense rain came out up to
      // 18/255 brighter than their light), half float after each of the
      // hundred thousand mist puffs over a fountain's pixels (up to 13/255).
      // The compute rasteriser blends in 32-bit float too, so both agree;
      // 8-bit frames are encoded on the GPU.
      target_(width, height, scene.output.samples, TargetFormat::float32, !scene.output.transparent(),
              grading_of(scene)),
      sprites_(scene, rasteriser) {
  if (scene.output.depth_layer || scene.output.mask_layers || scene.output.motion_layer)
    layer_target_.emplace(width, height);
  // The looks are made on the CPU, each on its own (procedural snowflakes
  // take milliseconds an emitter: 4096 emitters took two minutes on one
  // thread), then given to the GL on this thread, in the scene's order; a
  // batch of emitters at a time, so that only a batch's pictures are held
  // beside the GL's copies (4096 explosions' fireballs are 4.8 GB).
  const size_t emitters = scene.emitters.size();
  ThreadPool pool(int(std::min<size_t>(size_t(thread_count(rasteriser.threads)), emitters)));
  constexpr size_t kBatch = 64;
  std::vector<std::vector<Image>> looks(std::min(emitters, kBatch) * 2);
  for (size_t first = 0; first < emitters; first += kBatch) {
    const size_t count = std::min(kBatch, emitters - first);
    pool.run(count * 2, [&](size_t k) {
      looks[k] = effect_looks(scene.emitters[first + k / 2], k % 2 == 0 ? SpriteLook::primary : SpriteLook::secondary);
    });
    for (size_t i = 0; i < count; ++i) {
      textures_.push_back(make_texture_array(looks[i * 2]));
      secondary_textures_.push_back(make_texture_array(looks[i * 2 + 1]));
      looks[i * 2].clear(), looks[i * 2 + 1].clear();
    }
  }
}

FrameGrading grading_of(const Scene& scene) {
  const OutputSettings& output = scene.output;
  const bool display8 = !output.transparent() && output.bit_depth == 8 && image_format_of(output.path) != ImageFormat::exr;
  return {scene.camera.exposure, output.bloom, output.tone, display8};
}

Image Renderer::render(Simulation& simulation) {
  draw(simulation);
  return take_frame().image;
}

Image Renderer::render_without_particles(int frame) {
  const double time = scene_.frame_seconds(frame);
  const CameraPose camera = camera_at(scene_.camera, time);
  const std::optional<Lighting> lighting = draw_scenery(frame, time, camera);
  if (lighting)
    light_sources_.draw(*lighting, camera, float(target_.width()) / float(target_.height()), target_.height(),
                        scene_.environment.fog);
  check_gl(fmt::format("drawing frame {} without its particles", frame));
  target_.start_read();
  return target_.finish_read().image;
}

std::optional<Lighting> Renderer::draw_scenery(int frame, double time, const CameraPose& camera) {
  const float aspect = float(target_.width()) / float(target_.height());
  target_.bind_for_drawing();
  const glm::vec4 background = scene_.output.background.linear();
  // Premultiplied, as blending keeps the frame: a transparent background is (0, 0, 0, 0).
  target_.clear(glm::vec4(glm::vec3(background) * background.a, background.a));
  const Environment& environment = scene_.environment;
  if (environment.sky) sky_.draw(*environment.sky, camera, aspect, environment.fog);
  if (scene_.output.has_plate_pass()) {
    plate_.load(scene_.output, frame);
    plate_.draw(camera, aspect);
  }
  std::optional<Lighting> lighting = frame_lighting(scene_, camera, time);
  if (environment.ground)
    ground_.draw(*environment.ground, environment.sky ? environment.sky->horizon : scene_.output.background, camera,
                 aspect, environment.fog, lighting, environment.sky.has_value());
  return lighting;
}

RenderedFrame Renderer::take_frame() {
  RenderedFrame frame = target_.finish_read();
  if (!pending_layers_.empty()) {
    frame.layers = std::move(pending_layers_.front());
    pending_layers_.pop_front();
  }
  return frame;
}

void Renderer::draw(Simulation& simulation) {
  const CameraPose camera = simulation.camera();
  const float aspect = float(target_.width()) / float(target_.height());
  const Environment& environment = scene_.environment;
  const std::optional<Lighting> lighting = draw_scenery(simulation.frame(), simulation.time(), camera);
  sprites_.set_lighting(lighting);
  sprites_.set_plate_depth(plate_.depth_texture());
  sprites_.begin_frame(camera, target_.width(), target_.height());
  const std::vector<SpriteBatch>& batches = simulation.sprites();
  // Each batch's texture; a fire's grid is made this frame.
  std::vector<GlTexture> made;
  std::vector<const GlTexture*> textures;
  made.reserve(batches.size());
  for (const auto& batch : batches) {
    if (batch.dynamic_texture) {
      made.push_back(make_texture_array({Image{batch.dynamic_width, batch.dynamic_height, *batch.dynamic_texture}}));
      textures.push_back(&made.back());
    } else {
      textures.push_back(batch.look == SpriteLook::primary ? &textures_[batch.emitter] : &secondary_textures_[batch.emitter]);
    }
  }
  for (size_t i = 0; i < batches.size(); ++i) sprites_.draw(batches[i], scene_.emitters[batches[i].emitter], *textures[i]);
  if (lighting) light_sources_.draw(*lighting, camera, aspect, target_.height(), environment.fog);
  check_gl(fmt::format("drawing frame {}", simulation.frame()));
  target_.start_read();
  if (layer_target_) pending_layers_.push_back(draw_layers(batches, textures, camera, simulation.previous_camera()));
}

FrameLayers Renderer::draw_layers(const std::vector<SpriteBatch>& batches, const std::vector<const GlTexture*>& textures,
                                  const CameraPose& camera, const CameraPose& previous_camera) {
  FrameLayers layers;
  const float aspect = float(target_.width()) / float(target_.height());
  // The plate's depth and the ground hide what is behind them in every layer,
  // as in the frame: drawn into depth only.
  const auto ground_depth = [&] {
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    if (scene_.output.has_plate_pass()) plate_.draw(camera, aspect);
    if (scene_.environment.ground) ground_.draw(*scene_.environment.ground, scene_.output.background, camera, aspect);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  };
  sprites_.begin_frame(camera, target_.width(), target_.height());
  if (scene_.output.mask_layers)
    for (size_t e = 0; e < scene_.emitters.size(); ++e) {
      layer_target_->begin(glm::vec4(0));
      ground_depth();
      for (size_t i = 0; i < batches.size(); ++i)
        if (batches[i].emitter == e) sprites_.draw(batches[i], scene_.emitters[e], *textures[i], SpriteOutput::mask);
      layers.masks.emplace_back(scene_.emitters[e].name, layer_target_->read(3));
    }
  if (scene_.output.depth_layer) {
    constexpr float kNothing = 3.0e38f;  // cleared "far"; read back as +infinity
    layer_target_->begin(glm::vec4(kNothing, 0, 0, 0));
    ground_depth();
    for (size_t i = 0; i < batches.size(); ++i)
      sprites_.draw(batches[i], scene_.emitters[batches[i].emitter], *textures[i], SpriteOutput::depth);
    std::vector<float> depth = layer_target_->read(0);
    for (float& d : depth)
      if (d >= kNothing) d = std::numeric_limits<float>::infinity();
    layers.depth = std::move(depth);
  }
  if (scene_.output.motion_layer) {
    layer_target_->begin(glm::vec4(0));
    ground_depth();
    sprites_.set_previous_camera(previous_camera);
    for (size_t i = 0; i < batches.size(); ++i)
      sprites_.draw(batches[i], scene_.emitters[batches[i].emitter], *textures[i], SpriteOutput::motion);
    std::vector<std::vector<float>> sums = layer_target_->read({0, 1, 2});  // Σ a·x, Σ a·y, Σ a
    MotionLayer motion{std::move(sums[0]), std::move(sums[1]), std::move(sums[2])};
    for (size_t p = 0; p < motion.coverage.size(); ++p) {
      const float a = motion.coverage[p];
      motion.x[p] = a > 0 ? motion.x[p] / a : 0.0f;
      motion.y[p] = a > 0 ? motion.y[p] / a : 0.0f;
    }
    layers.motion = std::move(motion);
  }
  check_gl("drawing the frame's layers");
  return layers;
}

}  // namespace fxsim
