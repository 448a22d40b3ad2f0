#include "render/child_process.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "core/exit_codes.h"

extern char** environ;

namespace fxsim {

// Running children, for stop_child_processes(): fixed slots because a
// signal handler reads them. A slot is claimed by setting its pid to -1
// (also its state once the child has ended, until the ChildProcess goes),
// then given the child's pid.
struct ChildSlot {
  std::atomic<pid_t> pid{0};
  bool pass_on = false;  // OnInterrupt::pass_on
};

namespace {
ChildSlot g_children[kMaxChildProcesses];
// Set by stop_child_processes(): a child started on another thread after it
// looked at the slots is killed by its own constructor (the two sides set
// and read in opposite orders, sequentially consistent: one sees the other).
std::atomic<bool> g_children_stopped{false};

ChildSlot* claim_slot() {
  for (auto& slot : g_children) {
    pid_t empty = 0;
    if (slot.pid.compare_exchange_strong(empty, -1)) return &slot;
  }
  return nullptr;
}

void release_slot(ChildSlot* slot) {
  if (slot) slot->pid.store(0);
}

// Where the children's messages are kept: $TMPDIR, or /tmp.
std::string temporary_folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}
}  // namespace

std::string find_program(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate)) return candidate;
  }
  return "";
}

ProgramOutput run_program(const std::vector<std::string>& argv) {
  ProgramOutput result;
  const std::string path = find_program(argv.at(0));
  if (path.empty()) return result;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, path.c_str(), &actions, nullptr, c_argv(argv).data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (spawned == 0) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      result.out.append(buffer, size_t(n));
    }
  }
  ::close(out[0]);
  if (spawned != 0) return result;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return result;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, OnInterrupt on_interrupt,
                           const std::string& working_folder) {
  const std::string path = argv.at(0).find('/') != std::string::npos ? argv[0] : find_program(argv[0]);
  if (path.empty()) throw FxError(ExitCode::cannot_write, fmt::format("cannot find {} on PATH", argv[0]));
  slot_ = claim_slot();
  if (!slot_)
    throw FxError(ExitCode::usage, fmt::format("more than {} child processes at once", kMaxChildProcesses));
  // The child's messages go to a temporary file that is removed from its
  // folder at once: only the open descriptors keep it, so nothing is left
  // behind however fxsim ends (SIGKILL included). In $TMPDIR, else in /tmp:
  // a $TMPDIR that is missing or read-only failed a video after its output
  // folder was made.
  int error = 0;
  for (const std::string& folder : {temporary_folder(), std::string("/tmp")}) {
    std::string name = folder + "/fxsim-child-XXXXXX";
    stderr_fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (stderr_fd_ >= 0) {
      ::unlink(name.c_str());
      break;
    }
    error = errno;
  }
  if (stderr_fd_ < 0) {
    release_slot(slot_);
    throw FxError(ExitCode::cannot_write, fmt::format("cannot make a temporary file in {} or /tmp for {}'s messages ({})",
                                                      temporary_folder(), argv[0], std::strerror(error)));
  }
  slot_->pass_on = on_interrupt == OnInterrupt::pass_on;
  int in[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    ::close(stderr_fd_);  // (the destructor does not run for a constructor that throws)
    release_slot(slot_);
    throw FxError(ExitCode::cannot_write, fmt::format("cannot make a pipe to {} ({})", argv[0], std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, stderr_fd_, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  if (!working_folder.empty()) posix_spawn_file_actions_addchdir_np(&actions, working_folder.c_str());
  // The child ignores Ctrl-C: fxsim decides when it stops (stop_child_processes).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  // With no signal blocked, whatever the starting thread had blocked (fxsim
  // test's threads block the interrupts that one thread waits for).
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  const int spawned = posix_spawn(&pid_, path.c_str(), &actions, &attributes, c_argv(argv).data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(in[0]);
  if (spawned != 0) {
    ::close(in[1]);
    ::close(stderr_fd_);
    release_slot(slot_);
    pid_ = -1;
    throw FxError(ExitCode::cannot_write, fmt::format("cannot start {} ({})", path, std::strerror(spawned)));
  }
  input_ = in[1];
  slot_->pid.store(pid_);
  if (g_children_stopped.load()) ::kill(pid_, SIGKILL);  // fxsim is stopping: finish() reports it killed
  // A child that exits early must turn our writes into errors, not kill fxsim.
  std::signal(SIGPIPE, SIG_IGN);
}

ChildProcess::~ChildProcess() {
  if (input_ >= 0) ::close(input_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  release_slot(slot_);
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
}

bool ChildProcess::write(const void* data, size_t bytes) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(input_, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= size_t(n);
  }
  return true;
}

int ChildProcess::finish() {
  if (input_ >= 0) ::close(input_);
  input_ = -1;
  if (pid_ <= 0) return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;  // finished before
  while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
  }
  if (slot_) slot_->pid.store(-1);  // held, not running
  pid_ = -1;
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
}

int ChildProcess::signal() const { return WIFSIGNALED(status_) ? WTERMSIG(status_) : 0; }

std::string ChildProcess::ending() const {
  if (WIFSIGNALED(status_)) {
    const char* name = ::sigabbrev_np(WTERMSIG(status_));  // "KILL"
    return name ? fmt::format("killed by SIG{}", name) : fmt::format("killed by signal {}", WTERMSIG(status_));
  }
  return fmt::format("exit status {}", WEXITSTATUS(status_));
}

std::string ChildProcess::error_tail() const {
  std::string text;
  char buffer[4096];
  for (off_t at = 0; stderr_fd_ >= 0;) {
    const ssize_t n = ::pread(stderr_fd_, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, size_t(n));
    at += n;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.size() > 2000) text = "…" + text.substr(text.size() - 2000);
  return text;
}

void stop_child_processes(int signal) {
  // Every child told first, so that shards stop side by side; then each
  // reaped here (no zombie is left for a parent that may not reap). Their
  // temporary files have no name to remove (ChildProcess's constructor).
  g_children_stopped.store(true);
  for (auto& slot : g_children)
    if (const pid_t pid = slot.pid.load(); pid > 0) ::kill(pid, slot.pass_on ? signal : SIGKILL);
  for (auto& slot : g_children) {
    const pid_t pid = slot.pid.load();
    if (pid > 0)
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
  }
}

}  // namespace fxsim
