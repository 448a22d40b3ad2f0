#pragma once
// A stable radix sort of (key, value) pairs on the GPU, a key a 32-bit word
// and a value one word or a record of several: least significant digit
// first, 8 bits a pass, each pass counting the digits per block of 2048
// pairs, scanning the counts (render/device_scan.h) and scattering every
// block's pairs to their places in order (each block first ordered by digit
// in shared memory, so that pairs landing side by side are written side by
// side). Stable, so pairs with equal keys keep their order, and the result
// is the same on every run. Records move
// with their keys, so that what follows reads them in sorted order, where
// reading them through sorted indices would jump across a large buffer
// (render/compute_rasteriser.cpp measures it).
#include <cstddef>

#include "render/compute.h"
#include "render/device_scan.h"

namespace fxsim {

class DeviceSort {
 public:
  // Values of `value_words` 32-bit words: 1, or a multiple of 4. A pass
  // launches at most `most_groups` work groups (the most a dispatch
  // dimension holds), each then taking every most_groups-th block.
  explicit DeviceSort(int value_words = 1, size_t most_groups = 65535);
  // Sorts the first `count` pairs by the low `key_bits` bits of their keys
  // (higher bits must be 0). The sorted pairs end up in `keys` and `values`
  // (which may swap storage with the sorter's own buffers).
  void sort_pairs(DeviceBuffer& keys, DeviceBuffer& values, size_t count, int key_bits);

 private:
  size_t value_bytes_, most_groups_;
  ComputeKernel count_, scatter_;
  DeviceScan scan_;
  DeviceBuffer histogram_, spare_keys_, spare_values_;
};

}  // namespace fxsim
