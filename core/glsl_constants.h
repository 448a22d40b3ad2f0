#pragma once
// Constants that the CPU code and the compute shaders must agree on (random
// draw numbers, streams), declared once in C++ as lists and written into the
// GLSL sources from those lists, so neither side repeats a literal.
#include <cstdint>
#include <string>

// For a list macro LIST(X): `enum E : uint32_t { LIST(FXSIM_ENUMERATOR) };`
#define FXSIM_ENUMERATOR(name) name,
// … and `std::string glsl = LIST(FXSIM_GLSL_CONSTANT) "";`
#define FXSIM_GLSL_CONSTANT(name) + ::fxsim::glsl_uint(#name, uint32_t(name))

namespace fxsim {

// "const uint name = 7u;\n"
std::string glsl_uint(const char* name, uint32_t value);

// The random streams (core/rng.h Stream) as GLSL constants kStreamBirth, ….
std::string glsl_streams();

}  // namespace fxsim
