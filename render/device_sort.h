#pragma once
// A stable radix sort of (key, value) pairs of 32-bit words on the GPU: least
// significant digit first, 8 bits a pass, each pass counting the digits per
// block of 2048 pairs, scanning the counts (render/device_scan.h) and
// scattering every block's pairs to their places in order. Stable, so pairs
// with equal keys keep their order, and the result is the same on every run.
#include <cstddef>

#include "render/compute.h"
#include "render/device_scan.h"

namespace fxsim {

class DeviceSort {
 public:
  DeviceSort();
  // Sorts the first `count` pairs by the low `key_bits` bits of their keys
  // (higher bits must be 0). The sorted pairs end up in `keys` and `values`
  // (which may swap storage with the sorter's own buffers).
  void sort_pairs(DeviceBuffer& keys, DeviceBuffer& values, size_t count, int key_bits);

 private:
  ComputeKernel count_, scatter_;
  DeviceScan scan_;
  DeviceBuffer histogram_, spare_keys_, spare_values_;
};

}  // namespace fxsim
