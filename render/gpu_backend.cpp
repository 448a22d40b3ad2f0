#include "render/gpu_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include "core/exit_codes.h"
#include "core/particle_system.h"
#include "core/particles.h"
#include "core/effects/explosion/explosion.h"
#include "core/effects/fire/fire.h"
#include "render/effects/gpu_fountain.h"
#include "render/gpu_particle_pool.h"
#include "render/effects/gpu_precipitation.h"

namespace fxsim {

namespace {
// The GPU counterpart of each effect type. A type without one (the generic
// overload) runs on the CPU under the GPU backend too: a stated fallback,
// never another type's system.
struct GpuSystems {
  const Scene& scene;
  size_t index;
  const WindField& wind;
  ThreadPool& threads;
  GpuKernels& kernels;
  const EmitterSettings& e() const { return scene.emitters[index]; }

  std::unique_ptr<ParticleSystem> operator()(const SnowParams&) const { return precipitation(); }
  std::unique_ptr<ParticleSystem> operator()(const RainParams&) const { return precipitation(); }
  std::unique_ptr<ParticleSystem> operator()(const FountainParams&) const {
    return std::make_unique<GpuFountain>(e(), index, wind, scene.output, kernels, threads);
  }
  // Fire and explosions have no particles of their own: their sparks' pools are the GPU's.
  std::unique_ptr<ParticleSystem> operator()(const FireParams&) const {
    return std::make_unique<FireSystem>(e(), index, wind, gpu_pool_maker(kernels, threads));
  }
  std::unique_ptr<ParticleSystem> operator()(const ExplosionParams&) const {
    return std::make_unique<ExplosionSystem>(e(), index, wind, gpu_pool_maker(kernels, threads));
  }
  template <class Other>
  std::unique_ptr<ParticleSystem> operator()(const Other&) const { return nullptr; }

  std::unique_ptr<ParticleSystem> precipitation() const {
    return std::make_unique<GpuPrecipitation>(e(), index, wind, scene.environment, scene.output.fps, kernels,
                                              threads);
  }
};

// Whether an effect's slots live on the GPU (stepped there) or only its sparks' pools do.
struct SlotsOnGpu {
  bool operator()(const FireParams&) const { return false; }
  bool operator()(const ExplosionParams&) const { return false; }
  template <class Other>
  bool operator()(const Other&) const { return true; }
};
}  // namespace

SystemFactory gpu_system_factory(GpuKernels& kernels) {
  return [&kernels](const Scene& scene, size_t index, const WindField& wind, ThreadPool& threads) {
    return std::visit(GpuSystems{scene, index, wind, threads, kernels}, scene.emitters[index].params);
  };
}

MemoryEstimate estimate_memory(const Scene& scene, Backend backend) {
  MemoryEstimate m;
  m.gpu = gl_image_bytes(scene);
  m.cpu = ram_image_bytes(scene) + texture_ram_bytes(scene);
  if (backend == Backend::cpu) {
    m.cpu += cpu_particle_bytes(scene);
    return m;
  }
  const size_t per_slot = particle_bytes() + sizeof(SpriteInstance);
  for (const auto& e : scene.emitters) {
    const SlotPlan slots = effect_slots(e, scene.environment);
    m.gpu += slots.total() * per_slot;
    // Spark pools are born on the CPU: their staging and read-back stores stay in RAM.
    if (!std::visit(SlotsOnGpu{}, e.params)) m.cpu += slots.total() * particle_bytes() * 2;
  }
  return m;
}

namespace {
std::optional<size_t> nvx_memory(GLenum what) {
  if (!epoxy_has_gl_extension("GL_NVX_gpu_memory_info")) return std::nullopt;
  GLint kilobytes = 0;
  glGetIntegerv(what, &kilobytes);
  return size_t(kilobytes) * 1024;
}
}  // namespace

std::optional<size_t> gpu_memory_bytes() { return nvx_memory(0x9048 /* GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX */); }
std::optional<size_t> gpu_free_memory_bytes() {
  return nvx_memory(0x9049 /* GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX */);
}

void check_memory(const Scene& scene, Backend backend, bool software_gl) {
  const MemoryEstimate need = estimate_memory(scene, backend);
  // On a software GL the "GPU" buffers live in RAM too.
  check_ram(scene, need.cpu + (software_gl ? need.gpu : 0),
            backend == Backend::cpu ? ", or render with --backend gpu on a GPU" : "");
  if (software_gl) return;
  if (const auto free = gpu_free_memory_bytes(); free && double(need.gpu) > 0.95 * double(*free))
    throw memory_refusal(scene, fmt::format("the render needs about {} of GPU memory (particles and images), "
                                                    "but the GPU has {} free of {} (lower max_particles or the image size)",
                                                    format_bytes(double(need.gpu)), format_bytes(double(*free)),
                                                    format_bytes(double(gpu_memory_bytes().value_or(0)))));
}

}  // namespace fxsim
