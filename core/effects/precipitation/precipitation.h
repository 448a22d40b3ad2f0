#pragma once
// Snow and rain (paper 000 sections 3.1–3.4; paper 001 sections 2.1–2.5, 3.1–3.4).
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
//
// Rain is the same box of particles with motion "wind" and no sway. Each drop
// is drawn as a streak: its travel during `streak / fps` seconds, so fast drops
// (and drops seen from a moving camera) become slanted lines. With `splash`, a
// drop that reaches the ground throws `count` droplets up and outward at about
// `speed`; they fall back and vanish within `lifetime` (a ParticlePool). Drop i
// owns splash slots [i × count, (i + 1) × count), so splashes need no ordering
// between drops and are the same for any thread count, on the CPU or the GPU.
#include <cstdint>
#include <optional>

#include <glm/mat3x3.hpp>

#include "core/particle_system.h"
#include "core/particles.h"
#include "core/scene.h"
#include "core/particle_pool.h"
#include "core/previous_positions.h"
#include "core/wind.h"

namespace fxsim {

// For the tests: the step's test for particles that left the box at most
// this many lanes wide (8: AVX2 where the CPU has it; 1: one at a time), so
// that each path is compared on a CPU that has both.
void limit_leaving_test_width(int lanes);

class PrecipitationSystem : public ParticleSystem {
 public:
  PrecipitationSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                      const Environment& environment, double fps, ThreadPool& threads);

  FXSIM_PARTICLE_SYSTEM_OVERRIDES

  const ParticleStore& particles() const { return store_; }
  size_t live() const { return live_; }
  const ParticlePool* splashes() const { return splash_ ? &*splash_ : nullptr; }

  // The box at a camera pose: its centre and world-from-box rotation.
  struct Frame {
    glm::vec3 center;
    glm::mat3 axes;
    // Half the box's extent along `forward` (paper 000's depth factor uses it).
    float reach(glm::vec3 forward, glm::vec3 half) const;
  };
  static Frame region_frame(const PrecipitationParams& params, const CameraPose& camera);
  Frame region_frame(const CameraPose& camera) const { return region_frame(snow_, camera); }

  // Droplets a drop throws when it lands: splash.count where there is ground to
  // land on, else 0 (no splash pool). The slot plan sizes the pool from it.
  static size_t splashes_per_drop(const PrecipitationParams& params, const Environment& environment);

  // The motion layer: a flake that moved more than half the box along one of
  // its axes since the previous frame wrapped to the opposite face or
  // re-entered at the top, and has no previous position.
  // With a ground inside the box, the column above it is what a flake
  // re-enters across: a travel of more than half of it along the box's up
  // axis is a re-entry (half the box would take a flake falling through a
  // column shorter than that and put back at the top for a motion).
  static WrapBox wrap_box(const PrecipitationParams& params, const CameraPose& camera, std::optional<float> ground);

  // Flakes per second entering a box that starts empty (no prewarm).
  static double fill_rate(const EmitterSettings& settings, glm::vec3 gravity);
  // The speed flakes fall at (m/s, at least 0.05): the fall's own or, in the
  // wind with drag, the terminal one.
  static float fall_speed(const PrecipitationParams& params, glm::vec3 gravity);

  // The local height of the box's lowest part above the ground (−half.y where
  // the ground is below the box or the box is tipped on its side).
  static float column_floor(const Frame& frame, glm::vec3 half, std::optional<float> ground);
  // The local height a flake `below` metres under the ground re-enters the box
  // at: as far under the top face, modulo the height of the column above the
  // ground, so a stream falling through the ground keeps its spacing (the top
  // face itself where the box is tipped or lies under the ground).
  static float reentry_height(float below, const Frame& frame, glm::vec3 half, float bottom);

 private:
  // Births at the top lie in a layer `top_layer` deep under the top face (a
  // step's fall): flakes born through the step, not in one sheet. `wind`:
  // the air at the moment of birth, which the flake is born moving with.
  enum class Birth { anywhere, top };
  void birth(size_t slot, const WindField::Moment& wind, const Frame& frame, Birth where, float top_layer = 0);

  const EmitterSettings& settings_;
  const PrecipitationParams& snow_;
  uint32_t emitter_index_;
  const WindField& wind_;
  ThreadPool& threads_;
  glm::vec3 half_;  // half the region's size
  ParticleStore store_;
  PreviousPositions previous_;  // the motion layer's previous frame
  size_t live_ = 0;             // slots [0, live_) hold flakes
  double emission_carry_ = 0;   // fractional flakes owed by the emission rate
  double emission_rate_ = 0;    // flakes per second while the box is filling from the top
  float fall_speed_ = 0;        // fall_speed(): a step's births at the top lie this × dt deep
  int64_t spawned_ = 0, died_ = 0;
  std::optional<float> ground_;      // the ground's height, if there is one
  float exposure_ = 0;               // seconds of travel a rain streak shows (streak / fps)
  std::optional<ParticlePool> splash_;
  // The droplets of drop `slot`, landed at `hit` during step `step`: they take
  // splash slots [slot × count, slot × count + count). Returns the lives replaced.
  int64_t throw_splash(size_t slot, glm::vec3 hit, float ground, int64_t step);
};

}  // namespace fxsim
