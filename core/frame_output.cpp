#include "core/frame_output.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "core/limits.h"
#include "core/number_text.h"
#include "core/scene.h"

namespace fxsim {

// A frame number (or a step) from 1 to kMaxFrames, as output.frames: a
// range of two thousand million frames was a list of them in memory.
static std::optional<int> parse_positive(std::string_view text) {
  const std::optional<int> value = number_of_text<int>(text);
  if (!value || *value < 1 || *value > kMaxFrames) return std::nullopt;
  return value;
}

static std::optional<FrameRange> parse_frame_range(std::string_view text) {
  int step = 1;
  if (const size_t colon = text.find(':'); colon != std::string_view::npos) {
    const auto s = parse_positive(text.substr(colon + 1));
    if (!s) return std::nullopt;
    step = *s;
    text = text.substr(0, colon);
    if (text.find('-') == std::string_view::npos) return std::nullopt;  // a step needs a range
  }
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) {
    const auto n = parse_positive(text);
    if (!n) return std::nullopt;
    return FrameRange{*n, *n};
  }
  const auto a = parse_positive(text.substr(0, dash)), b = parse_positive(text.substr(dash + 1));
  if (!a || !b || *b < *a) return std::nullopt;
  // The last frame is the last one the step reaches: 1-10:4 is 1, 5, 9.
  return FrameRange{*a, *a + (*b - *a) / step * step, step};
}

