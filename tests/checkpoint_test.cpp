// Checkpoints: a simulation restored from another's saved state goes on
// exactly as the saved one does, for every effect type (snow, rain with
// splashes, fountains with mist, fire with embers, explosions with debris) on
// both backends: the same state hash at every later frame and the same
// statistics. A state of another scene is refused, never half-loaded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "cli_runner.h"
#include "core/exit_codes.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/checkpoint_files.h"
#include "render/egl_context.h"
#include "render/gpu_backend.h"

using namespace fxsim;
using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
struct Case {
  const char* scene;
  int saved_at, compared_to;
};
// battlefield: fires with embers, explosions with debris (one under way at 36,
// one starting after it), ash; fountain-windy: a fountain with mist in the
// wind; sleet: rain with splashes and snow; snow-flythrough: a box that
// follows the camera, wrapping.
constexpr Case kCases[] = {{"battlefield", 36, 60}, {"fountain-windy", 20, 32}, {"sleet", 12, 24},
                           {"snow-flythrough", 12, 24}};

class CheckpointRoundTrip : public ::testing::TestWithParam<std::tuple<Case, bool>> {
 protected:
  static void SetUpTestSuite() { context_ = EglContext::create(std::nullopt, 4, 3); }
  static void TearDownTestSuite() { context_.reset(); }
  static std::unique_ptr<EglContext> context_;
};
std::unique_ptr<EglContext> CheckpointRoundTrip::context_;
}  // namespace

TEST_P(CheckpointRoundTrip, ARestoredSimulationGoesOnExactlyAsTheSavedOne) {
  const auto [c, gpu] = GetParam();
  const Scene scene = parse_scene_file(fs::path(FXSIM_SOURCE_DIR) / "scenes" / (std::string(c.scene) + ".json"));
  GpuKernels kernels;
  const SystemFactory factory = gpu ? gpu_system_factory(kernels) : SystemFactory{};
  Simulation original(scene, 2, factory);
  original.advance_to_frame(c.saved_at);
  const std::vector<uint8_t> state = original.save_state();
  // Through a checkpoint file, as a render reads it.
  TempDir dir("checkpoint");
  const CheckpointKey key{scene.simulation_key, "test", gpu ? "gpu" : "cpu"};
  write_checkpoint(dir.path(), key, c.saved_at, original.frame(), original.time(), state);
  std::vector<std::string> warnings;
  const auto found = load_checkpoint(dir.path(), key, c.compared_to, warnings);
  ASSERT_TRUE(found);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(found->state, state);

  Simulation restored(scene, 1, factory);  // another thread count, too
  restored.load_state(found->state);
  EXPECT_EQ(restored.frame(), c.saved_at);
  EXPECT_EQ(restored.state_hash(), original.state_hash());
  for (int f = c.saved_at + 1; f <= c.compared_to; ++f) {
    original.advance_to_frame(f);
    restored.advance_to_frame(f);
    ASSERT_EQ(restored.state_hash(), original.state_hash()) << c.scene << " frame " << f;
  }
  EXPECT_EQ(to_json_line(restored.take_stats()), to_json_line(original.take_stats()));
}

INSTANTIATE_TEST_SUITE_P(Effects, CheckpointRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Bool()), [](const auto& param_info) {
                           std::string name = std::string(std::get<0>(param_info.param).scene) +
                                              (std::get<1>(param_info.param) ? "_gpu" : "_cpu");
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

TEST(CheckpointFiles, AnotherScenesStateIsRefusedAndADamagedFileIsPassedOver) {
  const auto context = EglContext::create(std::nullopt, 4, 3);
  const Scene rain = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/rain.json");
  const Scene snow = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/snow.json");
  Simulation a(rain, 1);
  a.advance_to_frame(2);
  Simulation b(snow, 1);
  try {
    b.load_state(a.save_state());
    ADD_FAILURE() << "a rain state loaded into a snow scene";
  } catch (const FxError& e) {
    EXPECT_EQ(e.code(), ExitCode::invalid_scene);
    EXPECT_NE(std::string(e.what()).find("does not fit this scene"), std::string::npos) << e.what();
  }
  TempDir dir("damaged");
  const CheckpointKey key{rain.simulation_key, "test", "cpu"};
  write_checkpoint(dir.path(), key, 1, 1, 1.0 / 24, Simulation(rain, 1).save_state());
  const fs::path newer = write_checkpoint(dir.path(), key, 2, 2, 2.0 / 24, a.save_state());
  std::string bytes = read_text_file(newer);
  bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x40);  // one flipped bit in the state
  write_text_file(newer, bytes);
  std::vector<std::string> warnings;
  const auto found = load_checkpoint(dir.path(), key, 10, warnings);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->info.frame, 1);  // the damaged newer one passed over
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("SHA-256 does not match"), std::string::npos) << warnings[0];
  // Another scene's key: ignored with a warning.
  warnings.clear();
  EXPECT_FALSE(load_checkpoint(dir.path(), {snow.simulation_key, "test", "cpu"}, 10, warnings));
  EXPECT_EQ(warnings.size(), 2u);
}

