#include "core/color.h"

#include <cmath>

namespace fxsim {

float srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

float linear_to_srgb(float c) {
  return c <= 0.0031308f ? c * 12.92f : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
}

glm::vec4 Color::linear() const {
  return {srgb_to_linear(srgb.r), srgb_to_linear(srgb.g), srgb_to_linear(srgb.b), srgb.a};
}

std::optional<Color> parse_hex_color(std::string_view text) {
  if (text.size() != 7 && text.size() != 9) return std::nullopt;
  if (text[0] != '#') return std::nullopt;
  auto nibble = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  };
  float channels[4] = {0, 0, 0, 1};
  for (size_t i = 0; i * 2 + 1 < text.size(); ++i) {
    const int hi = nibble(text[1 + 2 * i]), lo = nibble(text[2 + 2 * i]);
    if (hi < 0 || lo < 0) return std::nullopt;
    channels[i] = float(hi * 16 + lo) / 255.0f;
  }
  return Color{{channels[0], channels[1], channels[2], channels[3]}};
}

}  // namespace fxsim
