// info: the EGL devices, the context fxsim gets on the chosen one, and what
// the GPU backend could use there.
#include <fmt/format.h>

#include "cli/commands.h"
#include "render/gl_session.h"

namespace fxsim {

int run_info(std::optional<int> device) {
  const auto devices = EglContext::list_devices();
  fmt::print("EGL devices: {}\n", devices.size());
  for (const auto& d : devices)
    fmt::print("  [{}] {}{}{}\n", d.index, d.name, d.software ? " (software)" : "",
               d.cuda_device ? fmt::format(" (CUDA device {})", *d.cuda_device) : "");
  const GlSession session(device, BackendChoice::automatic);
  const GlInfo& info = session.context().info();
  const GlLimits limits = gl_limits(session.context());
  fmt::print("using:       {}\n", info.platform);
  fmt::print("GL vendor:   {}\n", info.vendor);
  fmt::print("GL renderer: {}\n", info.renderer);
  fmt::print("GL version:  {}\n", info.version);
  fmt::print("GPU backend: {}\n", !limits.compute                          ? "not available (needs OpenGL 4.3)"
                                  : session.backend() == Backend::gpu      ? "available (`auto` picks it)"
                                                                           : "available (software GL: `auto` picks cpu)");
  fmt::print("images:      at most {} pixels a side\n", limits.max_image_side);
  if (limits.compute)
    fmt::print("limits:      storage block {}, {} work groups\n", format_bytes(double(limits.storage_block_bytes)),
               limits.work_groups);
  if (limits.gpu_memory)
    fmt::print("GPU memory:  {} ({} free)\n", format_bytes(double(*limits.gpu_memory)),
               format_bytes(double(limits.gpu_free_memory.value_or(0))));
  return 0;
}

}  // namespace fxsim
