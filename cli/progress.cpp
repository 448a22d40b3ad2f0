#include "cli/progress.h"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/exit_codes.h"
#include "core/frame_output.h"

namespace fxsim {

namespace {
std::string clock_text(double seconds) {
  const int s = int(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

int terminal_width() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}
}  // namespace

void write_stderr(std::string_view text) {
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stderr) == text.size()) std::fflush(stderr);
  std::clearerr(stderr);
}

std::string printable(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') out += "\\\\";
    else if (byte >= 0x20 && byte != 0x7f) out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else out += fmt::format("\\x{:02x}", byte);
  }
  return out;
}

ProgressStyle parse_progress_style(const std::string& name, bool quiet) {
  if (quiet || name == "none") return ProgressStyle::none;
  if (name == "bar") return ProgressStyle::bar;
  if (name == "lines") return ProgressStyle::lines;
  if (name == "jsonl") return ProgressStyle::jsonl;
  if (name == "auto") return isatty(STDERR_FILENO) ? ProgressStyle::bar : ProgressStyle::lines;
  throw FxError(ExitCode::usage, fmt::format("--progress {}: expected auto, bar, lines, jsonl or none", name));
}

namespace {
ProgressStyle g_message_style = ProgressStyle::lines;

void message(const char* event, const std::string& text) {
  if (g_message_style == ProgressStyle::jsonl)
    say("{}\n", nlohmann::json{{"event", event}, {"message", text}}.dump());
  else
    say("fxsim: {}{}\n", std::string_view(event) == "warning" ? "warning: " : "", text);
}
}  // namespace

void set_message_style(ProgressStyle style) { g_message_style = style; }
void note(const std::string& text) { message("note", text); }
void warn(const std::string& text) { message("warning", text); }

bool report_error_as_json(const std::string& text, int exit_code) {
  if (g_message_style != ProgressStyle::jsonl) return false;
  say("{}\n", nlohmann::json{{"event", "error"}, {"message", text}, {"exit", exit_code}}.dump());
  return true;
}

ProgressReport::ProgressReport(ProgressStyle style, int last, int count, std::string output_pattern)
    : style_(style), last_(last), count_(count), pattern_(std::move(output_pattern)),
      started_(std::chrono::steady_clock::now()), last_print_(started_) {}

double ProgressReport::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void ProgressReport::draw_bar(int frame, uint64_t live) {
  // Progress counts simulated frames: fast-forwarding is most of the work
  // when only late frames are drawn.
  const double done = double(frame) / double(std::max(last_, 1));
  const double seconds = elapsed();
  const std::string eta = done > 0 && frame < last_ ? clock_text(seconds / done - seconds) : "-";
  const std::string text = fmt::format(" {:3.0f}%  frame {}/{}  {} written  {} live  {} elapsed, ETA {}", done * 100,
                                       frame, last_, written_, live, clock_text(seconds), eta);
  const int width = terminal_width();
  const int bar = std::min(40, width - int(text.size()) - 3);
  std::string line;
  if (bar >= 10) {
    const int filled = int(done * bar);
    line = fmt::format("[{}{}]", std::string(size_t(filled), '#'), std::string(size_t(bar - filled), '.'));
  }
  line += text;
  if (int(line.size()) > width - 1) line.resize(size_t(std::max(width - 1, 0)));
  say("\r{}\033[K", line);
  std::fflush(stderr);
}

void ProgressReport::skipped(int frame) {
  const std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  switch (style_) {
    case ProgressStyle::none: return;
    case ProgressStyle::bar:
      if (since < 0.1) return;
      draw_bar(frame, last_live_);
      break;
    case ProgressStyle::lines:
      if (since < 5) return;
      say("fxsim: simulating frame {}/{} (not drawn) {} elapsed\n", frame, last_, clock_text(elapsed()));
      break;
    case ProgressStyle::jsonl:
      if (since < 1) return;
      say("{}\n", nlohmann::json{{"event", "simulated"}, {"frame", frame}, {"last", last_},
                                                {"elapsed_s", elapsed()}}.dump());
      break;
  }
  last_print_ = now;
}

void ProgressReport::committed(const FrameRecord& frame) {
  const std::lock_guard lock(mutex_);
  ++written_;
  last_live_ = frame.live;
  const std::string file = frame_path(pattern_, frame.frame);
  switch (style_) {
    case ProgressStyle::none: return;
    case ProgressStyle::bar: draw_bar(frame.frame, frame.live); break;
    case ProgressStyle::lines:
      say("fxsim: frame {} ({}/{})  t {:.3f} s  {} live particles  {:.0f} ms  -> {}\n", frame.frame,
                 written_, count_, frame.time, frame.live, frame.seconds * 1000, printable(file));
      break;
    case ProgressStyle::jsonl:
      say("{}\n", nlohmann::json{{"event", "frame"}, {"frame", frame.frame}, {"written", written_},
                                                {"count", count_}, {"time", frame.time}, {"live", frame.live},
                                                {"ms", frame.seconds * 1000}, {"file", file},
                                                {"elapsed_s", elapsed()}}.dump());
      break;
  }
  last_print_ = std::chrono::steady_clock::now();
}

void ProgressReport::finish() {
  if (style_ == ProgressStyle::bar) say("\n");
}

}  // namespace fxsim
