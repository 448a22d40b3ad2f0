#include "render/device_scan.h"

#include <string>

namespace fxsim {

namespace {
// Blocks of 2048 values: 256 invocations, 8 consecutive values each.
constexpr size_t kScanBlock = 2048;

const std::string kScanHeader = "#version 430\n" + glsl_launch_block() + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Values { uint values[]; };
layout(std430, binding = 1) buffer Sums { uint sums[]; };
shared uint partial[256];
const uint kBlock = 2048u;
uint block_count() { return (u_count + kBlock - 1u) / kBlock; }
)";

// Each block's total.
const std::string kBlockSums = kScanHeader + R"(
void main() {
  uint t = gl_LocalInvocationID.x;
  for (uint block = gl_WorkGroupID.x; block < block_count(); block += gl_NumWorkGroups.x) {
    uint base = block * kBlock + t * 8u, s = 0u;
    for (uint k = 0u; k < 8u; ++k)
      if (base + k < u_count) s += values[base + k];
    partial[t] = s;
    barrier();
    for (uint stride = 128u; stride > 0u; stride >>= 1) {
      if (t < stride) partial[t] += partial[t + stride];
      barrier();
    }
    if (t == 0u) sums[block] = partial[0];
    barrier();
  }
}
)";

// Each value becomes its block's offset (sums, already scanned) plus the values before it in the block.
const std::string kApply = kScanHeader + R"(
void main() {
  uint t = gl_LocalInvocationID.x;
  for (uint block = gl_WorkGroupID.x; block < block_count(); block += gl_NumWorkGroups.x) {
    uint base = block * kBlock + t * 8u, v[8], s = 0u;
    for (uint k = 0u; k < 8u; ++k) {
      v[k] = base + k < u_count ? values[base + k] : 0u;
      s += v[k];
    }
    partial[t] = s;
    barrier();
    for (uint offset = 1u; offset < 256u; offset <<= 1) {  // inclusive scan of the invocations' sums
      uint add = t >= offset ? partial[t - offset] : 0u;
      barrier();
      partial[t] += add;
      barrier();
    }
    uint running = sums[block] + partial[t] - s;
    for (uint k = 0u; k < 8u; ++k)
      if (base + k < u_count) {
        values[base + k] = running;
        running += v[k];
      }
    barrier();
  }
}
)";

size_t groups_for(size_t blocks) { return std::min<size_t>(blocks, 65535); }
}  // namespace

DeviceScan::DeviceScan() : block_sums_(kBlockSums), apply_(kApply) {}

void DeviceScan::exclusive(DeviceBuffer& values, size_t count) { exclusive(values, count, 0); }

void DeviceScan::exclusive(DeviceBuffer& values, size_t count, size_t level) {
  if (count == 0) return;
  const size_t blocks = (count + kScanBlock - 1) / kScanBlock;
  while (sums_.size() <= level) sums_.push_back(std::make_unique<DeviceBuffer>());
  DeviceBuffer& sums = *sums_[level];
  sums.reserve_growing(blocks * sizeof(uint32_t), DeviceBuffer::Use::kernels, "prefix sums");
  if (blocks == 1) {
    sums.fill(0, 0, sizeof(uint32_t));
  } else {
    block_sums_.bind(0, values);
    block_sums_.bind(1, sums);
    block_sums_.dispatch(count, groups_for(blocks));
    exclusive(sums, blocks, level + 1);
  }
  apply_.bind(0, values);
  apply_.bind(1, sums);
  apply_.dispatch(count, groups_for(blocks));
}

}  // namespace fxsim
