// `fxsim test` on a small suite of its own: --update writes goldens, a second
// run passes, a perturbed scene fails with exit 1, a JUnit file that names the
// failure and an HTML report with the golden, actual and difference images;
// device-class sets and the fallback to the base set; bad suites.
#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cstdlib>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/image.h"
#include "core/png_writer.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
const char* kTestedScene = R"({"fxsim": 1, "seed": 3,
  "output": {"width": 64, "height": 36, "frames": 6, "background": "#102040"},
  "camera": {"position": [0, 1.7, 12], "target": [0, 2, 0], "fov": 55},
  "emitters": [{"type": "snow", "max_particles": 2000, "size": 0.2, "region": {"center": [0, 4, 0], "size": [12, 8, 12]}}]})";

// A suite folder: flakes.json and a suite.json, goldens in golden/.
struct SuiteFolder {
  TempDir dir{"suite"};
  SuiteFolder() {
    write_text_file(dir / "flakes.json", kTestedScene);
    write_text_file(dir / "suite.json", R"({"fxsim_suite": 1, "defaults": {"width": 64, "height": 36, "backend": "cpu",
      "frames": "2,6", "tolerance": {"fail": 0.02, "failpercent": 0.5}}, "scenes": ["flakes.json"]})");
  }
  // The suite, as seen from llvmpipe (the base set's class) unless a test names another class.
  std::string path() const { return fmt::format("'{}'", dir.path().string()); }
  fs::path golden(const std::string& rest) const { return dir / ("golden/flakes/" + rest); }
};

std::string quoted(const fs::path& p) { return fmt::format("'{}'", p.string()); }

// kTestedScene with `keys` ("\"layers\": [...], ") added to its output.
std::string tested_scene_with(const std::string& keys) {
  const std::string scene = kTestedScene;
  const size_t where = scene.find("\"background\"");
  return scene.substr(0, where) + keys + scene.substr(where);
}
}  // namespace

TEST(TestCommand, UpdateWritesTheGoldensAndASecondRunPasses) {
  SuiteFolder s;
  const CliResult missing = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(missing.exit_code, 1) << missing.out << missing.err;
  EXPECT_NE(missing.out.find("--update"), std::string::npos) << missing.out;  // says how to create them
  const CliResult update = run_fxsim("test " + s.path() + " --device-class llvmpipe" + " --update");
  ASSERT_EQ(update.exit_code, 0) << update.out << update.err;
  EXPECT_NE(update.out.find("2 of 2 images written; hashes:"), std::string::npos) << update.out;
  EXPECT_TRUE(fs::exists(s.golden("frame_0002.png")));
  EXPECT_TRUE(fs::exists(s.golden("frame_0006.png")));
  EXPECT_TRUE(fs::exists(s.golden("state-hashes.txt")));
  TempDir out("junit");
  const CliResult again = run_fxsim("test " + s.path() + " --device-class llvmpipe" + " --junit " + quoted(out / "j.xml") + " --json " +
                                    quoted(out / "r.json"));
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("PASS     flakes"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("1 scene, 2 images"), std::string::npos) << again.out;
  const std::string junit = read_text_file(out / "j.xml");
  EXPECT_NE(junit.find("<testsuites name=\"fxsim test\" tests=\"3\" failures=\"0\""), std::string::npos) << junit;
  const auto json = nlohmann::json::parse(read_text_file(out / "r.json"));
  EXPECT_EQ(json[0]["scenes"][0]["passed"], true);
  EXPECT_EQ(json[0]["scenes"][0]["frames"].size(), 2u);
  // On a CI runner that is a Slurm array task or a Kubernetes Indexed Job:
  // the renders took a shard from its variables (exit 66 or 64 per scene).
  for (const char* job : {"SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=3", "JOB_COMPLETION_INDEX=0"}) {
    const CliResult in_job = run_fxsim("test " + s.path() + " --device-class llvmpipe", std::string("env ") + job);
    EXPECT_EQ(in_job.exit_code, 0) << job << in_job.out << in_job.err;
  }
}