TEST(CheckpointFiles, ALiveCountBeyondTheStoreIsRefusedOnBothBackends) {
  // A state whose digest matches but whose count of live drops exceeds its
  // store (a file made by hand): refused, not stepped past the store's end.
  const auto context = EglContext::create(std::nullopt, 4, 3);
  const Scene rain = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/rain.json");
  for (const bool gpu : {false, true}) {
    GpuKernels kernels;
    Simulation a(rain, 1, gpu ? gpu_system_factory(kernels) : SystemFactory{});
    a.advance_to_frame(2);
    std::vector<uint8_t> state = a.save_state();
    // The rain's section: its tag, its store (tag, capacity, every field), then the live count.
    const char* tag = gpu ? "GPRE" : "PREC";
    const auto section = std::search(state.begin(), state.end(), tag, tag + 4);
    ASSERT_NE(section, state.end());
    uint64_t capacity = 0;
    const size_t store_at = size_t(section - state.begin()) + 4;
    ASSERT_EQ(std::memcmp(state.data() + store_at, "PSTO", 4), 0);
    std::memcpy(&capacity, state.data() + store_at + 4, 8);
    ASSERT_EQ(capacity, uint64_t(rain.emitters[0].max_particles));
    const size_t live_at = store_at + 12 + size_t(capacity) * particle_bytes();
    uint64_t live = 0;
    std::memcpy(&live, state.data() + live_at, 8);
    ASSERT_GT(live, 0u);
    ASSERT_LE(live, capacity);
    const uint64_t beyond = capacity + 1;
    std::memcpy(state.data() + live_at, &beyond, 8);
    Simulation b(rain, 1, gpu ? gpu_system_factory(kernels) : SystemFactory{});
    try {
      b.load_state(state);
      ADD_FAILURE() << "a live count past the store was loaded, gpu " << gpu;
    } catch (const FxError& e) {
      EXPECT_EQ(e.code(), ExitCode::invalid_scene);
      EXPECT_NE(std::string(e.what()).find(fmt::format("a count of at most {}, not {}", capacity, beyond)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST_P(CheckpointRoundTrip, ACapturedStateHashIsTheStateHash) {
  // The manifest's hash, captured without waiting for the GPU, must be the
  // one --state-hashes writes; small GPU pages put several pages in a field.
  const auto [c, gpu] = GetParam();
  const Scene scene = parse_scene_file(fs::path(FXSIM_SOURCE_DIR) / "scenes" / (std::string(c.scene) + ".json"));
  // (Both simulations below are made with the same pages: a pool larger than a
  // page stays on the CPU, whose arithmetic may differ from the GPU's.)
  setenv("FXSIM_GPU_PAGE_PARTICLES", "4096", 1);
  GpuKernels kernels;
  Simulation simulation(scene, 2, gpu ? gpu_system_factory(kernels) : SystemFactory{});
  for (const int frame : {1, c.saved_at}) {
    simulation.advance_to_frame(frame);
    StateCapture capture;
    simulation.capture_state(capture);
    simulation.advance_to_frame(frame + 1);  // the state moves on before the capture is fetched, as in a render
    const uint64_t next = simulation.state_hash();
    capture.fetch();
    Simulation again(scene, 1, gpu ? gpu_system_factory(kernels) : SystemFactory{});
    again.advance_to_frame(frame);
    EXPECT_EQ(capture.hash(), again.state_hash()) << c.scene << " frame " << frame;
    EXPECT_NE(capture.hash(), next);
  }
  unsetenv("FXSIM_GPU_PAGE_PARTICLES");
}
