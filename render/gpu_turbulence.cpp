#include "render/gpu_turbulence.h"

#include <fmt/format.h>

#include "render/gl_checks.h"
#include "render/gpu_glsl.h"

namespace fxsim {

namespace {
constexpr size_t kSlicesKept = 3, kFieldsKept = 4;

#define FXSIM_TURBULENCE_BLEND_PARAMS(X) X(float, u_blend) X(float, u_gain)
FXSIM_GPU_PARAMS(TurbulenceBlendParams, FXSIM_TURBULENCE_BLEND_PARAMS);

// TurbulenceField::blend_rows, float by float.
std::string turbulence_blend_source() {
  return glsl_prelude() + TurbulenceBlendParams::glsl(0) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer From { vec4 from_grid[]; };
layout(std430, binding = 1) readonly buffer To { vec4 to_grid[]; };
layout(rgba32f, binding = 0) uniform writeonly image3D u_field;
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  const uint side = )" + std::to_string(kTurbulenceGridSide) + R"(u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    precise vec4 r = (from_grid[i] + (to_grid[i] - from_grid[i]) * u_blend) * u_gain;
    imageStore(u_field, ivec3(i % side, (i / side) % side, i / (side * side)), r);
  }
}
)";
}

// TurbulenceField::at over the storage array `name`, operation for operation.
std::string glsl_sampler(const std::string& function, const std::string& name) {
  return fmt::format(R"(
vec3 {0}_tap(int x, int y, int z) {{ return texelFetch({1}, ivec3(x, y, z), 0).xyz; }}
vec3 {0}(vec3 p) {{
  precise vec3 q = p / u_turbulence_scale;
  precise vec3 g = q * kTurbulenceSamplesPerCell;
  int x0, y0, z0;
  float fx, fy, fz;
  turbulence_axis(g.x, x0, fx);
  turbulence_axis(g.y, y0, fy);
  turbulence_axis(g.z, z0, fz);
  int x1 = (x0 + 1) & (kTurbulenceSide - 1), y1 = (y0 + 1) & (kTurbulenceSide - 1), z1 = (z0 + 1) & (kTurbulenceSide - 1);
  vec3 x00 = turbulence_lerp({0}_tap(x0, y0, z0), {0}_tap(x1, y0, z0), fx);
  vec3 x10 = turbulence_lerp({0}_tap(x0, y1, z0), {0}_tap(x1, y1, z0), fx);
  vec3 x01 = turbulence_lerp({0}_tap(x0, y0, z1), {0}_tap(x1, y0, z1), fx);
  vec3 x11 = turbulence_lerp({0}_tap(x0, y1, z1), {0}_tap(x1, y1, z1), fx);
  return turbulence_lerp(turbulence_lerp(x00, x10, fy), turbulence_lerp(x01, x11, fy), fz);
}}
)",
                     function, name);
}
}  // namespace

std::string glsl_turbulence() {
  return TurbulenceParams::glsl(kTurbulenceParamsBinding) +
         fmt::format(R"(
// ---- core/turbulence_grid.cpp: TurbulenceField::at ------------------------------
layout(binding = {}) uniform sampler3D turbulence_step_grid;
layout(binding = {}) uniform sampler3D turbulence_birth_grid;
const int kTurbulenceSide = {};
const float kTurbulenceSamplesPerCell = {}.0;
void turbulence_axis(float x, out int index, out float fraction) {{
  if (isnan(x) || isinf(x)) {{ index = 0; fraction = 0.0; return; }}
  float cell = floor(x);
  precise float f = x - cell;
  precise float wrapped = cell - float(kTurbulenceSide) * floor(cell * (1.0 / float(kTurbulenceSide)));
  index = int(wrapped) & (kTurbulenceSide - 1);
  fraction = f;
}}
vec3 turbulence_lerp(vec3 a, vec3 b, float f) {{ precise vec3 r = a + (b - a) * f; return r; }}
)",
                     kTurbulenceAtStepUnit, kTurbulenceAtBirthUnit, kTurbulenceGridSide,
                     kTurbulenceSamplesPerCell) +
         glsl_sampler("turbulence_at_step", "turbulence_step_grid") +
         glsl_sampler("turbulence_at_birth", "turbulence_birth_grid");
}

static_assert(kTurbulencePointFloats == 4, "the GLSL reads a grid point as a vec4");

