#include "render/plate_pass.h"

#include <cmath>
#include <set>
#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>
#include <stb_image.h>

#include "core/exit_codes.h"
#include "core/exr_file.h"
#include "core/frame_output.h"
#include "core/image.h"
#include "core/scene_parser.h"
#include "render/gl_checks.h"
#include "render/shader.h"

namespace fxsim {

namespace {
constexpr const char* kPlateVertexShader = R"(#version 330 core
out vec2 v_uv;
void main() {  // one triangle covering the viewport
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  v_uv = vec2(p.x, 1.0 - p.y);  // images' rows run top to bottom
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
)";

constexpr const char* kPlateFragmentShader = R"(#version 330 core
uniform sampler2D u_plate;  // linear rgb (an sRGB texture is decoded by the sampler)
uniform sampler2D u_depth;  // metres along the view; 0 or +inf: nothing
uniform bool u_has_depth;
uniform float u_p22, u_p32;  // the projection's depth terms
in vec2 v_uv;
out vec4 out_color;
void main() {
  out_color = vec4(texture(u_plate, v_uv).rgb, 1.0);
  float d = u_has_depth ? texture(u_depth, v_uv).r : 0.0;
  if (d > 0.0 && d < 3.0e38) {
    float ndc = (u_p22 * -d + u_p32) / d;
    gl_FragDepth = clamp(ndc * 0.5 + 0.5, 0.0, 1.0);
  } else {
    gl_FragDepth = 1.0;
  }
}
)";

std::filesystem::path plate_file(const std::filesystem::path& pattern, int frame) {
  return frame_path(pattern.string(), frame);
}

// A plate's colour as linear float RGBA. PNGs are decoded here, not by an
// sRGB texture: the GL's decode may be approximate (llvmpipe's put an 8-bit
// plate up to 77/65535 off in 16-bit frames) and has 8 bits only (a 16-bit
// plate, cut to 8 by truncation, came out a level darker than itself).
struct PlateImage {
  int width = 0, height = 0;
  std::vector<float> floats;  // linear RGBA, rows top to bottom
};

// The sRGB curve for every 16-bit sample (an 8-bit one is v × 257), in double.
const std::vector<float>& srgb16_to_linear() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (size_t i = 0; i < t.size(); ++i) {
      const double c = double(i) / 65535.0;
      t[i] = float(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
    }
    return t;
  }();
  return table;
}

// A plate that is there but cannot be used (not an image, cut short, without
// the channels wanted) is an invalid scene, as a texture is (65); one that is
// missing or unreadable is a missing input (66).
ExitCode problem_code(const std::filesystem::path& file) {
  return is_readable_file(file) ? ExitCode::invalid_scene : ExitCode::input_missing;
}

ExrChannels read_plate_exr(const std::filesystem::path& file) {
  try {
    return read_exr(file);
  } catch (const FxError& e) {
    throw FxError(problem_code(file), e.what());
  }
}

PlateImage load_plate(const std::filesystem::path& file) {
  PlateImage p;
  if (image_format_of(file.string()) == ImageFormat::exr) {
    const ExrChannels exr = read_plate_exr(file);
    p.width = exr.width, p.height = exr.height;
    p.floats.assign(size_t(p.width) * size_t(p.height) * 4, 1.0f);
    for (int c = 0; c < 3; ++c) {
      const auto it = exr.channels.find(std::string(1, "RGB"[c]));
      if (it == exr.channels.end())
        throw FxError(ExitCode::invalid_scene, fmt::format("{}: the plate has no {} channel", file.string(), "RGB"[c]));
      for (size_t i = 0; i < it->second.size(); ++i) p.floats[i * 4 + size_t(c)] = it->second[i];
    }
    return p;
  }
  Samples16 image;
  try {
    if (png_bit_depth(file) == 16) {
      image = read_png16(file, 4, PngUse::frame);
    } else {
      const Image bytes = read_png(file, PngUse::frame);
      image.width = bytes.width, image.height = bytes.height;
      image.samples.resize(bytes.rgba.size());
      for (size_t i = 0; i < bytes.rgba.size(); ++i) image.samples[i] = uint16_t(bytes.rgba[i] * 257u);
    }
  } catch (const FxError& e) {
    throw FxError(problem_code(file), e.what());
  }
  p.width = image.width, p.height = image.height;
  const std::vector<float>& linear = srgb16_to_linear();
  p.floats.resize(image.samples.size());
  for (size_t i = 0; i < image.samples.size(); ++i)
    p.floats[i] = i % 4 == 3 ? float(image.samples[i]) / 65535.0f : linear[image.samples[i]];
  return p;
}

