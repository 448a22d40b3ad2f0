// Fire, explosions, billboards and the effect manager (paper 002).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>

#include "core/diagnostics.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "core/particle_pool.h"
#include "core/effects/explosion/explosion.h"
#include "core/effects/explosion/fireball_images.h"
#include "core/effects/fire/fire.h"
#include "core/effects/fire/flame_texture.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "core/billboard.h"

using namespace fxsim;

TEST(FireGrid, FollowsTheCellularRuleComputedByHand) {
  // 3 rows × 4 columns, seeds in the middle half of the bottom row (columns 1, 2).
  FireGrid g(3, 4, 0.5f);
  EXPECT_EQ(g.first_seed_column(), 1);
  EXPECT_EQ(g.last_seed_column(), 3);
  const float start[3][4] = {{8, 0, 4, 12}, {40, 20, 0, 4}, {100, 60, 80, 7}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) g.set(i, j, start[i][j]);
  g.update([](int column) { return column == 1 ? 200.0f : 150.0f; });
  // Row 0: (below-left + below + below-right + self) / 4, truncated; outside cells are 0.
  EXPECT_EQ(g.at(0, 0), std::floor((0 + 40 + 20 + 8) / 4.0f));    // 17
  EXPECT_EQ(g.at(0, 1), std::floor((40 + 20 + 0 + 0) / 4.0f));    // 15
  EXPECT_EQ(g.at(0, 2), std::floor((20 + 0 + 4 + 4) / 4.0f));     // 7
  EXPECT_EQ(g.at(0, 3), std::floor((0 + 4 + 0 + 12) / 4.0f));     // 4
  EXPECT_EQ(g.at(1, 0), std::floor((0 + 100 + 60 + 40) / 4.0f));  // 50
  EXPECT_EQ(g.at(1, 1), std::floor((100 + 60 + 80 + 20) / 4.0f)); // 65
  EXPECT_EQ(g.at(1, 2), std::floor((60 + 80 + 7 + 0) / 4.0f));    // 36
  EXPECT_EQ(g.at(1, 3), std::floor((80 + 7 + 0 + 4) / 4.0f));     // 22
  // Bottom row: seeds in the middle, the rest only keeps a quarter of itself.
  EXPECT_EQ(g.at(2, 0), std::floor(100 / 4.0f));  // 25
  EXPECT_EQ(g.at(2, 1), 200);
  EXPECT_EQ(g.at(2, 2), 150);
  EXPECT_EQ(g.at(2, 3), std::floor(7 / 4.0f));    // 1
  EXPECT_EQ(g.at(0, 0), 17);
  EXPECT_EQ(g.at(1, 1), 65);
}

TEST(FireGrid, SeedsTheMiddleTwoThirdsByDefault) {
  FireGrid g(48, 32, 0.667f);
  EXPECT_EQ(g.last_seed_column() - g.first_seed_column(), 21);
  EXPECT_EQ(g.first_seed_column(), 5);
}

TEST(FireColor, RampBreakPoints) {
  const float max = 255;
  auto near = [](glm::vec4 a, glm::vec4 b) { return glm::length(a - b) < 1e-5f; };
  EXPECT_TRUE(near(fire_color(0, max), {0, 0, 0, 0}));                // dark, transparent
  EXPECT_TRUE(near(fire_color(max / 3, max), {1, 0, 0, 0.5f}));       // red
  EXPECT_TRUE(near(fire_color(2 * max / 3, max), {1, 1, 0, 1}));      // yellow, alpha reaches 1
  EXPECT_TRUE(near(fire_color(max, max), {1, 1, 1, 1}));              // white
  EXPECT_TRUE(near(fire_color(max / 6, max), {0.5f, 0, 0, 0.25f}));   // half-way to red
  EXPECT_TRUE(near(fire_color(max / 2, max), {1, 0.5f, 0, 0.75f}));   // half-way red → yellow
  EXPECT_TRUE(near(fire_color(5 * max / 6, max), {1, 1, 0.5f, 1}));   // half-way yellow → white
}

