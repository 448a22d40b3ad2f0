#pragma once
// Snow and rain stepped by compute shaders: the same scene data, births,
// random draws (Philox in GLSL, same keys) and integration order as
// core/precipitation.cpp, on GPU storage that the renderer draws from
// directly. Splashes are a GpuPool whose slots belong to their drops.
#include <optional>

#include "core/particle_system.h"
#include "core/effects/precipitation/precipitation.h"
#include "core/scene.h"
#include "render/gpu_kernels.h"
#include "render/gpu_pool.h"

namespace fxsim {

class GpuPrecipitation : public ParticleSystem {
 public:
  GpuPrecipitation(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                   const Environment& environment, double fps, GpuKernels& kernels, ThreadPool& threads);

  FXSIM_PARTICLE_SYSTEM_OVERRIDES

  // Readbacks for parity tests.
  void read_particles(ParticleStore& out) const { store_.read(out); }
  size_t live() const { return live_; }
  const GpuPool* splashes() const { return splash_ ? &*splash_ : nullptr; }


 private:
  // `top_layer`: how deep under the top face births at the top lie (PrecipitationSystem::birth).
  void run(int mode, size_t first, size_t count, double t, const CameraPose& camera, const StepContext* ctx,
           float top_layer);
  void collect_counts();

  const EmitterSettings& settings_;
  const PrecipitationParams& params_;
  uint32_t emitter_index_;
  const WindField& wind_;
  ThreadPool& threads_;  // the host's part: a new turbulence slice
  std::optional<float> ground_;
  float exposure_;
  double emission_rate_ = 0, emission_carry_ = 0;
  float fall_speed_ = 0;  // PrecipitationSystem::fall_speed
  GpuKernels& kernels_;
  GpuStore store_;
  std::optional<GpuPool> splash_;
  ComputeKernel kernel_;
  DeviceCounters counters_;  // reborn, droplets thrown, droplets replaced
  size_t live_ = 0;
  int64_t spawned_ = 0, died_ = 0, splash_spawned_ = 0, splash_died_ = 0;
  SpriteBuffers sprites_, splash_sprites_;
  GpuPrevious previous_, splash_previous_;  // the motion layer's previous frame
};

}  // namespace fxsim
