// Hostile and mistaken scenes through the real executable, as a user (or an
// attacker feeding a render farm) would write them. Each must be refused with
// its documented exit code and a message naming the problem, quickly, and
// `render` must write nothing. See README, "Reliability".
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <sys/stat.h>

#include "cli_runner.h"
#include "core/image.h"
#include "core/png_writer.h"
#include "core/sha256.h"
#include "hostile_scenes.h"

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

class HostileScene : public ::testing::TestWithParam<Hostile> {};

}  // namespace

TEST_P(HostileScene, IsRefusedWith65AndNothingWritten) {
  const Hostile& h = GetParam();
  expect_refused(h.name, h.text(), 65, h.words);
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

// A texture that is there but unusable is an invalid scene (65); one that is
// missing, unreadable or not a regular file is a missing input (66).
void expect_texture_refused(const std::string& tag, const std::string& file_contents, const std::string& words,
                            bool as_directory = false) {
  TempDir dir(tag);
  if (as_directory) fs::create_directories(dir / "t.png");
  else write_text_file(dir / "t.png", file_contents);
  const std::string scene = with_emitter(R"({"type": "snow", "textures": [")" + (dir / "t.png").string() + R"("]})");
  expect_refused(tag, scene, as_directory ? 66 : 65, words);
}
// Under AddressSanitizer (scripts/sanitize), whose shadow memory no ulimit -v leaves room for.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitized = true;
#else
constexpr bool kAddressSanitized = false;
#endif
#else
constexpr bool kAddressSanitized = false;
#endif
}  // namespace

TEST(HostileTexture, NotAPng) { expect_texture_refused("tex_text", "hello", "it is not a PNG file"); }
TEST(HostileTexture, ADirectory) { expect_texture_refused("tex_dir", "", "it is a directory", true); }
TEST(HostileTexture, MissingIs66UnlessTheSceneHasOtherProblems) {
  const std::string missing = R"({"type": "snow", "textures": ["/nonexistent/flake.png"]})";
  expect_refused("tex_missing", with_emitter(missing), 66,
                 "/emitters/0/textures/0: expected a PNG file of at most 8192×8192 pixels, got \"/nonexistent/flake.png\"");
  expect_refused("tex_missing_and_bad", R"({"fxsim": 1, "seed": -1, "emitters": [)" + missing + "]}", 65, "/seed: ");
}
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
                            R"(/docs/images/campfire.png", "flipbook": [32, 64]}]})";
  write_text_file(dir / "s.json", scene);
  const CliResult r = run_fxsim("validate '" + (dir / "s.json").string() + "'");
  // campfire.png is larger than 64 pixels a side: fine.
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // 4096 frames are more than a GL's texture array holds: validate said ok,
  // and render failed at its first draw (69, the GL error blamed on its counters).
  std::string all = scene;
  all.replace(all.find("[32, 64]"), 8, "[64, 64]");
  expect_refused("flipbook_layers", all, 65, "/emitters/0/flipbook: expected at most 2048 frames in all");
  std::string textures = R"({"fxsim": 1, "emitters": [{"type": "snow", "textures": [)";
  for (int i = 0; i < 2049; ++i)
    textures += std::string(i ? ", " : "") + "\"" FXSIM_SOURCE_DIR "/docs/images/campfire.png\"";
  expect_refused("texture_layers", textures + "]}]}", 65, "/emitters/0/textures: expected at most 2048 PNG paths");
  const std::string tiny = with_emitter(R"({"type": "explosion", "texture": ")" + (dir / "t.png").string() +
                                        R"(", "flipbook": [4, 4]})");
  // A 2×2 sheet cannot hold 16 frames.
  const std::string two_by_two = read_text_file(FXSIM_SOURCE_DIR "/tests/data/two-by-two.png");
  write_text_file(dir / "t.png", two_by_two);
  expect_refused("flipbook_tiny", tiny, 65, "/emitters/0/flipbook: expected at most one frame per pixel");
}