TEST(TestCommand, ARunThatStopsSaysSoInItsReports) {
  // A suite whose scene no longer reads (65) left the previous run's JUnit
  // file as it was, and a CI step that publishes it "always" showed the old
  // results as this run's.
  SuiteFolder s;
  TempDir out("stopped");
  const auto earlier_reports = [&] {  // as an earlier run wrote them
    write_text_file(out / "j.xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fxsim test\" tests=\"9\">");
    write_text_file(out / "r.json", "[\n  {\n    \"device_class\": \"llvmpipe\"");
    write_text_file(out / "report/index.html", "<!DOCTYPE html>\n<html><head><title>fxsim test: 0 of 9 scenes failed</title>");
  };
  const std::string reports = " --junit " + quoted(out / "j.xml") + " --json " + quoted(out / "r.json") + " --report " +
                              quoted(out / "report");
  write_text_file(s.dir / "flakes.json", R"({"fxsim": 1,
  "emitters": [{"type": "snow", "size": -1}]})");
  earlier_reports();
  const CliResult broken = run_fxsim("test " + s.path() + reports);
  EXPECT_EQ(broken.exit_code, 65) << broken.out << broken.err;
  const std::string junit = read_text_file(out / "j.xml");
  EXPECT_NE(junit.find("<testsuites name=\"fxsim test\" tests=\"1\" failures=\"0\" errors=\"1\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<error type=\"stopped\" message=\"exit 65: "), std::string::npos) << junit;
  EXPECT_NE(junit.find("flakes.json:2:"), std::string::npos) << junit;  // the scene's problem, located
  EXPECT_NE(junit.find("/emitters/0/size"), std::string::npos) << junit;
  const auto json = nlohmann::json::parse(read_text_file(out / "r.json"));
  EXPECT_EQ(json[0]["stopped"].get<std::string>().substr(0, 8), "exit 65:") << json.dump();
  EXPECT_NE(read_text_file(out / "report/index.html").find("<h1>fxsim test: stopped before its scenes were checked</h1>"),
            std::string::npos);
  // A suite that is not there (66): said where no report was before too.
  fs::remove(out / "j.xml");
  EXPECT_EQ(run_fxsim("test " + quoted(s.dir / "nosuch") + " --junit " + quoted(out / "j.xml")).exit_code, 66);
  EXPECT_NE(read_text_file(out / "j.xml").find("message=\"exit 66: "), std::string::npos) << read_text_file(out / "j.xml");
  // While the suite cannot be read, its scenes and goldens are unknown: a
  // file that is no report of fxsim test (a scene, a golden) is left as it is.
  write_text_file(out / "j.xml", "stale");
  write_text_file(out / "other.json", R"({"fxsim": 1})");
  EXPECT_EQ(run_fxsim("test " + s.path() + " --junit " + quoted(out / "j.xml") + " --json " + quoted(out / "other.json"))
                .exit_code, 65);
  EXPECT_EQ(read_text_file(out / "j.xml"), "stale");
  EXPECT_EQ(read_text_file(out / "other.json"), R"({"fxsim": 1})");
  // A report's images folder that is a link is refused before the suite is read (its target's images were removed).
  TempDir precious("stopped-precious");
  write_text_file(precious / "0001_keep.png", "keep");
  fs::remove_all(out / "report");
  fs::create_directories(out / "report");
  fs::create_directory_symlink(precious.path(), out / "report/images");
  EXPECT_EQ(run_fxsim("test " + s.path() + " --report " + quoted(out / "report")).exit_code, 73);
  EXPECT_TRUE(fs::exists(precious / "0001_keep.png"));
  fs::remove(out / "report/images");
  // Stopped once the suite was read (here a --device-class that is no name): said too.
  write_text_file(s.dir / "flakes.json", kTestedScene);
  earlier_reports();
  const CliResult usage = run_fxsim("test " + s.path() + reports + " --device-class ../x");
  EXPECT_EQ(usage.exit_code, 64) << usage.out << usage.err;
  EXPECT_NE(read_text_file(out / "j.xml").find("message=\"exit 64: --device-class ../x: expected a class name"),
            std::string::npos) << read_text_file(out / "j.xml");
  earlier_reports();
  EXPECT_EQ(run_fxsim("test " + s.path() + reports + " --scene nosuch").exit_code, 64);
  EXPECT_NE(read_text_file(out / "j.xml").find("message=\"exit 64: --scene nosuch: no such scene"), std::string::npos);
  // Not where an output was refused (over a scene of the suite): no report at all.
  earlier_reports();
  const std::string before = read_text_file(out / "j.xml");
  const CliResult over = run_fxsim("test " + s.path() + " --junit " + quoted(out / "j.xml") + " --json " +
                                   quoted(s.dir / "flakes.json"));
  EXPECT_EQ(over.exit_code, 64) << over.err;
  EXPECT_EQ(read_text_file(out / "j.xml"), before);
  EXPECT_EQ(read_text_file(s.dir / "flakes.json"), kTestedScene);
}

