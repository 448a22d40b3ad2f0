#pragma once
// The GL side of a command: the headless context, and the one rule that
// decides where particles are stepped. render, bench and info all ask it, so
// they agree on what `auto` means.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "core/simulation.h"
#include "render/egl_context.h"
#include "render/gpu_backend.h"
#include "render/gpu_kernels.h"
#include "render/sprite_pass.h"

namespace fxsim {

enum class BackendChoice { cpu, gpu, automatic };

// Throws FxError(usage) for anything but "cpu", "gpu" or "auto".
BackendChoice parse_backend_choice(const std::string& name);

// gpu when asked for; `automatic`: gpu on a hardware GPU with OpenGL 4.3
// compute shaders, cpu on a software GL (llvmpipe), where the CPU is faster.
Backend choose_backend(BackendChoice requested, const EglContext& context);

// The rasteriser asked for by name (auto, gl, compute, cpu) on this context;
// compute without OpenGL 4.3 compute shaders is refused (exit 69), auto then
// means gl or cpu. `fill`: the fill resolution by name (auto, full, half); auto
// without compute shaders (nothing to measure with) draws at full size.
// `threads`: the CPU rasteriser's (--threads; 0: every hardware thread).
// `tile_lists`: what the compute rasteriser's tile lists hold, by name (auto,
// indices, records: render/compute_rasteriser.h TileLists); `coverage`: how
// its blend finds coverage (auto, corners, planes: Coverage). `part_sprites`:
// the compute rasteriser's most sprites a part (0: what the GL's storage holds).
RasteriserChoice sprite_rasteriser(const std::string& name, const EglContext& context,
                                   const std::string& fill = "auto", int threads = 0,
                                   const std::string& tile_lists = "auto", const std::string& coverage = "auto",
                                   size_t part_sprites = 0);
// --tile-lists, --coverage or --part-sprites with --rasteriser gl or cpu, which draw no
// tile lists: refused (exit 64) before any work, as --video-crf is where it
// would change nothing, rather than ignored.
void refuse_idle_compute_options(const std::string& rasteriser, const std::string& tile_lists,
                                 const std::string& coverage, int64_t part_sprites);

class GlSession {
 public:
  // Makes the context (OpenGL 4.3 when the GPU backend is asked for, so that
  // a device without it is refused, exit 69) and decides the backend.
  GlSession(std::optional<int> device, BackendChoice requested);
  const EglContext& context() const { return *context_; }
  Backend backend() const { return backend_; }
  // The systems to build the simulation with: the GPU's when the backend is
  // gpu (its kernels compiled on first use), the CPU's otherwise.
  SystemFactory system_factory();
  // "llvmpipe (LLVM 15.0.6, 256 bits) (CPU backend)"
  std::string describe() const;

 private:
  std::unique_ptr<EglContext> context_;
  Backend backend_;
  std::optional<GpuKernels> kernels_;
};

// PNG encoder threads for `cores` CPU cores: on the GPU backend all but one
// (which feeds the GPU), on the CPU backend half (the simulation and llvmpipe
// use the rest); 1 to 16.
size_t default_encoder_threads(int cores, Backend backend);

// What `fxsim info` reports of the current context.
struct GlLimits {
  bool compute = false;            // OpenGL 4.3 compute shaders
  size_t storage_block_bytes = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
  int work_groups = 0;             // GL_MAX_COMPUTE_WORK_GROUP_COUNT (x)
  int max_image_side = 0;          // GL_MAX_RENDERBUFFER_SIZE
  std::optional<size_t> gpu_memory, gpu_free_memory;
};
GlLimits gl_limits(const EglContext& context);

}  // namespace fxsim
