// The compute interface (render/compute.h) on a real EGL context (llvmpipe in CI).
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <vector>

#include "core/exit_codes.h"
#include "render/compute.h"
#include "render/device_scan.h"
#include "render/device_sort.h"
#include "render/gl_checks.h"
#include "render/gpu_params.h"
#include "tests/gl_context_fixture.h"

using namespace fxsim;

namespace {
class ComputeTest : public GlContextTest<4, 3> {};

#define FXSIM_SCALE_PARAMS(X) X(uint32_t, u_scale)
FXSIM_GPU_PARAMS(ScaleParams, FXSIM_SCALE_PARAMS);

// out[u_first + i] = in[i] × u_scale, and counts the items in a counter.
const std::string kScaleKernel = "#version 430\n" + glsl_launch_block() + ScaleParams::glsl(0) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { uint in_words[]; };
layout(std430, binding = 1) buffer Out { uint out_words[]; };
layout(std430, binding = 2) buffer Counters { uint items; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    out_words[u_first + i] = in_words[i] * u_scale;
    atomicAdd(items, 1u);
  }
}
)";
}  // namespace

TEST_F(ComputeTest, AKernelRunsOverEveryItemWithItsParametersAndLaunchBlock) {
  // More items than 65535 groups of 256 hold, so invocations loop.
  const size_t n = size_t(65535) * 256 + 1000;
  std::vector<uint32_t> input(n);
  std::iota(input.begin(), input.end(), 1u);
  DeviceBuffer in, out(n * 4 + 16, DeviceBuffer::Use::kernels, "test output");
  in.assign(input, DeviceBuffer::Use::host_writes);
  out.fill(7);
  DeviceCounters counters(1);
  ComputeKernel kernel(kScaleKernel);
  kernel.bind(0, in);
  kernel.bind(1, out);
  kernel.bind(2, counters.buffer());
  ScaleParams params;
  params.u_scale = 3;
  kernel.set_params(0, params);
  kernel.launch().u_first = 4;
  kernel.dispatch(n);
  std::vector<uint32_t> result(n + 4);
  out.download(result.data(), result.size() * 4);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(result[i], 7u);  // before u_first: the fill
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += result[4 + i] != input[i] * 3;
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(counters.take(), std::vector<uint32_t>{uint32_t(n)});
  EXPECT_EQ(counters.take(), std::vector<uint32_t>{0u});  // taking zeroes them
}

TEST_F(ComputeTest, FillAndDownloadWorkOnARange) {
  DeviceBuffer buffer(64, DeviceBuffer::Use::kernels, "test buffer");
  buffer.fill(1);
  buffer.fill(9, 16, 8);
  std::vector<uint32_t> words(16);
  buffer.download(words.data(), 64);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(words[i], i == 4 || i == 5 ? 9u : 1u) << i;
  uint32_t one = 0;
  buffer.download(&one, 4, 20);
  EXPECT_EQ(one, 9u);
}

// Sizes creeping up call after call keep the buffer they have until an
// eighth more than the size it grew to is used up; reserve() stays exact.
TEST_F(ComputeTest, AGrowingReserveLeavesRoomSoSmallIncreasesKeepTheBuffer) {
  DeviceBuffer buffer;
  buffer.reserve_growing(8000, DeviceBuffer::Use::kernels, "test buffer");
  EXPECT_EQ(buffer.bytes(), 9000u);
  const GLuint name = buffer.gl_name();
  buffer.reserve_growing(8800, DeviceBuffer::Use::kernels, "test buffer");
  buffer.reserve_growing(9000, DeviceBuffer::Use::kernels, "test buffer");
  EXPECT_EQ(buffer.bytes(), 9000u);
  EXPECT_EQ(buffer.gl_name(), name);
  buffer.fill(7);  // the whole buffer is there to use
  uint32_t last = 0;
  buffer.download(&last, 4, 8996);
  EXPECT_EQ(last, 7u);
  buffer.reserve_growing(9004, DeviceBuffer::Use::kernels, "test buffer");
  EXPECT_EQ(buffer.bytes(), 9004u + 1124u);  // an eighth, in whole words
  DeviceBuffer exact;
  exact.reserve(8000, DeviceBuffer::Use::kernels, "test buffer");
  EXPECT_EQ(exact.bytes(), 8000u);
}

