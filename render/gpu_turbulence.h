#pragma once
// The wind's turbulence on the GPU: the slices' grids of core/wind.h (built on
// the CPU) uploaded once each, the field at a moment blended from two of them
// by a kernel (the CPU's arithmetic), and bound to the kernels that step
// particles in the wind, which sample it as TurbulenceField::at does.
#include <list>
#include <memory>
#include <string>

#include "core/turbulence_grid.h"
#include "core/wind.h"
#include "render/compute.h"
#include "render/gl_objects.h"
#include "render/gpu_params.h"

namespace fxsim {

#define FXSIM_TURBULENCE_PARAMS(X) X(float, u_turbulence_strength) X(float, u_turbulence_scale)
FXSIM_GPU_PARAMS(TurbulenceParams, FXSIM_TURBULENCE_PARAMS);
constexpr unsigned kTurbulenceParamsBinding = 6;  // a uniform block binding
// Texture units of the field at the step's start and at the births' time.
constexpr unsigned kTurbulenceAtStepUnit = 14, kTurbulenceAtBirthUnit = 15;

// GLSL: u_turbulence_strength (0: none), and vec3 turbulence_at_step(vec3 p)
// and turbulence_at_birth(vec3 p), TurbulenceField::at on the two fields.
std::string glsl_turbulence();

class GpuTurbulence {
 public:
  GpuTurbulence();
  // Sets the kernel's turbulence parameters and binds the wind's fields at
  // the two times (a small placeholder where the wind has no turbulence);
  // `threads` build the slices a new field needs (on the host, for parity
  // with the CPU's: about 40 ms of one core a slice).
  void bind(ComputeKernel& kernel, const WindField& wind, double step_time, double birth_time, ThreadPool& threads);

 private:
  const DeviceBuffer& slice(const std::shared_ptr<const std::vector<float>>& grid);
  GLuint field(const WindField::TurbulenceMoment& moment);  // its texture

  struct Slice {
    std::shared_ptr<const std::vector<float>> grid;  // held, so its address names it while kept
    DeviceBuffer buffer;
  };
  struct Field {
    WindField::TurbulenceMoment moment;
    GlTexture texture;
  };
  std::list<Slice> slices_;  // the most recently used last
  std::list<Field> fields_;  // a step needs two, the next step one of them again
  ComputeKernel blend_;
  GlTexture none_;  // a 1³ texture of zeros, bound where the wind has no turbulence
};

}  // namespace fxsim
