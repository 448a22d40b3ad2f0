// The CPU rasteriser (core/sprite_rasteriser.h) and its look
// (core/sprite_look.h) without a GL: coverage per sample, drawing order,
// additive light, the ground and the near plane, the same layer for any
// number of threads, trilinear texture lookups, and quads that agree with the
// other CPU twins of the sprite vertex code (billboard axes, streak quads).
// The frames it draws inside fxsim are compared with the GL rasteriser's in
// tests/compute_rasteriser_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <glm/geometric.hpp>

#include "core/billboard.h"
#include "core/camera_path.h"
#include "core/rng.h"
#include "core/sprite_look.h"
#include "core/sprite_rasteriser.h"
#include "core/streak_geometry.h"
#include "core/window_position.h"

using namespace fxsim;

namespace {
constexpr int kWidth = 64, kHeight = 48;
const CameraPose kPose{{0, 2, 10}, {0, 2, 0}, {0, 1, 0}, 50, 0.1f, 100};

SpriteCamera camera(BillboardMode billboard = BillboardMode::screen) {
  SpriteCamera c;
  c.view = kPose.view();
  c.projection = kPose.projection(float(kWidth) / float(kHeight));
  c.eye = kPose.position;
  const glm::mat3 basis = kPose.basis();
  c.right = basis[0];
  c.up = basis[1];
  c.billboard = billboard;
  c.viewport = {kWidth, kHeight};
  c.near_plane = kPose.near_plane;
  return c;
}

// A texture of `layers` layers of one colour each, with its whole mipmap chain.
SpriteTexels flat_texture(const std::vector<glm::vec4>& layers, int size = 8) {
  SpriteTexels t;
  t.layers = int(layers.size());
  for (int w = size;; w /= 2) {
    SpriteTexels::Level level;
    level.width = level.height = w;
    for (const glm::vec4& colour : layers) level.texels.insert(level.texels.end(), size_t(w) * size_t(w), colour);
    t.levels.push_back(std::move(level));
    if (w == 1) break;
  }
  return t;
}

SpriteFrame frame_with_4_samples() {
  SpriteFrame f;
  f.width = kWidth;
  f.height = kHeight;
  f.sample_positions = {{0.375f, 0.125f}, {0.875f, 0.375f}, {0.125f, 0.625f}, {0.625f, 0.875f}};
  return f;
}

SpriteInstance flake(glm::vec3 at, float size, float layer = 0) {
  SpriteInstance s{};
  s.position = at;
  s.size = size;
  s.alpha = 1;
  s.layer = layer;
  return s;
}

std::vector<glm::vec4> draw(const std::vector<SpriteInstance>& sprites, const SpriteTexels& texels,
                            bool additive = false, int threads = 1, SpriteDepthLimits limits = {},
                            const SpriteCamera& cam = camera()) {
  ThreadPool pool(threads);
  CpuSpriteRasteriser r;
  r.prepare(sprites, cam, limits, pool);
  std::vector<glm::vec4> layer;
  SpriteShading shading;
  shading.eye = cam.eye;
  r.blend(shading, texels, frame_with_4_samples(), additive, pool, layer);
  return layer;
}

glm::vec4 at(const std::vector<glm::vec4>& layer, int x, int y) { return layer[size_t(y) * kWidth + size_t(x)]; }

// The window position of a world point.
glm::vec2 sprite_camera_pixel(glm::vec3 p) {
  const SpriteCamera c = camera();
  return window_position(c.projection * c.view * glm::vec4(p, 1.0f), c.viewport);
}
}  // namespace

TEST(SpriteRasteriser, AnOpaqueSquareCoversItsPixelsSampleBySample) {
  // A 2 m square at the camera's target: opaque white inside, nothing far outside.
  const std::vector<glm::vec4> layer = draw({flake({0, 2, 0}, 2)}, flat_texture({glm::vec4(1)}));
  const glm::vec2 lo = sprite_camera_pixel({-1, 1, 0}), hi = sprite_camera_pixel({1, 3, 0});
  ASSERT_GT(hi.x - lo.x, 10);  // about 17 pixels wide
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const float a = at(layer, x, y).a, fx = float(x), fy = float(y);
      if (fx >= lo.x + 1 && fx + 1 <= hi.x - 1 && fy >= lo.y + 1 && fy + 1 <= hi.y - 1) {
        EXPECT_FLOAT_EQ(a, 1.0f) << x << ", " << y;
        EXPECT_FLOAT_EQ(at(layer, x, y).r, 1.0f);
      } else if (fx + 1 < lo.x - 1 || fx > hi.x + 1 || fy + 1 < lo.y - 1 || fy > hi.y + 1) {
        EXPECT_EQ(a, 0.0f) << x << ", " << y;
      } else {  // on the edge: a whole number of the 4 samples
        EXPECT_FLOAT_EQ(a * 4, std::round(a * 4)) << x << ", " << y;
      }
    }
}

