#pragma once
// Which frames to render and where each one goes.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fxsim {

struct FrameRange {
  int first = 1;
  int last = 1;
};

// Parses "N" (that frame only) or "A-B" (inclusive); nullopt when malformed.
std::optional<FrameRange> parse_frame_range(std::string_view text);

// Replaces the first run of '#' with the zero-padded frame number (padded to
// the run's length); a path without '#' is returned unchanged.
std::string frame_path(const std::string& pattern, int frame);

}  // namespace fxsim
