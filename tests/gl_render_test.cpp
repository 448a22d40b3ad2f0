// Rendering through a real EGL context (llvmpipe in CI).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <fmt/format.h>
#include <string>

#include "core/color.h"
#include "core/rng.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "core/exit_codes.h"
#include "render/egl_context.h"
#include "tests/gl_context_fixture.h"
#include "render/frame_layer.h"
#include "render/frame_loop.h"
#include "render/frame_target.h"
#include "render/gpu_kernels.h"
#include "render/gpu_params.h"
#include "render/renderer.h"
#include "render/shader.h"
#include "render/sprite_pass.h"
#include "core/streak_geometry.h"

using namespace fxsim;

namespace {
class GlTest : public GlContextTest<3, 3> {};

const uint8_t* pixel(const Image& im, int x, int y) { return &im.rgba[(size_t(y) * size_t(im.width) + size_t(x)) * 4]; }
}  // namespace

TEST_F(GlTest, ContextIsCoreProfile33OrNewer) {
  const GlInfo& info = context_->info();
  EXPECT_GE(info.major * 10 + info.minor, 33);
  EXPECT_FALSE(info.renderer.empty());
}

TEST_F(GlTest, BackgroundComesOutAsTheSrgbBytesWritten) {
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "output": {"background": "#0b1020"},
      "emitters": [{"type": "snow", "max_particles": 0}]})", "s.json", ".");
  Simulation sim(scene, 1);
  Renderer renderer(scene, 32, 16);
  const Image im = renderer.render(sim);
  for (int y : {0, 15})
    for (int x : {0, 31}) {
      EXPECT_EQ(pixel(im, x, y)[0], 0x0b);
      EXPECT_EQ(pixel(im, x, y)[1], 0x10);
      EXPECT_EQ(pixel(im, x, y)[2], 0x20);
      EXPECT_EQ(pixel(im, x, y)[3], 255);
    }
}

// Where the GL has compute shaders a multisampled float frame is cleared by a
// kernel writing each sample: every one of them holds the colour, as
// glClear's would (which clears a frame of one sample).
TEST_F(GlTest, AFloatFrameIsClearedToTheColourAtEverySample) {
  for (const int samples : {4, 1}) {
    SCOPED_TRACE(samples);
    FrameTarget target(40, 24, samples, TargetFormat::float32, false);
    EXPECT_EQ(target.clears_with_kernel(), samples > 1 && epoxy_gl_version() >= 43);
    target.bind_for_drawing();
    target.clear(glm::vec4(0.5f, 0.25f, 0.125f, 1.0f));
    target.clear(glm::vec4(0.1f, 0.2f, 0.3f, 0.75f));  // every sample, not only those not yet written
    target.start_read();
    const RenderedFrame frame = target.finish_read();
    ASSERT_TRUE(frame.linear);
    const float expected[4] = {0.1f, 0.2f, 0.3f, 0.75f};
    size_t wrong = 0;
    for (size_t i = 0; i < frame.linear->rgba.size(); ++i) wrong += frame.linear->rgba[i] != expected[i % 4];
    EXPECT_EQ(wrong, 0u);
  }
}

// An 8-bit frame graded on the GPU cannot carry a NaN or infinity: it came
// back black or white, written with exit 0. A kernel counts them first.
TEST_F(GlTest, AFrameGradedToEightBitsWithANonFinitePixelIsRefused) {
  ASSERT_GE(epoxy_gl_version(), 43);  // llvmpipe and NVIDIA's GL both have compute shaders
  FrameGrading grading;
  grading.display8 = true;
  for (const float bad : {std::nanf(""), INFINITY, -INFINITY})
    for (const int samples : {4, 1}) {
      SCOPED_TRACE(fmt::format("{} with {} samples", bad, samples));
      FrameTarget target(40, 24, samples, TargetFormat::float32, true, grading);
      target.bind_for_drawing();
      target.clear(glm::vec4(0.2f, 0.2f, 0.2f, 1.0f));
      target.start_read();
      EXPECT_EQ(target.finish_read().image.rgba[0], 124);  // a finite frame passes: 0.2 in sRGB
      target.bind_for_drawing();  // the read bound the resolved image
      glEnable(GL_SCISSOR_TEST);
      glScissor(3, 5, 2, 1);
      const float colour[4] = {0.1f, bad, 0.1f, 1.0f};
      glClearBufferfv(GL_COLOR, 0, colour);
      glDisable(GL_SCISSOR_TEST);
      target.start_read();
      try {
        target.finish_read();
        ADD_FAILURE() << "a frame with two non-finite pixels was read back";
      } catch (const FxError& error) {
        EXPECT_EQ(error.code(), ExitCode::no_gl);
        EXPECT_NE(std::string(error.what()).find("2 pixels that are not finite"), std::string::npos) << error.what();
      }
    }
}

