// Which batches --fill-resolution auto draws at half size: the rule on the
// measured figures, and the measurement itself on batches whose area is
// known (llvmpipe in CI), whole and sampled.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>

#include <glm/trigonometric.hpp>

#include "core/rng.h"
#include "core/scene_parser.h"
#include "render/frame_target.h"
#include "render/screen_coverage.h"
#include "render/sprite_pass.h"
#include "tests/gl_context_fixture.h"

using namespace fxsim;

TEST(FillBound, LargeSpritesCoveringTheFrameAtLeastOnce) {
  const int w = 100, h = 50;  // 5 000 pixels
  EXPECT_FALSE(fill_bound({0, 0}, w, h));
  EXPECT_TRUE(fill_bound({5000, 78}, w, h));   // mean 64.1, the frame once
  EXPECT_FALSE(fill_bound({5000, 79}, w, h));  // mean 63.3: small sprites
  EXPECT_FALSE(fill_bound({4999, 10}, w, h));  // large, but less than the frame
  EXPECT_TRUE(fill_bound({uint64_t(1) << 40, uint64_t(1) << 30}, w, h));  // beyond 32 bits
}

namespace {
class ScreenCoverageTest : public GlContextTest<4, 3> {
 protected:
  // Draws `count` screen-facing sprites, each `pixels` wide, spread over the
  // middle of a 160x90 frame, with auto's choice, and says whether it drew them at half size.
  static bool drawn_at_half_size(size_t count, float pixels) {
    const Scene scene = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "snow", "max_particles": 0}]})",
                                         "s.json", ".");
    RasteriserChoice choice;
    choice.fill = FillResolution::automatic;
    choice.compute_shaders = true;
    SpritePass pass(scene, choice);
    FrameTarget target(160, 90, 1, TargetFormat::float32);
    target.bind_for_drawing();
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    const CameraPose camera{{0, 0, 5}, {0, 0, 0}, {0, 1, 0}, 50, 0.1f, 100};
    pass.begin_frame(camera, 160, 90);
    // Full width in pixels = size · projection[1][1] / 2 · 90 / 5 (render/sprite_glsl.h).
    const float size = pixels / (1.0f / std::tan(glm::radians(25.0f)) * 0.5f * 90.0f / 5.0f);
    SpriteBatch batch;
    for (size_t i = 0; i < count; ++i) {  // well inside the frame (±4.1 m by ±2.3 m at 5 m)
      RandomDraws draws(1, 0, Stream::birth, i);
      const float x = draws.unit(0) * 5.0f - 2.5f, y = draws.unit(1) * 2.6f - 1.3f;
      batch.sprites.push_back({{x, y, 0}, size, glm::vec3(0), 0.01f, 0, 0});
    }
    const GlTexture texture = make_texture_array({Image{4, 4, std::vector<uint8_t>(64, 255)}});
    EmitterSettings emitter;
    pass.draw(batch, emitter, texture);
    return pass.draw_counts().reduced == 1;
  }
};
}  // namespace

TEST_F(ScreenCoverageTest, MeasuresTheSpritesAreaAsDrawn) {
  // 300 sprites cover the 14 400-pixel frame more than once at these sizes:
  // the mean area decides, 8.4 px wide (70 px²) is large, 7.6 (58 px²) is not.
  EXPECT_TRUE(drawn_at_half_size(300, 8.37f));
  EXPECT_FALSE(drawn_at_half_size(300, 7.62f));
  // Large sprites covering less than the frame (150 × 70 px²) stay at full size.
  EXPECT_FALSE(drawn_at_half_size(150, 8.37f));
  // Batches larger than the sample are measured on every k-th sprite, scaled.
  EXPECT_TRUE(drawn_at_half_size(10000, 8.37f));
  EXPECT_FALSE(drawn_at_half_size(10000, 7.62f));
}