TEST(HostileMemory, TheTexturesAnEffectMakesItselfAreCounted) {
  // 4096 explosions: the estimate counted the scene's PNGs only (2.4 MB),
  // and the render made 4096 fireballs (8 GB) until it ran out of memory (70).
  if (kAddressSanitized) GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v lets it start";
  TempDir dir("procedural");
  std::string scene = R"({"fxsim": 1, "output": {"width": 160, "height": 90, "frames": 1}, "emitters": [)";
  for (int i = 0; i < 4096; ++i)
    scene += fmt::format(R"({}{{"type": "explosion", "position": [{}, 1, {}]}})", i ? ", " : "", i % 64 - 32, -(i / 64));
  write_text_file(dir / "s.json", scene + "]}");
  for (const std::string command : {"validate", "render -q"}) {
    const CliResult r = run_fxsim(command + " '" + (dir / "s.json").string() + "'", "ulimit -v 1300000 && timeout -s KILL 60");
    EXPECT_EQ(r.exit_code, 65) << command << ": " << r.err;
    EXPECT_NE(r.err.find(": /emitters: the render needs about 9.7 GB of memory"), std::string::npos) << r.err;
  }
}

TEST(HostileMemory, AnAddressSpaceLimitIsCountedBeforeTheGlNeedsIt) {
  // Under ulimit -v 700000 (KiB) fxsim hung in Mesa, crashed (139) or ended
  // as an internal error (70): the limit is now compared with what the
  // render and the GL driver need, and the render refused (65), nothing written.
  if (kAddressSanitized) GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v lets it start";
  TempDir dir("ulimit");
  const CliResult r = run_fxsim("render " FXSIM_SOURCE_DIR "/scenes/snow.json --frames 1 --width 96 --height 54 -q -o '" +
                                (dir / "out/f_#.png").string() + "'", "ulimit -v 700000 && timeout -s KILL 60");
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("the address-space limit (ulimit -v)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(HostileMemory, ACheckpointClaimingMoreStateThanTheScenesIsPassedOverBeforeItIsAllocated) {
  // A 4 MB file whose header and table claim 4 GiB of state, in pieces of
  // 16 MiB from the 16 KB each that deflate could give them: the state was
  // allocated before it was found not to fit the scene (out of memory under
  // this limit, 70). It cannot be this scene's: passed over at once.
  if (kAddressSanitized) GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v lets it start";
  TempDir dir("ulimit_checkpoint");
  const std::string scene = FXSIM_SOURCE_DIR "/scenes/rain.json", ck = (dir / "ck").string();
  ASSERT_EQ(run_fxsim("render " + scene + " --frames 2 --simulate-only --checkpoint-every 2 --checkpoints '" + ck + "' -q").exit_code, 0);
  const fs::path file = dir / "ck" / "checkpoint_000002.fxck";
  const std::string written = read_text_file(file);
  uint32_t header_bytes = 0;
  std::memcpy(&header_bytes, written.data() + 12, 4);
  std::string header = written.substr(16, header_bytes);
  const size_t at = header.find("\"state_bytes\":");
  ASSERT_NE(at, std::string::npos) << header;
  constexpr uint32_t kPieces = 256;
  constexpr uint64_t kPiece = uint64_t(16) << 20, kPacked = kPiece / 1032 + 1;
  header = header.substr(0, at) + fmt::format("\"state_bytes\":{}", kPieces * kPiece) +
           header.substr(header.find_first_of(",}", at));
  const uint32_t length = uint32_t(header.size());
  std::string bytes = written.substr(0, 12) + std::string(reinterpret_cast<const char*>(&length), 4) + header;
  bytes.append(reinterpret_cast<const char*>(&kPieces), 4);
  for (uint32_t i = 0; i < kPieces; ++i) {
    bytes.append(reinterpret_cast<const char*>(&kPiece), 8);
    bytes.append(reinterpret_cast<const char*>(&kPacked), 8);
  }
  bytes.append(size_t(kPieces * kPacked), '\0');
  fxsim::Sha256 digest;
  digest.add(bytes.data(), bytes.size());
  const std::vector<uint8_t> sum = digest.digest();
  bytes.append(sum.begin(), sum.end());
  write_text_file(file, bytes);
  const CliResult r = run_fxsim("render " + scene + " --frames 3 --width 64 --height 36 --checkpoints '" + ck + "' -o '" +
                                    (dir / "out/f_#.png").string() + "'",
                                "ulimit -v 2500000 && timeout -s KILL 60");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(fmt::format("its header claims a state of {} bytes, more than this scene's state can take",
                                   kPieces * kPiece)),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(dir / "out/f_3.png"));
}