namespace {
// `texels` (RGBA floats, bottom row first) as a layer over the bound `target`, then its frame read back (top row first).
RenderedFrame composite_and_read(FrameTarget& target, const std::vector<float>& texels) {
  FrameLayer layer;
  glBindTexture(GL_TEXTURE_2D, layer.texture(target.width(), target.height()));
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, target.width(), target.height(), GL_RGBA, GL_FLOAT, texels.data());
  layer.composite_over_frame();
  target.start_read();
  return target.finish_read();
}
}  // namespace

TEST_F(GlTest, ALayerIsPutOverEverySampleOfTheFrameAsGlBlendingPutsIt) {
  constexpr int kWidth = 40, kHeight = 24;
  const glm::vec4 behind(0.1f, 0.2f, 0.3f, 0.75f);
  std::vector<float> light(size_t(kWidth) * kHeight * 4);  // premultiplied, coverage from 0 to 1
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const float a = float(x) / float(kWidth - 1);
      const float l[4] = {a * 0.9f, a * float(y) / kHeight, 0.7f * a, a};
      std::copy(l, l + 4, light.begin() + (size_t(y) * kWidth + x) * 4);
    }
  for (const int samples : {4, 1}) {
    SCOPED_TRACE(samples);
    FrameTarget target(kWidth, kHeight, samples, TargetFormat::float32, false);
    target.bind_for_drawing();
    target.clear(behind);
    // The kernel where kernels can write the frame (4 samples), GL blending otherwise.
    EXPECT_EQ(OverFrame::uses_kernel(), target.clears_with_kernel());
    const RenderedFrame frame = composite_and_read(target, light);
    ASSERT_TRUE(frame.linear);
    size_t wrong = 0;
    for (size_t i = 0; i < light.size(); ++i) {
      const size_t row = i / 4 / kWidth, at = (size_t(kHeight) - 1 - row) * kWidth * 4 + i % (kWidth * 4);  // read top row first
      const float a = light[at / 4 * 4 + 3];
      const float product = behind[int(i % 4)] * (1.0f - a);  // rounded before the sum: the kernel's, llvmpipe's
      const float expected = light[at] + product, got = frame.linear->rgba[i];
      // GL blending rounds as its GL does (NVIDIA's fuses the multiply and add): within a few units in the last place.
      wrong += target.clears_with_kernel() ? got != expected : std::abs(got - expected) > 1e-6f;
    }
    EXPECT_EQ(wrong, 0u);
  }
}

