#pragma once
// What a frame's pixels read besides the scene itself: the texture files its
// emitters name, and that frame's plate and depth plate. The look key hashes
// the scene's JSON, which names these files but says nothing of what is in
// them, so --skip-existing kept frames drawn from a plate or a texture changed
// since. Each frame's manifest record carries this digest (docs/farms.md).
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/scene.h"

namespace fxsim {

class InputDigest {
 public:
  explicit InputDigest(const Scene& scene);
  // Whether the scene reads any file besides itself.
  bool any() const { return !files_.empty(); }
  // SHA-256 (hex) over the contents of every file frame `frame` reads, each
  // with its role, in a fixed order; "" when it reads none. Contents
  // only, not paths: the same scene run from another folder reads the same
  // files by other names. A file that is missing or not a regular file
  // counts as such (its render would fail). Files the same for every frame
  // are read once. Not thread-safe.
  std::string of_frame(int frame) const;

 private:
  std::vector<std::pair<std::string, std::string>> files_;  // (role, path or '#' pattern)
  mutable std::map<std::string, std::string> constant_;     // the digests of files read every frame
};

}  // namespace fxsim
