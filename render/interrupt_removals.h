#pragma once
// Files an interrupt removes, kept where a signal handler can read them: a
// video or checkpoint written under a temporary name (PartialFile), a text
// output open() created that nothing has been written to yet (TextOutput).
// Fixed slots, each written before it is marked in use and read through
// atomics, so remove_registered_files() is async-signal-safe. A slot holds
// a file's path and the folders made for it, which go with it.
#include <filesystem>
#include <string>
#include <vector>

namespace fxsim {

// A slot for `path` and `folders` (prefixes of it that were made for it, the
// outermost first), or -1 where none is free or they do not fit.
int register_removal(const std::string& path, const std::vector<std::filesystem::path>& folders = {});
// Frees `slot` (the file stays) and sets it to -1; nothing for -1.
void release_removal(int& slot);
// For a signal handler: unlinks each registered file, then removes its
// folders, the innermost first (one something else has filled stays).
// Async-signal-safe.
void remove_registered_files();

}  // namespace fxsim
