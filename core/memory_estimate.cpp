#include "core/memory_estimate.h"

#include <sys/resource.h>

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/diagnostics.h"
#include "core/exit_codes.h"
#include "core/frame_output.h"
#include "core/image.h"
#include "core/particle_system.h"
#include "core/particles.h"
#include "core/scene_parser.h"

namespace fxsim {

namespace {
// Read back, waiting in the writer's queue (2), being encoded.
constexpr size_t kImagesInFlight = 4;
}  // namespace

namespace {
// An emitter's textures' share of texture_ram_bytes: its PNGs' (decoded,
// cut up or resized, premultiplied, then given to the GL with their
// mipmaps) and the layers it makes itself (the GL's copy with mipmaps, and
// its own while a batch of emitters is made: render/renderer.cpp). 4096
// explosions' fireballs took 8 GB and ended in "out of memory" (70) where
// the estimate, counting PNGs only, had said 2.4 MB.
size_t emitter_texture_bytes(const EmitterSettings& e) {
  constexpr size_t kPerDecodedByte = 8, kPerMadeByte = 2;
  const auto decoded = [](const std::filesystem::path& file) {
    int width = 0, height = 0;
    return png_header_size(file, &width, &height) ? size_t(width) * size_t(height) * 4 : size_t(0);
  };
  size_t bytes = 0;
  if (e.is_precipitation() && !e.precipitation().textures.empty())  // each made the first one's size
    bytes += e.precipitation().textures.size() * decoded(e.precipitation().textures.front());
  if (e.is<ExplosionParams>() && e.as<ExplosionParams>().texture) bytes += decoded(*e.as<ExplosionParams>().texture);
  return bytes * kPerDecodedByte + effect_procedural_look_bytes(e) * kPerMadeByte;
}

// A particle slot's bytes in RAM: its state and the sprite built from it.
size_t slot_bytes() { return particle_bytes() + sizeof(SpriteInstance); }

// Where a scene asks for most of its memory, as a JSON pointer: the
// max_particles of the emitter with the most particle slots, or the output's
// width where its images outweigh every emitter's particles.
std::string memory_pointer(const Scene& scene) {
  // Textures that outweigh the rest: the emitter's that weigh most.
  if (const size_t textures = texture_ram_bytes(scene); textures > cpu_particle_bytes(scene) + ram_image_bytes(scene) + gl_image_bytes(scene)) {
    size_t heaviest = 0, index = 0;
    for (size_t i = 0; i < scene.emitters.size(); ++i)
      if (const size_t bytes = emitter_texture_bytes(scene.emitters[i]); bytes > heaviest) heaviest = bytes, index = i;
    // Many emitters' own pictures (fireballs, flakes), none the most: their number.
    if (heaviest < textures / 2) return "/emitters";
    return fmt::format("/emitters/{}/{}", index, scene.emitters[index].is_precipitation() ? "textures" : "texture");
  }
  size_t most = 0, largest = 0;
  for (size_t i = 0; i < scene.emitters.size(); ++i)
    if (const size_t slots = effect_slots(scene.emitters[i], scene.environment).total(); slots > most) most = slots, largest = i;
  if (most > 0 && most * slot_bytes() >= ram_image_bytes(scene) + gl_image_bytes(scene))
    return fmt::format("/emitters/{}/max_particles", largest);
  return "/output/width";
}
}  // namespace

size_t cpu_particle_bytes(const Scene& scene) {
  size_t slots = 0;
  for (const auto& e : scene.emitters) slots += effect_slots(e, scene.environment).total();
  return slots * slot_bytes();
}

size_t gl_image_bytes(const Scene& scene) {
  const size_t pixels = size_t(scene.output.width) * size_t(scene.output.height);
  // Per sample float RGBA + 24-bit depth (render/frame_target.cpp: every
  // frame is drawn in 32-bit float); per pixel the resolved and graded float
  // images and the 8-bit one read back. (At 16384² with 4 samples, counted
  // as RGBA8 this said 9.6 GB where the GL needed 21 GB: validate passed a
  // scene the render then refused.)
  const OutputSettings& o = scene.output;
  const bool layers = o.depth_layer || o.mask_layers || o.motion_layer;
  // The layers' single-sampled float target and depth, and its read-back (render/layer_target.cpp).
  return pixels * (size_t(scene.output.samples) * (16 + 4) + 16 + 16 + 4 + (layers ? 16 + 4 + 16 : 0));
}

size_t ram_image_bytes(const Scene& scene) {
  const size_t pixels = size_t(scene.output.width) * size_t(scene.output.height);
  const OutputSettings& o = scene.output;
  // Per frame in flight: the 8-bit image; the float one read back for 16
  // bits or EXR; a float a pixel for each mask and the depth, two for the
  // motion; the plate's copy. (2048², 16 emitters with every layer: 0.95 GB
  // more at the peak, measured on llvmpipe; this says 1.4 GB.)
  const bool linear = o.bit_depth == 16 || image_format_of(o.path) == ImageFormat::exr;
  const size_t layer_floats = (o.mask_layers ? scene.emitters.size() : 0) + (o.depth_layer ? 1 : 0) +
                              (o.motion_layer ? 2 : 0);
  const size_t per_frame = 4 + (linear ? 16 : 0) + layer_floats * 4 + (o.plate_layer ? 4 : 0);
  return pixels * (per_frame * kImagesInFlight + 4);  // + the PNG being built, at most about an image's size
}

size_t texture_ram_bytes(const Scene& scene) {
  size_t bytes = 0;
  for (const EmitterSettings& e : scene.emitters) bytes += emitter_texture_bytes(e);
  return bytes;
}

size_t available_ram_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    size_t kilobytes = 0;
    if (fields >> key >> kilobytes && key == "MemAvailable:") return kilobytes * 1024;
  }
  return size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGE_SIZE));
}

SceneError memory_refusal(const Scene& scene, const std::string& message) {
  return SceneError({locate_scene_problem(scene, memory_pointer(scene), message)}, 1);
}

void check_ram(const Scene& scene, size_t needed, const std::string& hint) {
  // An address-space limit (ulimit -v) counts too: the GL driver, the
  // threads' stacks and malloc's arenas take about 1 GiB of it before any
  // particle (llvmpipe on 2 cores: 880 MB at the peak of a small render),
  // and where one of its allocations failed Mesa hung or crashed.
  constexpr size_t kDriverAndThreads = size_t(1) << 30;
  if (rlimit limit{}; ::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const size_t room = limit.rlim_cur > kDriverAndThreads ? size_t(limit.rlim_cur) - kDriverAndThreads : 0;
    if (needed > room)
      throw memory_refusal(scene, fmt::format("the render needs about {} of memory (particles, images and textures), but "
                                                      "the address-space limit (ulimit -v) of {} leaves {} once the "
                                                      "GL driver and the threads have about {} (raise the limit, or "
                                                      "lower max_particles or the image size)",
                                                      format_bytes(double(needed)), format_bytes(double(limit.rlim_cur)),
                                                      format_bytes(double(room)), format_bytes(double(kDriverAndThreads))));
  }
  const size_t available = available_ram_bytes();
  if (double(needed) <= 0.9 * double(available)) return;
  throw memory_refusal(scene, fmt::format("the render needs about {} of memory (particles, images and textures), but "
                                                  "only {} is available (lower max_particles or the image size{})",
                                                  format_bytes(double(needed)), format_bytes(double(available)), hint));
}

std::string format_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.0f} kB", bytes / 1e3);
}

}  // namespace fxsim