TEST(SpriteRasteriser, TheLaterSpriteIsInFrontAsInDrawingOrder) {
  const SpriteTexels texels = flat_texture({{1.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 1.0f, 0.0f, 1.0f}});
  // Drawn red then green at the same place: green shows; the other way round, red.
  const glm::vec2 centre = sprite_camera_pixel({0, 2, 0});
  const int x = int(centre.x), y = int(centre.y);
  const std::vector<glm::vec4> green_on_top = draw({flake({0, 2, 0}, 1, 0), flake({0, 2, 0}, 1, 1)}, texels);
  EXPECT_EQ(at(green_on_top, x, y), glm::vec4(0, 1, 0, 1));
  const std::vector<glm::vec4> red_on_top = draw({flake({0, 2, 0}, 1, 1), flake({0, 2, 0}, 1, 0)}, texels);
  EXPECT_EQ(at(red_on_top, x, y), glm::vec4(1, 0, 0, 1));
  // Half transparent over opaque: "over", front to back.
  const SpriteTexels half = flat_texture({{0.5f, 0.0f, 0.0f, 0.5f}, {0.0f, 1.0f, 0.0f, 1.0f}});
  const std::vector<glm::vec4> over = draw({flake({0, 2, 0}, 1, 1), flake({0, 2, 0}, 1, 0)}, half);
  EXPECT_FLOAT_EQ(at(over, x, y).r, 0.5f);
  EXPECT_FLOAT_EQ(at(over, x, y).g, 0.5f);
  EXPECT_FLOAT_EQ(at(over, x, y).a, 1.0f);
}

TEST(SpriteRasteriser, AdditiveSpritesAddLightAndNoCoverage) {
  const SpriteTexels texels = flat_texture({{0.25f, 0.5f, 0.125f, 1}});
  const glm::vec2 centre = sprite_camera_pixel({0, 2, 0});
  const std::vector<glm::vec4> layer = draw({flake({0, 2, 0}, 1), flake({0, 2, 0}, 1)}, texels, true);
  EXPECT_EQ(at(layer, int(centre.x), int(centre.y)), glm::vec4(0.5f, 1.0f, 0.25f, 0.0f));
}

TEST(SpriteRasteriser, TheGroundHidesWhatLiesBelowIt) {
  SpriteDepthLimits limits;
  limits.ground_height = 0.0f;
  limits.ground_extent = 70;
  limits.ground_centre = {0, 10};
  const SpriteTexels texels = flat_texture({glm::vec4(1)});
  // Seen from 2 m up, a flake 1 m below the ground is hidden; one above it is not.
  const glm::vec2 below = sprite_camera_pixel({0, -1, 0}), above = sprite_camera_pixel({0, 1, 0});
  const std::vector<glm::vec4> hidden = draw({flake({0, -1, 0}, 0.5f)}, texels, false, 1, limits);
  EXPECT_EQ(at(hidden, int(below.x), int(below.y)).a, 0.0f);
  const std::vector<glm::vec4> seen = draw({flake({0, 1, 0}, 0.5f)}, texels, false, 1, limits);
  EXPECT_EQ(at(seen, int(above.x), int(above.y)).a, 1.0f);
}

TEST(SpriteRasteriser, SpritesReachingThroughTheNearPlaneAreLeftToTheGl) {
  ThreadPool pool(1);
  CpuSpriteRasteriser r;
  // A metre-wide flake turning about +Y, 0.1 m in front of the eye and 0.3 m
  // to the side: its quad reaches behind the eye.
  const std::vector<SpriteInstance> sprites = {flake({0, 2, 0}, 1), flake({0.3f, 2, 9.9f}, 1)};
  r.prepare(sprites, camera(BillboardMode::axial), {}, pool);
  ASSERT_EQ(r.near_sprites().size(), 1u);
  EXPECT_EQ(r.near_sprites()[0], 1u);
  EXPECT_EQ(r.drawn(), 1u);
}

TEST(SpriteRasteriser, TheLayerIsTheSameForAnyNumberOfThreads) {
  // 3000 translucent flakes of three colours over several bands, some overlapping.
  std::vector<SpriteInstance> sprites;
  for (uint32_t i = 0; i < 3000; ++i) {
    RandomDraws draws(42, 0, Stream::birth, i);
    const auto u = [&](uint32_t d) { return draws.unit(d); };
    SpriteInstance s = flake({u(0) * 8 - 4, u(1) * 6 - 1, u(2) * 8 - 4}, 0.05f + 0.3f * u(3), float(i % 3));
    s.alpha = 0.3f + 0.7f * u(4);
    s.spin = u(5) * 6.28f;
    sprites.push_back(s);
  }
  const SpriteTexels texels = flat_texture({{0.5f, 0.1f, 0.1f, 0.6f}, {0.1f, 0.5f, 0.1f, 0.8f}, {0, 0, 0.4f, 0.4f}});
  const std::vector<glm::vec4> one = draw(sprites, texels, false, 1);
  float covered = 0;
  for (const glm::vec4& p : one) covered += p.a;
  EXPECT_GT(covered, kWidth * kHeight * 0.3f);
  for (int threads : {2, 3, 8}) EXPECT_EQ(draw(sprites, texels, false, threads), one) << threads << " threads";
}

