#include "core/input_digest.h"

#include <sys/stat.h>

#include "core/frame_output.h"
#include "core/sha256.h"

namespace fxsim {

namespace {
std::string contents_digest(const std::string& file) {
  // Regular files only: opening a FIFO would block.
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return "missing";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  uint64_t bytes = 0;
  return sha256_of_file(file, bytes);
}
}  // namespace

InputDigest::InputDigest(const Scene& scene) {
  for (const std::filesystem::path& texture : scene.texture_files) files_.emplace_back("texture", texture.string());
  if (!scene.output.plate.empty()) files_.emplace_back("plate", scene.output.plate.string());
  if (!scene.output.plate_depth.empty()) files_.emplace_back("plate_depth", scene.output.plate_depth.string());
}

std::string InputDigest::of_frame(int frame) const {
  if (files_.empty()) return "";
  std::string text;
  for (const auto& [role, name] : files_) {
    // A plate's '#' run is the frame number; a texture's '#' is its name's.
    const bool each_frame = role != "texture" && name.find('#') != std::string::npos;
    std::string digest;
    if (each_frame) {
      digest = contents_digest(frame_path(name, frame));
    } else {
      auto known = constant_.find(name);
      if (known == constant_.end()) known = constant_.emplace(name, contents_digest(name)).first;
      digest = known->second;
    }
    text += role + " " + digest + "\n";
  }
  return sha256_hex(text);
}

}  // namespace fxsim