TEST_F(GlTest, ALayerGoesOverEachSampleOfTheFrameAsItIs) {
  // Samples 1 and 3 of every pixel get a colour of their own (varying with
  // the pixel), 0 and 2 keep the background: a composite that read another
  // pixel, or one sample for all, gives other means.
  constexpr int kWidth = 40, kHeight = 24;
  const glm::vec4 behind(0.1f, 0.2f, 0.3f, 0.75f), light(0.2f, 0.1f, 0.05f, 0.25f);
  FrameTarget target(kWidth, kHeight, 4, TargetFormat::float32, false);
  target.bind_for_drawing();
  target.clear(behind);
  const GlProgram pattern = link_program(kFullScreenTriangleVertex, R"(#version 330 core
out vec4 out_color;
void main() { out_color = vec4(floor(gl_FragCoord.x) / 64.0, floor(gl_FragCoord.y) / 32.0, 0.25, 0.5); }
)");
  const GlVertexArray vao(gl_gen(glGenVertexArrays));
  glUseProgram(pattern.get());
  glBindVertexArray(vao.get());
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_SAMPLE_MASK);
  glSampleMaski(0, 0b1010);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glDisable(GL_SAMPLE_MASK);
  glBindVertexArray(0);
  std::vector<float> texels;
  for (int i = 0; i < kWidth * kHeight; ++i) texels.insert(texels.end(), {light.r, light.g, light.b, light.a});
  const RenderedFrame frame = composite_and_read(target, texels);
  ASSERT_TRUE(frame.linear);
  size_t wrong = 0;
  for (int row = 0; row < kHeight; ++row)
    for (int x = 0; x < kWidth; ++x) {
      const int y = kHeight - 1 - row;  // read top row first
      const glm::vec4 own(float(x) / 64.0f, float(y) / 32.0f, 0.25f, 0.5f);
      const glm::vec4 expected = light + (behind + own) * 0.5f * (1.0f - light.a);
      for (int c = 0; c < 4; ++c)
        wrong += std::abs(frame.linear->rgba[(size_t(row) * kWidth + x) * 4 + c] - expected[c]) > 1e-6f;
    }
  EXPECT_EQ(wrong, 0u);
}

namespace {
class ComputeGlTest : public GlContextTest<4, 3> {};
}  // namespace

TEST_F(ComputeGlTest, TheComputeRasteriserCountsTheSamplesItBlendsAsGlCountsThem) {
  // bench's fill line: 300 faint 6-pixel sprites (nothing turns opaque) into
  // 4 samples a pixel; GL's occlusion query against the compute rasteriser's count.
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "snow", "max_particles": 0}]})",
                                       "s.json", ".");
  SpriteBatch batch;
  for (size_t i = 0; i < 300; ++i) {
    RandomDraws draws(1, 0, Stream::birth, i);
    batch.sprites.push_back({{draws.unit(0) * 5.0f - 2.5f, draws.unit(1) * 2.6f - 1.3f, 0}, 0.3f, glm::vec3(0), 0.01f, 0, 0});
  }
  const GlTexture texture = make_texture_array({Image{4, 4, std::vector<uint8_t>(64, 255)}});
  const CameraPose camera{{0, 0, 5}, {0, 0, 0}, {0, 1, 0}, 50, 0.1f, 100};
  uint64_t counted[2] = {0, 0};
  for (const SpriteRasteriser rasteriser : {SpriteRasteriser::gl, SpriteRasteriser::compute}) {
    RasteriserChoice choice;
    choice.rasteriser = rasteriser;
    choice.fill = FillResolution::full;
    choice.compute_shaders = true;
    SpritePass pass(scene, choice);
    pass.count_compute_samples(true);
    FrameTarget target(160, 90, 4, TargetFormat::float32);
    target.bind_for_drawing();
    target.clear(glm::vec4(0, 0, 0, 1));
    pass.begin_frame(camera, 160, 90);
    GLuint query = 0;
    glGenQueries(1, &query);
    glBeginQuery(GL_SAMPLES_PASSED, query);
    pass.draw(batch, EmitterSettings{}, texture);
    glEndQuery(GL_SAMPLES_PASSED);
    GLuint64 passed = 0;
    glGetQueryObjectui64v(query, GL_QUERY_RESULT, &passed);
    glDeleteQueries(1, &query);
    counted[rasteriser == SpriteRasteriser::compute] = passed + pass.compute_samples();
    if (rasteriser == SpriteRasteriser::gl) {
      EXPECT_EQ(pass.compute_samples(), 0u);
    }
  }
  ASSERT_GT(counted[0], 10000u);  // about 300 × 28 pixels × 4 samples
  EXPECT_NEAR(double(counted[1]), double(counted[0]), 0.01 * double(counted[0]));
}

