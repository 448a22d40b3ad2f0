#pragma once
// Which frames to render and where each one goes.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxsim {

struct OutputSettings;

struct FrameRange {
  int first = 1;
  int last = 1;  // reached by the step
  int step = 1;
};

// The frames to write: one or more ranges.
struct FrameSelection {
  std::vector<FrameRange> ranges;
  bool contains(int frame) const;
  int first() const;
  int last() const;
  int count() const;  // frames selected (a frame in two ranges counts once)
  std::vector<int> frames() const;  // the frames selected, in order, each once
  // A selection of exactly these frames (increasing), runs of consecutive ones as ranges.
  static FrameSelection of(const std::vector<int>& frames);
};

// Parses "N" (that frame only), "A-B" (inclusive), "A-B:S" (every S-th frame
// from A, up to B), or a comma-separated list of those ("1-240:2,300");
// nullopt when malformed.
std::optional<FrameSelection> parse_frame_selection(std::string_view text);
// The selection as parse_frame_selection reads it ("1-48", "1-240:2,300").
std::string format_frame_selection(const FrameSelection& selection);

// What an output path's extension (any case) asks for: frames as PNG or
// OpenEXR images, or a video (render/video_sink.h); nullopt for anything else,
// which is refused rather than written under a misleading name.
enum class ImageFormat { png, exr };
enum class VideoFormat { mp4, webm, mov, gif };
std::optional<ImageFormat> image_format_of(const std::string& path);
std::optional<VideoFormat> video_format_of(const std::string& path);

// What a video at `path` cannot carry of what `output` asks for: its layers,
// 16-bit samples, (but in a .mov, the one with alpha) a transparent
// background, or (a GIF) more than 50 frames a second: the output key and
// why. Nothing for a path that is not a video, or a video that can.
// `beside_frames`: the video of --video, written beside the frames, which
// carry the layers and 16 bits themselves.
struct OutputProblem {
  std::string key, message;
};
std::optional<OutputProblem> video_output_problem(const OutputSettings& output, const std::string& path,
                                                  bool beside_frames = false);
// A GIF's frames last whole hundredths of a second, and browsers show one of
// under 2/100 s for 1/10 s.
constexpr double kGifMaxFps = 50;

// Whether `path` could be frame_path(pattern, f) for some frame f: each run of
// '#' stands for digits, at least as many as the run (every split of a run of
// digits is tried: f_##5.png's frame 1 is f_015.png), in at most
// |pattern| × |path| steps.
bool matches_frame_pattern(std::string_view pattern, std::string_view path);

// The runs of '#' in a pattern, in order: where each starts and how long it is.
struct HashRun {
  size_t at, length;
};
std::vector<HashRun> hash_runs(std::string_view pattern);

// `pattern` with each run of '#' replaced by replace(the run's length).
template <typename Replace>
std::string replace_hash_runs(std::string_view pattern, Replace&& replace) {
  std::string out;
  size_t at = 0;
  for (const HashRun& run : hash_runs(pattern)) {
    out.append(pattern.substr(at, run.at - at));
    out += replace(run.length);
    at = run.at + run.length;
  }
  out.append(pattern.substr(at));
  return out;
}

// Replaces every run of '#' with the zero-padded frame number (padded to
// the run's length: out/####/f_##.png -> out/0007/f_07.png); a path without
// '#' is returned unchanged.
std::string frame_path(const std::string& pattern, int frame);

// What to tell the user where frames first..last number past a run of '#'
// in some names and not in others (f_#.png for frames 9-12: f_9.png sorts
// after f_12.png), with the pattern that would pad them all; "" where the
// names sort in frame order.
std::string frame_padding_warning(const std::string& pattern, int first, int last);

}  // namespace fxsim
