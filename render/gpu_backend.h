#pragma once
// Choosing and building the GPU backend: which emitters the GPU steps, the
// memory a scene needs on each backend, and what the device can hold.
#include <cstddef>
#include <optional>
#include <string>

#include "core/memory_estimate.h"
#include "core/scene.h"
#include "core/simulation.h"
#include "render/gpu_kernels.h"

namespace fxsim {

enum class Backend { cpu, gpu };

// The factory to pass to Simulation for the GPU backend: every particle (snow,
// rain and splashes, fountain drops and mist, embers, debris) is stepped by
// compute shaders; a fire's grid and an explosion's fireball, which have no
// particles, stay on the CPU.
SystemFactory gpu_system_factory(GpuKernels& kernels);

// Bytes a render of the scene takes on the given backend: particle state,
// sprite buffers and frame images, on the GPU (`gpu`) and in RAM (`cpu`).
struct MemoryEstimate {
  size_t gpu = 0, cpu = 0;
};
MemoryEstimate estimate_memory(const Scene& scene, Backend backend);

// The GPU's memory, all of it and what is free now (NVIDIA's
// GL_NVX_gpu_memory_info), or nullopt where the driver does not say.
std::optional<size_t> gpu_memory_bytes();
std::optional<size_t> gpu_free_memory_bytes();

// Throws FxError(invalid_scene) with a readable message when the estimate
// does not fit in the memory the device (or RAM) has free.
void check_memory(const Scene& scene, Backend backend, bool software_gl);

}  // namespace fxsim