namespace {
// A side³ RGBA32F texture read with texelFetch (a 3-D texture's layout keeps
// a point's neighbours in all three axes close in memory, unlike a buffer's rows).
GlTexture new_field_texture(int side) {
  GlTexture texture(gl_gen(glGenTextures));
  glBindTexture(GL_TEXTURE_3D, texture.get());
  glTexStorage3D(GL_TEXTURE_3D, 1, GL_RGBA32F, side, side, side);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  if (side == 1) {
    const float zero[4] = {0, 0, 0, 0};
    glTexSubImage3D(GL_TEXTURE_3D, 0, 0, 0, 0, 1, 1, 1, GL_RGBA, GL_FLOAT, zero);
  }
  check_gl("allocating a turbulence field");
  glBindTexture(GL_TEXTURE_3D, 0);
  return texture;
}

}  // namespace

GpuTurbulence::GpuTurbulence()
    : blend_(turbulence_blend_source()), none_(new_field_texture(1)) {}

const DeviceBuffer& GpuTurbulence::slice(const std::shared_ptr<const std::vector<float>>& grid) {
  for (auto it = slices_.begin(); it != slices_.end(); ++it)
    if (it->grid == grid) {
      slices_.splice(slices_.end(), slices_, it);
      return slices_.back().buffer;
    }
  if (slices_.size() == kSlicesKept) slices_.pop_front();
  Slice& added = slices_.emplace_back();
  added.grid = grid;
  added.buffer.assign(*grid, DeviceBuffer::Use::host_writes);
  return added.buffer;
}

GLuint GpuTurbulence::field(const WindField::TurbulenceMoment& moment) {
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    const WindField::TurbulenceMoment& m = it->moment;
    if (m.from == moment.from && m.to == moment.to && m.blend == moment.blend && m.gain == moment.gain) {
      fields_.splice(fields_.end(), fields_, it);
      return fields_.back().texture.get();
    }
  }
  const DeviceBuffer& from = slice(moment.from);
  const DeviceBuffer& to = slice(moment.to);
  if (fields_.size() == kFieldsKept) fields_.pop_front();
  Field& added = fields_.emplace_back();
  added.moment = moment;
  added.texture = new_field_texture(kTurbulenceGridSide);
  blend_.bind(0, from);
  blend_.bind(1, to);
  glBindImageTexture(0, added.texture.get(), 0, GL_TRUE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  TurbulenceBlendParams params;
  params.u_blend = moment.blend;
  params.u_gain = moment.gain;
  blend_.set_params(0, params);
  blend_.dispatch(kTurbulenceGridPoints);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
  // The CPU waits here for the blend and everything queued before it: on the
  // H200 (NVIDIA 580) the memory barriers alone (every bit), or a fence the
  // GPU waits on, left the steps after a blend reading stale data, both the
  // field's texels and the births the first pool of the step had just
  // scattered, and battlefield.json's state differed from run to run
  // (docs/gpu-backend.md). This costs one drain of the queue per new field,
  // about one a step in a turbulent wind.
  wait_for_gl("blending a turbulence field");
  return added.texture.get();
}

void GpuTurbulence::bind(ComputeKernel& kernel, const WindField& wind, double step_time, double birth_time,
                         ThreadPool& threads) {
  TurbulenceParams params;
  params.u_turbulence_strength = wind.has_turbulence() ? wind.turbulence_strength() : 0.0f;
  params.u_turbulence_scale = wind.turbulence_scale();
  kernel.set_params(kTurbulenceParamsBinding, params);
  const GLuint at_step = wind.has_turbulence() ? field(wind.turbulence_moment(step_time, &threads)) : none_.get();
  const GLuint at_birth = wind.has_turbulence() ? field(wind.turbulence_moment(birth_time, &threads)) : none_.get();
  // Texture units of their own: nothing else binds them between here and the dispatch.
  glActiveTexture(GL_TEXTURE0 + kTurbulenceAtStepUnit);
  glBindTexture(GL_TEXTURE_3D, at_step);
  glActiveTexture(GL_TEXTURE0 + kTurbulenceAtBirthUnit);
  glBindTexture(GL_TEXTURE_3D, at_birth);
  glActiveTexture(GL_TEXTURE0);
}

}  // namespace fxsim
