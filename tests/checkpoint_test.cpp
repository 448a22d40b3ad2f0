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
#include "core/sha256.h"
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
  const Scene scene = parse_scene_file(example_scene(c.scene));
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
  const auto found = load_checkpoint(dir.path(), key, c.compared_to, most_state_bytes(scene), warnings);
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

TEST(CheckpointFiles, EveryExampleScenesStateIsWithinItsBoundOnBothBackends) {
  // most_state_bytes(scene) caps what a checkpoint's header may claim: one
  // under a real state would pass over every checkpoint of that scene. The
  // state's size is fixed by the scene (stores of fixed capacity), so the
  // state at frame 1 stands for every frame's; and the bound is the slots'
  // bytes and the grids' exactly, give or take the systems' counts.
  const auto context = EglContext::create(std::nullopt, 4, 3);
  int scenes = 0;
  for (const auto& entry : fs::directory_iterator(FXSIM_SOURCE_DIR "/scenes")) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "suite.json") continue;
    const Scene scene = parse_scene_file(entry.path());
    ++scenes;
    for (const bool gpu : {false, true}) {
      GpuKernels kernels;
      Simulation simulation(scene, 1, gpu ? gpu_system_factory(kernels) : SystemFactory{});
      simulation.advance_to_frame(1);
      const uint64_t saved = simulation.save_state().size(), most = most_state_bytes(scene);
      EXPECT_LE(saved, most) << entry.path().filename() << (gpu ? " gpu" : " cpu");
      EXPECT_GE(saved + 4096 * (scene.emitters.size() + 1), most) << entry.path().filename() << (gpu ? " gpu" : " cpu");
    }
  }
  EXPECT_GE(scenes, 16);
}

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
  const auto found = load_checkpoint(dir.path(), key, 10, most_state_bytes(rain), warnings);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->info.frame, 1);  // the damaged newer one passed over
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("SHA-256 does not match"), std::string::npos) << warnings[0];
  // Another scene's key: ignored with a warning.
  warnings.clear();
  EXPECT_FALSE(load_checkpoint(dir.path(), {snow.simulation_key, "test", "cpu"}, 10, most_state_bytes(snow), warnings));
  EXPECT_EQ(warnings.size(), 2u);
}