namespace {
struct CommittedFrames : FrameSink {
  std::vector<int> frames;
  void commit(const FrameRecord& record, const Prepared&) override { frames.push_back(record.frame); }
};
}  // namespace

TEST_F(GlTest, AFrameBeforeALongGapInTheSelectionIsHandedOverEarly) {
  // --frames 1-2,40: frame 2 goes to the writer a few frames into the gap,
  // not once frame 40 is drawn (an interrupt in the gap lost it); a stride
  // (frames 1, 3, 5) keeps one frame read back while the next is drawn.
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "snow", "max_particles": 100}]})",
                                       "gap.json", ".");
  Simulation sim(scene, 1);
  Renderer renderer(scene, 32, 16);
  CommittedFrames sink;
  FrameLoopOptions options;
  std::vector<std::pair<int, size_t>> pending;  // (frame simulated, images not yet read back)
  options.on_simulated = [&](int frame) { pending.emplace_back(frame, renderer.images_pending()); };
  run_frame_loop(sim, renderer, FrameSelection::of({1, 2, 40}), {&sink}, options);
  EXPECT_EQ(sink.frames, (std::vector<int>{1, 2, 40}));
  ASSERT_EQ(pending.size(), 40u);
  EXPECT_EQ(pending[2], std::make_pair(3, size_t(1)));  // frame 2 still in flight at frame 3's step
  EXPECT_EQ(pending[5], std::make_pair(6, size_t(0)));  // and read back by frame 6's, four frames into the gap
  Simulation strided(scene, 1);
  Renderer drawing(scene, 32, 16);
  CommittedFrames odd;
  pending.clear();
  options.on_simulated = [&](int frame) { pending.emplace_back(frame, drawing.images_pending()); };
  run_frame_loop(strided, drawing, FrameSelection::of({1, 3, 5}), {&odd}, options);
  EXPECT_EQ(odd.frames, (std::vector<int>{1, 3, 5}));
  ASSERT_EQ(pending.size(), 5u);
  EXPECT_EQ(pending[3], std::make_pair(4, size_t(1)));  // frame 3 read back while frame 5 is drawn
}

TEST_F(GlTest, BlendingHappensInLinearLight) {
  // A solid white sprite at 50 % opacity over black is 0.5 in linear light: sRGB byte 188.
  FrameTarget target(16, 16, 1);
  target.bind_for_drawing();
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  SpritePass pass;
  const CameraPose camera{{0, 0, 5}, {0, 0, 0}, {0, 1, 0}, 50, 0.1f, 100};
  pass.begin_frame(camera, 16, 16);
  Image solid{4, 4, std::vector<uint8_t>(64, 255)};
  const GlTexture texture = make_texture_array({solid});
  SpriteBatch batch;
  batch.sprites.push_back({{0, 0, 0}, 20.0f, glm::vec3(0), 1.0f, 0, 0});
  EmitterSettings emitter;
  emitter.color = Color{{1, 1, 1, 1}};
  emitter.opacity = 0.5f;
  pass.draw(batch, emitter, texture);
  const Image im = target.read();
  EXPECT_NEAR(double(pixel(im, 8, 8)[0]), 255.0 * double(linear_to_srgb(0.5f)), 1.0);
}

TEST_F(GlTest, ASnowSceneDrawsFlakesOverTheGround) {
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "output": {"background": "#000000"},
      "environment": {"ground": {"height": 0, "color": "#204060"}},
      "camera": {"position": [0, 1, 6], "target": [0, 1.5, 0]},
      "emitters": [{"type": "snow", "max_particles": 4000, "size": 0.08,
                    "region": {"center": [0, 3, 0], "size": [8, 6, 8]}}]})", "s.json", ".");
  Simulation sim(scene, 2);
  sim.advance_to_frame(5);
  Renderer renderer(scene, 160, 90);
  const Image im = renderer.render(sim);
  int bright = 0, ground = 0;
  for (int y = 0; y < 90; ++y)
    for (int x = 0; x < 160; ++x) {
      const uint8_t* p = pixel(im, x, y);
      bright += p[0] > 100 && p[1] > 100 && p[2] > 100;
      ground += p[0] == 0x20 && p[1] == 0x40 && p[2] == 0x60;
    }
  EXPECT_GT(bright, 100);  // flakes are drawn
  EXPECT_GT(ground, 1000); // the ground is drawn, in its exact colour where no flake covers it
  // The sky above the horizon stays black where no flake is.
  EXPECT_EQ(pixel(im, 0, 0)[0] + pixel(im, 159, 0)[0] < 200, true);
}