TEST(TestCommand, APerturbedSceneFailsWithAJUnitFailureAndAReportOfThreeImages) {
  SuiteFolder s;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe" + " --update").exit_code, 0);
  std::string changed = kTestedScene;
  changed.replace(changed.find("#102040"), 7, "#204060");  // another background: same simulation, other pixels
  write_text_file(s.dir / "flakes.json", changed);
  TempDir out("report");
  const CliResult r = run_fxsim("test " + s.path() + " --device-class llvmpipe" + " --junit " + quoted(out / "j.xml") + " --report " +
                                quoted(out / "report"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL     flakes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 failed (flakes)"), std::string::npos) << r.out;
  const std::string junit = read_text_file(out / "j.xml");
  EXPECT_NE(junit.find(".flakes\" name=\"frame_0006\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<failure type=\"image\" message=\"FAIL: max "), std::string::npos) << junit;
  EXPECT_NE(junit.find("failures=\"2\""), std::string::npos) << junit;  // both frames; the hashes still match
  const std::string html = read_text_file(out / "report/index.html");
  EXPECT_NE(html.find("1 of 1 scenes failed"), std::string::npos);
  for (const char* label : {"alt=\"golden\"", "alt=\"actual\"", "alt=\"difference\"", "onclick=\"flip(this)\""})
    EXPECT_NE(html.find(label), std::string::npos) << label;
  size_t images = 0;
  for (const auto& e : fs::directory_iterator(out / "report/images")) images += e.path().extension() == ".png";
  EXPECT_EQ(images, 6u);  // golden, actual and difference of each failing frame
  // Accepting the change: --update, then it passes.
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe" + " --update").exit_code, 0);
  write_text_file(out / "report/images/mine.txt", "not the report's");
  write_text_file(out / "report/images/2024_notes.txt", "not the report's either");
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --report " + quoted(out / "report")).exit_code, 0);
  // The report folder used again: the failing run's six images went (they stayed beside the passing run's two).
  images = 0;
  for (const auto& e : fs::directory_iterator(out / "report/images")) images += e.path().extension() == ".png";
  EXPECT_EQ(images, 2u);
  EXPECT_TRUE(fs::exists(out / "report/images/mine.txt"));
  EXPECT_TRUE(fs::exists(out / "report/images/2024_notes.txt"));
}

TEST(TestCommand, AChangedSimulationFailsOnItsStateHashes) {
  SuiteFolder s;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe" + " --update").exit_code, 0);
  std::string reseeded = kTestedScene;
  reseeded.replace(reseeded.find("\"seed\": 3"), 9, "\"seed\": 4");
  write_text_file(s.dir / "flakes.json", reseeded);
  const CliResult r = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(r.exit_code, 1);
  TempDir out("hash-junit");
  run_fxsim("test " + s.path() + " --device-class llvmpipe" + " --junit " + quoted(out / "j.xml"));
  EXPECT_NE(read_text_file(out / "j.xml").find("the simulation changed: first difference at line 1"), std::string::npos);
}

TEST(TestCommand, AGpuRunChecksTheSharedCpuHashesUnlessToldNotTo) {
  SuiteFolder s;
  const std::string gpu = s.path() + " --device-class llvmpipe --backend gpu";
  ASSERT_EQ(run_fxsim("test " + gpu + " --update").exit_code, 0);
  ASSERT_TRUE(fs::exists(s.golden("state-hashes.txt")));  // the CPU backend's, written by the GPU run's second simulation
  ASSERT_TRUE(fs::exists(s.golden("llvmpipe-gpu/state-hashes.txt")));
  // The shared CPU hashes of another simulation: the GPU's own still match.
  std::string cpu_hashes = read_text_file(s.golden("state-hashes.txt"));
  const size_t digit = cpu_hashes.find_first_of("0123456789abcdef", cpu_hashes.find(' '));
  ASSERT_NE(digit, std::string::npos) << cpu_hashes;
  cpu_hashes[digit] = cpu_hashes[digit] == '0' ? '1' : '0';
  write_text_file(s.golden("state-hashes.txt"), cpu_hashes);
  const CliResult checked = run_fxsim("test " + gpu);
  EXPECT_EQ(checked.exit_code, 1) << checked.out;
  EXPECT_NE(checked.out.find("CPU state hashes: the simulation changed"), std::string::npos) << checked.out;
  const CliResult unchecked = run_fxsim("test " + gpu + " --no-cpu-check");
  EXPECT_EQ(unchecked.exit_code, 0) << unchecked.out;
  EXPECT_NE(unchecked.out.find("hashes match, CPU not checked"), std::string::npos) << unchecked.out;
}

TEST(TestCommand, DeviceClassSetsFallBackToTheBaseSet) {
  SuiteFolder s;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe" + " --update").exit_code, 0);
  // Another device class with no set of its own is compared with the base set (here: the same pixels).
  const CliResult fallback = run_fxsim("test " + s.path() + " --device-class nvidia-h200 --junit " +
                                       quoted(s.dir / "j.xml"));
  EXPECT_EQ(fallback.exit_code, 0) << fallback.out;
  // Said as the goldens' class, beside the GL's own ("on nvidia (nvidia)" on llvmpipe before).
  EXPECT_NE(fallback.out.find(", goldens of class nvidia-h200, "), std::string::npos) << fallback.out;
  // --update for that class writes its own set and leaves the base set and the shared CPU hashes alone.
  const auto base_hashes = read_text_file(s.golden("state-hashes.txt"));
  std::string changed = kTestedScene;
  changed.replace(changed.find("#102040"), 7, "#402010");
  write_text_file(s.dir / "flakes.json", changed);
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class nvidia-h200 --update").exit_code, 0);
  EXPECT_TRUE(fs::exists(s.golden("nvidia/frame_0002.png")));
  EXPECT_FALSE(fs::exists(s.golden("nvidia-h200")));
  EXPECT_EQ(read_text_file(s.golden("state-hashes.txt")), base_hashes);
  // Now nvidia (and nvidia-h200, through its base class) use the new set; llvmpipe the base set.
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class nvidia-h200").exit_code, 0);
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe").exit_code, 1);
  // An exact-class set wins over the base class's.
  fs::create_directories(s.golden("nvidia-h200"));
  fs::copy_file(s.golden("frame_0002.png"), s.golden("nvidia-h200/frame_0002.png"));  // the old pixels
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class nvidia-h200").exit_code, 1);
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class nvidia-a100").exit_code, 0);
}

TEST(TestCommand, OutputsOverAnInputOrEachOtherOrUnderAFileAreRefusedBeforeAnyRender) {
  // --json suite.json replaced the suite; --junit and --json of one file kept
  // the JSON; --report beside a JSON at its index.html kept the HTML; one
  // under a file ended the run with 70 once every scene had rendered.
  SuiteFolder s;
  const std::string suite_text = read_text_file(s.dir / "suite.json");
  write_text_file(s.dir / "afile", "x");
  const std::string suite = quoted(s.dir / "suite.json");
  const std::pair<std::string, int> cases[] = {
      {"--json " + suite, 64},
      {"--junit " + quoted(s.dir / "flakes.json"), 64},
      {"--junit " + quoted(s.dir / "same") + " --json " + quoted(s.dir / "same"), 64},
      {"--report " + quoted(s.dir / "r") + " --json " + quoted(s.dir / "r/index.html"), 64},
      {"--junit " + quoted(s.dir / "afile/j.xml"), 73},
      {"--report " + quoted(s.dir / "afile"), 73},
      // (A link to nothing on the way, and a folder root's access() passes that takes no file.)
      {"--junit " + quoted(s.dir / "dangling/j.xml"), 73},
      {"--json /proc/r.json", 73}};
  fs::create_symlink(s.dir / "nothing/here", s.dir / "dangling");
  for (const auto& [flags, code] : cases) {
    const CliResult r = run_fxsim("test " + suite + " --device-class llvmpipe --update " + flags);
    EXPECT_EQ(r.exit_code, code) << flags << r.out << r.err;
    EXPECT_EQ(r.out.find("flakes"), std::string::npos) << flags << r.out;  // nothing rendered
  }
  EXPECT_EQ(read_text_file(s.dir / "suite.json"), suite_text);
  EXPECT_FALSE(fs::exists(s.dir / "golden"));
  EXPECT_FALSE(fs::exists(s.dir / "same"));
}

TEST(TestCommand, BadSuitesAreRefusedWithTheirExitCodes) {
  SuiteFolder s;
  write_text_file(s.dir / "suite.json", "{\"fxsim_suite\": 1,\n \"scenes\": [\"flakes.json\", \"nothing.json\"],\n"
                                        " \"defaults\": {\"tolerance\": {\"fail\": 2}}}");
  const CliResult bad = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(bad.exit_code, 65) << bad.err;
  EXPECT_NE(bad.err.find("suite.json:2:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("/scenes/1: no scene file"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("/defaults/tolerance/fail: expected a number in 0..1"), std::string::npos) << bad.err;
  EXPECT_EQ(run_fxsim("test /nonexistent-suite").exit_code, 66);
  // Only a scene missing: 66, with where the suite names it.
  write_text_file(s.dir / "suite.json", "{\"fxsim_suite\": 1,\n \"scenes\": [\"flakes.json\", \"nothing.json\"]}");
  const CliResult missing = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(missing.exit_code, 66) << missing.err;
  EXPECT_NE(missing.err.find("suite.json:2:"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("/scenes/1: no scene file"), std::string::npos) << missing.err;
  SuiteFolder ok;
  EXPECT_EQ(run_fxsim("test " + ok.path() + " --device-class llvmpipe --scene nosuch").exit_code, 64);
  // No scenes passed, testing nothing; one listed twice ran twice into one golden folder.
  write_text_file(s.dir / "suite.json", "{\"fxsim_suite\": 1, \"scenes\": []}");
  const CliResult none = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(none.exit_code, 65) << none.err;
  EXPECT_NE(none.err.find("/scenes: no scenes: a suite tests at least one"), std::string::npos) << none.err;
  write_text_file(s.dir / "suite.json", "{\"fxsim_suite\": 1, \"scenes\": [\"flakes.json\", {\"scene\": \"flakes.json\"}]}");
  const CliResult twice = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(twice.exit_code, 65) << twice.err;
  EXPECT_NE(twice.err.find("/scenes/1: a second scene named flakes (as at /scenes/0)"), std::string::npos) << twice.err;
  // A default's frames are named where they are written, once (they were
  // named at each scene's /scenes/N/frames, which none of them had).
  fs::copy_file(s.dir / "flakes.json", s.dir / "other.json");
  write_text_file(s.dir / "suite.json", R"({"fxsim_suite": 1, "scenes": ["flakes.json", {"scene": "other.json",
    "frames": "x"}], "defaults": {"frames": "0"}})");
  const CliResult frames = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(frames.exit_code, 65) << frames.err;
  EXPECT_NE(frames.err.find("/defaults/frames: expected \"first,middle,last\""), std::string::npos) << frames.err;
  EXPECT_NE(frames.err.find("/scenes/1/frames: expected"), std::string::npos) << frames.err;
  EXPECT_EQ(frames.err.find("/scenes/0/frames"), std::string::npos) << frames.err;
}

TEST(TestCommand, TheLayersBesideEachFrameHaveGoldensToo) {
  SuiteFolder s;
  write_text_file(s.dir / "flakes.json", tested_scene_with("\"layers\": [\"mask\", \"motion\"], "));
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  for (const char* name : {"frame_0002.png", "frame_0002.mask.snow0.png", "frame_0002.motion.png", "frame_0006.motion.png"})
    EXPECT_TRUE(fs::exists(s.golden(name))) << name;
  TempDir out("layer-json");
  const CliResult again = run_fxsim("test " + s.path() + " --device-class llvmpipe --json " + quoted(out / "r.json"));
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("6 images"), std::string::npos) << again.out;  // 2 frames, each with a mask and motion
  const auto json = nlohmann::json::parse(read_text_file(out / "r.json"));
  EXPECT_EQ(json[0]["scenes"][0]["frames"][1]["layer"], "mask.snow0");
  // Each max says the depth of its steps: the frame's 8 bits, the motion's 16.
  EXPECT_EQ(json[0]["scenes"][0]["frames"][0]["bits"], 8);
  EXPECT_EQ(json[0]["scenes"][0]["frames"][2]["layer"], "motion");
  EXPECT_EQ(json[0]["scenes"][0]["frames"][2]["bits"], 16);
  // Every validity flag (B: KITTI's 0 or 1) cleared in a golden: as 1 of
  // 65535 steps a pixel, it passed.
  const fxsim::Samples16 motion = fxsim::read_png16(s.golden("frame_0002.motion.png"), 4);
  fxsim::LinearImage flagless{motion.width, motion.height, std::vector<float>(motion.samples.size())};
  size_t flagged = 0;
  for (size_t i = 0; i < motion.samples.size(); ++i) {
    flagged += i % 4 == 2 && motion.samples[i] != 0;
    flagless.rgba[i] = i % 4 == 2 ? 0.0f : float(motion.samples[i]) / 65535.0f;
  }
  ASSERT_GT(flagged, 0u);
  const std::vector<uint8_t> png = fxsim::encode_png16(flagless, {.srgb = false});
  const std::string flagged_golden = read_text_file(s.golden("frame_0002.motion.png"));
  write_text_file(s.golden("frame_0002.motion.png"), std::string(png.begin(), png.end()));
  const CliResult unflagged = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(unflagged.exit_code, 1) << unflagged.out;
  EXPECT_NE(unflagged.out.find("frame 2 motion:"), std::string::npos) << unflagged.out;
  write_text_file(s.golden("frame_0002.motion.png"), flagged_golden);
  // A golden motion layer from another simulation fails its frame's check alone.
  fs::copy_file(s.golden("frame_0002.motion.png"), s.golden("frame_0006.motion.png"), fs::copy_options::overwrite_existing);
  const CliResult changed = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(changed.exit_code, 1);
  EXPECT_NE(changed.out.find("frame 6 motion:"), std::string::npos) << changed.out;
  // The scene stops writing its layers: their goldens went unread and the suite passed.
  write_text_file(s.dir / "flakes.json", kTestedScene);
  const CliResult lost = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(lost.exit_code, 1) << lost.out;
  EXPECT_NE(lost.out.find("the render wrote no mask.snow0 layer"), std::string::npos) << lost.out;
  const CliResult removed = run_fxsim("test " + s.path() + " --device-class llvmpipe --update");
  ASSERT_EQ(removed.exit_code, 0) << removed.out;
  // (It said "0 of 4 images written", counting the removed among the images.)
  EXPECT_NE(removed.out.find("0 of 2 images written (the others within the tolerance, kept), 4 goldens no longer "
                             "used removed"),
            std::string::npos)
      << removed.out;
  EXPECT_FALSE(fs::exists(s.golden("frame_0006.motion.png")));
  EXPECT_FALSE(fs::exists(s.golden("frame_0002.mask.snow0.png")));
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe").exit_code, 0);
}

TEST(TestCommand, ADamagedGoldenFailsItsFrameAndUpdateReplacesIt) {
  // A cut-short golden PNG is that frame's failure, with the JUnit file
  // still written; before, the whole run stopped with 66 and no report.
  SuiteFolder s;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  const std::string whole = read_text_file(s.golden("frame_0006.png"));
  write_text_file(s.golden("frame_0006.png"), whole.substr(0, 100));
  TempDir out("junit_damaged");
  const CliResult damaged = run_fxsim("test " + s.path() + " --device-class llvmpipe --junit " + quoted(out / "j.xml"));
  EXPECT_EQ(damaged.exit_code, 1) << damaged.out << damaged.err;
  EXPECT_NE(damaged.out.find("the golden cannot be read"), std::string::npos) << damaged.out;
  EXPECT_NE(read_text_file(out / "j.xml").find("failures=\"1\""), std::string::npos);
  const CliResult update = run_fxsim("test " + s.path() + " --device-class llvmpipe --update");
  EXPECT_EQ(update.exit_code, 0) << update.out << update.err;
  EXPECT_EQ(read_text_file(s.golden("frame_0006.png")), whole);
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe").exit_code, 0);
  // A FIFO for the golden hashes: the run waited on it for ever.
  fs::remove(s.golden("state-hashes.txt"));
  ASSERT_EQ(mkfifo(s.golden("state-hashes.txt").c_str(), 0600), 0);
  const CliResult fifo = run_fxsim("test " + s.path() + " --device-class llvmpipe", "timeout 60");
  EXPECT_EQ(fifo.exit_code, 1) << fifo.out << fifo.err;
  EXPECT_NE(fifo.out.find("state-hashes.txt: not a regular file"), std::string::npos) << fifo.out;
}

TEST(TestCommand, StandardOutputIsNoFileForItsResults) {
  // --json - wrote a file named "-" in the working folder.
  SuiteFolder suite;
  for (const std::string what : {"--json", "--junit", "--report"}) {
    const CliResult r = run_fxsim("test " + suite.path() + " " + what + " -", "cd " + suite.path() + " &&");
    EXPECT_EQ(r.exit_code, 64) << what << r.err;
    EXPECT_NE(r.err.find(what + " -: fxsim test prints each scene's line on standard output"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(suite.dir / "-")) << what;
  }
}

TEST(TestCommand, TwoSuitesOfOneNameKeepTheirOwnResults) {
  // a/s and b/s: both named "s", they shared one scratch folder (a changed
  // scene could pass, an unchanged one fail, the report showed one's frame
  // for the other's) and one JUnit class name.
  TempDir dir("same_name");
  for (const char* side : {"a/s", "b/s"}) {
    fs::create_directories(dir / side);
    write_text_file(dir / side / "flakes.json", kTestedScene);
    write_text_file(dir / side / "suite.json", R"({"fxsim_suite": 1, "defaults": {"width": 64, "height": 36,
      "backend": "cpu", "frames": "6"}, "scenes": ["flakes.json"]})");
    ASSERT_EQ(run_fxsim("test " + quoted(dir / side) + " --device-class llvmpipe --update").exit_code, 0);
  }
  std::string changed = kTestedScene;
  changed.replace(changed.find("#102040"), 7, "#204060");
  write_text_file(dir / "b/s/flakes.json", changed);
  const CliResult r = run_fxsim("test " + quoted(dir / "a/s") + " " + quoted(dir / "b/s") +
                                " --device-class llvmpipe --jobs 2 --junit " + quoted(dir / "j.xml"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS     flakes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL     flakes"), std::string::npos) << r.out;
  const std::string junit = read_text_file(dir / "j.xml");
  for (const char* side : {"a/s", "b/s"})
    EXPECT_NE(junit.find("classname=\"" + (dir / side).string() + ".flakes\""), std::string::npos) << side << junit;
}

TEST(TestCommand, AnInterruptStopsTheRendersAndLeavesNoScratchFolderNorHalfAGolden) {
  // SIGTERM ended fxsim test at once: its renders ran on to their end, its
  // scratch folder stayed, and a golden being written could stay half-written.
  TempDir dir("interrupt");
  fs::create_directories(dir / "tmp");
  std::string slow = kTestedScene;  // a render of some seconds: a million turbulent flakes over 240 frames
  slow.replace(slow.find("\"frames\": 6"), 11, "\"frames\": 240");
  slow.replace(slow.find("\"max_particles\": 2000"), 21, "\"max_particles\": 1000000");
  slow.replace(slow.find("\"emitters\""), 10,
               R"("environment": {"wind": {"turbulence": {"strength": 1, "scale": 2}}}, "emitters")");
  write_text_file(dir / "slow.json", slow);
  write_text_file(dir / "slow2.json", slow);  // (two at once: a worker whose render was killed printed it as a FAIL)
  write_text_file(dir / "suite.json", R"({"fxsim_suite": 1, "defaults": {"width": 64, "height": 36,
    "backend": "cpu", "frames": "240"}, "scenes": ["slow.json", "slow2.json"]})");
  const std::string scene = (dir / "slow.json").string();
  const std::string script =
      "TMPDIR='" + (dir / "tmp").string() + "' '" FXSIM_EXE "' test '" + dir.path().string() +
      "' --device-class llvmpipe --update --jobs 2 >'" + (dir / "out").string() + "' 2>&1 & pid=$!\n"
      "for i in $(seq 1 600); do pgrep -f 'render " + scene + "' >/dev/null && break; sleep 0.05; done\n"
      "sleep 0.3; kill -TERM $pid; wait $pid; status=$?\n"
      "sleep 0.3; pgrep -f 'render " + scene + "' >/dev/null && exit 99\n"  // a render left running
      "exit $status\n";
  write_text_file(dir / "interrupt.sh", script);
  const int status = std::system(("bash '" + (dir / "interrupt.sh").string() + "'").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));  // the scratch folder went
  // The render it killed is no FAIL ("fxsim render exited with -1"), and no summary counts it.
  const std::string out = read_text_file(dir / "out");
  EXPECT_EQ(out.find("FAIL"), std::string::npos) << out;
  EXPECT_EQ(out.find(" failed"), std::string::npos) << out;
  EXPECT_NE(out.find("terminated (SIGTERM): stopped"), std::string::npos) << out;
  if (fs::exists(dir / "golden")) {
    for (const auto& e : fs::recursive_directory_iterator(dir / "golden"))
      EXPECT_EQ(e.path().string().find(".fxsim-partial-"), std::string::npos) << e.path();
  }
}

