#pragma once
// What every effect implements, so that the simulation (and later the GPU
// backend) can drive any of them the same way: appear, step, disappear, report
// statistics, hash its state, and hand the renderer what to draw.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "core/camera_path.h"
#include "core/parallel.h"
#include "core/scene.h"
#include "core/stats.h"

namespace fxsim {

class WindField;

struct StepContext {
  int64_t step;   // steps taken before this one: t0 = step × dt
  double t0, t1;  // the step runs from t0 to t1 (seconds)
  float dt;
  const WindField& wind;
  glm::vec3 gravity;
  std::optional<float> ground;  // height of the ground plane, if any
  const CameraPose& camera;     // the camera at t1
};

// One textured quad. `stretch` (world space) elongates the quad along its
// on-screen direction (rain streaks); zero keeps it square.
struct SpriteInstance {
  glm::vec3 position;
  float size;
  glm::vec3 stretch;
  float alpha;
  float layer;  // texture array layer
  float spin;   // rotation in the sprite's plane, radians
  float aspect = 0;         // height / width of the quad (0: square)
  float anchor_bottom = 0;  // 1: `position` is the middle of the quad's bottom edge (fire)
};
static_assert(sizeof(SpriteInstance) == 48, "mirrored by the sprite vertex layout");


struct DeviceInstances;

struct SpriteBatch {
  size_t emitter = 0;  // index into Scene::emitters: its colour, blend, billboard and textures
  SpriteLook look = SpriteLook::primary;
  std::optional<float> opacity;     // overrides the emitter's opacity (mist has its own)
  std::optional<Color> tint;        // overrides the emitter's colour (sparks glow their own)
  std::optional<BlendMode> blend;   // overrides the emitter's blend (sparks add light)
  // A texture made this frame (the fire's grid), premultiplied, rows bottom to
  // top; replaces the emitter's textures for this batch.
  std::shared_ptr<const std::vector<uint8_t>> dynamic_texture;
  int dynamic_width = 0, dynamic_height = 0;
  // GPU backend: the instances already lie in GPU memory (a handle the
  // renderer's backend defines, opaque here) instead of in `sprites`.
  const DeviceInstances* device_instances = nullptr;
  size_t device_count = 0;
  std::vector<SpriteInstance> sprites;
  // The motion layer: for each sprite, its centre at the previous frame (w = 1)
  // or w = 0 where it has none (born since); empty when nothing was remembered.
  // (GPU batches carry theirs in DeviceInstances.)
  std::vector<glm::vec4> previous;
  float distance = 0;  // from the camera, for back-to-front ordering of effects
};

class StateSink;
class StateWriter;
class StateReader;

class ParticleSystem {
 public:
  virtual ~ParticleSystem() = default;
  // The effect appears at time t (its `start`).
  virtual void begin(double t, const CameraPose& camera) = 0;
  virtual void step(const StepContext& ctx) = 0;
  // The effect is removed (its `duration` is over): every particle dies.
  virtual void end() = 0;
  // Appends this frame's statistics; births and deaths are those since the
  // previous call (the counts are reset).
  virtual void take_stats(FrameStats& out, bool active) = 0;
  // Resets the counts take_stats gives, without taking the statistics (a
  // frame only simulated, whose counts a drawn frame must not inherit).
  virtual void reset_counters() = 0;
  // Appends what to draw (a GPU system builds its instances here).
  virtual void add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out) = 0;
  // Remembers where every particle is now (the previous frame, for the motion
  // layer): the next add_sprites gives each sprite that position as well. An
  // effect that begins forgets what it remembered.
  virtual void remember_positions() = 0;
  virtual void hash_state(StateSink& hasher) const = 0;
  // The complete state (every particle field, pools, grids, counters of
  // births and draws), for checkpoints: load() of what save() wrote, into a
  // system made from the same scene, continues exactly as the saved one would
  // have. What the motion layer remembered is not saved.
  virtual void save(StateWriter& out) = 0;
  virtual void load(StateReader& in) = 0;
};

// The overrides every system declares, written once (each system's .cpp
// implements them; the comments above say what each must do).
#define FXSIM_PARTICLE_SYSTEM_OVERRIDES                                               \
  void begin(double t, const CameraPose& camera) override;                           \
  void step(const StepContext& ctx) override;                                        \
  void end() override;                                                               \
  void take_stats(FrameStats& out, bool active) override;                            \
  void reset_counters() override;                                                    \
  void add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out) override; \
  void remember_positions() override;                                                \
  void hash_state(StateSink& hasher) const override;                                 \
  void save(StateWriter& out) override;                                              \
  void load(StateReader& in) override;

}  // namespace fxsim