TEST_F(GlTest, StreaksAreDrawnAlongTheProjectedTravel) {
  // One wide streak; the covered pixels' principal axis and extent must match
  // the segment that streak_quad() computes on the CPU.
  const int w = 320, h = 180;
  FrameTarget target(w, h, 1);
  target.bind_for_drawing();
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  SpritePass pass;
  const CameraPose camera{{0, 1.5f, 8}, {0, 1.5f, 0}, {0, 1, 0}, 50, 0.1f, 100};
  pass.begin_frame(camera, w, h);
  const GlTexture texture = make_texture_array({Image{4, 4, std::vector<uint8_t>(64, 255)}});
  const glm::vec3 head{0.3f, 1.2f, 0}, travel{1.2f, -2.0f, 0};
  SpriteBatch batch;
  batch.sprites.push_back({head, 0.06f, travel, 1.0f, 0, 0});
  EmitterSettings emitter;
  emitter.color = Color{{1, 1, 1, 1}};
  emitter.opacity = 1;
  pass.draw(batch, emitter, texture);
  const Image im = target.read();

  const StreakQuad q = streak_quad(camera.view(), camera.projection(float(w) / float(h)), glm::vec2(w, h),
                                   camera.near_plane, head, head - travel, 0.06f, kMinSpritePixels);
  // Moments of the covered pixels (window coordinates: y up).
  double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (pixel(im, x, h - 1 - y)[0] < 128) continue;
      const double px = x + 0.5, py = y + 0.5;
      n += 1, sx += px, sy += py, sxx += px * px, syy += py * py, sxy += px * py;
    }
  ASSERT_GT(n, 50);
  const double mx = sx / n, my = sy / n;
  const double cxx = sxx / n - mx * mx, cyy = syy / n - my * my, cxy = sxy / n - mx * my;
  const double angle = 0.5 * std::atan2(2 * cxy, cxx - cyy);
  const glm::vec2 segment = q.head - q.tail;
  double expected = std::atan2(double(segment.y), double(segment.x));
  if (expected > M_PI / 2) expected -= M_PI;
  if (expected < -M_PI / 2) expected += M_PI;
  EXPECT_NEAR(angle, expected, 0.03);
  // A uniform bar of length L has variance L²/12 along its axis.
  const double along = 0.5 * (cxx + cyy) + std::sqrt(0.25 * (cxx - cyy) * (cxx - cyy) + cxy * cxy);
  const double quad_length = glm::distance((q.corners[0] + q.corners[1]) * 0.5f, (q.corners[2] + q.corners[3]) * 0.5f);
  EXPECT_NEAR(std::sqrt(12 * along), quad_length, 2.0);
  EXPECT_NEAR(mx, 0.5 * (q.head.x + q.tail.x), 1.0);
  EXPECT_NEAR(my, 0.5 * (q.head.y + q.tail.y), 1.0);
}

