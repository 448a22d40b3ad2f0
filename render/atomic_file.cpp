#include "render/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "core/exit_codes.h"
#include "render/output_files.h"

namespace fxsim {

namespace {
// The temporary file being written, for remove_partial_output(); a fixed
// buffer because a signal handler may read it.
char g_partial_path[4096];
std::atomic<bool> g_partial_active{false};
}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  check_output_path(path.string());
  const std::string temporary = fmt::format("{}.partial-{}", path.string(), getpid());
  if (temporary.size() >= sizeof g_partial_path)
    throw FxError(ExitCode::cannot_write, fmt::format("{}: path too long", path.string()));
  std::memcpy(g_partial_path, temporary.c_str(), temporary.size() + 1);
  g_partial_active = true;
  const auto fail = [&](const char* what) {
    const int error = errno;
    std::remove(temporary.c_str());
    g_partial_active = false;
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot {} ({})", path.string(), what, std::strerror(error)));
  };
  ::unlink(temporary.c_str());  // ours by its name: left by an earlier process that had this pid
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT) {
    g_partial_active = false;
    throw FxError(ExitCode::cannot_write, fmt::format("{}: the output folder no longer exists (was it removed during "
                                                      "the render?)", path.string()));
  }
  if (fd < 0) fail("create the file");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      fail("write the file");
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) fail("finish writing the file");
  check_output_path(path.string());  // again: it may have changed while the frame was written
  if (std::rename(temporary.c_str(), path.c_str()) != 0) fail("rename the finished file into place");
  g_partial_active = false;
}

void remove_partial_output() {
  if (g_partial_active.load()) ::unlink(g_partial_path);
}

}  // namespace fxsim
