#include "render/gpu_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include "core/exit_codes.h"
#include "core/particle_system.h"
#include "core/particles.h"
#include "core/explosion.h"
#include "core/fire.h"
#include "render/gpu_fountain.h"
#include "render/gpu_particle_pool.h"
#include "render/gpu_precipitation.h"

namespace fxsim {

SystemFactory gpu_system_factory(GpuKernels& kernels) {
  return [&kernels](const Scene& scene, size_t index, const WindField& wind) -> std::unique_ptr<ParticleSystem> {
    const EmitterSettings& e = scene.emitters[index];
    if (e.type == EmitterType::fire) return std::make_unique<FireSystem>(e, index, wind, gpu_pool_maker(kernels));
    if (e.type == EmitterType::explosion)
      return std::make_unique<ExplosionSystem>(e, index, wind, gpu_pool_maker(kernels));
    if (e.type == EmitterType::fountain) return std::make_unique<GpuFountain>(e, index, wind, scene.output, kernels);
    return std::make_unique<GpuPrecipitation>(e, index, wind, scene.environment, scene.output.fps, kernels);
  };
}

MemoryEstimate estimate_memory(const Scene& scene, Backend backend) {
  MemoryEstimate m;
  for (const auto& e : scene.emitters) {
    const bool ground = scene.environment.ground.has_value();
    const size_t n = size_t(e.max_particles);
    size_t secondary = 0;  // slots of splashes, mist, embers or debris
    if ((e.type == EmitterType::snow || e.type == EmitterType::rain) && e.precipitation.splash && ground)
      secondary = n * size_t(e.precipitation.splash->count);
    if (e.type == EmitterType::fountain && e.fountain.mist) secondary = n;
    if (backend == Backend::gpu) {
      if (e.type == EmitterType::fountain) {
        m.gpu += GpuFountain::bytes_needed(e);
      } else if (e.type == EmitterType::fire || e.type == EmitterType::explosion) {
        m.gpu += n * (particle_bytes() + sizeof(SpriteInstance));  // the spark pool
        m.cpu += n * particle_bytes() * 2;                           // its staging and read-back stores
      } else {
        m.gpu += GpuPrecipitation::bytes_needed(e, ground);
      }
    } else {
      // Particle fields plus the sprite instances built each frame.
      m.cpu += (n + secondary) * (particle_bytes() + sizeof(SpriteInstance));
    }
  }
  return m;
}

std::optional<size_t> gpu_memory_bytes() {
  if (!epoxy_has_gl_extension("GL_NVX_gpu_memory_info")) return std::nullopt;
  GLint kilobytes = 0;
  glGetIntegerv(0x9048 /* GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX */, &kilobytes);
  return size_t(kilobytes) * 1024;
}

size_t ram_bytes() { return size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGE_SIZE)); }

std::string format_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.0f} kB", bytes / 1e3);
}

void check_memory(const Scene& scene, Backend backend, bool software_gl) {
  const MemoryEstimate need = estimate_memory(scene, backend);
  const size_t ram = ram_bytes();
  // On a software GL the "GPU" buffers live in RAM too.
  const size_t in_ram = need.cpu + (software_gl ? need.gpu : 0);
  if (double(in_ram) > 0.9 * double(ram))
    throw FxError(ExitCode::invalid_scene,
                  fmt::format("{}: the scene's particles need about {} of memory, but this machine has {} "
                              "(lower max_particles{})",
                              scene.file.string(), format_bytes(double(in_ram)), format_bytes(double(ram)),
                              backend == Backend::cpu ? ", or render with --backend gpu on a GPU" : ""));
  if (backend == Backend::gpu && !software_gl) {
    if (const auto gpu = gpu_memory_bytes(); gpu && double(need.gpu) > 0.95 * double(*gpu))
      throw FxError(ExitCode::invalid_scene,
                    fmt::format("{}: the scene's particles need about {} of GPU memory, but the GPU has {} "
                                "(lower max_particles)",
                                scene.file.string(), format_bytes(double(need.gpu)), format_bytes(double(*gpu))));
  }
}

}  // namespace fxsim
