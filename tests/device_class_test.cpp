// Device classes from GL vendor and renderer strings (core/device_class.h).
#include <gtest/gtest.h>

#include "core/device_class.h"

using namespace fxsim;

TEST(DeviceClass, FromTheStringsRealDriversReport) {
  const auto llvmpipe = device_class("Mesa", "llvmpipe (LLVM 15.0.6, 256 bits)");
  EXPECT_EQ(llvmpipe.exact, "llvmpipe");
  EXPECT_EQ(llvmpipe.base, "llvmpipe");
  const auto h200 = device_class("NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2");
  EXPECT_EQ(h200.exact, "nvidia-h200");
  EXPECT_EQ(h200.base, "nvidia");
  EXPECT_EQ(device_class("NVIDIA Corporation", "NVIDIA GeForce RTX 4090/PCIe/SSE2").exact, "nvidia-geforce-rtx-4090");
  const auto amd = device_class("AMD", "AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.6, DRM 3.54)");
  EXPECT_EQ(amd.exact, "amd-radeon-rx-7900-xtx");
  EXPECT_EQ(amd.base, "amd");
  EXPECT_EQ(device_class("Intel", "Mesa Intel(R) UHD Graphics 620 (KBL GT2)").base, "intel");
  const auto other = device_class("Acme Graphics", "Roadrunner 9000");
  EXPECT_EQ(other.base, "acme-graphics");
  EXPECT_EQ(other.exact, "acme-graphics-roadrunner-9000");
  EXPECT_EQ(device_class("", "").base, "unknown");
}
