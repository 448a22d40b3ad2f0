#include "render/parts_front_to_back.h"

#include <fmt/format.h>
#include <algorithm>

#include "render/shader.h"

namespace fxsim {

namespace {
// A work group a tile (tiles beyond 65 535 groups: the groups loop), an
// invocation a pixel: the carried light gets the part's behind it, and a
// pixel still letting light through marks its tile open.
std::string behind_source(int tile) {
  return "#version 430\n" + glsl_launch_block() +
         fmt::format("#define FXSIM_TILE {}\n#define FXSIM_OPAQUE_BELOW {}\nlayout(local_size_x = {}) in;\n", tile,
                     kOpaqueBelowGlsl, tile * tile) + R"(
layout(rgba32f, binding = 0) readonly uniform image2D u_layer;  // the part's: colour, coverage
layout(rgba32f, binding = 1) uniform image2D u_carry;           // colour gathered, coverage
layout(std430, binding = 9) buffer Open { uint open[]; };       // cleared before: 0 a tile
uniform ivec2 u_size;
uniform bool u_front;  // the front part: nothing carried yet
void main() {
  uint across = uint(u_size.x + FXSIM_TILE - 1) / uint(FXSIM_TILE);
  uvec2 within = uvec2(gl_LocalInvocationIndex % uint(FXSIM_TILE), gl_LocalInvocationIndex / uint(FXSIM_TILE));
  for (uint t = gl_WorkGroupID.x; t < u_count; t += gl_NumWorkGroups.x) {
    ivec2 pixel = ivec2(uvec2(t % across, t / across) * uint(FXSIM_TILE) + within);
    if (pixel.x >= u_size.x || pixel.y >= u_size.y) continue;
    vec4 carried = u_front ? vec4(0.0) : imageLoad(u_carry, pixel), part = imageLoad(u_layer, pixel);
    precise float before = 1.0 - carried.a;  // the share of the light behind let through so far
    precise vec3 gathered = carried.rgb + part.rgb * before;
    precise float through = before * (1.0 - part.a);
    imageStore(u_carry, pixel, vec4(gathered, 1.0 - through));
    if (through >= FXSIM_OPAQUE_BELOW) atomicOr(open[t], 1u);
  }
}
)";
}

}  // namespace

PartsFrontToBack::PartsFrontToBack()
    : open_(16, DeviceBuffer::Use::kernels, "the open tiles of a batch drawn in parts"),
      behind_(behind_source(kTile)) {}

void PartsFrontToBack::begin(int width, int height) {
  carried_.texture(width, height);
  width_ = width;
  height_ = height;
  first_ = true;  // add_behind() starts from nothing: no clear
  tiles_ = size_t((width + kTile - 1) / kTile) * size_t((height + kTile - 1) / kTile);
  open_.reserve(tiles_ * 4, DeviceBuffer::Use::kernels, "the open tiles of a batch drawn in parts");
}

void PartsFrontToBack::add_behind(GLuint layer) {
  glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);  // the blend's and the merge's stores to the layer
  glUseProgram(behind_.program().get());
  glUniform2i(uniform(behind_.program(), "u_size"), width_, height_);
  glUniform1i(uniform(behind_.program(), "u_front"), first_);
  first_ = false;
  glBindImageTexture(0, layer, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
  glBindImageTexture(1, carried_.texture(width_, height_), 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
  open_.fill(0, 0, tiles_ * 4);
  behind_.bind(9, open_);
  behind_.dispatch(tiles_, std::min<size_t>(tiles_, 65535));
  glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT);
}

}  // namespace fxsim