TEST_F(ComputeTest, AKernelThatDoesNotCompileIsAnInternalErrorWithTheDriversLog) {
  try {
    ComputeKernel kernel("#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undeclared = 1; }\n");
    FAIL() << "compiled";
  } catch (const FxError& e) {
    EXPECT_EQ(e.code(), ExitCode::internal);
    EXPECT_NE(std::string(e.what()).find("compute shader does not compile"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("undeclared"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_gl("the next step"));  // reported once, not again by the next check
}

namespace {
std::vector<uint32_t> download_words(const DeviceBuffer& buffer, size_t count) {
  std::vector<uint32_t> words(count);
  buffer.download(words.data(), count * 4);
  return words;
}

// Deterministic pseudo-random words (a 32-bit LCG) for test data.
std::vector<uint32_t> test_words(size_t count, uint32_t modulus, uint32_t seed) {
  std::vector<uint32_t> words(count);
  for (uint32_t& w : words) {
    seed = seed * 1664525u + 1013904223u;
    w = (seed >> 8) % modulus;
  }
  return words;
}
}  // namespace

TEST_F(ComputeTest, AnExclusiveScanIsTheSumsBeforeEachValueAtEverySize) {
  DeviceScan scan;
  // One block, a block and a bit, and more blocks than one block of block sums holds (two levels).
  for (const size_t n : {size_t(1), size_t(2047), size_t(2049), size_t(2048) * 2048 + 77}) {
    const std::vector<uint32_t> values = test_words(n, 1000, uint32_t(n));
    DeviceBuffer buffer;
    buffer.assign(values, DeviceBuffer::Use::kernels);
    scan.exclusive(buffer, n);
    const std::vector<uint32_t> got = download_words(buffer, n);
    std::vector<uint32_t> expected(n);
    std::exclusive_scan(values.begin(), values.end(), expected.begin(), 0u);
    ASSERT_EQ(got, expected) << n;
  }
}

namespace {
// `sort` orders n pairs of random keys of `bits` bits as std::stable_sort does.
void expect_sorted_as_stable_sort(DeviceSort& sort, size_t n, int bits) {
  const std::vector<uint32_t> keys = test_words(n, 1u << bits, uint32_t(bits));
  std::vector<uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  DeviceBuffer key_buffer, value_buffer;
  key_buffer.assign(keys, DeviceBuffer::Use::kernels);
  value_buffer.assign(values, DeviceBuffer::Use::kernels);
  sort.sort_pairs(key_buffer, value_buffer, n, bits);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> sorted_keys(n);
  for (size_t i = 0; i < n; ++i) sorted_keys[i] = keys[order[i]];
  ASSERT_EQ(download_words(value_buffer, n), order) << n;  // the values carry their pairs' first places
  ASSERT_EQ(download_words(key_buffer, n), sorted_keys) << n;
}

// Records of 24 words (the compute rasteriser's sprites), each word telling
// its record's first place and its own place in it, sorted by `sort`.
void expect_records_moved_with_their_keys(DeviceSort& sort, size_t n) {
  constexpr int kWords = 24;
  const std::vector<uint32_t> keys = test_words(n, 1u << 12, 7);
  std::vector<uint32_t> records(n * kWords);
  for (size_t i = 0; i < records.size(); ++i) records[i] = uint32_t(i / kWords) << 8 | uint32_t(i % kWords);
  DeviceBuffer key_buffer, record_buffer;
  key_buffer.assign(keys, DeviceBuffer::Use::kernels);
  record_buffer.assign(records, DeviceBuffer::Use::kernels);
  sort.sort_pairs(key_buffer, record_buffer, n, 12);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> expected(n * kWords);
  for (size_t i = 0; i < n; ++i)
    for (int w = 0; w < kWords; ++w) expected[i * kWords + size_t(w)] = order[i] << 8 | uint32_t(w);
  EXPECT_EQ(download_words(record_buffer, n * kWords), expected);
}
}  // namespace

TEST_F(ComputeTest, TheRadixSortOrdersPairsByKeyAndKeepsTheOrderOfEqualKeys) {
  DeviceSort sort;
  // Few keys (long runs of equal keys, where stability shows), many keys in 3 passes, and a partial last block.
  for (const auto& [n, bits] : {std::pair<size_t, int>{5000, 4}, {300001, 13}, {70000, 20}})
    expect_sorted_as_stable_sort(sort, n, bits);
}

TEST_F(ComputeTest, TheRadixSortMovesRecordsOfSeveralWordsWithTheirKeys) {
  // A partial last block, two passes.
  DeviceSort sort(24);
  expect_records_moved_with_their_keys(sort, 5000);
  EXPECT_THROW(DeviceSort(6), std::invalid_argument);  // neither a word nor whole vectors of four
}

TEST_F(ComputeTest, TheRadixSortsWorkGroupsEachSortingManyBlocksSortAlike) {
  // Beyond 65 535 blocks (134 M pairs) a work group takes several blocks in
  // turn; here three groups take 147 blocks, and two take a record sort's 5.
  DeviceSort words(1, 3), records(24, 2);
  expect_sorted_as_stable_sort(words, 300001, 13);
  expect_records_moved_with_their_keys(records, 10000);
}