// A burning grid: the default one after 2 × rows updates, as a fire appears.
FireGrid burning_grid(uint32_t seed) {
  FireGrid g(48, 32, 0.667f);
  for (uint32_t k = 0; k < 96; ++k)
    g.update([&](int column) { return std::floor(RandomDraws(seed, 0, Stream::grid, k).unit(uint32_t(column)) * 256.0f); });
  return g;
}

// A texel's premultiplied RGBA (row 0 is the bottom).
glm::vec4 texel(const FlameTexture& t, int row, int column) {
  const uint8_t* p = &t.texels[(size_t(row) * size_t(t.width) + size_t(column)) * 4];
  return glm::vec4(p[0], p[1], p[2], p[3]) / 255.0f;
}

TEST(FlameTexture, BurnsYellowToWhiteAtTheBaseAndBreaksIntoTonguesAbove) {
  const FireParams fire;  // 1 × 1.5 m
  const FlameTexture t = flame_texture(burning_grid(3), fire, 2.0, 7);
  ASSERT_EQ(t.width, 128);  // 128 texels across, as tall as the plane's shape
  ASSERT_EQ(t.height, 192);
  ASSERT_EQ(t.texels.size(), size_t(128 * 192 * 4));
  // Just above the base the middle is opaque and yellow to white (red and
  // green full); the corners and the top row are empty.
  const glm::vec4 base = texel(t, 24, 64);
  EXPECT_GT(base.a, 0.95f);
  EXPECT_GT(base.r, 0.95f);
  EXPECT_GT(base.g, 0.9f);
  for (int column : {0, 127}) EXPECT_EQ(texel(t, 24, column).a, 0.0f) << column;
  // The base fades in from the bottom row, sooner in the middle than at the
  // sides: cut square, the hottest row drew a glowing straight edge.
  for (int column = 0; column < 128; ++column) EXPECT_LT(texel(t, 0, column).a, 0.2f) << column;
  EXPECT_GT(texel(t, 10, 64).a, texel(t, 10, 30).a);
  for (int column = 0; column < 128; ++column) EXPECT_EQ(texel(t, 191, column).a, 0.0f) << column;
  // Not a rigid cone: over a second its tip rises and falls, and its two sides differ.
  int lowest_tip = t.height, highest_tip = 0;
  for (int frame = 0; frame < 24; ++frame) {
    const FlameTexture f = flame_texture(burning_grid(3), fire, 2.0 + frame / 24.0, 7);
    int tip = 0;
    for (int row = 0; row < f.height; ++row)
      for (int column = 0; column < f.width; ++column)
        if (texel(f, row, column).a > 0.3f) tip = row;
    lowest_tip = std::min(lowest_tip, tip), highest_tip = std::max(highest_tip, tip);
    double mirrored = 0;  // the outline's difference from its mirror image, in texels
    for (int row = 0; row < f.height; ++row)
      for (int column = 0; column < f.width / 2; ++column)
        mirrored += std::fabs(texel(f, row, column).a - texel(f, row, f.width - 1 - column).a);
    EXPECT_GT(mirrored, 200.0) << frame;
  }
  EXPECT_GT(highest_tip - lowest_tip, 6);
  EXPECT_GT(lowest_tip, 96);  // above the middle
  EXPECT_LT(highest_tip, 185);
}

TEST(FlameTexture, MovesWithTimeTheSameWayEveryTimeAndHidesTheSeededRow) {
  const FireParams fire;
  FireGrid grid = burning_grid(3);
  const FlameTexture a = flame_texture(grid, fire, 2.0, 7);
  EXPECT_EQ(flame_texture(grid, fire, 2.0, 7).texels, a.texels);           // the same bytes
  EXPECT_NE(flame_texture(grid, fire, 2.0 + 1.0 / 24, 7).texels, a.texels);  // a frame later it has moved
  EXPECT_NE(flame_texture(grid, fire, 2.0, 8).texels, a.texels);           // another noise
  // The bottom row is the fuel, re-seeded at random each update: not drawn.
  for (int column = 0; column < grid.columns(); ++column) grid.set(grid.rows() - 1, column, 255.0f);
  EXPECT_EQ(flame_texture(grid, fire, 2.0, 7).texels, a.texels);
}

