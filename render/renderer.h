#pragma once
// Draws one frame of a simulation: clear to the background, the ground, then
// every effect's sprites back to front. Needs a current GL context.
#include <deque>
#include <optional>
#include <vector>

#include "core/scene.h"
#include "core/simulation.h"
#include "render/frame_target.h"
#include "render/layer_target.h"
#include "render/plate_pass.h"
#include "render/gl_objects.h"
#include "render/ground_pass.h"
#include "render/light_source_pass.h"
#include "render/sky_pass.h"
#include "core/image.h"
#include "render/sprite_pass.h"

namespace fxsim {

// How the frame's light becomes the output's pixels (render/frame_target.h).
FrameGrading grading_of(const Scene& scene);

class Renderer {
 public:
  Renderer(const Scene& scene, int width, int height, RasteriserChoice rasteriser = {});
  // Draws the simulation's current frame and starts reading it back (its
  // image comes from take_frame(), oldest first, so the next frame can be
  // simulated and drawn while this one travels).
  void draw(Simulation& simulation);
  // What the last draw() read of the plate files (core/input_digest.h).
  const PlateDigests& plate_digests() const { return plate_.digests(); }
  // The sprites' drawing, for bench's compute rasteriser profile.
  SpritePass& sprite_pass() { return sprites_; }
  RenderedFrame take_frame();
  size_t images_pending() const { return target_.reads_pending(); }
  // Samples per pixel as the GL made the frame (output.samples where it has that count).
  int frame_samples() const { return target_.samples(); }
  // draw() then take_image().
  Image render(Simulation& simulation);
  // Frame `frame` as it is without its particles (sky, ground, plate,
  // lights' discs, graded; seen from the camera of that frame's time): what
  // a frame in which nothing shows looks like. Once every frame drawn is taken.
  Image render_without_particles(int frame);

 private:
  // Clears the target and draws what is behind the particles of frame
  // `frame` at `time`: sky, plate, ground. Returns the frame's lighting.
  std::optional<Lighting> draw_scenery(int frame, double time, const CameraPose& camera);
  // Draws the masks, depth and motion layers the output asks for, from the same batches.
  FrameLayers draw_layers(const std::vector<SpriteBatch>& batches, const std::vector<const GlTexture*>& textures,
                          const CameraPose& camera, const CameraPose& previous_camera);

  const Scene& scene_;
  FrameTarget target_;
  std::optional<LayerTarget> layer_target_;
  std::deque<FrameLayers> pending_layers_;  // beside the target's pending read-backs
  SkyPass sky_;
  LightSourcePass light_sources_;
  GroundPass ground_;
  PlatePass plate_;
  SpritePass sprites_;
  std::vector<GlTexture> textures_;            // one array per emitter
  std::vector<GlTexture> secondary_textures_;  // for its splashes (and later mist, debris, embers)
};

}  // namespace fxsim
