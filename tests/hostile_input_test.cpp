// Hostile and mistaken scenes through the real executable, as a user (or an
// attacker feeding a render farm) would write them. Each must be refused with
// its documented exit code and a message naming the problem, quickly, and
// `render` must write nothing. See README, "Reliability".
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <sys/stat.h>

#include "cli_runner.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {

// Runs `validate` and `render` on the same scene text: both must give `code`
// with `words` in the message, render must leave its output folder and text
// outputs uncreated, and neither may take more than `seconds`.
void expect_refused(const std::string& tag, const std::string& scene_text, int code, const std::string& words,
                    double seconds = 20) {
  TempDir dir(tag);
  const fs::path scene = dir / "scene.json";
  write_text_file(scene, scene_text);
  const auto started = std::chrono::steady_clock::now();
  const CliResult validate = run_fxsim("validate '" + scene.string() + "'");
  EXPECT_EQ(validate.exit_code, code) << tag << "\n" << validate.err.substr(0, 2000);
  EXPECT_NE(validate.err.find(words), std::string::npos) << tag << "\n" << validate.err.substr(0, 2000);
  // The CPU backend on every machine, so render checks the same memory validate does.
  const CliResult render = run_fxsim("render '" + scene.string() + "' --backend cpu -o '" + (dir / "out/f_####.png").string() +
                                     "' --stats '" + (dir / "stats.jsonl").string() + "' --state-hashes '" +
                                     (dir / "hashes.txt").string() + "'");
  EXPECT_EQ(render.exit_code, code) << tag << "\n" << render.err.substr(0, 2000);
  EXPECT_NE(render.err.find(words), std::string::npos) << tag << "\n" << render.err.substr(0, 2000);
  EXPECT_FALSE(fs::exists(dir / "out")) << tag;
  EXPECT_FALSE(fs::exists(dir / "stats.jsonl")) << tag;
  EXPECT_FALSE(fs::exists(dir / "hashes.txt")) << tag;
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(took, seconds) << tag;
  // Messages stay readable however large the input: no line of a screenful.
  for (const std::string* text : {&validate.err, &render.err}) {
    size_t start = 0;
    for (size_t end; (end = text->find('\n', start)) != std::string::npos; start = end + 1)
      EXPECT_LT(end - start, 1200u) << tag;
  }
}

std::string with_emitter(const std::string& emitter, const std::string& top = "") {
  return R"({"fxsim": 1, )" + top + R"("emitters": [)" + emitter + "]}";
}

struct Hostile {
  const char* name;
  std::string text;
  const char* words;
};

