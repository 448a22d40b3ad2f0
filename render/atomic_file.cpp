#include "render/atomic_file.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "core/exit_codes.h"
#include "render/interrupt_removals.h"
#include "render/output_files.h"

namespace fxsim {

namespace {
// The temporary file being written, for remove_partial_output(); a fixed
// buffer because a signal handler may read it.
char g_partial_path[4096];
std::atomic<bool> g_partial_active{false};
}  // namespace

const std::string& partial_host() {
  static const std::string host = [] {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    std::string text(name, std::min<size_t>(std::strlen(name), 64));
    for (char& c : text)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
    return text.empty() ? std::string("_") : text;
  }();
  return host;
}

std::filesystem::path partial_path(const std::filesystem::path& path) {
  return fmt::format("{}{}{}-{}", path.string(), kPartialMark, partial_host(), getpid());
}

PartialFile::PartialFile(const std::filesystem::path& path) : slot_(register_removal(path.string())) {
  if (slot_ < 0) throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot track this temporary file", path.string()));
}

PartialFile::~PartialFile() { release_removal(slot_); }

void write_file_atomically(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  check_output_path(path.string());
  const std::string temporary = partial_path(path).string();
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
    // Checked writable before the work began: gone since, or a folder that
    // takes no new files whatever its mode says (/proc, /sys).
    const bool gone = output_folder_gone(path);
    errno = ENOENT;  // (for fail's message)
    if (!gone) fail("create the file");
    g_partial_active = false;
    throw FxError(ExitCode::cannot_write, output_folder_gone_message(path.string()));
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
  try {
    check_output_path(path.string());  // again: it may have changed while the frame was written
  } catch (...) {
    std::remove(temporary.c_str());
    g_partial_active = false;
    throw;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) fail("rename the finished file into place");
  g_partial_active = false;
}

void remove_partial_output() {
  if (g_partial_active.load()) ::unlink(g_partial_path);
  remove_registered_files();
}

}  // namespace fxsim