// Depth in metres, one float a pixel, rows top to bottom.
std::vector<float> load_depth(const std::filesystem::path& file, int& width, int& height) {
  if (image_format_of(file.string()) == ImageFormat::exr) {
    const ExrChannels exr = read_plate_exr(file);
    width = exr.width, height = exr.height;
    for (const char* name : {"Z", "depth.Z", "R"})
      if (const auto it = exr.channels.find(name); it != exr.channels.end()) return it->second;
    throw FxError(ExitCode::invalid_scene, fmt::format("{}: the depth plate has no Z channel", file.string()));
  }
  // A 16-bit PNG in millimetres (8-bit PNGs cannot hold a useful range: refused).
  Samples16 mm;
  try {
    mm = read_png16(file, 4, PngUse::frame);  // grey comes as R = G = B
  } catch (const FxError& e) {
    throw FxError(problem_code(file),
                  fmt::format("{} (a depth plate is an EXR with a Z channel or a 16-bit grey PNG in millimetres)",
                              e.what()));
  }
  width = mm.width, height = mm.height;
  std::vector<float> metres(mm.samples.size() / 4);
  for (size_t i = 0; i < metres.size(); ++i) {
    const uint16_t* rgba = &mm.samples[i * 4];
    if (rgba[0] != rgba[1] || rgba[0] != rgba[2])  // (stb would have made a luminance of colour)
      throw FxError(ExitCode::invalid_scene,
                    fmt::format("{}: pixel ({}, {}) has R, G and B {}, {}, {}; a depth PNG holds millimetres in one "
                                "grey channel (or the same in R, G and B)", file.string(), i % size_t(width),
                                i / size_t(width), rgba[0], rgba[1], rgba[2]));
    metres[i] = float(rgba[0]) / 1000.0f;
  }
  return metres;
}

void check_size(const std::filesystem::path& file, int frame, int width, int height, const OutputSettings& output) {
  if (width != output.width || height != output.height)
    throw FxError(ExitCode::invalid_scene,
                  fmt::format("{}: the plate of frame {} is {}x{}, the output {}x{}; plates must have the output's size",
                              file.string(), frame, width, height, output.width, output.height));
}

void require_file(const std::filesystem::path& file, int frame, const char* what) {
  if (!std::filesystem::is_regular_file(file))
    throw FxError(ExitCode::input_missing, fmt::format("{}: no {} for frame {}", file.string(), what, frame));
}
}  // namespace

void check_plates(const Scene& scene, const std::vector<int>& frames) {
  const OutputSettings& output = scene.output;
  if (!output.has_plate_pass()) return;
  // A problem is located at the value that names the file, as a scene's are.
  const char* pointer = "/output/plate";
  try {
    std::set<std::filesystem::path> checked;  // a still plate serves every frame: checked once
    for (const int frame : frames) {
      const auto file = plate_file(output.plate, frame);
      const auto depth = plate_file(output.plate_depth, frame);
      if (!checked.insert(file.string() + "\n" + depth.string()).second) continue;
      int w = 0, h = 0;
      if (!output.plate.empty()) {
        pointer = "/output/plate";
        require_file(file, frame, "plate");
        if (image_format_of(file.string()) == ImageFormat::png) {
          if (const std::string problem = png_problem(file, &w, &h, PngUse::frame); !problem.empty())
            throw FxError(problem_code(file), fmt::format("{}: the plate of frame {}: {}", file.string(), frame, problem));
        } else {
          const PlateImage p = load_plate(file);
          w = p.width, h = p.height;
        }
        check_size(file, frame, w, h, output);
      }
      if (output.plate_depth.empty()) continue;
      pointer = "/output/plate_depth";
      require_file(depth, frame, "depth plate");
      load_depth(depth, w, h);
      check_size(depth, frame, w, h, output);
    }
  } catch (const FxError& e) {
    // A scene problem as the parser's are: located, counted; 66 for a missing file.
    throw SceneError({locate_scene_problem(scene, pointer, e.what())}, 1, e.code() == ExitCode::input_missing);
  }
}