std::optional<FrameSelection> parse_frame_selection(std::string_view text) {
  FrameSelection selection;
  while (true) {
    const size_t comma = text.find(',');
    const auto range = parse_frame_range(text.substr(0, comma));
    if (!range) return std::nullopt;
    selection.ranges.push_back(*range);
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  return selection;
}

std::string format_frame_selection(const FrameSelection& selection) {
  std::string text;
  for (const FrameRange& r : selection.ranges) {
    if (!text.empty()) text += ',';
    text += r.first == r.last ? fmt::format("{}", r.first)
            : r.step == 1     ? fmt::format("{}-{}", r.first, r.last)
                              : fmt::format("{}-{}:{}", r.first, r.last, r.step);
  }
  return text;
}

bool FrameSelection::contains(int frame) const {
  for (const auto& r : ranges)
    if (frame >= r.first && frame <= r.last && (frame - r.first) % r.step == 0) return true;
  return false;
}

int FrameSelection::first() const {
  int f = ranges.front().first;
  for (const auto& r : ranges) f = std::min(f, r.first);
  return f;
}

int FrameSelection::last() const {
  int f = ranges.front().last;
  for (const auto& r : ranges) f = std::max(f, r.last);
  return f;
}

int FrameSelection::count() const { return static_cast<int>(frames().size()); }

// Runs with a common step become one range each: a render's frames, less
// those already written, are mostly a few such runs (1-240:2 stays one
// range), and contains() is linear in the ranges.
FrameSelection FrameSelection::of(const std::vector<int>& frames) {
  FrameSelection s;
  for (const int f : frames) {
    if (!s.ranges.empty()) {
      FrameRange& run = s.ranges.back();
      if (run.first == run.last && f > run.last) {  // a run of one frame takes the step to the next
        run.step = f - run.last;
        run.last = f;
        continue;
      }
      if (run.last + run.step == f) {
        run.last = f;
        continue;
      }
    }
    s.ranges.push_back({f, f, 1});
  }
  return s;
}

// Each range's frames, merged: not every frame from first() to last() tested
// against every range, which took seconds for tens of thousands of frames.
std::vector<int> FrameSelection::frames() const {
  std::vector<int> out;
  for (const auto& r : ranges)
    for (int f = r.first; f <= r.last; f += r.step) {
      out.push_back(f);
      if (f > r.last - r.step) break;  // the next step would pass INT_MAX
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {
// A name before the extension too: "out/.png" is a hidden file named by its
// extension alone, whose layers came out as ".png.depth", without an extension.
bool has_extension(const std::string& path, std::string_view extension) {
  if (path.size() <= extension.size() || path[path.size() - extension.size() - 1] == '/') return false;
  for (size_t i = 0; i < extension.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(path[path.size() - extension.size() + i])) != extension[i]) return false;
  return true;
}
}  // namespace

std::optional<ImageFormat> image_format_of(const std::string& path) {
  if (has_extension(path, ".png")) return ImageFormat::png;
  if (has_extension(path, ".exr")) return ImageFormat::exr;
  return std::nullopt;
}

std::optional<VideoFormat> video_format_of(const std::string& path) {
  if (has_extension(path, ".mp4")) return VideoFormat::mp4;
  if (has_extension(path, ".webm")) return VideoFormat::webm;
  if (has_extension(path, ".mov")) return VideoFormat::mov;
  if (has_extension(path, ".gif")) return VideoFormat::gif;
  return std::nullopt;
}

std::optional<OutputProblem> video_output_problem(const OutputSettings& output, const std::string& path,
                                                  bool beside_frames) {
  const std::optional<VideoFormat> video = video_format_of(path);
  if (!video) return std::nullopt;
  // (-o v_###.mp4 wrote a file of that name, though a '#' run is a frame number.)
  if (path.find('#') != std::string::npos)
    return OutputProblem{"path", "a video is one file of every frame: its name has no frame number, and a '#' in it "
                                 "would be written as it is; name it without one"};
  if (!beside_frames && (output.depth_layer || output.mask_layers || output.motion_layer || output.plate_layer))
    return OutputProblem{"layers", "a video carries no layers: write PNG or EXR frames (with --video beside them for "
                                   "a video too)"};
  if (!beside_frames && output.bit_depth != 8)
    return OutputProblem{"bit_depth", "a video's samples are 8-bit: write PNG frames for 16 bits"};
  if (*video == VideoFormat::gif && output.fps > kGifMaxFps)
    return OutputProblem{"fps", fmt::format("a GIF plays at most {} frames a second (its frames last whole hundredths "
                                            "of a second, and browsers show one of under 2/100 s for 1/10 s): give fps "
                                            "{} or less, or write .mp4 or .webm",
                                            kGifMaxFps, kGifMaxFps)};
  if (*video != VideoFormat::mov && output.transparent())
    return OutputProblem{"background", "of the videos only a .mov (ProRes 4444) keeps alpha: the transparent frames "
                                       "would lose their coverage; write .mov, PNG or EXR frames, or give an opaque "
                                       "background"};
  return std::nullopt;
}

namespace {
// Whether q matches p (matches_frame_pattern). Each (i, j) that failed is
// remembered, so a pattern of many runs against a long run of digits takes
// |p| × |q| steps at most, not a number of splits that grows exponentially
// with the runs.
class FramePatternMatch {
 public:
  FramePatternMatch(std::string_view p, std::string_view q) : p_(p), q_(q), failed_((p.size() + 1) * (q.size() + 1)) {}
  bool matches(size_t i = 0, size_t j = 0) {
    if (i == p_.size()) return j == q_.size();
    char& failed = failed_[i * (q_.size() + 1) + j];
    if (failed) return false;
    failed = !(p_[i] == '#' ? run_matches(i, j) : j < q_.size() && p_[i] == q_[j] && matches(i + 1, j + 1));
    return !failed;
  }

 private:
  bool run_matches(size_t i, size_t j) {
    size_t run = 0, digits = 0;
    while (i + run < p_.size() && p_[i + run] == '#') ++run;
    while (j + digits < q_.size() && std::isdigit(static_cast<unsigned char>(q_[j + digits]))) ++digits;
    for (size_t taken = run; taken <= digits; ++taken)
      if (matches(i + run, j + taken)) return true;
    return false;
  }
  std::string_view p_, q_;
  std::vector<char> failed_;  // by i × (|q| + 1) + j
};

}  // namespace

bool matches_frame_pattern(std::string_view pattern, std::string_view path) {
  return FramePatternMatch(pattern, path).matches();
}

std::vector<HashRun> hash_runs(std::string_view pattern) {
  std::vector<HashRun> runs;
  for (size_t at = pattern.find('#'); at != std::string_view::npos; at = pattern.find('#', at)) {
    size_t end = at;
    while (end < pattern.size() && pattern[end] == '#') ++end;
    runs.push_back({at, end - at});
    at = end;
  }
  return runs;
}

std::string frame_padding_warning(const std::string& pattern, int first, int last) {
  const auto digits = [](int n) { return int(std::to_string(n).size()); };
  size_t shortest = std::string::npos;
  for (const HashRun& run : hash_runs(pattern)) shortest = std::min(shortest, run.length);
  if (shortest == std::string::npos || digits(last) <= int(shortest) || digits(first) >= digits(last)) return "";
  // every run as long as the last frame's number
  const std::string padded =
      replace_hash_runs(pattern, [&](size_t length) { return std::string(std::max(length, size_t(digits(last))), '#'); });
  return fmt::format("{}: frame {}'s number has {} digits, more than its {} '#'{}, and frame {}'s fewer: the files' "
                     "names will not sort in frame order ({} would pad them all)", pattern, last, digits(last),
                     shortest, shortest == 1 ? "" : "s", first, padded);
}

std::string frame_path(const std::string& pattern, int frame) {
  return replace_hash_runs(pattern, [&](size_t length) { return fmt::format("{:0{}d}", frame, length); });
}

}  // namespace fxsim