std::vector<Hostile> hostile_scenes() {
  return {
      // Numbers that are finite as doubles but not as the floats the code uses.
      {"size_1e308", with_emitter(R"({"type": "snow", "size": 1e308})"), "/emitters/0/size: expected a number in 1e-06..10000"},
      {"region_1e308", with_emitter(R"({"type": "snow", "region": {"size": [1e308, 1, 1]}})"), "/emitters/0/region/size"},
      {"region_denormal", with_emitter(R"({"type": "snow", "region": {"size": [5e-324, 1, 1]}})"), "each in 0.001..1000000"},
      {"fps_denormal", with_emitter(R"({"type": "snow"})", R"("output": {"fps": 5e-324}, )"), "/output/fps: expected a number in 0.01..1000"},
      {"near_tiny", with_emitter(R"({"type": "snow"})", R"("camera": {"near": 1e-50}, )"), "/camera/near: expected a number in 0.0001..100000"},
      {"gravity_scale_huge", with_emitter(R"({"type": "snow", "gravity_scale": 1e308})"), "/emitters/0/gravity_scale"},
      {"turbulence_huge", with_emitter(R"({"type": "snow"})", R"("environment": {"wind": {"turbulence": {"strength": 1e308}}}, )"),
       "/environment/wind/turbulence/strength: expected a number in 0..1000"},
      {"fire_size_1e39", with_emitter(R"({"type": "fire", "size": [1e39, 1]})"), "/emitters/0/size"},
      {"velocity_huge", with_emitter(R"({"type": "rain", "velocity": [0, -1e6, 0]})"), "each in -10000..10000"},
      {"depth_k_huge", with_emitter(R"({"type": "snow", "depth_scale": "exp", "depth_k": 1000})"), "/emitters/0/depth_k"},
      {"mist_lifetime_zero", with_emitter(R"({"type": "fountain", "ring": {}, "mist": {"lifetime": 1e-300}})"), "/emitters/0/mist/lifetime"},
      {"nozzle_direction_tiny", with_emitter(R"({"type": "fountain", "nozzles": [{"direction": [1e-30, 0, 0]}]})"), "of length > 0.001"},
      {"wind_huge", with_emitter(R"({"type": "snow"})", R"("environment": {"wind": {"velocity": [1e30, 0, 0]}}, )"), "/environment/wind/velocity"},
      {"gust_period_tiny", with_emitter(R"({"type": "snow"})", R"("environment": {"wind": {"gust": {"period": 1e-30}}}, )"), "/environment/wind/gust/period"},
      {"start_huge", with_emitter(R"({"type": "snow", "start": 1e300})"), "/emitters/0/start: expected a number in 0..10000000"},
      // Rules that state the real limits.
      {"frames_1e9", with_emitter(R"({"type": "snow"})", R"("output": {"frames": 1000000000}, )"), "expected an integer in 1..10000000"},
      {"substeps_5000", with_emitter(R"({"type": "snow"})", R"("output": {"substeps": 5000}, )"), "expected an integer in 1..1000"},
      {"seed_beyond_int64", with_emitter(R"({"type": "snow"})", R"("seed": 18446744073709551615, )"), "/seed: expected an integer in 0..9223372036854775807"},
      {"max_particles_huge", with_emitter(R"({"type": "snow", "max_particles": 1e12})"), "in 0..2147483647"},
      // Degenerate cameras.
      {"eye_on_target", with_emitter(R"({"type": "snow"})", R"("camera": {"position": [1, 2, 3], "target": [1, 2, 3]}, )"),
       "/camera/target: expected a target at least 0.001 m from the camera position"},
      {"key_eye_on_target", with_emitter(R"({"type": "snow"})", R"("camera": {"keys": [{"time": 0, "position": [0, 1, 0], "target": [0, 1, 0]}]}, )"),
       "/camera/keys/0/target"},
      {"up_along_view", with_emitter(R"({"type": "snow"})", R"("camera": {"position": [0, 0, 0], "target": [0, 5, 0]}, )"),
       "not parallel to the camera's up"},
      {"up_zero", with_emitter(R"({"type": "snow"})", R"("camera": {"up": [0, 0, 0]}, )"), "/camera/up"},
      {"path_crosses_itself",
       with_emitter(R"({"type": "snow"})",
                    R"("camera": {"keys": [{"time": 0, "position": [0, 1, 5], "target": [0, 1, -5]}, {"time": 1, "position": [0, 1, -5], "target": [0, 1, 5]}]}, )"),
       "/camera/keys: expected a camera path whose target stays apart"},
      // JSON that is technically valid but not what anyone meant.
      {"escaped_duplicate_key", with_emitter(R"({"type": "snow"})", R"("seed": 7, "se\u0065d": 8, )"), "/seed: duplicate key"},
      {"number_beyond_double", with_emitter(R"({"type": "snow"})", R"("output": {"fps": 1e400}, )"),
       "/output/fps: expected a number within the range of a double"},
      {"negative_beyond_double", with_emitter(R"({"type": "snow", "gravity_scale": -1e999})"), "/emitters/0/gravity_scale: expected a number within the range"},
      {"too_many_emitters", [] {
         std::string list;
         for (int i = 0; i < 100000; ++i) list += std::string(i ? "," : "") + "{\"type\": \"snow\"}";
         return with_emitter(list);
       }(), "/emitters: expected at most 4096 emitters, got 100000"},
      {"deep_arrays", "{\"fxsim\": 1, \"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}",
       "nested deeper than 256 levels"},
      {"deep_objects", [] {
         std::string s = "{\"fxsim\": 1, \"x\": ";
         for (int i = 0; i < 30000; ++i) s += "{\"a\": ";
         s += "1";
         for (int i = 0; i < 30000; ++i) s += "}";
         return s + "}";
       }(), "nested deeper than 256 levels"},
      {"huge_unknown_array", [] {
         std::string numbers;
         for (int i = 0; i < 3000000; ++i) numbers += i ? ",1" : "1";
         return R"({"fxsim": 1, "emitters": [{"type": "snow"}], "junk": [)" + numbers + "]}";
       }(), "/junk: unknown key \"junk\""},
      {"long_unknown_key", with_emitter(R"({"type": "snow", ")" + std::string(200000, 'k') + R"(": 1})"), "unknown key"},
      {"many_problems", [] {
         std::string list;
         for (int i = 0; i < 3000; ++i) list += std::string(i ? "," : "") + "{\"type\": \"snow\", \"size\": -1}";
         return with_emitter(list);
       }(), "3000 problems"},
  };
}

class HostileScene : public ::testing::TestWithParam<Hostile> {};

}  // namespace

TEST_P(HostileScene, IsRefusedWith65AndNothingWritten) {
  const Hostile& h = GetParam();
  expect_refused(h.name, h.text, 65, h.words);
}

INSTANTIATE_TEST_SUITE_P(Scenes, HostileScene, ::testing::ValuesIn(hostile_scenes()),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(HostileFile, ASceneLargerThan16MiBIsRefusedWithTheLimit) {
  std::string text = R"({"fxsim": 1, "emitters": [{"type": "snow"}], "pad": ")";
  text += std::string(17u << 20, 'x') + "\"}";
  expect_refused("oversized", text, 65, "larger than 16777216 bytes (16 MiB)");
}