TEST(TestCommand, JsonResultsAmongAFoldersScenesAreRefused) {
  // A folder without a suite.json is every *.json in it: the results written
  // there were read as a scene by every later run (65).
  TempDir dir("json_among_scenes");
  write_text_file(dir / "flakes.json", kTestedScene);
  const CliResult r = run_fxsim("test " + quoted(dir.path()) + " --device-class llvmpipe --json " + quoted(dir / "r.json"));
  EXPECT_EQ(r.exit_code, 64) << r.out << r.err;
  EXPECT_NE(r.err.find("the next run would read it as one"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "r.json"));
}

TEST(TestCommand, UpdateLeavesUnchangedHashesAloneAndAHardLimitSaysSo) {
  SuiteFolder s;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  struct stat before {}, after {};
  ASSERT_EQ(::stat(s.golden("state-hashes.txt").c_str(), &before), 0);
  const CliResult again = run_fxsim("test " + s.path() + " --device-class llvmpipe --update");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  ASSERT_EQ(::stat(s.golden("state-hashes.txt").c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino) << "rewritten (read-only goldens then failed with 73)";
  // A frame within `failpercent` but over `hardfail` says which limit it broke.
  write_text_file(s.dir / "suite.json", R"({"fxsim_suite": 1, "defaults": {"width": 64, "height": 36, "backend": "cpu",
    "frames": "2,6", "tolerance": {"fail": 0.02, "failpercent": 99, "hardfail": 0.05}}, "scenes": ["flakes.json"]})");
  std::string changed = kTestedScene;
  changed.replace(changed.find("#102040"), 7, "#204060");
  write_text_file(s.dir / "flakes.json", changed);
  const CliResult hard = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(hard.exit_code, 1) << hard.out << hard.err;
  EXPECT_NE(hard.out.find("over the hard limit of"), std::string::npos) << hard.out;
}

