#pragma once
// Explosions (paper 002): a textured quad with an explosion picture, drawn as a
// viewpoint-facing billboard, that grows from nothing to `scale` and fades out
// over its duration. The picture is a procedural fireball flipbook (a hot core
// that grows, cools through yellow and red to dark smoke and fades) or the
// user's PNG flipbook with `key_color` keyed out. `debris` sparks are thrown
// out at the start and fall under gravity and drag ("<name>.debris").
#include <cstdint>

#include "core/particle_pool.h"
#include "core/particle_system.h"
#include "core/scene.h"

namespace fxsim {

class ExplosionSystem : public ParticleSystem {
 public:
  ExplosionSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                  const PoolMaker& make_pool);

  FXSIM_PARTICLE_SYSTEM_OVERRIDES

  // Progress 0..1 through the duration, and the fireball's size and opacity then.
  static float diameter(float progress, float scale);
  static float opacity(float progress);
  float progress() const;
  const ParticlePool& debris() const { return *debris_; }

 private:
  const EmitterSettings& settings_;
  const ExplosionParams& explosion_;
  uint32_t emitter_index_;
  const WindField& wind_;
  double start_ = 0, now_ = 0;
  bool remembered_ = false;  // the motion layer's previous frame: the fireball does not move
  std::unique_ptr<ParticlePool> debris_;
};

// Layers of the flipbook an explosion plays: its user texture's frames (keyed)
// or the procedural fireball's (in core so the frame count is known to both).
constexpr int kFireballFrames = 32;

}  // namespace fxsim
