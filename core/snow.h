#pragma once
// Snow (paper 000 sections 3.1–3.4, with paper 001's per-step wind, 2.3/3.2).
//
// Flakes live in a box (the region), optionally anchored to the camera. A new
// flake enters at the box's top face; with `prewarm` the box starts full.
// Motion "constant" is paper 000's: the velocity is drawn once at birth and
// only the position is stepped. Motion "wind" steps the velocity toward the
// local wind each step (the exact drag integration of core/motion.h). Each
// flake also sways sinusoidally about its own heading. A flake that leaves the
// box either wraps to the opposite face (`wrap`: the box's density stays
// uniform however the camera moves) or is reborn at the top (`respawn`).
// Sprite size is true 3-D size, or paper 000's e^(k·d) depth factor (`exp`).
#include <cstdint>

#include <glm/mat3x3.hpp>

#include "core/particle_system.h"
#include "core/particles.h"
#include "core/scene.h"

namespace fxsim {

class SnowSystem : public ParticleSystem {
 public:
  SnowSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind, glm::vec3 gravity);

  void begin(double t, const CameraPose& camera, ThreadPool& pool) override;
  void step(const StepContext& ctx) override;
  void end() override;
  void add_stats(FrameStats& out, bool active, ThreadPool& pool) const override;
  void add_sprites(const CameraPose& camera, std::vector<SpriteBatch>& out, ThreadPool& pool) const override;
  void hash_state(StateHasher& hasher) const override;
  void reset_counters() override { spawned_ = died_ = 0; }

  const ParticleStore& particles() const { return store_; }
  size_t live() const { return live_; }

  // The box at a camera pose: its centre and world-from-box rotation.
  struct Frame {
    glm::vec3 center;
    glm::mat3 axes;
  };
  Frame region_frame(const CameraPose& camera) const;

 private:
  enum class Birth { anywhere, top };
  void birth(size_t slot, double t, const Frame& frame, Birth where);

  const EmitterSettings& settings_;
  const SnowParams& snow_;
  uint32_t emitter_index_;
  const WindField& wind_;
  glm::vec3 half_;  // half the region's size
  ParticleStore store_;
  size_t live_ = 0;             // slots [0, live_) hold flakes
  double emission_carry_ = 0;   // fractional flakes owed by the emission rate
  double emission_rate_ = 0;    // flakes per second while the box is filling from the top
  int64_t spawned_ = 0, died_ = 0;
};

}  // namespace fxsim