TEST(TestCommand, AGoldenOfAFrameTheSuiteNoLongerChecksFailsAndUpdateRemovesIt) {
  // The suite's frames go from 2 and 6 to 2 alone: frame 6's golden was
  // never read again and stood in the set as if it were still the reference.
  SuiteFolder s;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  ASSERT_TRUE(fs::exists(s.golden("frame_0006.png")));
  write_text_file(s.dir / "suite.json", R"({"fxsim_suite": 1, "defaults": {"width": 64, "height": 36, "backend": "cpu",
      "frames": "2", "tolerance": {"fail": 0.02, "failpercent": 0.5}}, "scenes": ["flakes.json"]})");
  const CliResult stale = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(stale.exit_code, 1) << stale.out;
  EXPECT_NE(stale.out.find("frame 6: the golden set has " + s.golden("frame_0006.png").string() +
                           ", but the suite does not check frame 6"),
            std::string::npos)
      << stale.out;
  // Another device class's run names it too, but only its own set's --update would remove it.
  const CliResult other = run_fxsim("test " + s.path() + " --device-class nvidia --update");
  EXPECT_NE(other.out.find("but the suite does not check frame 6: a golden left from frames it no longer lists (remove it)"),
            std::string::npos)
      << other.out;
  EXPECT_TRUE(fs::exists(s.golden("frame_0006.png")));
  const CliResult removed = run_fxsim("test " + s.path() + " --device-class llvmpipe --update");
  EXPECT_EQ(removed.exit_code, 0) << removed.out;
  EXPECT_NE(removed.out.find("1 golden no longer used removed"), std::string::npos) << removed.out;
  EXPECT_FALSE(fs::exists(s.golden("frame_0006.png")));
  EXPECT_TRUE(fs::exists(s.golden("frame_0002.png")));
  const CliResult passed = run_fxsim("test " + s.path() + " --device-class llvmpipe --jobs 256");
  EXPECT_EQ(passed.exit_code, 0) << passed.out;
  EXPECT_NE(passed.out.find("1 scene on llvmpipe"), std::string::npos) << passed.out;
  EXPECT_NE(passed.out.find(", 1 at once"), std::string::npos) << passed.out;  // not "256 at once" for one scene
}

