#pragma once
// Where a render's outputs go, and the rules that keep them safe: an existing
// path that is not a regular file (a device, FIFO, directory or symbolic link)
// is never replaced or written through; folders are made once, at the start, so
// a folder that vanishes mid-render stops it; temporary files left by killed
// runs are cleaned up; text outputs (statistics, state hashes) are appended
// and flushed frame by frame, so an interrupted run keeps every line of the
// frames it wrote.
#include <csignal>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxsim {

// While one lives, a frame and its text are being committed (the file renamed
// into place, its lines appended): an interrupt waits for it to end, so that
// the frames on disk and the lines of the text outputs always agree. The
// committing thread holds SIGINT, SIGTERM and SIGHUP back meanwhile: its own
// handler would wait for itself (a video finished on the main thread did).
class CommitSection {
 public:
  CommitSection();
  ~CommitSection();
  CommitSection(const CommitSection&) = delete;
  CommitSection& operator=(const CommitSection&) = delete;

 private:
  sigset_t before_;  // the thread's signal mask before
};

// For a signal handler: lets no commit begin from now on and waits for the
// one in progress to end. A thread about to commit then waits for the
// handler to end the process. Async-signal-safe.
void stop_commits();

// SIGINT, SIGTERM and SIGHUP: the signals a render stops cleanly on, which
// a committing thread holds back.
sigset_t interrupt_signals();

// Throws FxError(cannot_write) when `path` exists and is not a regular file,
// or cannot be written where it is (check_output_folder; for a text output,
// an existing file must be writable itself); `dash_too`: the output also
// takes "-" for standard output (the message says so).
void check_output_path(const std::string& path, bool dash_too = false);

// Throws FxError(cannot_write) when the folder that will hold `file` (or
// the nearest existing folder above it) does not take new files, or what
// stands nearest above it is not a folder.
void check_output_folder(const std::filesystem::path& file);

// Whether the folder that held `file` while it was written is gone (removed
// while fxsim ran): what a failed create or rename of its temporary file
// then says, rather than the bare ENOENT.
bool output_folder_gone(const std::filesystem::path& file);
std::string output_folder_gone_message(const std::string& file);

// `path` absolute, normal, its existing folders' links followed: two paths
// name one file when these are equal.
std::string resolved(const std::string& path);

// Throws FxError(usage) when output `what` (`path`) names one of the
// command's `inputs` ((what, path) pairs): "--json suite.json: that is the
// suite file" (`what` of the input, "the suite file").
void refuse_output_over_input(const std::string& what, const std::string& path,
                              const std::vector<std::pair<std::string, std::string>>& inputs);
// Throws FxError(usage) when two of a command's `outputs` ((what, path)
// pairs) name one file: "--stats and --state-hashes name the same file, …".
void refuse_outputs_in_one_file(const std::vector<std::pair<std::string, std::string>>& outputs);

// Creates the folder that will hold `file` (with its parents). Throws
// FxError(cannot_write) when it cannot be made or a non-folder stands there.
void prepare_output_folder(const std::filesystem::path& file);

// Removes "<name>.fxsim-partial-<host>-<pid>" files of this host whose
// process no longer runs from `folder`: what a killed render left behind
// (another machine's are left alone; an older fxsim's host-less
// "<name>.fxsim-partial-<pid>" is judged by its process id). Returns how
// many it removed.
size_t remove_stale_partials(const std::filesystem::path& folder);

// A text stream written as the render goes: standard output for "-", else a
// regular file, created where missing (with its folder) when opened, and
// emptied by the first append or by finish(): a render that stops before
// either leaves a file that was there as it was, and abandon() (or
// remove_registered_files() on an interrupt, render/interrupt_removals.h)
// takes away what open() made. Each append is written and flushed at once.
class TextOutput {
 public:
  // Checks the path and opens it; nothing when `path` is empty.
  static std::optional<TextOutput> open(const std::optional<std::string>& path);
  TextOutput(TextOutput&& other) noexcept;
  TextOutput& operator=(TextOutput&& other) noexcept;
  ~TextOutput();
  void append(std::string_view text);
  // The render is done: a file nothing was appended to is emptied (it had no frame).
  void finish();
  // The render stopped before anything was appended: a file open() created
  // is removed, with the folders it made for it; a file that was there stays.
  void abandon();
  bool is_stdout() const { return fd_ == 1; }

 private:
  TextOutput(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  void empty_once();
  int fd_ = -1;
  std::string name_;
  bool emptied_ = false;  // by the first append or finish(), or new
  bool created_ = false;
  bool appended_ = false;
  std::vector<std::filesystem::path> made_folders_;  // by open(), the outermost first
  int interrupt_slot_ = -1;  // where remove_registered_files() finds the file open() made, until appended to
};

}  // namespace fxsim
