#pragma once
// GLSL shared by the compute shaders of the GPU backend, written to compute
// the same things as the C++ core, operation for operation: the particle
// field accessors (generated from FXSIM_PARTICLE_FIELDS), Philox4x32-10 and its
// unit conversions (core/rng.h) and the exact drag step (core/motion.h); the
// turbulence a kernel samples is in render/gpu_turbulence.h. What cannot be bit-identical is said in
// docs/gpu-backend.md: sin/cos/exp/floor come from the GPU's own maths.
#include <string>

#include "render/gpu_params.h"

namespace fxsim {

// "#version 430", the launch values (render/compute.h) and the shared functions.
std::string glsl_prelude();
// Accessors for the particle page `name` (P, S or M: its capacity and base are
// in the launch values) bound at `binding`: P_get_px(i), P_set_position(i, p) etc.
std::string glsl_particle_block(const std::string& name, int binding);

}  // namespace fxsim