TEST(TestCommand, AHashInANameOrTheScratchFoldersPathIsNoFrameNumber) {
  // A render reads each run of '#' in its output path as the frame number:
  // the scratch folder's path held the scene's name (a#b) and TMPDIR, so the
  // frames went elsewhere, --update wrote empty goldens and said so not, and
  // the next run stopped with 66.
  TempDir dir("hash_names");
  write_text_file(dir / "a#b.json", kTestedScene);
  write_text_file(dir / "suite.json", R"({"fxsim_suite": 1, "defaults": {"width": 64, "height": 36, "backend": "cpu",
      "frames": "2,6"}, "scenes": ["a#b.json"]})");
  fs::create_directories(dir / "tmp#1");
  const std::string env = "env TMPDIR='" + (dir / "tmp#1").string() + "'";
  const CliResult update = run_fxsim("test " + quoted(dir.path()) + " --device-class llvmpipe --update", env);
  ASSERT_EQ(update.exit_code, 0) << update.out << update.err;
  EXPECT_GT(fs::file_size(dir / "golden/a#b/frame_0002.png"), 100u);
  const CliResult again = run_fxsim("test " + quoted(dir.path()) + " --device-class llvmpipe", env);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("PASS     a#b"), std::string::npos) << again.out;
  EXPECT_TRUE(fs::is_empty(dir / "tmp#1"));  // the scratch folder went, and nothing beside it was made
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_TRUE(entry.path().filename() == "a#b.json" || entry.path().filename() == "suite.json" ||
                entry.path().filename() == "golden" || entry.path().filename() == "tmp#1")
        << entry.path();
}

