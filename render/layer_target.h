#pragma once
// A single-sample float image with depth, for the ground-truth layers drawn
// beside a frame (masks, depth): drawn and read back at once.
#include <glm/vec4.hpp>
#include <vector>

#include "render/gl_objects.h"

namespace fxsim {

class LayerTarget {
 public:
  LayerTarget(int width, int height);
  // Binds it, clears the colour to `clear` and the depth to 1.
  void begin(glm::vec4 clear);
  // Channel `channel` (0..3) of every pixel, rows top to bottom.
  std::vector<float> read(int channel) { return read(std::vector<int>{channel})[0]; }
  // Several channels at once, in the order asked.
  std::vector<std::vector<float>> read(const std::vector<int>& channels);

 private:
  int width_, height_;
  GlRenderbuffer color_, depth_;
  GlFramebuffer fbo_;
};

}  // namespace fxsim
