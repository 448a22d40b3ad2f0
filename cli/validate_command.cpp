// validate: the verdict render would give, without GL: every problem of the
// scene (textures and plates opened and decoded too), then whether a video
// output's encoder is installed and the render fits in the memory this
// machine has free.
#include <cstdio>
#include <numeric>
#include <vector>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/progress.h"
#include "core/diagnostics.h"
#include "core/effects/registry.h"
#include "core/memory_estimate.h"
#include "core/scene_parser.h"
#include "render/plate_pass.h"
#include "render/video_sink.h"

namespace fxsim {

std::string scene_name(const std::string& argument) { return argument == "-" ? "<stdin>" : argument; }

int run_validate(const std::string& scene_argument, const std::string& backend, const RenderOptions& overrides) {
  const std::string scene_file = scene_name(scene_argument);
  try {
    const Scene scene = parse_scene_file(scene_argument, scene_overrides(overrides));
    report_scene_warnings(scene, scene_file);
    // Every plate frame the whole scene needs, as render checks those it
    // draws: present (66) and of the output's size (65). No GL is touched.
    // (A still plate serves every frame: checked once.)
    const bool sequence = scene.output.plate.string().find('#') != std::string::npos ||
                          scene.output.plate_depth.string().find('#') != std::string::npos;
    std::vector<int> frames(sequence ? size_t(scene.output.frames) : 1);
    std::iota(frames.begin(), frames.end(), 1);
    check_plates(scene, frames);
    // A video needs ffmpeg and its encoder here, as render checks (72).
    if (const auto video = video_format_of(scene.output.path)) check_video_encoder(scene.output.path, *video);
    // Without GL the GPU's memory is unknown: with --backend gpu, only what
    // stays in RAM is checked here (render checks the GPU's free memory).
    const size_t ram = ram_image_bytes(scene) + texture_ram_bytes(scene) +
                       (backend == "gpu" ? 0 : cpu_particle_bytes(scene) + gl_image_bytes(scene));
    check_ram(scene, ram, backend == "gpu" ? "" : ", or check with --backend gpu for a GPU render");
    // Slots: the most particles that can be live at once (max_particles, and
    // the secondaries' pools: splashes, mist, embers, debris). render and its
    // progress count live particles, secondaries included, out of these.
    size_t primary = 0, all = 0;
    for (const auto& e : scene.emitters) {
      const SlotPlan plan = effect_slots(e, scene.environment);
      primary += plan.particles;
      all += plan.total();
    }
    const std::string slots = all == primary ? fmt::format("{} particle slots", primary)
                                             : fmt::format("{} particle slots + {} for secondaries (splashes, mist, "
                                                           "embers, debris)", primary, all - primary);
    fmt::print("{}: ok ({} emitter{}, {}, {} frame{} at {} fps, {}x{}; about {} of memory on the {} backend)\n",
               scene_file, scene.emitters.size(), scene.emitters.size() == 1 ? "" : "s", slots, scene.output.frames,
               scene.output.frames == 1 ? "" : "s", scene.output.fps, scene.output.width, scene.output.height, format_bytes(double(ram)),
               backend == "gpu" ? "GPU (in RAM)" : "CPU");
    return 0;
  } catch (const SceneError& e) {
    return report_scene_error(e, scene_file);
  }
}

void report_scene_warnings(const Scene& scene, const std::string& scene_argument) {
  for (const std::string& w : scene.warnings) warn(fmt::format("{}: {}", scene_name(scene_argument), w));
}

int report_scene_error(const SceneError& e, const std::string& scene_argument) {
  const std::string scene_file = scene_name(scene_argument);
  std::string text;
  for (const auto& line : e.lines()) text += line + "\n";
  text += fmt::format("{}: {} problem{}", scene_file, e.total(), e.total() == 1 ? "" : "s");
  if (report_error_as_json(text, int(e.code()))) return int(e.code());
  for (const auto& line : e.lines()) std::fprintf(stderr, "%s\n", line.c_str());
  std::fprintf(stderr, "%s: %zu problem%s\n", scene_file.c_str(), e.total(), e.total() == 1 ? "" : "s");
  return int(e.code());
}

}  // namespace fxsim
