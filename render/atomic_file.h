#pragma once
// Writing a file that never leaves it truncated and never replaces what is
// not a regular file: the bytes go to a temporary name beside the target,
// which is renamed over it only once complete. An interrupt handler can remove
// the temporary file of a write in progress (remove_partial_output()).
#include <cstdint>
#include <filesystem>
#include <vector>

namespace fxsim {

// Writes `bytes` to `path` atomically (temporary file + rename). The folder
// must exist (a folder that vanished during a render stops it). Refuses to
// replace anything but a regular file. Throws FxError(cannot_write).
void write_file_atomically(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// For a signal handler: deletes the temporary file of the write in progress, if
// any. Async-signal-safe.
void remove_partial_output();

}  // namespace fxsim
