#include "core/glsl_constants.h"

#include <fmt/format.h>

#include "core/rng.h"

namespace fxsim {

std::string glsl_uint(const char* name, uint32_t value) { return fmt::format("const uint {} = {}u;\n", name, value); }

std::string glsl_streams() {
  return glsl_uint("kStreamBirth", uint32_t(Stream::birth)) + glsl_uint("kStreamSecondary", uint32_t(Stream::secondary)) +
         glsl_uint("kStreamTransition", uint32_t(Stream::transition));
}

}  // namespace fxsim
