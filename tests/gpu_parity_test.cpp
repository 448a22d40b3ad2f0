// The GPU backend against the CPU backend, on whatever GL the machine has
// (llvmpipe in CI): for every example scene, the same steps must give the same
// particles (within a stated tolerance), the same statistics, and frames that
// match the goldens (on llvmpipe: the CPU backend's).
//
// Why not exact: the GPU evaluates sin, cos, exp and floor with its own maths
// library, and a GPU compiler may fuse a multiply and an add into one rounding
// where the CPU (built with -ffp-contract=off) rounds twice, although the
// shaders mark their arithmetic `precise`. Both stay within a few float ulps
// per step. The one place where an ulp matters is a particle within an ulp of
// a box face or the ground: one backend may wrap or respawn it a step before
// the other. Those few are counted, not hidden.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "cli_runner.h"
#include "core/effects/explosion/explosion.h"
#include "core/effects/fire/fire.h"
#include "core/effects/fountain/fountain.h"
#include "core/effects/precipitation/precipitation.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/egl_context.h"
#include "render/gpu_backend.h"
#include "render/effects/gpu_fountain.h"
#include "render/effects/gpu_precipitation.h"
#include "core/image_compare.h"

using namespace fxsim;
using namespace fxsim::test;

namespace {
constexpr float kPositionTolerance = 1e-3f;     // metres, after the steps compared
constexpr double kStrayFraction = 1e-3;         // particles allowed past it (boundary decisions)
constexpr double kMeanTolerance = 1e-3;         // on statistics' means, metres or m/s

class GpuParity : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { context_ = EglContext::create(std::nullopt, 4, 3); }
  static void TearDownTestSuite() { context_.reset(); }
  static std::unique_ptr<EglContext> context_;
};
std::unique_ptr<EglContext> GpuParity::context_;
}  // namespace

namespace {
// Steps `scene` on both backends to its frame 24 at most, comparing their
// statistics frame by frame, then their particles slot by slot.
void expect_gpu_matches_cpu(const Scene& scene, const std::string& label) {
  GpuKernels kernels;
  Simulation cpu(scene, 2), gpu(scene, 2, gpu_system_factory(kernels));
  const int frame = std::min(scene.output.frames, 24);
  for (int f = 1; f <= frame; ++f) {
    cpu.advance_to_frame(f);
    gpu.advance_to_frame(f);
    const FrameStats a = cpu.take_stats(), b = gpu.take_stats();
    ASSERT_EQ(a.emitters.size(), b.emitters.size());
    for (size_t e = 0; e < a.emitters.size(); ++e) {
      const EmitterStats &x = a.emitters[e], &y = b.emitters[e];
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.active, y.active);
      const double allowed = std::max(1.0, double(x.live) * kStrayFraction);
      EXPECT_NEAR(double(x.live), double(y.live), allowed) << x.name << " frame " << f;
      EXPECT_NEAR(double(x.spawned), double(y.spawned), allowed) << x.name << " frame " << f;
      EXPECT_NEAR(double(x.died), double(y.died), allowed) << x.name << " frame " << f;
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(x.mean_position[k], y.mean_position[k], kMeanTolerance) << x.name << " frame " << f;
        EXPECT_NEAR(x.mean_velocity[k], y.mean_velocity[k], kMeanTolerance) << x.name << " frame " << f;
      }
    }
  }
  size_t compared = 0;
  for (size_t i = 0; i < scene.emitters.size(); ++i) {
    // The CPU's particles, and the GPU's read back, slot by slot.
    const ParticleStore* mine = nullptr;
    size_t count = 0;
    ParticleStore back(size_t(scene.emitters[i].max_particles));
    if (scene.emitters[i].is<FireParams>() || scene.emitters[i].is<ExplosionParams>()) {
      // Embers and debris: the pools' states (the GPU's read back).
      const bool fire = scene.emitters[i].is<FireParams>();
      const ParticlePool& c = fire ? dynamic_cast<const FireSystem&>(cpu.system(i)).embers()
                                   : dynamic_cast<const ExplosionSystem&>(cpu.system(i)).debris();
      const ParticlePool& g = fire ? dynamic_cast<const FireSystem&>(gpu.system(i)).embers()
                                   : dynamic_cast<const ExplosionSystem&>(gpu.system(i)).debris();
      back = g.state();
      mine = &c.state();
      count = mine->capacity();
    } else if (scene.emitters[i].is<FountainParams>()) {
      const auto& c = dynamic_cast<const FountainSystem&>(cpu.system(i));
      dynamic_cast<const GpuFountain&>(gpu.system(i)).read_drops(back);
      mine = &c.drops();
      count = mine->capacity();
    } else {
      const auto& c = dynamic_cast<const PrecipitationSystem&>(cpu.system(i));
      const auto& g = dynamic_cast<const GpuPrecipitation&>(gpu.system(i));
      ASSERT_EQ(c.live(), g.live());
      g.read_particles(back);
      mine = &c.particles();
      count = c.live();
    }
    size_t strays = 0, live = 0;
    float worst = 0;
    for (size_t p = 0; p < count; ++p) {
      if (mine->age[p] < 0 && back.age[p] < 0) continue;  // an empty slot on both
      ++live;
      const float d = (mine->age[p] < 0) != (back.age[p] < 0) ? 1e9f
                                                             : glm::length(mine->position(p) - back.position(p));
      if (d > kPositionTolerance) ++strays;
      else worst = std::max(worst, d);
    }
    std::printf("%s/%s: %zu particles, largest difference %.3g m, %zu past %.0e m\n", label.c_str(),
                scene.emitters[i].name.c_str(), live, double(worst), strays, double(kPositionTolerance));
    EXPECT_LE(double(strays), std::max(1.0, double(live) * kStrayFraction)) << scene.emitters[i].name;
    ++compared;
  }
}
}  // namespace

