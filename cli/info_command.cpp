#include <fmt/format.h>

#include "cli/commands.h"
#include "render/egl_context.h"
#include "render/gpu_backend.h"

#include <epoxy/gl.h>

namespace fxsim {

int run_info(std::optional<int> device) {
  const auto devices = EglContext::list_devices();
  fmt::print("EGL devices: {}\n", devices.size());
  for (const auto& d : devices)
    fmt::print("  [{}] {}{}{}\n", d.index, d.name, d.software ? " (software)" : "",
               d.cuda_device ? fmt::format(" (CUDA device {})", *d.cuda_device) : "");
  const auto context = EglContext::create(device, 3, 3);
  const GlInfo& info = context->info();
  fmt::print("using:       {}\n", info.platform);
  fmt::print("GL vendor:   {}\n", info.vendor);
  fmt::print("GL renderer: {}\n", info.renderer);
  fmt::print("GL version:  {}\n", info.version);
  const bool compute = info.major * 10 + info.minor >= 43;
  fmt::print("GPU backend: {}\n", compute ? (context->software() ? "available (software GL: `auto` picks cpu)" : "available")
                                            : "not available (needs OpenGL 4.3)");
  if (compute) {
    GLint64 block = 0;
    GLint groups = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &groups);
    fmt::print("limits:      storage block {}, {} work groups\n", format_bytes(double(block)), groups);
  }
  if (const auto memory = gpu_memory_bytes()) fmt::print("GPU memory:  {}\n", format_bytes(double(*memory)));
  return 0;
}

}  // namespace fxsim