TEST(HostileFile, AByteOrderMarkIsAcceptedAndColumnsAreRight) {
  TempDir dir("bom");
  write_text_file(dir / "ok.json", "\xEF\xBB\xBF{\"fxsim\": 1, \"emitters\": [{\"type\": \"snow\"}]}");
  EXPECT_EQ(run_fxsim("validate '" + (dir / "ok.json").string() + "'").exit_code, 0);
  write_text_file(dir / "bad.json", "\xEF\xBB\xBF{\"fxsim\": 1,\n \"emitters\": [{\"type\": \"snow\", \"sise\": 1}]}");
  const CliResult r = run_fxsim("validate '" + (dir / "bad.json").string() + "'");
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.err.find("bad.json:2:32: /emitters/0/sise"), std::string::npos) << r.err;
}

TEST(HostileFile, NonRegularScenePathsAreRefusedWithoutBlocking) {
  TempDir dir("nonregular");
  ASSERT_EQ(mkfifo((dir / "fifo.json").c_str(), 0600), 0);
  // A reader that blocked on the FIFO (or read /dev/zero forever) would be
  // stopped by `timeout` and exit 124, failing the test.
  for (const std::string& path : {std::string("/dev/zero"), (dir / "fifo.json").string(), dir.path().string()}) {
    const CliResult r = run_fxsim("validate '" + path + "'", "timeout 10");
    EXPECT_EQ(r.exit_code, 66) << path << r.err;
    EXPECT_NE(r.err.find("cannot read the scene file"), std::string::npos) << r.err;
  }

  EXPECT_NE(run_fxsim("validate " + dir.path().string()).err.find("it is a directory"), std::string::npos);
}

namespace {
// A PNG header claiming `width`×`height` pixels, with no image data.
std::string png_header(uint32_t width, uint32_t height) {
  std::string s = "\x89PNG\r\n\x1a\n";
  s += std::string("\0\0\0\x0dIHDR", 8);
  for (uint32_t v : {width, height})
    for (int shift = 24; shift >= 0; shift -= 8) s += char((v >> shift) & 0xFF);
  s += std::string("\x08\x06\0\0\0", 5) + std::string("\0\0\0\0", 4);
  return s;
}

void expect_texture_refused(const std::string& tag, const std::string& file_contents, const std::string& words,
                            bool as_directory = false) {
  TempDir dir(tag);
  if (as_directory) fs::create_directories(dir / "t.png");
  else write_text_file(dir / "t.png", file_contents);
  const std::string scene = with_emitter(R"({"type": "snow", "textures": [")" + (dir / "t.png").string() + R"("]})");
  expect_refused(tag, scene, 65, words);
}
}  // namespace

TEST(HostileTexture, NotAPng) { expect_texture_refused("tex_text", "hello", "it is not a PNG file"); }
TEST(HostileTexture, ADirectory) { expect_texture_refused("tex_dir", "", "it is a directory", true); }
TEST(HostileTexture, AHugeHeaderIsRefusedBeforeDecoding) {
  expect_texture_refused("tex_huge", png_header(60000, 60000), "it is 60000×60000 pixels; a texture may be at most 8192×8192");
}
TEST(HostileTexture, Truncated) {
  const std::string whole = read_text_file(FXSIM_SOURCE_DIR "/docs/images/campfire.png");
  expect_texture_refused("tex_truncated", whole.substr(0, whole.size() / 2), "cannot be decoded");
}
TEST(HostileTexture, ExplosionFlipbookLargerThanItsSheet) {
  TempDir dir("flipbook");
  const std::string scene = R"({"fxsim": 1, "emitters": [{"type": "explosion", "texture": ")" FXSIM_SOURCE_DIR
                            R"(/docs/images/campfire.png", "flipbook": [64, 64]}]})";
  write_text_file(dir / "s.json", scene);
  const CliResult r = run_fxsim("validate '" + (dir / "s.json").string() + "'");
  // campfire.png is larger than 64 pixels a side: fine.
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string tiny = with_emitter(R"({"type": "explosion", "texture": ")" + (dir / "t.png").string() +
                                        R"(", "flipbook": [4, 4]})");
  // A 2×2 sheet cannot hold 16 frames.
  const std::string two_by_two = read_text_file(FXSIM_SOURCE_DIR "/tests/data/two-by-two.png");
  write_text_file(dir / "t.png", two_by_two);
  expect_refused("flipbook_tiny", tiny, 65, "/emitters/0/flipbook: expected at most one frame per pixel");
}

TEST(HostileMemory, ValidateComparesWithAvailableMemory) {
  expect_refused("memory", with_emitter(R"({"type": "rain", "max_particles": 2000000000, "splash": {"count": 8}})"), 65,
                 "of memory (particles and images), but only");
}