TEST_P(GpuParity, ParticlesAndStatisticsMatchTheCpu) {
  expect_gpu_matches_cpu(parse_scene_file(example_scene(GetParam())), GetParam());
}

TEST(GpuFountain, AStepOfSeveralTimesItsSlotsKeepsTheNewestDropsAsTheCpuDoes) {
  // 20 000 drops a step into 8 000 slots: the GPU placed a burst's drops past
  // twice its slots nowhere, and frames went sparse or blank with exit 0.
  const auto context = EglContext::create(std::nullopt, 4, 3);
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "output": {"fps": 1, "frames": 3},
    "emitters": [{"type": "fountain", "max_particles": 8000, "nozzles": [{"position": [0, 0, 0], "speed": 10, "rate": 20000}]}]})",
                                       "overflow.json", ".");
  expect_gpu_matches_cpu(scene, "overflow");
}

TEST(GpuSnow, FlakesThroughTheGroundAndBirthsAtTheTopLieWhereTheCpuPutsThem) {
  // 2 frames a second: a step falls 2 m, so where a flake re-enters the box
  // and where a step's births lie under the top face are far apart if the
  // kernel places them otherwise than PrecipitationSystem does.
  const auto context = EglContext::create(std::nullopt, 4, 3);
  for (const char* emitter : {R"("recycle": "wrap")", R"("recycle": "respawn", "prewarm": false)"}) {
    const Scene scene = parse_scene_text(std::string(R"({"fxsim": 1, "output": {"fps": 2, "frames": 12},
      "emitters": [{"type": "snow", "motion": "constant", "max_particles": 6000, "velocity": [0, -4, 0],
        "region": {"center": [0, 4, 0], "size": [10, 10, 10]}, )") + emitter + "}]}",
                                         "fall.json", ".");
    expect_gpu_matches_cpu(scene, emitter);
  }
}

TEST_P(GpuParity, FramesAndHashesMatchTheGoldensOfThisDeviceClass) {
  // fxsim test on the GPU backend: its frames against this device class's GPU
  // set, or the CPU goldens where it has none (on llvmpipe: the GPU backend's
  // frames must match the CPU backend's); its state hashes against the class's
  // GPU hashes. Not the CPU backend's run against the shared hashes: GoldenTest
  // checks them for every scene (and TestCommand.AGpuRunChecksTheSharedCpuHashes…
  // that a GPU run does).
  const std::string name = GetParam();
  const CliResult r =
      run_fxsim("test '" FXSIM_SOURCE_DIR "/scenes' --backend gpu --no-cpu-check --jobs 1 --scene " + name);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(GpuPaging, ResultsDoNotDependOnThePageSize) {
  // rain.json has splashes (a companion store paged alongside the drops);
  // 4096-particle pages split its 60 000 drops into 15 pages.
  const Scene scene = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/rain.json");
  const auto context = EglContext::create(std::nullopt, 4, 3);
  auto run = [&](const char* page) {
    if (page) setenv("FXSIM_GPU_PAGE_PARTICLES", page, 1);
    else unsetenv("FXSIM_GPU_PAGE_PARTICLES");
    GpuKernels kernels;
    Simulation sim(scene, 1, gpu_system_factory(kernels));
    sim.advance_to_frame(12);
    const auto& g = dynamic_cast<const GpuPrecipitation&>(sim.system(0));
    ParticleStore back(size_t(scene.emitters[0].max_particles));
    g.read_particles(back);
    return std::make_pair(back.px, to_json_line(sim.take_stats()));
  };
  const auto whole = run(nullptr), paged = run("4096");
  unsetenv("FXSIM_GPU_PAGE_PARTICLES");
  EXPECT_EQ(whole.first, paged.first);
  EXPECT_EQ(whole.second, paged.second);
}

INSTANTIATE_TEST_SUITE_P(Scenes, GpuParity, ::testing::ValuesIn(example_scene_names()), [](const auto& test_info) {
  std::string n = test_info.param;
  for (char& c : n) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});