TEST(FlameTexture, ItsSizeFollowsThePlaneAndTheGrid) {
  FireParams fire;
  fire.size = {2, 1};
  EXPECT_EQ(flame_texture(FireGrid(48, 32, 0.667f), fire, 0, 1).height, 64);  // the plane's shape: 128 / 2, over the 48 rows
  fire.rows = 300, fire.columns = 400;
  const FlameTexture big = flame_texture(FireGrid(300, 400, 0.667f), fire, 0, 1);
  EXPECT_EQ(big.width, 400);
  EXPECT_EQ(big.height, 300);
  fire.size = {0.1f, 100};
  EXPECT_EQ(flame_texture(FireGrid(48, 32, 0.667f), fire, 0, 1).height, 1024);  // at most 1024
  fire.size = {0.001f, 1e6f};  // a ratio past int's range
  EXPECT_EQ(flame_texture(FireGrid(48, 32, 0.667f), fire, 0, 1).height, 1024);
  fire.size = {1e6f, 0.001f};
  EXPECT_EQ(flame_texture(FireGrid(48, 32, 0.667f), fire, 0, 1).height, 48);  // the grid's rows, over 16
  // The least grid (2 rows: one drawn) and the widest.
  fire.size = {1, 1.5f};
  FireGrid least(2, 3, 0.667f);
  least.set(0, 1, 200.0f);
  const FlameTexture small = flame_texture(least, fire, 1.0, 1);
  EXPECT_EQ(small.width, 128);
  EXPECT_GT(texel(small, 24, 64).a, 0.9f);
  fire.rows = 1024, fire.columns = 1024;
  EXPECT_EQ(flame_texture(FireGrid(1024, 1024, 0.667f), fire, 0, 1).texels.size(), size_t(1024) * 1024 * 4);
  // An empty grid draws nothing.
  fire.size = {1, 1.5f};
  const FlameTexture cold = flame_texture(FireGrid(48, 32, 0.667f), fire, 0, 1);
  EXPECT_TRUE(std::all_of(cold.texels.begin(), cold.texels.end(), [](uint8_t b) { return b == 0; }));
}

TEST(Fire, ACheckpointRestoresTheFlameAsDrawn) {
  // The flame moves with the time since the fire began, which the state hash
  // leaves out (drawing, not simulation): a restored state must draw it the same.
  const Scene scene = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/campfire.json");
  Simulation a(scene, 1);
  a.advance_to_frame(30);
  Simulation b(scene, 1);
  b.load_state(a.save_state());
  const auto flame = [](Simulation& s) {
    for (const SpriteBatch& batch : s.sprites())
      if (batch.dynamic_texture) return *batch.dynamic_texture;
    return std::vector<uint8_t>{};
  };
  const std::vector<uint8_t> drawn = flame(a);
  ASSERT_FALSE(drawn.empty());
  EXPECT_EQ(flame(b), drawn);
  b.advance_to_frame(31);  // and it moves on from there
  EXPECT_NE(flame(b), drawn);
}

