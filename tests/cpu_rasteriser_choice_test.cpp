// On a software GL, `auto`'s choice of the CPU rasteriser for a batch
// (render/sprite_pass.h cpu_rasteriser_pays): the batches measured on
// llvmpipe fall on the side they were measured faster on.
#include <gtest/gtest.h>

#include "render/sprite_pass.h"

using namespace fxsim;

TEST(CpuRasteriserChoice, SmallQuadsEnoughForTheFramesLayer) {
  // rain.json: at 640x360 both batches on the CPU (0.73x GL's time); at
  // 1920x1080 its 26 487 drawn small sprites (10.8 px) were slower there.
  EXPECT_TRUE(cpu_rasteriser_pays(4.0, 26489, 640, 360));
  EXPECT_TRUE(cpu_rasteriser_pays(17.9, 26833, 640, 360));
  EXPECT_FALSE(cpu_rasteriser_pays(10.8, 26487, 1920, 1080));
  // Its streaks at 1280x720: enough of them for the frame, but quads too large.
  EXPECT_FALSE(cpu_rasteriser_pays(36.7, 26833, 1280, 720));
  // snow.json's 16 268 flakes drawn at 1280x720 (15.6 px) were faster on the CPU.
  EXPECT_TRUE(cpu_rasteriser_pays(15.6, 16268, 1280, 720));
  // The edges: 32 pixels, and one sprite for every 64 pixels of the frame.
  EXPECT_TRUE(cpu_rasteriser_pays(32.0, 14400, 1280, 720));
  EXPECT_FALSE(cpu_rasteriser_pays(32.001, 14400, 1280, 720));
  EXPECT_FALSE(cpu_rasteriser_pays(32.0, 14399, 1280, 720));
  // Nothing drawn: GL (which then draws nothing either).
  EXPECT_FALSE(cpu_rasteriser_pays(0.0, 0, 64, 36));
}
