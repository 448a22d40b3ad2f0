#pragma once
// Exclusive prefix sums of 32-bit counts on the GPU: the step that turns
// per-item counts into the offsets where each item writes (the compute
// rasteriser's tile lists, the radix sort's buckets). Integer sums, so the
// result does not depend on how the work was split.
#include <cstddef>
#include <memory>
#include <vector>

#include "render/compute.h"

namespace fxsim {

class DeviceScan {
 public:
  DeviceScan();
  // Replaces values[0, count) by the sum of the values before each; the last
  // element (values[count - 1]) becomes the sum of all but itself, so callers
  // append a 0 to read the total there.
  void exclusive(DeviceBuffer& values, size_t count);

 private:
  void exclusive(DeviceBuffer& values, size_t count, size_t level);
  ComputeKernel block_sums_, apply_;
  std::vector<std::unique_ptr<DeviceBuffer>> sums_;  // one per level of blocks
};

}  // namespace fxsim