TEST(FireballFlipbook, ABallThatBurnsWhiteEarlyAndCoolsIntoRedAndSmoke) {
  const std::vector<Image> book = fireball_flipbook(kFireballFrames, 96, 4);
  ASSERT_EQ(book.size(), size_t(kFireballFrames));
  // Frame by frame: the share of the square it covers, and its mean colour where it does.
  auto covered = [](const Image& image) {
    size_t n = 0;
    for (size_t i = 3; i < image.rgba.size(); i += 4) n += image.rgba[i] > 128;
    return double(n) / double(image.width * image.height);
  };
  auto mean_green = [](const Image& image) {  // premultiplied; yellow and white have green, red and smoke little
    double sum = 0, alpha = 0;
    for (size_t i = 0; i < image.rgba.size(); i += 4) sum += image.rgba[i + 1], alpha += image.rgba[i + 3];
    return sum / std::max(alpha, 1.0);
  };
  const Image& first = book.front();
  const uint8_t* middle = &first.rgba[(size_t(48) * 96 + 48) * 4];
  EXPECT_GT(middle[3], 230);  // opaque and near white in the middle at first
  EXPECT_GT(middle[1], 200);
  EXPECT_GT(middle[2], 120);
  // A ball filling its square's circle, not a spark in it (0.15 read as a
  // blast 0.6 its size), within that circle (no straight edges).
  for (const Image& image : book) {
    EXPECT_GT(covered(image), 0.35);
    for (int y = 0; y < 96; ++y)
      for (int x = 0; x < 96; ++x) {
        if (std::hypot(x + 0.5 - 48, y + 0.5 - 48) > 48) {
          EXPECT_EQ(image.rgba[(size_t(y) * 96 + size_t(x)) * 4 + 3], 0);
        }
      }
  }
  EXPECT_GT(mean_green(first), 0.6);
  EXPECT_LT(mean_green(book.back()), 0.35);  // cooled into red and smoke
  EXPECT_GT(covered(book.back()), 0.35);     // still there: the sprite's opacity fades it
}

TEST(Fire, UpdatesAtItsOwnRateWhateverTheFrameRate) {
  for (int fps : {24, 60}) {
    const Scene scene = parse_scene_text(R"({"fxsim": 1, "output": {"fps": )" + std::to_string(fps) +
                                             R"(, "frames": 200}, "emitters": [{"type": "fire", "update_rate": 30}]})",
                                         "f.json", ".");
    Simulation sim(scene, 1);
    sim.advance_to_frame(2 * fps);  // 2 s
    EXPECT_EQ(dynamic_cast<const FireSystem&>(sim.system(0)).updates(), 60u) << fps;
  }
}

TEST(Fire, EmbersRiseAndFollowTheWind) {
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "environment": {"wind": {"velocity": [2, 0, 0]}},
      "emitters": [{"type": "fire", "embers": 50}]})", "f.json", ".");
  Simulation sim(scene, 2);
  sim.advance_to_frame(48);
  const auto stats = sim.take_stats();
  ASSERT_EQ(stats.emitters.size(), 2u);
  EXPECT_EQ(stats.emitters[0].live, 0u);  // the fire itself has no particles
  EXPECT_TRUE(stats.emitters[0].active);
  EXPECT_EQ(stats.emitters[1].name, "fire0.embers");
  EXPECT_GT(stats.emitters[1].live, 20u);
  EXPECT_GT(stats.emitters[1].mean_velocity.y, 0.5);
  EXPECT_GT(stats.emitters[1].mean_velocity.x, 0.5);
}

TEST(ParticlePool, SkippedBirthsLeaveTheStateAndCountsOfBirthsMadeOneByOne) {
  // 3 particles, then 12 births into 5 slots: made one by one, or the first
  // 7 skipped (the last 5 replace them all) and the rest made.
  ThreadPool threads(1);
  ParticlePool made(PoolRules{}, 5, threads), skipped(PoolRules{}, 5, threads);
  const auto add = [](ParticlePool& pool) { pool.store().size[pool.add()] = float(pool.next_spawn_index()); };
  for (ParticlePool* pool : {&made, &skipped})
    for (int i = 0; i < 3; ++i) add(*pool);
  for (int i = 0; i < 12; ++i) add(made);
  skipped.skip(7);
  for (int i = 0; i < 5; ++i) add(skipped);
  EXPECT_EQ(skipped.next_spawn_index(), made.next_spawn_index());
  EXPECT_EQ(skipped.store().size, made.store().size);
  EXPECT_EQ(skipped.store().age, made.store().age);
  EXPECT_EQ(skipped.store().generation, made.store().generation);
  const EmitterStats a = made.stats(), b = skipped.stats();
  EXPECT_EQ(b.live, a.live);
  EXPECT_EQ(b.spawned, 15);
  EXPECT_EQ(b.spawned, a.spawned);
  EXPECT_EQ(b.died, 10);
  EXPECT_EQ(b.died, a.died);
}

