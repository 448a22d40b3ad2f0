#include "render/output_files.h"

#include <atomic>
#include <cerrno>
#include <ctime>
#include <charconv>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

#include "core/exit_codes.h"
#include "core/frame_output.h"
#include "render/atomic_file.h"
#include "render/interrupt_removals.h"

namespace fxsim {

namespace {
const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}
}  // namespace

namespace {
std::atomic<bool> g_committing{false};
std::atomic<bool> g_commits_stopped{false};  // an interrupt is being handled: no commit may begin
}  // namespace

sigset_t interrupt_signals() {
  sigset_t interrupts;
  sigemptyset(&interrupts);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&interrupts, s);
  return interrupts;
}

CommitSection::CommitSection() {
  const sigset_t interrupts = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &interrupts, &before_);
  g_committing = true;
  // After stop_commits() has seen no commit in progress, none begins: the
  // handler is removing what is on disk and ends the process, and a frame
  // renamed into place behind it was left there (a bench's folder of frames
  // was not removed). The two flags in the opposite order on each side
  // (sequentially consistent atomics): one of the two sees the other's.
  while (g_commits_stopped.load()) {
    g_committing = false;
    struct timespec pause {1, 0};
    nanosleep(&pause, nullptr);
  }
}

CommitSection::~CommitSection() {
  g_committing = false;
  pthread_sigmask(SIG_SETMASK, &before_, nullptr);  // a signal held back is handled now
}

void stop_commits() {
  g_commits_stopped = true;
  while (g_committing.load()) {
    struct timespec pause {0, 1000000};
    nanosleep(&pause, nullptr);
  }
}

bool output_folder_gone(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::absolute(file, ec).parent_path();
  return ec || !std::filesystem::is_directory(folder, ec);  // (no working folder: it was removed too)
}

std::string output_folder_gone_message(const std::string& file) {
  return fmt::format("{}: the output folder no longer exists (was it removed while fxsim ran?)", file);
}

void check_output_folder(const std::filesystem::path& file) {
  // The folder (or the nearest one there is, where the rest will be made)
  // must take files: found before any work, not after frames are written.
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::absolute(file, ec).parent_path();
  if (ec) return;  // (no working folder: the write says why)
  // (A link to nothing stops the walk: the folder cannot be made there.)
  while (!std::filesystem::exists(std::filesystem::symlink_status(folder, ec)) && folder.has_relative_path())
    folder = folder.parent_path();
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(folder, ec)) && !std::filesystem::exists(folder, ec))
    throw FxError(ExitCode::cannot_write, fmt::format("{}: {} is a symbolic link to nothing; no folder can be made "
                                                      "there", file.string(), folder.string()));
  if (!std::filesystem::is_directory(folder, ec))
    throw FxError(ExitCode::cannot_write, fmt::format("{}: {} is not a folder", file.string(), folder.string()));
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw FxError(ExitCode::cannot_write,
                  fmt::format("{}: cannot write into {} ({})", file.string(), folder.string(), std::strerror(errno)));
  // access() speaks of permissions: as root it passes /sys, /proc and other
  // file systems that take no new file, found only once frames were written.
  // A file made and removed at once says (once a folder, in a temporary
  // name's form that a later render cleans up should this one die between).
  static std::mutex probing;
  static std::set<std::string> probed;
  const std::lock_guard lock(probing);
  if (probed.count(folder.string())) return;
  const std::filesystem::path probe = partial_path(folder / "fxsim-probe");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0 && errno != EEXIST)
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot make a file in {} ({})", file.string(),
                                                      folder.string(), std::strerror(errno)));
  if (fd >= 0) ::close(fd), ::unlink(probe.c_str());
  probed.insert(folder.string());
}

std::string resolved(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return path;
  const std::filesystem::path real = std::filesystem::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal().string() : real.string();
}

void refuse_output_over_input(const std::string& what, const std::string& path,
                              const std::vector<std::pair<std::string, std::string>>& inputs) {
  const std::string output = resolved(path);
  for (const auto& [input, input_path] : inputs)
    if (!input_path.empty() && output == resolved(input_path))
      throw FxError(ExitCode::usage, fmt::format("{} {}: that is {}", what, path, input));
}

void refuse_outputs_in_one_file(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (size_t a = 0; a < outputs.size(); ++a)
    for (size_t b = a + 1; b < outputs.size(); ++b)
      if (resolved(outputs[a].second) == resolved(outputs[b].second))
        throw FxError(ExitCode::usage, fmt::format("{} and {} name the same file, {}: give each its own",
                                                   outputs[a].first, outputs[b].first, outputs[a].second));
}

void check_output_path(const std::string& path, bool dash_too) {
  if (path.empty()) throw FxError(ExitCode::cannot_write, "an output path is empty");
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    throw FxError(ExitCode::cannot_write,
                  fmt::format("{}: exists and is {}; fxsim replaces only regular files{}", path, kind_of(st.st_mode),
                              dash_too && (S_ISLNK(st.st_mode) || S_ISCHR(st.st_mode)) ? " (use - for standard output)" : ""));
  // A text output (dash_too) is emptied and written where it is: an
  // existing one needs only to be writable itself. Others go through a
  // temporary file beside them.
  if (dash_too && exists) {
    if (::access(path.c_str(), W_OK) != 0)
      throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot write ({})", path, std::strerror(errno)));
    return;
  }
  // The temporary file beside it is named NAME.fxsim-partial-HOST-PID: its
  // name must fit too, with each run of '#' grown to a frame number of 8
  // digits (a legal name of 249 bytes failed after the folder and the run
  // line were made).
  const std::string name = std::filesystem::path(path).filename().string();
  const size_t runs = hash_runs(name).size();
  // A process id has at most 7 digits.
  const size_t added = std::strlen(kPartialMark) + partial_host().size() + 1 + 7 + runs * 8;
  if (name.size() + added > 255 || path.size() + added >= 4096)
    throw FxError(ExitCode::cannot_write,
                  fmt::format("{}: the name is too long: fxsim writes through a temporary file whose name is up to {} "
                              "bytes longer, and a file name may have 255 bytes, a path 4095", path, added));
  check_output_folder(path);
}

