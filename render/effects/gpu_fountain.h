#pragma once
// Fountains stepped by compute shaders: the emission plan (which drops each
// nozzle emits in a step) is made on the CPU exactly as core/fountain.cpp makes
// it; the GPU initialises those slots, steps every drop, turns drops into the
// mist of their own slot, and steps the mist (a GpuPool).
#include <optional>

#include "core/effects/fountain/fountain.h"
#include "core/particle_system.h"
#include "core/scene.h"
#include "render/gpu_kernels.h"
#include "render/gpu_pool.h"

namespace fxsim {

class GpuFountain : public ParticleSystem {
 public:
  GpuFountain(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
              const OutputSettings& output, GpuKernels& kernels, ThreadPool& threads);

  FXSIM_PARTICLE_SYSTEM_OVERRIDES

  void read_drops(ParticleStore& out) const { drops_.read(out); }

 private:
  void collect_counts();

  const EmitterSettings& settings_;
  const FountainParams& fountain_;
  uint32_t emitter_index_;
  const WindField& wind_;
  ThreadPool& threads_;  // the host's part: a new turbulence slice
  double steps_per_second_;
  float exposure_;
  PoolRules drop_rules_;  // FountainSystem::drop_rules
  GpuKernels& kernels_;
  GpuStore drops_;
  std::optional<GpuPool> mist_;
  ComputeKernel step_kernel_, emit_kernel_;
  DeviceBuffer nozzles_, bursts_;
  DeviceCounters counters_;  // drop deaths, misted, mist replaced, replaced by emission
  int64_t first_step_ = -1;
  uint64_t emitted_ = 0;
  int64_t spawned_ = 0, died_ = 0, mist_spawned_ = 0, mist_died_ = 0;
  SpriteBuffers sprites_, mist_sprites_;
  GpuPrevious previous_, mist_previous_;  // the motion layer's previous frame
};

}  // namespace fxsim
