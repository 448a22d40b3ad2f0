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
  GpuParticlePool(const PoolRules& rules, size_t capacity, GpuKernels& kernels);

  size_t add() override;
  void step(const StepContext& ctx, const WindField& wind) override;
  void clear() override;
  EmitterStats stats(ThreadPool& pool) const override;
  void add_sprites(SpriteBatch& batch, float exposure, glm::vec3 eye_velocity) const override;
  const ParticleStore& state() const override;
  void reset_counters() override;

 private:
  void flush() const;  // uploads the births made since the last flush

  GpuKernels& kernels_;
  mutable GpuPool gpu_;
  GlProgram scatter_;
  mutable GlBuffer staging_, counter_;
  mutable std::vector<uint32_t> pending_;
  mutable ParticleStore readback_;
  mutable int64_t gpu_died_ = 0;
  mutable GlBuffer instances_;
  mutable size_t instance_bytes_ = 0;
};

PoolMaker gpu_pool_maker(GpuKernels& kernels);

}  // namespace fxsim