TEST(Fire, EmbersPastWhatTheRingHoldsInAStepAreSkipped) {
  // 10^9 embers a second into the ring of 4 000: thrown one by one, 6
  // frames took 28 s; the state is what it was (CLI: the same hashes).
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "fire", "embers": 1000000000}]})", "f.json", ".");
  Simulation sim(scene, 1);
  sim.advance_to_frame(2);
  const auto stats = sim.take_stats();
  ASSERT_EQ(stats.emitters.size(), 2u);
  EXPECT_EQ(stats.emitters[1].live, 4000u);
  EXPECT_EQ(stats.emitters[1].spawned - stats.emitters[1].died, 4000);
  EXPECT_GT(stats.emitters[1].spawned, 80000000);
}

TEST(Explosion, GrowsToItsScaleAndFadesOut) {
  EXPECT_EQ(ExplosionSystem::diameter(0, 4), 0.0f);
  EXPECT_EQ(ExplosionSystem::diameter(1, 4), 4.0f);
  EXPECT_GT(ExplosionSystem::diameter(0.5f, 4), 3.0f);
  EXPECT_EQ(ExplosionSystem::opacity(0), 1.0f);
  EXPECT_EQ(ExplosionSystem::opacity(1), 0.0f);
  for (float p = 0; p < 1; p += 0.05f) {
    EXPECT_LE(ExplosionSystem::diameter(p, 4), ExplosionSystem::diameter(p + 0.05f, 4));
    EXPECT_GE(ExplosionSystem::opacity(p), ExplosionSystem::opacity(p + 0.05f));
  }
}

TEST(Explosion, ThrowsItsDebrisAtTheStartUnderGravity) {
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "explosion", "name": "boom",
      "position": [0, 2, 0], "start": 0.5, "duration": 2, "debris": 300}]})", "f.json", ".");
  Simulation sim(scene, 2);
  sim.advance_to_frame(6);  // 0.25 s: not there yet
  auto stats = sim.take_stats();
  EXPECT_FALSE(stats.emitters[0].active);
  EXPECT_EQ(stats.emitters[1].name, "boom.debris");
  EXPECT_EQ(stats.emitters[1].live, 0u);
  sim.advance_to_frame(12);  // 0.5 s: thrown
  stats = sim.take_stats();
  EXPECT_TRUE(stats.emitters[0].active);
  EXPECT_EQ(stats.emitters[1].spawned, 300);
  sim.advance_to_frame(36);  // 1.5 s: falling
  stats = sim.take_stats();
  EXPECT_LT(stats.emitters[1].mean_velocity.y, 0);
  sim.advance_to_frame(61);  // 2.54 s: removed
  stats = sim.take_stats();
  EXPECT_FALSE(stats.emitters[0].active);
  EXPECT_EQ(stats.emitters[1].live, 0u);
}

TEST(Explosion, DurationMustBeFinite) {
  EXPECT_THROW(parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "explosion", "duration": null}]})", "f.json", "."),
               SceneError);
  const Scene s = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "explosion"}]})", "f.json", ".");
  EXPECT_EQ(*s.emitters[0].duration, 1.5);
}

// ---- Billboards -----------------------------------------------------------

namespace {
const CameraPose kCamera{{3, 4, 8}, {0, 1, 0}, {0, 1, 0}, 50, 0.1f, 100};
}