TEST(SpriteTexels, TrilinearLookupsBetweenLevelsAndAtTexelCentres) {
  SpriteTexels t = flat_texture({glm::vec4(1)}, 4);
  // Level 0: a ramp along u; the coarser levels stay flat 1.
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y) t.levels[0].texels[size_t(y) * 4 + size_t(x)] = glm::vec4(float(x) / 3);
  EXPECT_FLOAT_EQ(t.sample({0.375f, 0.5f}, 0, 0).r, 1.0f / 3);  // texel 1's centre
  EXPECT_FLOAT_EQ(t.sample({0.5f, 0.5f}, 0, 0).r, 0.5f);        // between texels 1 and 2
  EXPECT_FLOAT_EQ(t.sample({0.0f, 0.5f}, 0, -2).r, 0.0f);       // clamped to the edge
  EXPECT_FLOAT_EQ(t.sample({0.375f, 0.5f}, 0, 0.25f).r, 0.75f * (1.0f / 3) + 0.25f);  // a quarter of level 1
  EXPECT_FLOAT_EQ(t.sample({0.375f, 0.5f}, 0, 9).r, 1.0f);      // beyond the chain: the 1×1 level
  EXPECT_FLOAT_EQ(t.mean_level(), 2.0f);
}

TEST(SpriteLook, CornersSpanTheBillboardAxesAndTheStreakQuads) {
  // Billboards: the quad's edges run along core/billboard.h's axes.
  for (BillboardMode mode : {BillboardMode::screen, BillboardMode::viewpoint, BillboardMode::axial}) {
    const glm::vec3 centre{1.5f, 3, -2};
    SpriteVertex v[4];
    sprite_corners(camera(mode), flake(centre, 0.5f), v);
    const BillboardAxes axes = billboard_axes(mode, kPose, centre);
    EXPECT_LT(glm::length((v[1].world - v[0].world) / 0.5f - axes.right), 1e-5f) << int(mode);
    EXPECT_LT(glm::length((v[2].world - v[0].world) / 0.5f - axes.up), 1e-5f) << int(mode);
  }
  // Streaks: the corners core/streak_geometry.h makes, in pixels.
  SpriteInstance drop = flake({0.5f, 1, 0}, 0.01f);
  drop.stretch = glm::vec3(3, -7.5f, 0) / 24.0f;
  const SpriteCamera c = camera();
  SpriteVertex v[4];
  sprite_corners(c, drop, v);
  const StreakQuad q = streak_quad(c.view, c.projection, c.viewport, c.near_plane, drop.position,
                                   drop.position - drop.stretch, drop.size, c.min_pixels);
  ASSERT_TRUE(q.visible);
  for (int i = 0; i < 4; ++i) {
    const glm::vec2 p = window_position(v[i].clip, c.viewport);
    EXPECT_LT(glm::length(p - q.corners[i]), 1e-3f) << "corner " << i;
  }
}

TEST(SpriteLook, AStreakUnderTheShutterKeepsASharpSpritesLightAtAnyWidth) {
  // camera.shutter: a streak's opacity is scaled so that its light (opacity ×
  // the quad's area) is the sharp sprite's, also where either is drawn at the
  // minimum width: a 0.3-pixel flake streaked over 1.5 pixels gave 2.7 times
  // its sharp light, its spread taken over its own width, not the quad's.
  SpriteCamera c = camera();
  c.shutter = true;
  const auto light = [&](const SpriteInstance& s) {
    SpriteVertex v[4];
    sprite_corners(c, s, v);
    glm::vec2 p[4];
    for (int i = 0; i < 4; ++i) p[i] = window_position(v[i].clip, c.viewport);
    // The strip's corners 0, 1, 3, 2 go round the quad.
    const glm::vec2 ring[4] = {p[0], p[1], p[3], p[2]};
    double area = 0;
    for (int i = 0; i < 4; ++i) area += double(ring[i].x) * ring[(i + 1) % 4].y - double(ring[(i + 1) % 4].x) * ring[i].y;
    return std::fabs(area) / 2 * v[0].alpha;
  };
  const float metre = glm::length(sprite_camera_pixel({1, 2, 0}) - sprite_camera_pixel({0, 2, 0}));  // pixels a metre at the target
  for (const float width : {0.3f, 1.0f, 1.5f, 3.0f, 8.0f})
    for (const float length : {0.5f, 1.5f, 5.0f, 20.0f}) {
      SpriteInstance sharp = flake({0, 2, 0}, width / metre), streak = sharp;
      streak.stretch = glm::vec3(length / metre, 0, 0);
      EXPECT_NEAR(light(streak) / light(sharp), 1.0, 0.02) << width << " px wide, " << length << " px long";
    }
}
