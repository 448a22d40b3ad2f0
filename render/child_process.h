#pragma once
// A helper program run as a child process (ffmpeg), fed through a pipe to its
// standard input; what it says on standard error is kept in a temporary file
// with no name (removed once opened) for the error message. An interrupt
// stops every running child (stop_child_processes()), so none is left behind.
#include <string>
#include <sys/types.h>
#include <vector>

namespace fxsim {

// The full path of `program` found on PATH, or "" when there is none.
std::string find_program(const std::string& program);

// Runs `argv` (argv[0] found on PATH) and returns its standard output, or
// nullopt-like "" with ok = false when it cannot run or fails. For probes
// such as `ffmpeg -encoders`.
struct ProgramOutput {
  bool ok = false;
  std::string out;
};
ProgramOutput run_program(const std::vector<std::string>& argv);

// What an interrupt does to a child: kills it (ffmpeg: its unfinished file is
// removed after), or passes the signal on and waits for it to stop (a
// shard's fxsim render, which stops after the frame it is writing).
enum class OnInterrupt { kill, pass_on };

struct ChildSlot;  // child_process.cpp's record of a running child, for an interrupt

class ChildProcess {
 public:
  // Starts `argv` (argv[0] a path, or a program found on PATH) with a pipe to its standard input. Throws FxError(cannot_write)
  // when it cannot be started, or when kMaxChildProcesses are running.
  // `working_folder`, where given: the child starts there (fxsim test's
  // renders: an output pattern's folders may not hold '#', which a render
  // reads as the frame number, and a scratch folder's path may).
  explicit ChildProcess(const std::vector<std::string>& argv, OnInterrupt on_interrupt = OnInterrupt::kill,
                        const std::string& working_folder = "");
  ~ChildProcess();  // kills a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Writes everything (blocking while the child catches up); false when the
  // child has stopped reading (it exited).
  bool write(const void* data, size_t bytes);
  // Closes its standard input and waits for it: its exit status (-1: killed by a signal).
  int finish();
  // How it ended, once finished: "exit status 1", "killed by SIGKILL".
  std::string ending() const;
  // Once finished: the signal that ended it, or 0.
  int signal() const;
  // The last lines it wrote on standard error.
  std::string error_tail() const;

 private:
  pid_t pid_ = -1;
  int input_ = -1;
  int status_ = 0;  // waitpid's, once finished
  int stderr_fd_ = -1;  // the temporary file of its messages
  ChildSlot* slot_ = nullptr;
};

// The most children running at once (the signal handler's fixed slots).
constexpr int kMaxChildProcesses = 64;

// For a signal handler: stops every running child as it asked (`signal`, the
// one being handled, is what OnInterrupt::pass_on passes on) and reaps it; a
// child started after it is killed at once (fxsim is ending). Async-signal-safe.
void stop_child_processes(int signal);

}  // namespace fxsim
