#pragma once
// A number read from the whole of a text, as typed: std::from_chars's form
// (no spaces, no '+', no "0x"), nothing left over; no number otherwise. For
// flags and fields that must not read "24 " or "0x10" as a number.
#include <charconv>
#include <optional>
#include <string_view>

namespace fxsim {

template <class Number>
std::optional<Number> number_of_text(std::string_view text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace fxsim