void prepare_output_folder(const std::filesystem::path& file) {
  const std::filesystem::path folder = file.parent_path();
  if (folder.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder, ec))
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot create the output folder {} ({})", file.string(),
                                                      folder.string(), ec ? ec.message() : "a file stands there"));
}

size_t remove_stale_partials(const std::filesystem::path& folder) {
  std::error_code ec;
  size_t removed = 0;
  for (std::filesystem::directory_iterator it(folder.empty() ? "." : folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const size_t mark = name.rfind(kPartialMark);
    if (mark == std::string::npos || mark == 0) continue;
    // Only this machine's: another's process id cannot be judged here. A
    // name of fxsim before 5 December 2026 had no host ("NAME.fxsim-partial-
    // PID"): judged as then, by the process id (a half-written checkpoint
    // of 100 MB stayed for ever after an upgrade).
    const std::string ours = kPartialMark + partial_host() + "-";
    const size_t id_at = name.compare(mark, ours.size(), ours) == 0 ? mark + ours.size() : mark + std::strlen(kPartialMark);
    const std::string_view digits = std::string_view(name).substr(id_at);
    int pid = 0;
    const auto [end_of_number, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (error != std::errc() || end_of_number != digits.data() + digits.size() || pid <= 0) continue;
    if (pid == getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code remove_error;
    if (it->is_regular_file(remove_error) && std::filesystem::remove(it->path(), remove_error)) ++removed;
  }
  return removed;
}

std::optional<TextOutput> TextOutput::open(const std::optional<std::string>& path) {
  if (!path) return std::nullopt;
  if (*path == "-") return TextOutput(1, "standard output");
  check_output_path(*path, true);
  // The folders missing above the file, the outermost first: abandon() removes them.
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path f = std::filesystem::path(*path).parent_path(); !f.empty() && !std::filesystem::exists(f, ec);
       f = f.parent_path())
    missing.insert(missing.begin(), f);
  prepare_output_folder(*path);
  // Not truncated yet (empty_once): a render refused after this leaves the file as it was.
  bool created = true;
  int fd = ::open(path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST) {
    created = false;
    fd = ::open(path->c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) {
    const int error = errno;
    for (auto f = missing.rbegin(); f != missing.rend(); ++f) std::filesystem::remove(*f, ec);  // made for nothing
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot create the file ({})", *path, std::strerror(error)));
  }
  TextOutput out(fd, *path);
  out.created_ = out.emptied_ = created;
  if (created) out.interrupt_slot_ = register_removal(*path, missing);
  out.made_folders_ = std::move(missing);
  return out;
}

TextOutput::TextOutput(TextOutput&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)), emptied_(other.emptied_),
      created_(other.created_), appended_(other.appended_), made_folders_(std::move(other.made_folders_)),
      interrupt_slot_(std::exchange(other.interrupt_slot_, -1)) {}

TextOutput& TextOutput::operator=(TextOutput&& other) noexcept {
  if (this != &other) {
    if (fd_ > 2) ::close(fd_);
    release_removal(interrupt_slot_);
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::move(other.name_);
    emptied_ = other.emptied_;
    created_ = other.created_;
    appended_ = other.appended_;
    made_folders_ = std::move(other.made_folders_);
    interrupt_slot_ = std::exchange(other.interrupt_slot_, -1);
  }
  return *this;
}

void TextOutput::empty_once() {
  if (emptied_) return;
  emptied_ = true;
  // A regular file only: /dev/null and the like have nothing to empty.
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (::ftruncate(fd_, 0) != 0)
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot empty the file ({})", name_, std::strerror(errno)));
}

void TextOutput::finish() {
  release_removal(interrupt_slot_);
  if (fd_ > 2) empty_once();
}

void TextOutput::abandon() {
  release_removal(interrupt_slot_);
  if (fd_ <= 2 || !created_ || appended_) return;
  std::error_code ec;
  std::filesystem::remove(name_, ec);
  // Innermost first; a folder something else has filled since stays.
  for (auto f = made_folders_.rbegin(); f != made_folders_.rend(); ++f) std::filesystem::remove(*f, ec);
}

TextOutput::~TextOutput() {
  release_removal(interrupt_slot_);
  if (fd_ > 2) ::close(fd_);
}

void TextOutput::append(std::string_view text) {
  if (fd_ > 2) empty_once();
  appended_ = true;
  release_removal(interrupt_slot_);  // (inside the frame's CommitSection: an interrupt waits for it)
  // Where a file's whole lines end: a write cut short (a full disk) is taken
  // back to there, so the file never ends in half a line.
  struct stat st {};
  const bool regular = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  const off_t whole = regular ? ::lseek(fd_, 0, SEEK_CUR) : -1;
  size_t written = 0;
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      if (written > 0 && whole >= 0 && ::ftruncate(fd_, whole) == 0) (void)::lseek(fd_, whole, SEEK_SET);
      throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot write ({})", name_, std::strerror(error)));
    }
    written += size_t(n);
    text.remove_prefix(size_t(n));
  }
}

}  // namespace fxsim
