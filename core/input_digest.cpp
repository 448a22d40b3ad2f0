#include "core/input_digest.h"

#include <sys/stat.h>

#include "core/frame_output.h"
#include "core/sha256.h"

namespace fxsim {

namespace {
const char* kMissing = "missing";
const char* kNotRegular = "not a regular file";
}  // namespace

std::string InputDigest::file_digest(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return kMissing;
  if (!S_ISREG(st.st_mode)) return kNotRegular;
  uint64_t bytes = 0;
  return sha256_of_file(file, bytes);
}

InputDigest::InputDigest(const Scene& scene)
    : has_plate_(!scene.output.plate.empty()),
      has_depth_(!scene.output.plate_depth.empty()),
      plate_(scene.output.plate.string()),
      depth_(scene.output.plate_depth.string()) {
  for (const std::filesystem::path& texture : scene.texture_files) textures_.push_back(file_digest(texture.string()));
}

std::string InputDigest::of(const PlateDigests& plates) const {
  if (!any()) return "";
  std::string text;
  for (const std::string& texture : textures_) text += "texture " + texture + "\n";
  if (has_plate_) text += "plate " + plates.plate + "\n";
  if (has_depth_) text += "plate_depth " + plates.depth + "\n";
  return sha256_hex(text);
}

std::optional<std::string> InputDigest::of_frame_now(int frame) const {
  const auto now = [&](const std::string& pattern) {
    if (pattern.find('#') != std::string::npos) return file_digest(frame_path(pattern, frame));
    auto known = still_.find(pattern);
    if (known == still_.end()) known = still_.emplace(pattern, file_digest(pattern)).first;
    return known->second;
  };
  PlateDigests plates;
  if (has_plate_) plates.plate = now(plate_);
  if (has_depth_) plates.depth = now(depth_);
  for (const std::string* d : {&plates.plate, &plates.depth})
    if (*d == kMissing || *d == kNotRegular) return std::nullopt;
  return of(plates);
}

}  // namespace fxsim
