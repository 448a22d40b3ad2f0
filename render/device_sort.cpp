#include "render/device_sort.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <string>
#include <utility>

namespace fxsim {

namespace {
#define FXSIM_SORT_PARAMS(X) X(uint32_t, u_shift) /* the digit's lowest bit */
FXSIM_GPU_PARAMS(SortParams, FXSIM_SORT_PARAMS);

constexpr size_t kSortBlock = 2048;  // pairs per block: 8 rounds of 256, one pair per invocation each round

const std::string kSortHeader = "#version 430\n" + glsl_launch_block() + R"(
layout(local_size_x = 256) in;
)" + SortParams::glsl(0) + R"(
const uint kBlock = 2048u;
uint block_count() { return (u_count + kBlock - 1u) / kBlock; }
uint digit(uint key) { return (key >> u_shift) & 255u; }
)";

// How many of each block's keys have each digit: histogram[digit × blocks + block].
const std::string kCount = kSortHeader + R"(
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

// Each block's pairs to their places: the scanned histogram's place for the
// digit and block plus the pairs of that digit before it in the block. First
// the block is ordered by digit in shared memory, round by round (a bit per
// invocation and digit marks who has which digit, and the bits below one's
// own count those before), then written out in that order, so that a
// digit's pairs, which land side by side, are written by neighbouring
// invocations, and each record (a value of FXSIM_VALUE_PARTS vectors of
// four words, or one word) by FXSIM_VALUE_PARTS neighbours. Before, each
// pair was stored by the invocation that read it, every store scattered
// (H200, 1080p, the compute rasteriser's sorts of 96-byte records a frame:
// rain 1 000 M 585 -> 325 ms, rain 10 M 8.3 -> 5.2 ms).
std::string scatter_source(int value_words) {
  if (value_words != 1 && (value_words < 4 || value_words % 4 != 0))
    throw std::invalid_argument(fmt::format("DeviceSort: values of {} words (1 or a multiple of 4)", value_words));
  const bool words = value_words == 1;
  return kSortHeader +
         fmt::format("#define FXSIM_VALUE_PART {}\n#define FXSIM_VALUE_PARTS {}u\n", words ? "uint" : "uvec4",
                     words ? 1 : value_words / 4) +
         R"(
layout(std430, binding = 0) restrict readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) restrict readonly buffer ValuesIn { FXSIM_VALUE_PART values_in[]; };
layout(std430, binding = 2) restrict writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 3) restrict writeonly buffer ValuesOut { FXSIM_VALUE_PART values_out[]; };
layout(std430, binding = 4) restrict readonly buffer Histogram { uint histogram[]; };
shared uint running[256];    // per digit: the block's next place in digit order
shared uint shift[256];      // per digit: from a place in the block's order to the place in the output
shared uint marks[256 * 8];  // digit × 8 words of 32 invocations
shared uint ordered_keys[kBlock], ordered_from[kBlock];  // the block in digit order: keys, and where each was in the block
void main() {
  uint t = gl_LocalInvocationID.x, word = t >> 5, bit = 1u << (t & 31u);
  uint blocks = block_count();
  for (uint block = gl_WorkGroupID.x; block < blocks; block += gl_NumWorkGroups.x) {
    uint base = block * kBlock, size = min(u_count - base, kBlock);
    // This digit's place in the output and its count in the block (the next
    // histogram entry is the next block's, or the next digit's first), and
    // the counts of the digits below it in the block: an inclusive scan.
    uint at = histogram[t * blocks + block];
    uint count = (t == 255u && block + 1u == blocks ? u_count : histogram[t * blocks + block + 1u]) - at;
    running[t] = count;
    barrier();
    for (uint step = 1u; step < 256u; step <<= 1) {
      uint below = t >= step ? running[t - step] : 0u;
      barrier();
      running[t] += below;
      barrier();
    }
    uint first = running[t] - count;
    running[t] = first;  // (only this invocation reads or writes running[t] here)
    shift[t] = at - first;
    // The block's keys, all loads issued before the first is needed.
    uint block_keys[8];
    for (uint round = 0u; round < 8u; ++round) {
      uint from = round * 256u + t;
      block_keys[round] = from < size ? keys_in[base + from] : 0u;
    }
    for (uint round = 0u; round < 8u; ++round) {
      for (uint w = 0u; w < 8u; ++w) marks[t * 8u + w] = 0u;
      uint from = round * 256u + t;
      bool valid = from < size;
      uint key = block_keys[round], d = digit(key);
      barrier();
      if (valid) atomicOr(marks[d * 8u + word], bit);
      barrier();
      if (valid) {
        uint before = bitCount(marks[d * 8u + word] & (bit - 1u));
        for (uint w = 0u; w < word; ++w) before += bitCount(marks[d * 8u + w]);
        uint place = running[d] + before;
        ordered_keys[place] = key;
        ordered_from[place] = from;
      }
      uint here = 0u;
      for (uint w = 0u; w < 8u; ++w) here += bitCount(marks[t * 8u + w]);
      barrier();
      running[t] += here;
    }
    barrier();
    for (uint q = t; q < size; q += 256u) keys_out[q + shift[digit(ordered_keys[q])]] = ordered_keys[q];
    // The values kBatch at a time: their loads issued together, then their
    // stores (one load in flight at a time left the copy waiting on memory).
    const uint kBatch = 8u;
    uint parts = size * FXSIM_VALUE_PARTS;
    for (uint j0 = t; j0 < parts; j0 += 256u * kBatch) {
      FXSIM_VALUE_PART moved[kBatch];
      for (uint b = 0u; b < kBatch; ++b) {
        uint j = j0 + b * 256u;
        if (j < parts) moved[b] = values_in[(base + ordered_from[j / FXSIM_VALUE_PARTS]) * FXSIM_VALUE_PARTS + j % FXSIM_VALUE_PARTS];
      }
      for (uint b = 0u; b < kBatch; ++b) {
        uint j = j0 + b * 256u;
        if (j < parts) {
          uint q = j / FXSIM_VALUE_PARTS;
          values_out[(q + shift[digit(ordered_keys[q])]) * FXSIM_VALUE_PARTS + j % FXSIM_VALUE_PARTS] = moved[b];
        }
      }
    }
    barrier();
  }
}
)";
}
}  // namespace

DeviceSort::DeviceSort(int value_words, size_t most_groups)
    : value_bytes_(size_t(value_words) * sizeof(uint32_t)),
      most_groups_(std::max<size_t>(1, most_groups)),
      count_(kCount),
      scatter_(scatter_source(value_words)) {}

void DeviceSort::sort_pairs(DeviceBuffer& keys, DeviceBuffer& values, size_t count, int key_bits) {
  if (count < 2) return;
  const size_t blocks = (count + kSortBlock - 1) / kSortBlock, groups = std::min(blocks, most_groups_);
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
