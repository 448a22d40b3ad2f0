#include "render/gpu_turbulence.h"

#include <fmt/format.h>

namespace fxsim {

namespace {
constexpr size_t kUploadsKept = 4;

// TurbulenceField::at over the storage array `name`, operation for operation.
std::string glsl_sampler(const std::string& function, const std::string& name) {
  return fmt::format(R"(
vec3 {0}_tap(int x, int y, int z) {{
  int i = 3 * ((z * kTurbulenceSide + y) * kTurbulenceSide + x);
  return vec3({1}[i], {1}[i + 1], {1}[i + 2]);
}}
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
layout(std430, binding = {}) readonly buffer TurbulenceAtStep {{ float turbulence_step_grid[]; }};
layout(std430, binding = {}) readonly buffer TurbulenceAtBirth {{ float turbulence_birth_grid[]; }};
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
                     kTurbulenceAtStepBinding, kTurbulenceAtBirthBinding, kTurbulenceGridSide,
                     kTurbulenceSamplesPerCell) +
         glsl_sampler("turbulence_at_step", "turbulence_step_grid") +
         glsl_sampler("turbulence_at_birth", "turbulence_birth_grid");
}

GpuTurbulence::GpuTurbulence() : none_(16, DeviceBuffer::Use::host_writes, "turbulence placeholder") {}

const DeviceBuffer& GpuTurbulence::uploaded(const std::shared_ptr<const TurbulenceField>& field) {
  for (auto it = uploads_.begin(); it != uploads_.end(); ++it)
    if (it->field == field) {
      uploads_.splice(uploads_.end(), uploads_, it);  // most recently used last
      return uploads_.back().buffer;
    }
  if (uploads_.size() == kUploadsKept) uploads_.pop_front();
  Upload& upload = uploads_.emplace_back();
  upload.field = field;
  upload.buffer.assign(field->velocities(), DeviceBuffer::Use::host_writes);
  return upload.buffer;
}

void GpuTurbulence::bind(ComputeKernel& kernel, const WindField& wind, double step_time, double birth_time) {
  TurbulenceParams params;
  params.u_turbulence_strength = wind.has_turbulence() ? wind.turbulence_strength() : 0.0f;
  params.u_turbulence_scale = wind.turbulence_scale();
  kernel.set_params(kTurbulenceParamsBinding, params);
  if (!wind.has_turbulence()) {
    kernel.bind(kTurbulenceAtStepBinding, none_);
    kernel.bind(kTurbulenceAtBirthBinding, none_);
    return;
  }
  kernel.bind(kTurbulenceAtStepBinding, uploaded(wind.turbulence_field(step_time)));
  kernel.bind(kTurbulenceAtBirthBinding, uploaded(wind.turbulence_field(birth_time)));
}

}  // namespace fxsim
