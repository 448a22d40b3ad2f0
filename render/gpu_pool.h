#pragma once
// A ParticlePool (core/particle_pool.h) stepped on the GPU: splashes and mist.
#include "core/particle_pool.h"
#include "render/gpu_kernels.h"

namespace fxsim {

class GpuPool {
 public:
  GpuPool(const PoolRules& rules, size_t capacity, size_t page_capacity);
  void step(const StepContext& ctx, const WindField& wind, GpuTurbulence& turbulence, ThreadPool& threads);
  int64_t take_deaths();  // deaths counted on the GPU since the last call (a 4-byte readback)
  void clear() { store_.clear(-1.0f); }

  GpuStore& store() { return store_; }
  const GpuStore& store() const { return store_; }
  const PoolRules& rules() const { return rules_; }

 private:
  PoolRules rules_;
  GpuStore store_;
  ComputeKernel kernel_;
  DeviceCounters deaths_;
};

}  // namespace fxsim