TEST(HostileMemory, TexturesAndLayersAreCountedToo) {
  // The estimate left out the textures (a 4096² PNG takes 500 MB on llvmpipe,
  // each time it is listed) and the layers: under ulimit -v such a render
  // passed the check and ended out of memory (70) with its manifest written.
  if (kAddressSanitized) GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v lets it start";
  TempDir dir("ulimit_textures");
  fxsim::Image big{2048, 2048, std::vector<uint8_t>(size_t(2048) * 2048 * 4, 200)};
  const std::vector<uint8_t> png = fxsim::encode_png(big);
  write_text_file(dir / "big.png", std::string(png.begin(), png.end()));
  std::string list;
  for (int i = 0; i < 8; ++i) list += i ? ", \"big.png\"" : "\"big.png\"";
  write_text_file(dir / "s.json", R"({"fxsim": 1, "output": {"width": 64, "height": 36},
    "emitters": [{"type": "snow", "max_particles": 1000, "textures": [)" + list + "]}]}");
  const CliResult r = run_fxsim("render '" + (dir / "s.json").string() + "' --frames 1 -q -o '" +
                                (dir / "out/f_#.png").string() + "'", "ulimit -v 1800000 && timeout -s KILL 60");
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("the address-space limit (ulimit -v)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // Layers: 16 emitters' masks, the depth and the motion of 2048² frames, each frame in flight.
  std::string emitters;
  for (int i = 0; i < 16; ++i) emitters += fmt::format("{}{{\"type\": \"snow\", \"max_particles\": 100}}", i ? ", " : "");
  const auto estimate = [&](const std::string& layers) {
    write_text_file(dir / "l.json", R"({"fxsim": 1, "output": {"width": 2048, "height": 2048, "layers": [)" + layers +
                                        "]}, \"emitters\": [" + emitters + "]}");
    const CliResult v = run_fxsim("validate '" + (dir / "l.json").string() + "'");
    EXPECT_EQ(v.exit_code, 0) << v.err;
    const size_t at = v.out.find("about ");  // "about 2.0 GB of memory"
    if (at == std::string::npos) return 0.0;
    size_t used = 0;
    const double number = std::stod(v.out.substr(at + 6), &used);
    const std::string unit = v.out.substr(at + 6 + used + 1, 2);
    return number * (unit == "GB" ? 1e9 : unit == "MB" ? 1e6 : 1e3);
  };
  const double plain = estimate(""), layered = estimate(R"("depth", "mask", "motion")");
  EXPECT_GT(layered, 2.5 * plain) << layered << " against " << plain;  // 0.95 GB more measured, at 0.6 GB
}

TEST(HostileMemory, ValidateComparesWithAvailableMemory) {
  // The refusal points at the value to lower, as every scene error does:
  // the max_particles of the emitter with the most particle slots.
  expect_refused("memory", with_emitter(R"({"type": "rain", "max_particles": 2000000000, "splash": {"count": 8}})"), 65,
                 "scene.json:1:61: /emitters/0/max_particles: the render needs about");
  expect_refused("memory_second",
                 with_emitter(R"({"type": "snow", "max_particles": 10}, {"type": "rain", "max_particles": 2000000000})"),
                 65, "/emitters/1/max_particles: the render needs about");
}