TEST(TestCommand, TheDeviceClassIsANameAndUpdateMendsTheSetThatFailed) {
  SuiteFolder s;
  // A class is a folder's name under each scene's goldens: --update wrote
  // "/abs" and "../x" outside them.
  for (const std::string bad : {"/tmp/fxsim-abs", "../x", "", "."}) {
    const CliResult r = run_fxsim("test " + s.path() + " --device-class '" + bad + "' --update");
    EXPECT_EQ(r.exit_code, 64) << bad << r.out << r.err;
    EXPECT_NE(r.err.find("expected a class name"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(s.dir / "golden"));
  EXPECT_FALSE(fs::exists("/tmp/fxsim-abs"));
  // A failing golden of the exact class's set is read before the base set's:
  // --update wrote below it, said so, and the next run failed as before.
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  fs::create_directories(s.golden("llvmpipe"));
  fs::copy_file(s.golden("frame_0006.png"), s.golden("llvmpipe/frame_0002.png"));
  const std::string base = read_text_file(s.golden("frame_0002.png"));
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe").exit_code, 1);
  const CliResult mend = run_fxsim("test " + s.path() + " --device-class llvmpipe --update");
  EXPECT_EQ(mend.exit_code, 0) << mend.out << mend.err;
  EXPECT_NE(mend.out.find("1 of 2 images written"), std::string::npos) << mend.out;
  EXPECT_EQ(read_text_file(s.golden("llvmpipe/frame_0002.png")), base);
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe").exit_code, 0);
}

TEST(TestCommand, AGoldenOfAnotherBitDepthFailsItsFrame) {
  // An 8-bit golden of a 16-bit output was compared in 8 bits: its high
  // bytes alone (600 mm of depth passed as 3/255).
  SuiteFolder s;
  write_text_file(s.dir / "flakes.json", tested_scene_with("\"bit_depth\": 16, "));
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  const fxsim::Image eight = fxsim::read_png(s.golden("frame_0002.png"));
  const std::vector<uint8_t> png = fxsim::encode_png(eight);
  write_text_file(s.golden("frame_0002.png"), std::string(png.begin(), png.end()));
  const CliResult r = run_fxsim("test " + s.path() + " --device-class llvmpipe");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("frame 2: the golden has 8 bits a sample, the render wrote 16"), std::string::npos) << r.out;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  EXPECT_EQ(fxsim::png_bit_depth(s.golden("frame_0002.png")), 16);
  EXPECT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe").exit_code, 0);
}

TEST(TestCommand, UpdateSaysWhatItCouldNotWriteOrRemoveAndGoesOn) {
  SuiteFolder s;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  // A golden that is a link (kept elsewhere): the whole run stopped with 73,
  // no line, no summary. Now its frame fails, and the other is checked.
  fs::rename(s.golden("frame_0002.png"), s.dir / "kept.png");
  fs::create_symlink(s.dir / "nowhere.png", s.golden("frame_0002.png"));
  const CliResult link = run_fxsim("test " + s.path() + " --device-class llvmpipe --update");
  EXPECT_EQ(link.exit_code, 1) << link.out << link.err;
  EXPECT_NE(link.out.find("--update could not write the golden"), std::string::npos) << link.out;
  EXPECT_NE(link.out.find("1 scene, 2 images"), std::string::npos) << link.out;  // the summary
  fs::remove(s.golden("frame_0002.png"));
  fs::rename(s.dir / "kept.png", s.golden("frame_0002.png"));
  // A stale golden's name held by a folder with files: "removed", it stayed.
  fs::create_directories(s.golden("frame_0009.png"));
  write_text_file(s.golden("frame_0009.png/x"), "x");
  const CliResult stale = run_fxsim("test " + s.path() + " --device-class llvmpipe --update");
  EXPECT_EQ(stale.exit_code, 1) << stale.out;
  EXPECT_NE(stale.out.find("--update could not remove it"), std::string::npos) << stale.out;
  EXPECT_TRUE(fs::exists(s.golden("frame_0009.png/x")));
  // A scene named "...json": its goldens went into the suite's folder (golden/..).
  fs::remove_all(s.golden("frame_0009.png"));
  write_text_file(s.dir / "...json", kTestedScene);
  write_text_file(s.dir / "suite.json", R"({"fxsim_suite": 1, "scenes": ["flakes.json", "...json"]})");
  const CliResult dots = run_fxsim("test " + s.path() + " --device-class llvmpipe --update");
  EXPECT_EQ(dots.exit_code, 65) << dots.out << dots.err;
  EXPECT_NE(dots.err.find("/scenes/1: a scene named \"..\""), std::string::npos) << dots.err;
}

TEST(TestCommand, OutputsAmongTheGoldensOrAReportOverAFileAreRefusedBeforeAnyRender) {
  SuiteFolder s;
  ASSERT_EQ(run_fxsim("test " + s.path() + " --device-class llvmpipe --update").exit_code, 0);
  const std::string hashes = read_text_file(s.golden("state-hashes.txt"));
  fs::create_directories(s.dir / "r");
  write_text_file(s.dir / "r/images", "a file");
  const std::pair<std::string, int> cases[] = {
      {"--json " + quoted(s.golden("state-hashes.txt")), 64},
      {"--junit " + quoted(s.golden("frame_0002.png")), 64},
      {"--report " + quoted(s.dir / "golden/r"), 64},
      {"--report " + quoted(s.dir / "r"), 73}};
  for (const auto& [flags, code] : cases) {
    const CliResult r = run_fxsim("test " + s.path() + " --device-class llvmpipe " + flags);
    EXPECT_EQ(r.exit_code, code) << flags << r.out << r.err;
    EXPECT_EQ(r.out.find("flakes"), std::string::npos) << flags << r.out;  // nothing rendered
  }
  EXPECT_EQ(read_text_file(s.golden("state-hashes.txt")), hashes);
  // JUnit as .json among a folder's scenes: read as a scene by the next run.
  TempDir dir("junit_among_scenes");
  write_text_file(dir / "flakes.json", kTestedScene);
  const CliResult r = run_fxsim("test " + quoted(dir.path()) + " --device-class llvmpipe --junit " + quoted(dir / "j.json"));
  EXPECT_EQ(r.exit_code, 64) << r.out << r.err;
  EXPECT_FALSE(fs::exists(dir / "j.json"));
}
