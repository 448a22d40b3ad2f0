#pragma once
// What `render` tells the user while it works, on standard error:
//   bar    on a terminal: one line redrawn in place, fitted to the width, with
//          percent, frames, elapsed time and ETA (also while fast-forwarding
//          through frames that are simulated but not drawn);
//   lines  without a terminal (farm and CI logs): one line per written frame,
//          and a line at most every 5 s while fast-forwarding;
//   jsonl  one JSON object per event, for programs;
//   none   (-q).
// Particle counts are live particles, secondaries (splashes, mist, embers)
// included, as in the statistics and the summary.
#include <chrono>
#include <cstdint>
#include <fmt/format.h>
#include <mutex>
#include <string>
#include <utility>

#include "render/frame_sinks.h"

namespace fxsim {

enum class ProgressStyle { none, bar, lines, jsonl };

// Writes to standard error, ignoring a failure: a closed stderr, or a pipe
// whose reader went away while SIGPIPE is ignored (for ffmpeg's pipe), loses
// the messages, not the render (fmt::print threw, and the render ended as an
// internal error, 70).
void write_stderr(std::string_view text);
template <typename... Args>
void say(fmt::format_string<Args...> format, Args&&... args) {
  write_stderr(fmt::format(format, std::forward<Args>(args)...));
}

// A file name as a text line shows it: control characters (a newline in a
// folder's name) as C escapes (\n, \t, \x1b), so that one frame is one line;
// a backslash as \\, so that a name holding "\n" reads apart from a newline.
std::string printable(std::string_view name);

// "auto" picks bar on a terminal, lines otherwise.
ProgressStyle parse_progress_style(const std::string& name, bool quiet);

// Render's other messages on standard error: "fxsim: TEXT" lines, or with
// --progress jsonl one JSON object each ({"event": "note", "warning" or
// "error", "message": TEXT}), so that the stream stays JSON Lines.
void set_message_style(ProgressStyle style);
void note(const std::string& text);
void warn(const std::string& text);
// main's error handler: an error (its lines) as the messages go; false
// where it prints them itself as text.
bool report_error_as_json(const std::string& text, int exit_code);

class ProgressReport {
 public:
  // Frames run from the simulation's start to `last`; `count` of them are drawn.
  ProgressReport(ProgressStyle style, int last, int count, std::string output_pattern);
  void skipped(int frame);                  // simulated, not drawn
  void committed(const FrameRecord& frame);  // drawn and written (any thread)
  void finish();                            // ends the bar's line

 private:
  double elapsed() const;
  void draw_bar(int frame, uint64_t live);

  ProgressStyle style_;
  int last_, count_, written_ = 0;
  uint64_t last_live_ = 0;  // of the last frame written (shown while fast-forwarding)
  std::string pattern_;
  std::chrono::steady_clock::time_point started_, last_print_;
  std::mutex mutex_;
};

}  // namespace fxsim
