#include <fmt/format.h>

#include "cli/commands.h"
#include "render/egl_context.h"

namespace fxsim {

int run_info(std::optional<int> device) {
  const auto devices = EglContext::list_devices();
  fmt::print("EGL devices: {}\n", devices.size());
  for (const auto& d : devices)
    fmt::print("  [{}] {}{}\n", d.index, d.name, d.software ? " (software)" : "");
  const auto context = EglContext::create(device, 3, 3);
  const GlInfo& info = context->info();
  fmt::print("using:       {}\n", info.platform);
  fmt::print("GL vendor:   {}\n", info.vendor);
  fmt::print("GL renderer: {}\n", info.renderer);
  fmt::print("GL version:  {}\n", info.version);
  return 0;
}

}  // namespace fxsim
