#pragma once
// Which golden images fit a GL: rasterisers differ beyond any sensible
// tolerance (NVIDIA's and llvmpipe's edges and blending), so goldens are kept
// per device class, derived from the GL's vendor and renderer strings:
//   llvmpipe (LLVM 15.0.6, 256 bits)   → llvmpipe
//   NVIDIA H200/PCIe/SSE2              → nvidia-h200, then nvidia
//   AMD Radeon RX 7900 XTX (radeonsi…) → amd-radeon-rx-7900-xtx, then amd
// Goldens are looked up from the exact class to the base class, then the
// suite's base set.
#include <string>

namespace fxsim {

struct DeviceClass {
  std::string exact;  // "nvidia-h200"
  std::string base;   // "nvidia"
};

DeviceClass device_class(const std::string& vendor, const std::string& renderer);

}  // namespace fxsim