// A hand-made checkpoint: its digest is over the file, so it matches whatever
// the state holds. These put one value at a place in a saved state.
template <class T>
std::vector<uint8_t> with(std::vector<uint8_t> state, size_t at, T value) {
  std::memcpy(state.data() + at, &value, sizeof value);
  return state;
}
template <class T>
T read_at(const std::vector<uint8_t>& state, size_t at) {
  T value;
  std::memcpy(&value, state.data() + at, sizeof value);
  return value;
}
// Where a section's tag is followed by its particle store ("PSTO", capacity,
// every field of every slot): where the store's fields start, and its capacity.
size_t store_fields(const std::vector<uint8_t>& state, const char* tag, uint64_t& capacity) {
  const auto section = std::search(state.begin(), state.end(), tag, tag + 4);
  EXPECT_NE(section, state.end()) << tag;
  const size_t store = size_t(section - state.begin()) + 4;
  EXPECT_EQ(std::memcmp(state.data() + store, "PSTO", 4), 0) << tag;
  capacity = read_at<uint64_t>(state, store + 4);
  return store + 12;
}
void expect_refused(const Scene& scene, bool gpu, const std::vector<uint8_t>& state, const std::string& words) {
  GpuKernels kernels;
  Simulation b(scene, 1, gpu ? gpu_system_factory(kernels) : SystemFactory{});
  try {
    b.load_state(state);
    ADD_FAILURE() << "loaded, gpu " << gpu << "; expected a refusal naming " << words;
  } catch (const FxError& e) {
    EXPECT_EQ(e.code(), ExitCode::invalid_scene) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(CheckpointFiles, ValuesAHandMadeStateCouldSetAreRefusedOnBothBackends) {
  // Each a value the simulation would use as a count, a bound or an index:
  // refused as a state that does not fit the scene, never stepped with.
  const auto context = EglContext::create(std::nullopt, 4, 3);
  const Scene rain = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/rain.json");
  const Scene fountain = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/fountain-windy.json");
  const Scene fire = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/campfire.json");
  for (const bool gpu : {false, true}) {
    SCOPED_TRACE(gpu ? "GPU backend" : "CPU backend");
    const auto saved = [&](const Scene& scene, int frame) {
      GpuKernels kernels;
      Simulation a(scene, 1, gpu ? gpu_system_factory(kernels) : SystemFactory{});
      a.advance_to_frame(frame);
      return a.save_state();
    };
    // The simulation's frame (after "SIMU" and the step).
    const std::vector<uint8_t> drops = saved(rain, 2);
    ASSERT_EQ(read_at<int64_t>(drops, 12), 2);
    expect_refused(rain, gpu, with<int64_t>(drops, 12, -5), "a frame in 0..10000000");
    // Rain: the live drops (after the store), then the emission's carry.
    uint64_t capacity = 0;
    const size_t live_at = store_fields(drops, gpu ? "GPRE" : "PREC", capacity) + size_t(capacity) * particle_bytes();
    ASSERT_EQ(capacity, uint64_t(rain.emitters[0].max_particles));
    ASSERT_GT(read_at<uint64_t>(drops, live_at), 0u);
    ASSERT_LE(read_at<uint64_t>(drops, live_at), capacity);
    expect_refused(rain, gpu, with<uint64_t>(drops, live_at, capacity + 1),
                   fmt::format("a count of at most {}, not {}", capacity, capacity + 1));
    ASSERT_GE(read_at<double>(drops, live_at + 8), 0.0);
    expect_refused(rain, gpu, with<double>(drops, live_at + 8, 1.8e19), "an emission carry in [0, 1)");
    // Then the drops spawned so far, a count that only grows (from near 2^63 it would overflow).
    ASSERT_GT(read_at<int64_t>(drops, live_at + 16), 0);
    expect_refused(rain, gpu, with<int64_t>(drops, live_at + 16, INT64_MAX - 1), "an event count in 0..2^53");
    // Then the drops died (the GPU's state: and the splashes' two counts),
    // and whether splashes follow (rain.json's drops splash).
    const size_t splashes_at = live_at + (gpu ? 48 : 32);
    ASSERT_EQ(read_at<uint8_t>(drops, splashes_at), 1u);
    expect_refused(rain, gpu, with<uint8_t>(drops, splashes_at, 0), "expected splashes at byte");
    expect_refused(rain, gpu, with<uint8_t>(drops, splashes_at, 7), "expected splashes at byte");
    // A drop's position that is not a number (the render stopped with 70, "a bug", naming no file),
    // and a velocity of infinity.
    const size_t fields_at = store_fields(drops, gpu ? "GPRE" : "PREC", capacity);
    expect_refused(rain, gpu, with<float>(drops, fields_at + 4, std::nanf("")), "finite values of every particle's position x");
    expect_refused(rain, gpu, with<float>(drops, fields_at + 4 * size_t(capacity) * 4, INFINITY),
                   "finite values of every particle's velocity y");
    // A fountain: a live drop's nozzle (the store's 13th field), the step it started at.
    const std::vector<uint8_t> jets = saved(fountain, 30);
    const size_t fields = store_fields(jets, gpu ? "GFOU" : "FOUN", capacity);
    const size_t field_bytes = size_t(capacity) * 4;
    size_t live = 0;
    while (live < capacity && !(read_at<float>(jets, fields + 10 * field_bytes + live * 4) >= 0)) ++live;
    ASSERT_LT(live, capacity);
    expect_refused(fountain, gpu, with<uint32_t>(jets, fields + 12 * field_bytes + live * 4, 1000),
                   "drops of the scene's nozzles");
    const size_t first_step_at = fields + 14 * field_bytes;
    ASSERT_GE(read_at<int64_t>(jets, first_step_at), 0);
    expect_refused(fountain, gpu, with<int64_t>(jets, first_step_at, read_at<int64_t>(jets, 4) + 1), "a first step");
    // A fire: its start (after the grid's cells), whose catch-up would otherwise run for ever.
    const std::vector<uint8_t> flames = saved(fire, 2);
    const std::string_view fire_tag = "FIRE";
    const auto section = std::search(flames.begin(), flames.end(), fire_tag.begin(), fire_tag.end());
    ASSERT_NE(section, flames.end());
    const size_t cells_at = size_t(section - flames.begin()) + 4;
    const size_t start_at = cells_at + 8 + size_t(read_at<uint64_t>(flames, cells_at)) * 4;
    ASSERT_GE(read_at<double>(flames, start_at), 0.0);
    expect_refused(fire, gpu, with<double>(flames, start_at, -1e12), "a start time in 0..10000000");
  }
}

// A checkpoint file's bytes with its SHA-256 made to match them again.
std::string resigned(std::string bytes) {
  Sha256 digest;
  digest.add(bytes.data(), bytes.size() - 32);
  const std::vector<uint8_t> sum = digest.digest();
  std::memcpy(bytes.data() + bytes.size() - 32, sum.data(), 32);
  return bytes;
}

TEST(CheckpointFiles, AHandMadeHeaderOrTableOfPiecesIsPassedOverWithAWarning) {
  // Its digest matches; what it says of itself does not hold. The header's
  // numbers are converted, and the pieces allocated and uncompressed into
  // the state, only once they are in range and as fxsim writes them.
  const Scene rain = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/rain.json");
  Simulation a(rain, 1);
  a.advance_to_frame(2);
  const std::vector<uint8_t> state = a.save_state();
  const CheckpointKey key{rain.simulation_key, "test", "cpu"};
  TempDir dir("hand-made");
  const fs::path path = write_checkpoint(dir.path(), key, 2, 2, 2.0 / 24, state);
  const std::string written = read_text_file(path);
  uint32_t header_bytes = 0;
  std::memcpy(&header_bytes, written.data() + 12, 4);
  const size_t table = 16 + header_bytes;  // the count of pieces, then (state bytes, packed bytes) a piece
  uint32_t count = 0;
  std::memcpy(&count, written.data() + table, 4);
  ASSERT_GE(count, 2u);  // rain's drops and splashes: more than one piece of 16 MiB
  const auto passed_over = [&](const std::string& bytes, const std::string& words) {
    write_text_file(path, bytes);
    std::vector<std::string> warnings;
    EXPECT_FALSE(load_checkpoint(dir.path(), key, 10, most_state_bytes(rain), warnings)) << words;
    ASSERT_EQ(warnings.size(), 1u) << words << ": " << (warnings.empty() ? "" : warnings[0]) << " / " << warnings.back();
    EXPECT_NE(warnings[0].find(words), std::string::npos) << warnings[0];
  };
  // A table of four billion pieces (64 GiB of it, before anything was read).
  std::string bytes = written;
  const uint32_t billions = 0xFFFFFFFFu;
  std::memcpy(bytes.data() + table, &billions, 4);
  passed_over(resigned(bytes), "its table of pieces does not fit it");
  // Pieces whose sizes still add up to the state's, modulo 2^64: the first
  // 16 bytes short of 2^64 more (given that much room to uncompress into),
  // the second 16 bytes more, to be uncompressed 16 bytes early.
  bytes = written;
  uint64_t first = 0, second = 0;
  std::memcpy(&first, written.data() + table + 4, 8);
  std::memcpy(&second, written.data() + table + 20, 8);
  first += ~uint64_t(0) - 15;
  second += 16;
  std::memcpy(bytes.data() + table + 4, &first, 8);
  std::memcpy(bytes.data() + table + 20, &second, 8);
  passed_over(resigned(bytes), "its pieces are not as written");
  // Pieces of 16 MiB from no bytes at all: the state was allocated (1 GB for
  // a 1 KB file of 64 such pieces; a 1 MB one ended the render with 70).
  bytes = written;
  const uint64_t none = 0;
  for (uint32_t i = 0; i < count; ++i) std::memcpy(bytes.data() + table + 12 + 16 * i, &none, 8);
  passed_over(resigned(bytes), "its pieces claim more than their compressed bytes can hold");
  // A frame that is not a whole number (converting 1e300 to an int is undefined).
  std::string header = written.substr(16, header_bytes);
  const size_t frame = header.find("\"frame\":2");
  ASSERT_NE(frame, std::string::npos) << header;
  header.replace(frame, 9, "\"frame\":1e300");
  const uint32_t longer = uint32_t(header.size());
  bytes = written.substr(0, 12) + std::string(reinterpret_cast<const char*>(&longer), 4) + header + written.substr(table);
  passed_over(resigned(bytes), "its header's frame is not a whole number");
  // A state larger than the scene's can be, in pieces deflate could give: a
  // 1 MB file claimed 1 GB, allocated before the state was found not to fit.
  header = written.substr(16, header_bytes);
  const std::string claim = fmt::format("\"state_bytes\":{}", state.size());
  const size_t claimed = header.find(claim);
  ASSERT_NE(claimed, std::string::npos) << header;
  header.replace(claimed, claim.size(), fmt::format("\"state_bytes\":{}", most_state_bytes(rain) + 1));
  const uint32_t relonger = uint32_t(header.size());
  bytes = written.substr(0, 12) + std::string(reinterpret_cast<const char*>(&relonger), 4) + header + written.substr(table);
  passed_over(resigned(bytes), fmt::format("its header claims a state of {} bytes, more than this scene's state can take ({} bytes)",
                                           most_state_bytes(rain) + 1, most_state_bytes(rain)));
}

TEST(CheckpointFiles, ARenderRefusesACheckpointWhoseHeaderAndStateDisagree) {
  // fxsim's own checkpoint of frame 4, its header made to say frame 3: the
  // render would draw frame 4 from a state it took for frame 3's.
  TempDir dir("disagree");
  const std::string scene = FXSIM_SOURCE_DIR "/scenes/rain.json";
  const fs::path folder = dir / "ck";
  ASSERT_EQ(run_fxsim(fmt::format("render '{}' --backend cpu --frames 4 --simulate-only --checkpoint-every 4 --checkpoints '{}' -q",
                                  scene, folder.string())).exit_code, 0);
  const fs::path path = folder / checkpoint_file_name(4);
  std::string bytes = read_text_file(path);
  const size_t frame = bytes.find("\"frame\":4,");
  ASSERT_NE(frame, std::string::npos);
  bytes[frame + 8] = '3';
  write_text_file(path, resigned(bytes));
  const CliResult r = run_fxsim(fmt::format("render '{}' --backend cpu --frames 4 --width 64 --height 36 --checkpoints '{}' -o '{}'",
                                            scene, folder.string(), (dir / "out/f_####.png").string()));
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("the checkpoint's state is of frame 4, its header says 3"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/f_0004.png"));
}

TEST_P(CheckpointRoundTrip, ACapturedStateHashIsTheStateHash) {
  // The manifest's hash, captured without waiting for the GPU, must be the
  // one --state-hashes writes; small GPU pages put several pages in a field.
  const auto [c, gpu] = GetParam();
  const Scene scene = parse_scene_file(example_scene(c.scene));
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
