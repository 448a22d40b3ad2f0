#include "render/gl_session.h"

#include <algorithm>

#include <epoxy/gl.h>
#include <fmt/format.h>

#include "core/exit_codes.h"

namespace fxsim {

namespace {
bool has_compute(const EglContext& context) { return context.info().major * 10 + context.info().minor >= 43; }
}  // namespace

BackendChoice parse_backend_choice(const std::string& name) {
  if (name == "cpu") return BackendChoice::cpu;
  if (name == "gpu") return BackendChoice::gpu;
  if (name == "auto") return BackendChoice::automatic;
  throw FxError(ExitCode::usage, fmt::format("--backend {}: expected cpu, gpu or auto", name));
}

RasteriserChoice sprite_rasteriser(const std::string& name, const EglContext& context, const std::string& fill,
                                   int threads, const std::string& tile_lists, const std::string& coverage,
                                   size_t part_sprites) {
  RasteriserChoice choice;
  choice.threads = threads;
  choice.part_sprites = part_sprites;
  choice.software = context.software();
  choice.compute_shaders = has_compute(context);
  if (fill == "auto") choice.fill = FillResolution::automatic;
  else if (fill == "full") choice.fill = FillResolution::full;
  else if (fill == "half") choice.fill = FillResolution::half;
  else throw FxError(ExitCode::usage, fmt::format("--fill-resolution {}: expected auto, full or half", fill));
  if (tile_lists == "auto") choice.tile_lists = TileLists::automatic;
  else if (tile_lists == "indices") choice.tile_lists = TileLists::indices;
  else if (tile_lists == "records") choice.tile_lists = TileLists::records;
  else throw FxError(ExitCode::usage, fmt::format("--tile-lists {}: expected auto, indices or records", tile_lists));
  if (coverage == "auto") choice.coverage = Coverage::automatic;
  else if (coverage == "corners") choice.coverage = Coverage::corners;
  else if (coverage == "planes") choice.coverage = Coverage::planes;
  else throw FxError(ExitCode::usage, fmt::format("--coverage {}: expected auto, corners or planes", coverage));
  if (name == "gl") return choice;
  if (name == "cpu") {
    choice.rasteriser = SpriteRasteriser::cpu;
    return choice;
  }
  if (name != "auto" && name != "compute")
    throw FxError(ExitCode::usage, fmt::format("--rasteriser {}: expected auto, gl, compute or cpu", name));
  if (!has_compute(context)) {
    if (name == "auto") {
      choice.rasteriser = SpriteRasteriser::automatic;  // the CPU's where it is faster
      return choice;
    }
    throw FxError(ExitCode::no_gl, fmt::format("--rasteriser compute needs OpenGL 4.3 compute shaders; {} offers {}.{}",
                                               context.info().renderer, context.info().major, context.info().minor));
  }
  choice.rasteriser = name == "auto" ? SpriteRasteriser::automatic : SpriteRasteriser::compute;
  return choice;
}

void refuse_idle_compute_options(const std::string& rasteriser, const std::string& tile_lists,
                                 const std::string& coverage, int64_t part_sprites) {
  if (rasteriser != "gl" && rasteriser != "cpu") return;
  if (tile_lists != "auto")
    throw FxError(ExitCode::usage, fmt::format("--tile-lists {}: only the compute rasteriser has tile lists, and "
                                               "--rasteriser {} draws without it", tile_lists, rasteriser));
  if (coverage != "auto")
    throw FxError(ExitCode::usage, fmt::format("--coverage {}: only the compute rasteriser's blend has a choice, and "
                                               "--rasteriser {} draws without it", coverage, rasteriser));
  if (part_sprites != 0)
    throw FxError(ExitCode::usage, fmt::format("--part-sprites {}: only the compute rasteriser draws in parts, and "
                                               "--rasteriser {} draws without it", part_sprites, rasteriser));
}

Backend choose_backend(BackendChoice requested, const EglContext& context) {
  if (requested == BackendChoice::gpu) return Backend::gpu;
  if (requested == BackendChoice::automatic && !context.software() && has_compute(context)) return Backend::gpu;
  return Backend::cpu;
}

GlSession::GlSession(std::optional<int> device, BackendChoice requested)
    : context_(EglContext::create(device, requested == BackendChoice::gpu ? 4 : 3, 3)),
      backend_(choose_backend(requested, *context_)) {}

SystemFactory GlSession::system_factory() {
  if (backend_ == Backend::cpu) return {};
  if (!kernels_) kernels_.emplace();
  return gpu_system_factory(*kernels_);
}

std::string GlSession::describe() const {
  return context_->info().renderer + (backend_ == Backend::gpu ? " (GPU backend)" : " (CPU backend)");
}

GlLimits gl_limits(const EglContext& context) {
  GlLimits limits;
  limits.compute = has_compute(context);
  GLint side = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &side);
  limits.max_image_side = side;
  if (limits.compute) {
    GLint64 block = 0;
    GLint groups = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &groups);
    limits.storage_block_bytes = size_t(block);
    limits.work_groups = groups;
  }
  limits.gpu_memory = gpu_memory_bytes();
  limits.gpu_free_memory = gpu_free_memory_bytes();
  return limits;
}

size_t default_encoder_threads(int cores, Backend backend) {
  const int n = backend == Backend::gpu ? cores - 1 : cores / 2;
  return size_t(std::clamp(n, 1, 16));
}

}  // namespace fxsim
