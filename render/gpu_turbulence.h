#pragma once
// The wind's turbulence on the GPU: the fields of core/wind.h (velocity grids,
// built on the CPU) uploaded once each and bound to the kernels that step
// particles in the wind, which sample them with the CPU's arithmetic.
#include <list>
#include <memory>
#include <string>

#include "core/turbulence_grid.h"
#include "core/wind.h"
#include "render/compute.h"
#include "render/gpu_params.h"

namespace fxsim {

#define FXSIM_TURBULENCE_PARAMS(X) X(float, u_turbulence_strength) X(float, u_turbulence_scale)
FXSIM_GPU_PARAMS(TurbulenceParams, FXSIM_TURBULENCE_PARAMS);
constexpr unsigned kTurbulenceParamsBinding = 6;  // a uniform block binding
// Storage bindings of the field at the step's start and at the births' time.
constexpr unsigned kTurbulenceAtStepBinding = 5, kTurbulenceAtBirthBinding = 6;

// GLSL: u_turbulence_strength (0: none), and vec3 turbulence_at_step(vec3 p)
// and turbulence_at_birth(vec3 p), TurbulenceField::at on the two fields.
std::string glsl_turbulence();

class GpuTurbulence {
 public:
  GpuTurbulence();
  // Sets the kernel's turbulence parameters and binds the wind's fields at
  // the two times (a small placeholder where the wind has no turbulence).
  void bind(ComputeKernel& kernel, const WindField& wind, double step_time, double birth_time);

 private:
  const DeviceBuffer& uploaded(const std::shared_ptr<const TurbulenceField>& field);

  struct Upload {
    std::shared_ptr<const TurbulenceField> field;  // held, so its address names it while kept
    DeviceBuffer buffer;
  };
  std::list<Upload> uploads_;  // the newest last; a step needs two, the next step one of them again
  DeviceBuffer none_;
};

}  // namespace fxsim
