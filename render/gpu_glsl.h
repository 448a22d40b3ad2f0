#pragma once
// GLSL shared by the compute shaders of the GPU backend, written to compute
// the same things as the C++ core, operation for operation: the particle
// field accessors (generated from FXSIM_PARTICLE_FIELDS), Philox4x32-10 and its
// unit conversions (core/rng.h), the lattice hash and gradient noise
// (core/noise.cpp), curl-noise turbulence (core/wind.cpp) and the exact drag
// step (core/motion.h). What cannot be bit-identical is said in
// docs/gpu-backend.md: sin/cos/exp/floor come from the GPU's own maths.
#include <string>

namespace fxsim {

// "#version 430" and the shared functions. `buffers` declares the particle
// storage blocks the shader uses: accessors get_F(b, i) / set_F(b, i, v) are
// generated for each block named in the list, bound at the binding given.
std::string glsl_prelude();
// Accessors for a storage block `Name` at `binding`: Name_get_px(i) etc.
std::string glsl_particle_block(const std::string& name, int binding);

}  // namespace fxsim
