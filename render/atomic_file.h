#pragma once
// Writing a file that never leaves it truncated and never replaces what is
// not a regular file: the bytes go to a temporary name beside the target,
// which is renamed over it only once complete. An interrupt handler can remove
// the temporary file of a write in progress (remove_partial_output()).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fxsim {

// Writes `bytes` to `path` atomically (temporary file + rename). The folder
// must exist (a folder that vanished during a render stops it). Refuses to
// replace anything but a regular file. Throws FxError(cannot_write).
void write_file_atomically(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// For a signal handler: deletes the temporary file of the write in progress
// and every file registered for removal (render/interrupt_removals.h: each
// PartialFile, and the text outputs created that nothing was written to).
// Async-signal-safe.
void remove_partial_output();

// A temporary file written over a longer time (a video, a checkpoint),
// removed by remove_partial_output() on an interrupt while it is registered.
class PartialFile {
 public:
  explicit PartialFile(const std::filesystem::path& path);  // throws FxError(cannot_write) when no slot is free
  ~PartialFile();  // unregisters (the file stays)
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

 private:
  int slot_;
};

// The name a file is written under before it is complete:
// "<path>.fxsim-partial-<host>-<pid>" (remove_stale_partials() cleans up
// after killed runs: a mark no other program's file is likely to carry, so
// that only fxsim's own are removed; the host, because on storage that
// several machines share a process id says nothing of another machine's).
constexpr const char* kPartialMark = ".fxsim-partial-";
std::filesystem::path partial_path(const std::filesystem::path& path);
// This machine's name as the temporary names carry it: the characters of a
// host name ([A-Za-z0-9.-]; any other one '_'), at most 64 of them.
const std::string& partial_host();

}  // namespace fxsim
