#include "render/device_sort.h"

#include <fmt/format.h>
#include <stdexcept>
#include <string>
#include <utility>

namespace fxsim {

namespace {
#define FXSIM_SORT_PARAMS(X) X(uint32_t, u_shift) /* the digit's lowest bit */
FXSIM_GPU_PARAMS(SortParams, FXSIM_SORT_PARAMS);

constexpr size_t kBlock = 2048;  // pairs per block: 8 rounds of 256, one pair per invocation each round

const std::string kHeader = "#version 430\n" + glsl_launch_block() + R"(
layout(local_size_x = 256) in;
)" + SortParams::glsl(0) + R"(
const uint kBlock = 2048u;
uint block_count() { return (u_count + kBlock - 1u) / kBlock; }
uint digit(uint key) { return (key >> u_shift) & 255u; }
)";

// How many of each block's keys have each digit: histogram[digit × blocks + block].
const std::string kCount = kHeader + R"(
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Histogram { uint histogram[]; };
shared uint counts[256];
void main() {
  uint t = gl_LocalInvocationID.x;
  for (uint block = gl_WorkGroupID.x; block < block_count(); block += gl_NumWorkGroups.x) {
    counts[t] = 0u;
    barrier();
    for (uint e = block * kBlock + t; e < min(u_count, (block + 1u) * kBlock); e += 256u) atomicAdd(counts[digit(keys[e])], 1u);
    barrier();
    histogram[t * block_count() + block] = counts[t];
    barrier();
  }
}
)";

// Each pair to the scanned histogram's place for its digit and block plus the
// pairs of that digit before it in the block: a bit per invocation and digit
// marks who has which digit, and the bits below one's own count those before.
// A value is FXSIM_VALUE_PARTS words (uint) or vectors of four (uvec4).
std::string scatter_source(int value_words) {
  if (value_words != 1 && (value_words < 4 || value_words % 4 != 0))
    throw std::invalid_argument(fmt::format("DeviceSort: values of {} words (1 or a multiple of 4)", value_words));
  const bool words = value_words == 1;
  return kHeader + fmt::format("#define FXSIM_VALUE_PART {}\n#define FXSIM_VALUE_PARTS {}u\n", words ? "uint" : "uvec4",
                               words ? 1 : value_words / 4) +
         R"(
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { FXSIM_VALUE_PART values_in[]; };
layout(std430, binding = 2) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 3) writeonly buffer ValuesOut { FXSIM_VALUE_PART values_out[]; };
layout(std430, binding = 4) readonly buffer Histogram { uint histogram[]; };
shared uint running[256];
shared uint marks[256 * 8];  // digit × 8 words of 32 invocations
void main() {
  uint t = gl_LocalInvocationID.x, word = t >> 5, bit = 1u << (t & 31u);
  for (uint block = gl_WorkGroupID.x; block < block_count(); block += gl_NumWorkGroups.x) {
    running[t] = histogram[t * block_count() + block];
    for (uint round = 0u; round < 8u; ++round) {
      for (uint w = 0u; w < 8u; ++w) marks[t * 8u + w] = 0u;
      barrier();
      uint e = block * kBlock + round * 256u + t;
      bool valid = e < u_count;
      uint key = valid ? keys_in[e] : 0u, d = digit(key);
      if (valid) atomicOr(marks[d * 8u + word], bit);
      barrier();
      if (valid) {
        uint before = bitCount(marks[d * 8u + word] & (bit - 1u));
        for (uint w = 0u; w < word; ++w) before += bitCount(marks[d * 8u + w]);
        uint place = running[d] + before;
        keys_out[place] = key;
        for (uint k = 0u; k < FXSIM_VALUE_PARTS; ++k)
          values_out[place * FXSIM_VALUE_PARTS + k] = values_in[e * FXSIM_VALUE_PARTS + k];
      }
      barrier();
      uint here = 0u;
      for (uint w = 0u; w < 8u; ++w) here += bitCount(marks[t * 8u + w]);
      running[t] += here;
      barrier();
    }
  }
}
)";
}
}  // namespace

DeviceSort::DeviceSort(int value_words)
    : value_bytes_(size_t(value_words) * sizeof(uint32_t)), count_(kCount), scatter_(scatter_source(value_words)) {}

void DeviceSort::sort_pairs(DeviceBuffer& keys, DeviceBuffer& values, size_t count, int key_bits) {
  if (count < 2) return;
  const size_t blocks = (count + kBlock - 1) / kBlock, groups = std::min<size_t>(blocks, 65535);
  histogram_.reserve_growing(256 * blocks * sizeof(uint32_t), DeviceBuffer::Use::kernels, "the sort's digit counts");
  spare_keys_.reserve_growing(count * sizeof(uint32_t), DeviceBuffer::Use::kernels, "sorted keys");
  spare_values_.reserve_growing(count * value_bytes_, DeviceBuffer::Use::kernels, "sorted values");
  for (int shift = 0; shift < key_bits; shift += 8) {
    const SortParams params{uint32_t(shift)};
    count_.set_params(0, params);
    count_.bind(0, keys);
    count_.bind(1, histogram_);
    count_.dispatch(count, groups);
    scan_.exclusive(histogram_, 256 * blocks);
    scatter_.set_params(0, params);
    scatter_.bind(0, keys);
    scatter_.bind(1, values);
    scatter_.bind(2, spare_keys_);
    scatter_.bind(3, spare_values_);
    scatter_.bind(4, histogram_);
    scatter_.dispatch(count, groups);
    std::swap(keys, spare_keys_);
    std::swap(values, spare_values_);
  }
}

}  // namespace fxsim