TEST_F(GlTest, EffectsLeaveNoTraceBeforeTheirStartOrAfterTheirDuration) {
  const std::string base = R"({"fxsim": 1, "output": {"frames": 72, "background": "#101820"},
      "environment": {"ground": {"height": 0, "color": "#303030"}}, "camera": {"position": [0, 1.5, 6], "target": [0, 1.2, 0]},
      "emitters": [)";
  const Scene empty = parse_scene_text(base + R"({"type": "snow", "max_particles": 0}]})", "e.json", ".");
  const Scene timed = parse_scene_text(base + R"({"type": "snow", "max_particles": 0},
      {"type": "explosion", "position": [0, 1.2, 0], "start": 1, "duration": 1, "debris": 50},
      {"type": "fire", "position": [1, 0, 0], "start": 1, "duration": 1, "embers": 20}]})", "t.json", ".");
  Simulation background_sim(empty, 1), sim(timed, 1);
  Renderer background_renderer(empty, 96, 54), renderer(timed, 96, 54);
  for (int frame : {12, 36, 60}) {  // t = 0.5 (before), 1.5 (during), 2.5 (after)
    background_sim.advance_to_frame(frame);
    sim.advance_to_frame(frame);
    const Image expected = background_renderer.render(background_sim), actual = renderer.render(sim);
    if (frame == 36) EXPECT_NE(expected.rgba, actual.rgba) << "the effects are shown while they last";
    else EXPECT_EQ(expected.rgba, actual.rgba) << "frame " << frame;
  }
}

TEST(GlLimits, AnImageLargerThanTheGlCanDrawNamesTheLimit) {
  const auto context = EglContext::create(std::nullopt, 3, 3);
  GLint limit = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &limit);
  try {
    check_image_size(int(limit) + 1, 16);
    FAIL() << "accepted a width beyond GL_MAX_RENDERBUFFER_SIZE " << limit;
  } catch (const FxError& e) {
    EXPECT_EQ(e.code(), ExitCode::invalid_scene);
    EXPECT_NE(std::string(e.what()).find("GL_MAX_RENDERBUFFER_SIZE " + std::to_string(limit)), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_image_size(int(limit), 16));
}

namespace {
#define FXSIM_TEST_PARAMS(X) X(float, a) X(glm::vec3, b) X(float, c) X(fxsim::GpuBool, d) X(glm::vec2, e) X(glm::vec3, f)
FXSIM_GPU_PARAMS(TestParams, FXSIM_TEST_PARAMS);
}  // namespace

TEST(GpuParams, TheCppLayoutIsStd140AndTheGlslBlockNamesEveryMember) {
  // std140: a vec3 starts on 16 bytes and a scalar may follow in its last 4;
  // a vec2 starts on 8.
  EXPECT_EQ(offsetof(TestParams, a), 0u);
  EXPECT_EQ(offsetof(TestParams, b), 16u);
  EXPECT_EQ(offsetof(TestParams, c), 28u);
  EXPECT_EQ(offsetof(TestParams, d), 32u);
  EXPECT_EQ(offsetof(TestParams, e), 40u);
  EXPECT_EQ(offsetof(TestParams, f), 48u);
  EXPECT_EQ(TestParams::glsl(3), "layout(std140, binding = 3) uniform TestParams {\n  float a;\n  vec3 b;\n  float c;\n"
                                  "  bool d;\n  vec2 e;\n  vec3 f;\n};\n");
  // The GL agrees: it places every member where the struct does.
  const auto context = EglContext::create(std::nullopt, 4, 3);
  const GlProgram program = link_compute_program("#version 430\nlayout(local_size_x = 1) in;\n" + TestParams::glsl(0) +
                                         "layout(std430, binding = 0) buffer Out { float o[]; };\n"
                                         "void main() { o[0] = a + b.x + c + (d ? 1.0 : 0.0) + e.x + f.z; }\n");
  const char* names[] = {"a", "b", "c", "d", "e", "f"};
  GLuint indices[6];
  glGetUniformIndices(program.get(), 6, names, indices);
  GLint offsets[6];
  glGetActiveUniformsiv(program.get(), 6, indices, GL_UNIFORM_OFFSET, offsets);
  const size_t expected[] = {offsetof(TestParams, a), offsetof(TestParams, b), offsetof(TestParams, c),
                             offsetof(TestParams, d), offsetof(TestParams, e), offsetof(TestParams, f)};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(size_t(offsets[i]), expected[i]) << names[i];
}
