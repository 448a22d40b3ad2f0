#pragma once
// A compute kernel's parameters, declared once as a list X(type, name): the
// C++ struct and the GLSL uniform block (std140) are both made from it, a
// compile-time check keeps the struct's offsets equal to std140's, and the
// whole block is uploaded in one call (ComputeKernel::set_params), so no parameter is looked up by a
// name that could be misspelt (Effekseer's GPU ParamSet, made checkable).
//
//   #define FXSIM_SPRITE_PARAMS(X) X(float, u_exposure) X(glm::vec3, u_eye_velocity) …
//   FXSIM_GPU_PARAMS(SpriteParams, FXSIM_SPRITE_PARAMS);
//
// The block has no instance name, so GLSL code reads the members by their own
// names (u_exposure) as it would plain uniforms.
#include <cstddef>
#include <cstdint>
#include <string>

#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace fxsim {

// A GLSL bool in a std140 block: four bytes.
enum class GpuBool : uint32_t { no = 0, yes = 1 };
constexpr GpuBool gpu_bool(bool b) { return b ? GpuBool::yes : GpuBool::no; }

// std140 alignment and GLSL spelling of the types a block may hold.
template <class T>
struct Std140;
template <> struct Std140<float> { static constexpr size_t align = 4; static constexpr const char* glsl = "float"; };
template <> struct Std140<int32_t> { static constexpr size_t align = 4; static constexpr const char* glsl = "int"; };
template <> struct Std140<uint32_t> { static constexpr size_t align = 4; static constexpr const char* glsl = "uint"; };
template <> struct Std140<GpuBool> { static constexpr size_t align = 4; static constexpr const char* glsl = "bool"; };
template <> struct Std140<double> { static constexpr size_t align = 8; static constexpr const char* glsl = "double"; };
template <> struct Std140<glm::vec2> { static constexpr size_t align = 8; static constexpr const char* glsl = "vec2"; };
template <> struct Std140<glm::uvec2> { static constexpr size_t align = 8; static constexpr const char* glsl = "uvec2"; };
template <> struct Std140<glm::vec3> { static constexpr size_t align = 16; static constexpr const char* glsl = "vec3"; };
template <> struct Std140<glm::vec4> { static constexpr size_t align = 16; static constexpr const char* glsl = "vec4"; };

// A GLSL mat3 in a std140 block: three columns, each padded to a vec4.
struct GpuMat3 {
  glm::vec4 columns[3]{};
  GpuMat3() = default;
  explicit GpuMat3(const glm::mat3& m) : columns{glm::vec4(m[0], 0), glm::vec4(m[1], 0), glm::vec4(m[2], 0)} {}
};
template <> struct Std140<GpuMat3> { static constexpr size_t align = 16; static constexpr const char* glsl = "mat3"; };

constexpr size_t std140_round_up(size_t offset, size_t align) { return (offset + align - 1) / align * align; }

#define FXSIM_GPU_PARAM_MEMBER(type, name) alignas(::fxsim::Std140<type>::align) type name{};
#define FXSIM_GPU_PARAM_GLSL(type, name) \
  + "  " + ::fxsim::Std140<type>::glsl + " " #name ";\n"
#define FXSIM_GPU_PARAM_CHECK(type, name)                                         \
  offset = ::fxsim::std140_round_up(offset, ::fxsim::Std140<type>::align);        \
  ok = ok && offsetof(Self, name) == offset;                                      \
  offset += sizeof(type);

// Declares struct NAME with the listed members, NAME::glsl(binding) (the GLSL
// block) and a static_assert that the C++ layout is std140's.
#define FXSIM_GPU_PARAMS(NAME, LIST)                                                       \
  struct NAME {                                                                            \
    LIST(FXSIM_GPU_PARAM_MEMBER)                                                           \
    static std::string glsl(int binding) {                                                 \
      return "layout(std140, binding = " + std::to_string(binding) + ") uniform " #NAME " {\n" \
          LIST(FXSIM_GPU_PARAM_GLSL) + "};\n";                                             \
    }                                                                                      \
    static constexpr bool std140_layout() {                                                \
      using Self = NAME;                                                                   \
      size_t offset = 0;                                                                   \
      bool ok = true;                                                                      \
      LIST(FXSIM_GPU_PARAM_CHECK)                                                          \
      return ok;                                                                           \
    }                                                                                      \
  };                                                                                       \
  static_assert(NAME::std140_layout(), #NAME ": the C++ layout differs from std140")

}  // namespace fxsim