PlatePass::PlatePass()
    : program_(link_program(kPlateVertexShader, kPlateFragmentShader)), vao_(gl_gen(glGenVertexArrays)) {}

void PlatePass::load(const OutputSettings& output, int frame) {
  const std::filesystem::path file = output.plate.empty() ? "" : plate_file(output.plate, frame);
  // A still plate (no '#') is decoded and uploaded once, not every frame.
  const std::filesystem::path depth_file = output.plate_depth.empty() ? "" : plate_file(output.plate_depth, frame);
  // (Called only with a plate or a depth: the first call never matches the empty paths.)
  if (file == loaded_ && depth_file == loaded_depth_) return;
  // Hashed before they are read: a file changed in between is recorded as it was.
  digests_ = {file.empty() ? "" : InputDigest::file_digest(file.string()),
              depth_file.empty() ? "" : InputDigest::file_digest(depth_file.string())};
  has_colour_ = !output.plate.empty();
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  if (has_colour_) {
    const PlateImage plate = load_plate(file);
    check_size(file, frame, plate.width, plate.height, output);
    if (!color_.get()) color_ = GlTexture(gl_gen(glGenTextures));
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, color_.get());
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, plate.width, plate.height, 0, GL_RGBA, GL_FLOAT, plate.floats.data());
    for (const GLenum p : {GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER}) glTexParameteri(GL_TEXTURE_2D, p, GL_NEAREST);
  }
  has_depth_ = !output.plate_depth.empty();
  if (has_depth_) {
    int w = 0, h = 0;
    const std::vector<float> depth = load_depth(depth_file, w, h);
    check_size(depth_file, frame, w, h, output);
    if (!depth_.get()) depth_ = GlTexture(gl_gen(glGenTextures));
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, depth_.get());
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, w, h, 0, GL_RED, GL_FLOAT, depth.data());
    for (const GLenum p : {GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER}) glTexParameteri(GL_TEXTURE_2D, p, GL_NEAREST);
  }
  glActiveTexture(GL_TEXTURE0);
  check_gl(fmt::format("loading the plate of frame {}", frame));
  loaded_ = file;
  loaded_depth_ = depth_file;
}

void PlatePass::draw(const CameraPose& camera, float aspect) {
  const glm::mat4 projection = camera.projection(aspect);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, color_.get());
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, has_depth_ ? depth_.get() : 0);
  glUseProgram(program_.get());
  glUniform1i(uniform(program_, "u_plate"), 0);
  glUniform1i(uniform(program_, "u_depth"), 1);
  glUniform1i(uniform(program_, "u_has_depth"), has_depth_);
  glUniform1f(uniform(program_, "u_p22"), projection[2][2]);
  glUniform1f(uniform(program_, "u_p32"), projection[3][2]);
  if (!has_colour_) glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);  // a depth alone: a holdout
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_ALWAYS);  // the plate sets the depth; it is drawn first
  glDepthMask(GL_TRUE);
  glBindVertexArray(vao_.get());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  if (!has_colour_) glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glDepthFunc(GL_LESS);
  glActiveTexture(GL_TEXTURE0);
}

}  // namespace fxsim
