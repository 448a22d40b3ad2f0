#pragma once
// What a frame's pixels read besides the scene itself: the texture files its
// emitters name, and that frame's plate and depth plate. The look key hashes
// the scene's JSON, which names these files but says nothing of what is in
// them, so --skip-existing kept frames drawn from a plate or a texture changed
// since. Each frame's manifest record carries this digest (docs/farms.md).
//
// A file is hashed before it is read to draw: one changed in between is
// recorded as it was before, so the next --skip-existing draws that frame
// again, rather than a frame recorded as drawn from bytes it never read.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/scene.h"

namespace fxsim {

// The digests of the plate and depth plate a frame was drawn over, as the
// plate pass read them ("" where the scene has none).
struct PlateDigests {
  std::string plate, depth;
};

class InputDigest {
 public:
  // Hashes the texture files now: made before anything reads them to draw.
  explicit InputDigest(const Scene& scene);
  // Whether the scene reads any file besides itself.
  bool any() const { return !textures_.empty() || has_plate_ || has_depth_; }
  // SHA-256 (hex) over the digests of the textures and of `plates`, each with
  // its role, in a fixed order; "" when the scene reads no file. Contents
  // only, not paths: the same scene run from another folder reads the same
  // files by other names.
  std::string of(const PlateDigests& plates) const;
  // The same for frame `frame` as its files are now (--skip-existing);
  // nullopt where a plate of it is not there (the frame cannot be checked
  // against it). Plates the same for every frame are read once.
  std::optional<std::string> of_frame_now(int frame) const;
  // A file's SHA-256, or why it has none ("missing", "not a regular file":
  // a FIFO is not opened, which would block).
  static std::string file_digest(const std::string& file);

 private:
  std::vector<std::string> textures_;  // their digests
  bool has_plate_ = false, has_depth_ = false;
  std::string plate_, depth_;  // the patterns ('#': the frame number)
  mutable std::map<std::string, std::string> still_;  // the digests of plates without '#'
};

}  // namespace fxsim
