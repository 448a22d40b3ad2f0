#pragma once
// A ParticlePool whose particles live and move on the GPU (embers, debris):
// births are still decided on the CPU by the effect (which cells are hottest,
// which way a spark flies) and written into the CPU store as staging; they are
// uploaded to their slots before the next GPU step, statistics or drawing.
#include <vector>

#include "core/particle_pool.h"
#include "render/gpu_kernels.h"
#include "render/gpu_pool.h"

namespace fxsim {

class GpuParticlePool : public ParticlePool {
 public:
  GpuParticlePool(const PoolRules& rules, size_t capacity, GpuKernels& kernels, ThreadPool& threads);

  size_t add() override;
  void step(const StepContext& ctx, const WindField& wind) override;
  void clear() override;
  EmitterStats stats() override;
  void add_sprites(SpriteBatch& batch, float exposure, glm::vec3 eye_velocity) override;
  void remember_positions() override;
  void save(StateWriter& out) override;
  void load(StateReader& in) override;
  void forget_positions() override { gpu_previous_.forget(); }
  const ParticleStore& state() const override;
  void hash_into(StateSink& sink) override;
  void reset_counters() override;

 private:
  // Uploads the births made since the last flush.
  void flush();

  GpuKernels& kernels_;
  GpuPool gpu_;
  ComputeKernel scatter_;
  DeviceBuffer staging_;
  DeviceCounters replaced_;
  std::vector<uint32_t> pending_;  // slots born since the last flush (their particles are in store_)
  // state()'s copy of the particles: a cache for returning a reference, not
  // state of the pool.
  mutable ParticleStore readback_;
  int64_t gpu_died_ = 0;
  DeviceInstances instances_;
  GpuPrevious gpu_previous_;  // the motion layer's previous frame
};

PoolMaker gpu_pool_maker(GpuKernels& kernels, ThreadPool& threads);

}  // namespace fxsim
