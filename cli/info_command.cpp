// info: the EGL devices, the context fxsim gets on the chosen one, and what
// the GPU backend could use there.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/device_class.h"
#include "core/memory_estimate.h"
#include "render/gl_session.h"

namespace fxsim {

namespace {
std::string auto_rasteriser_rule(bool software, bool compute) {
  if (software)
    return fmt::format("`--rasteriser auto` draws batches of small sprites (quads of {:g} pixels or less on average, "
                       "a sprite or more for every {:g} pixels of the frame) with the CPU rasteriser, the rest with GL",
                       kCpuRasteriserMaxMeanPixels, kCpuRasteriserFramePixelsPerSprite);
  if (compute)
    return fmt::format("`--rasteriser auto` draws batches of {} sprites or more with the compute rasteriser, the rest "
                       "with GL",
                       kComputeRasteriserMinSprites);
  return "drawn by GL (the compute rasteriser needs OpenGL 4.3)";
}
}  // namespace

int run_info(std::optional<int> device, bool json) {
  const auto devices = EglContext::list_devices();
  if (json) {
    // Without a usable GL a program still gets a document ({"error": …,
    // "exit": 69}) on standard output, and the message on standard error.
    std::optional<GlSession> opened;
    try {
      opened.emplace(device, BackendChoice::automatic);
    } catch (const FxError& e) {
      fmt::print("{}\n", nlohmann::json{{"error", e.what()}, {"exit", int(e.code())}}.dump(
                              2, ' ', false, nlohmann::json::error_handler_t::replace));
      throw;
    }
    const GlSession& session = *opened;
    const GlInfo& info = session.context().info();
    const GlLimits limits = gl_limits(session.context());
    const DeviceClass dc = device_class(info.vendor, info.renderer);
    nlohmann::json out{{"platform", info.platform},
                       {"vendor", info.vendor},
                       {"renderer", info.renderer},
                       {"version", info.version},
                       {"device_class", dc.base},
                       {"device_class_exact", dc.exact},
                       {"gpu_backend", limits.compute},
                       {"auto_backend", session.backend() == Backend::gpu ? "gpu" : "cpu"},
                       // What `--rasteriser auto` picks from, and by what rule (the text's "sprites:" line):
                       // "cpu" alone said it drew every batch on the CPU.
                       {"auto_rasterisers", session.context().software() ? nlohmann::json{"cpu", "gl"}
                                            : limits.compute             ? nlohmann::json{"compute", "gl"}
                                                                         : nlohmann::json{"gl"}},
                       {"auto_rasteriser_rule", auto_rasteriser_rule(session.context().software(), limits.compute)},
                       {"max_image_side", limits.max_image_side},
                       {"devices", nlohmann::json::array()}};
    for (const auto& d : devices)
      out["devices"].push_back({{"index", d.index}, {"name", d.name}, {"software", d.software},
                                {"cuda_device", d.cuda_device ? nlohmann::json(*d.cuda_device) : nlohmann::json()}});
    if (limits.compute) {  // as the text's "limits:" line
      out["storage_block_bytes"] = limits.storage_block_bytes;
      out["work_groups"] = limits.work_groups;
    }
    if (limits.gpu_memory) out["gpu_memory"] = *limits.gpu_memory;
    if (limits.gpu_free_memory) out["gpu_free_memory"] = *limits.gpu_free_memory;
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
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
  const DeviceClass dc = device_class(info.vendor, info.renderer);
  if (dc.exact == dc.base)
    fmt::print("device class: {} (goldens looked up as {}, then the base set)\n", dc.base, dc.base);
  else
    fmt::print("device class: {} (goldens looked up as {}, then {}, then the base set)\n", dc.base, dc.exact, dc.base);
  fmt::print("GPU backend: {}\n", !limits.compute                          ? "not available (needs OpenGL 4.3)"
                                  : session.backend() == Backend::gpu      ? "available (`auto` picks it)"
                                                                           : "available (software GL: `auto` picks cpu)");
  fmt::print("sprites:     {}\n", auto_rasteriser_rule(session.context().software(), limits.compute));
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
