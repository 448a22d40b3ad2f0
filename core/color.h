#pragma once
// Colours as users write them (sRGB components in 0..1) and their linear form,
// which is what blending works in.
#include <glm/vec4.hpp>
#include <optional>
#include <string_view>

namespace fxsim {

struct Color {
  glm::vec4 srgb{0, 0, 0, 1};  // r, g, b in sRGB encoding; a is linear coverage
  glm::vec4 linear() const;
};

float srgb_to_linear(float c);
float linear_to_srgb(float c);

// Parses "#rrggbb" or "#rrggbbaa"; nullopt when malformed.
std::optional<Color> parse_hex_color(std::string_view text);

}  // namespace fxsim