TEST(Billboard, ScreenQuadsAreParallelToTheImagePlane) {
  const glm::vec3 center{-2, 0.5f, 1};
  const BillboardAxes a = billboard_axes(BillboardMode::screen, kCamera, center);
  const glm::vec3 normal = glm::normalize(glm::cross(a.right, a.up));
  EXPECT_NEAR(std::fabs(glm::dot(normal, kCamera.forward())), 1.0f, 1e-5f);
  // Corners: center ± right ± up all lie at the same depth along the view direction.
  for (glm::vec3 corner : {center + a.right + a.up, center - a.right + a.up, center + a.right - a.up})
    EXPECT_NEAR(glm::dot(corner - center, kCamera.forward()), 0.0f, 1e-5f);
}

TEST(Billboard, ViewpointQuadsFaceTheEye) {
  const glm::vec3 center{-2, 0.5f, 1};
  const BillboardAxes a = billboard_axes(BillboardMode::viewpoint, kCamera, center);
  const glm::vec3 normal = glm::normalize(glm::cross(a.right, a.up));
  EXPECT_NEAR(glm::dot(normal, glm::normalize(kCamera.position - center)), 1.0f, 1e-5f);
  EXPECT_NEAR(glm::dot(a.right, a.up), 0.0f, 1e-5f);
}

TEST(Billboard, AxialQuadsStayVertical) {
  const glm::vec3 center{-2, 0.5f, 1};
  const BillboardAxes a = billboard_axes(BillboardMode::axial, kCamera, center);
  EXPECT_EQ(a.up, glm::vec3(0, 1, 0));
  EXPECT_NEAR(a.right.y, 0.0f, 1e-6f);
  // Turned about Y towards the eye: the normal is the horizontal direction to the eye.
  glm::vec3 to_eye = kCamera.position - center;
  to_eye.y = 0;
  EXPECT_NEAR(glm::dot(glm::normalize(glm::cross(a.right, a.up)), glm::normalize(to_eye)), 1.0f, 1e-5f);
}

// ---- The effect manager ----------------------------------------------------

TEST(EffectManager, SortsEffectsBackToFrontAndFlipsAsTheCameraPasses) {
  // A fire at z = -5 and an explosion at z = +5; the camera flies from z = 20 to z = -20.
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "output": {"frames": 96},
      "camera": {"keys": [{"time": 0, "position": [0, 1, 20], "target": [0, 1, 0]},
                          {"time": 4, "position": [0.01, 1, -20], "target": [0, 1, -40]}]},
      "emitters": [{"type": "fire", "name": "fire", "position": [0, 0, -5]},
                   {"type": "explosion", "name": "boom", "position": [0, 1, 5], "duration": 100}]})", "f.json", ".");
  Simulation sim(scene, 1);
  auto order = [&] {
    std::vector<std::string> names;
    for (const auto& b : sim.sprites()) names.push_back(scene.emitters[b.emitter].name);
    return names;
  };
  sim.advance_to_frame(1);  // camera near z = 20: the fire is farther, drawn first
  EXPECT_EQ(order(), (std::vector<std::string>{"fire", "boom"}));
  sim.advance_to_frame(95);  // camera near z = -20: the explosion is farther now
  EXPECT_EQ(order(), (std::vector<std::string>{"boom", "fire"}));
}

TEST(EffectManager, EffectsLiveFromStartForTheirDuration) {
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "output": {"frames": 96},
      "emitters": [{"type": "fire", "start": 1, "duration": 2}]})", "f.json", ".");
  Simulation sim(scene, 1);
  for (int f = 1; f <= 96; ++f) {
    sim.advance_to_frame(f);
    const double t = f / 24.0;
    const bool expected = t >= 1 - 1e-9 && t < 3 - 1e-9;
    EXPECT_EQ(sim.take_stats().emitters[0].active, expected) << f;
    EXPECT_EQ(!sim.sprites().empty(), expected) << f;
  }
}
