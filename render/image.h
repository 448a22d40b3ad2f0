#pragma once
// PNG writing that never leaves a truncated file and never replaces what is
// not a regular file: the bytes go to a temporary name beside the target,
// which is renamed over it only once complete. An interrupt handler can remove
// the temporary file of a write in progress (remove_partial_output()).
#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/image.h"

namespace fxsim {

// Encodes a PNG in memory.
std::vector<uint8_t> encode_png(const Image& image);

// Writes `bytes` to `path` atomically (temporary file + rename). The folder
// must exist (a folder that vanished during a render stops it). Refuses to
// replace anything but a regular file. Throws FxError(cannot_write).
void write_file_atomically(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// For a signal handler: deletes the temporary file of the write in progress, if
// any. Async-signal-safe.
void remove_partial_output();

// Resamples to the given size (linear filtering, sRGB-aware), for texture arrays.
Image resize_image(const Image& image, int width, int height);

}  // namespace fxsim
