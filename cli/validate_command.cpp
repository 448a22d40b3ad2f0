#include <cstdio>
#include <fmt/format.h>

#include "cli/commands.h"
#include "core/diagnostics.h"
#include "core/scene_parser.h"

namespace fxsim {

int run_validate(const std::string& scene_file) {
  try {
    const Scene scene = parse_scene_file(scene_file);
    int64_t particles = 0;
    for (const auto& e : scene.emitters) particles += e.max_particles;
    fmt::print("{}: ok ({} emitter{}, up to {} particles, {} frames at {} fps, {}x{})\n", scene_file,
               scene.emitters.size(), scene.emitters.size() == 1 ? "" : "s", particles, scene.output.frames,
               scene.output.fps, scene.output.width, scene.output.height);
    return 0;
  } catch (const SceneError& e) {
    for (const auto& line : e.lines()) std::fprintf(stderr, "%s\n", line.c_str());
    std::fprintf(stderr, "%s: %zu problem%s\n", scene_file.c_str(), e.total(), e.total() == 1 ? "" : "s");
    return int(e.code());
  }
}

}  // namespace fxsim
