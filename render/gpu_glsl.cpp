#include "render/gpu_glsl.h"

#include <fmt/format.h>
#include <type_traits>

#include "core/exit_codes.h"
#include "core/particles.h"
#include "render/compute.h"

namespace fxsim {

std::string glsl_particle_block(const std::string& name, int binding) {
  // The page's capacity (the field stride) and base slot are launch values.
  if (name != "P" && name != "S" && name != "M")
    throw FxError(ExitCode::internal, "particle blocks are named P, S or M (the launch values' pages)");
  std::string out = fmt::format("layout(std430, binding = {0}) buffer {1}Block {{ uint {1}_words[]; }};\n", binding, name);
  int field = 0;
#define FXSIM_GLSL_FIELD(type, field_name, what)                                                            \
  {                                                                                                         \
    const bool is_float = std::is_same_v<type, float>;                                                      \
    const std::string glsl_type = is_float ? "float" : "uint";                                              \
    const std::string load = is_float ? "uintBitsToFloat(" : "(";                                           \
    const std::string store = is_float ? "floatBitsToUint(v)" : "v";                                        \
    out += fmt::format("{0} {1}_get_" #field_name "(uint i) {{ return {2}{1}_words[{3}u * {1}_capacity + i]); }}\n", \
                       glsl_type, name, load, field);                                                       \
    out += fmt::format("void {1}_set_" #field_name "(uint i, {0} v) {{ {1}_words[{3}u * {1}_capacity + i] = {2}; }}\n", \
                       glsl_type, name, store, field);                                                      \
    ++field;                                                                                                \
  }
  FXSIM_PARTICLE_FIELDS(FXSIM_GLSL_FIELD)
#undef FXSIM_GLSL_FIELD
  out += fmt::format(
      "vec3 {0}_position(uint i) {{ return vec3({0}_get_px(i), {0}_get_py(i), {0}_get_pz(i)); }}\n"
      "vec3 {0}_velocity(uint i) {{ return vec3({0}_get_vx(i), {0}_get_vy(i), {0}_get_vz(i)); }}\n"
      "void {0}_set_position(uint i, vec3 p) {{ {0}_set_px(i, p.x); {0}_set_py(i, p.y); {0}_set_pz(i, p.z); }}\n"
      "void {0}_set_velocity(uint i, vec3 v) {{ {0}_set_vx(i, v.x); {0}_set_vy(i, v.y); {0}_set_vz(i, v.z); }}\n",
      name);
  return out;
}

std::string glsl_prelude() {
  return "#version 430\n" + glsl_launch_block() + R"(
// Every result of this file is written with `precise` where the C++ core
// computes it without fused multiply-add (it is built with -ffp-contract=off).

// ---- core/rng.h: Philox4x32-10 -----------------------------------------------
uvec4 philox4x32(uvec4 ctr, uvec2 key) {
  for (int round = 0; round < 10; ++round) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, ctr.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, ctr.z, hi1, lo1);
    ctr = uvec4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
    key += uvec2(0x9E3779B9u, 0xBB67AE85u);
  }
  return ctr;
}
// RandomDraws(seed, emitter, stream, index).bits(draw)
uint draw_bits(uvec2 seed, uint emitter, uint stream, uint index_lo, uint index_hi, uint draw) {
  uvec4 out4 = philox4x32(uvec4(index_lo, index_hi, draw >> 2, (emitter << 8) ^ stream), seed);
  uint lane = draw & 3u;
  return lane == 0u ? out4.x : lane == 1u ? out4.y : lane == 2u ? out4.z : out4.w;
}
float to_unit(uint bits) { return float(bits >> 8) * (1.0 / 16777216.0); }
float to_signed(uint bits) { precise float x = (float(bits >> 9) + 0.5) * (1.0 / 4194304.0) - 1.0; return x; }

// ---- core/motion.h: DragStep ---------------------------------------------------
struct DragStep { vec3 gravity; float drag, dt, e, relax; vec3 fall; };
void drag_step(DragStep s, inout vec3 p, inout vec3 v, vec3 wind) {
  if (s.drag <= 0.0) {
    precise vec3 np = p + v * s.dt + s.gravity * (0.5 * s.dt * s.dt);
    precise vec3 nv = v + s.gravity * s.dt;
    p = np; v = nv;
    return;
  }
  precise vec3 u = wind + s.fall;
  precise vec3 np = p + u * s.dt + (v - u) * s.relax;
  precise vec3 nv = u + (v - u) * s.e;
  p = np; v = nv;
}
)";
}

}  // namespace fxsim
