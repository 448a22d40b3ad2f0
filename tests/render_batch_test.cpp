// What batch and farm runs rely on: overrides, frame steps, frames past the
// scene's end, a scene from standard input, several PNG encoders giving the
// same bytes, and per-frame log lines when stderr is not a terminal.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
const std::string kSnow = "'" FXSIM_SOURCE_DIR "/scenes/snow.json'";
const std::string kSmall = " --width 96 --height 54 ";

std::string fmt_frame(int f) {
  std::string n = std::to_string(f);
  return "f_" + std::string(4 - n.size(), '0') + n + ".png";
}

std::string out_pattern(const TempDir& dir) {
  std::string quoted = "'";  // built by appending: GCC 12 warns falsely (-Wrestrict) on a chain of + here
  quoted += (dir / "f_####.png").string();
  quoted += "'";
  return quoted;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
}  // namespace

TEST(RenderBatch, SeveralEncodersWriteTheSameBytesAsOne) {
  TempDir one("enc-1"), four("enc-4");
  for (const auto* dir : {&one, &four}) {
    const CliResult r = run_fxsim("render " + kSnow + " --frames 1-12" + kSmall + "-q -o " + out_pattern(*dir) +
                                  (dir == &one ? " --encoders 1" : " --encoders 4"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (int f = 1; f <= 12; ++f) {
    const std::string name = fmt_frame(f);
    EXPECT_EQ(read_text_file(one / name), read_text_file(four / name)) << name;
  }
}

TEST(RenderBatch, FrameStepsAndFramesPastTheScenesEnd) {
  TempDir dir("steps");
  // snow.json has 48 frames; 45-60:5 asks for 45, 50, 55 and 60.
  const CliResult r = run_fxsim("render " + kSnow + " --frames 2-6:2,45-60:5" + kSmall + "-q -o " + out_pattern(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> written;
  for (const auto& entry : fs::directory_iterator(dir.path())) written.push_back(entry.path().filename().string());
  std::sort(written.begin(), written.end());
  EXPECT_EQ(written, (std::vector<std::string>{"f_0002.png", "f_0004.png", "f_0006.png", "f_0045.png", "f_0050.png",
                                               "f_0055.png", "f_0060.png", "fxsim-manifest.jsonl"}));
}

TEST(RenderBatch, SeedAndFpsOverridesChangeTheSimulationAsTheSceneKeysWould) {
  TempDir dir("seed");
  const auto hashes = [&](const std::string& flags, const std::string& name) {
    const CliResult r = run_fxsim("render " + kSnow + " --frames 3" + kSmall + "-q -o " + out_pattern(dir) +
                                  " --state-hashes '" + (dir / name).string() + "' " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_text_file(dir / name);
  };
  const std::string plain = hashes("", "a"), seeded = hashes("--seed 99", "b"), set_seed = hashes("--set /seed=99", "c"),
                    faster = hashes("--fps 48", "d");
  EXPECT_NE(plain, seeded);
  EXPECT_EQ(seeded, set_seed);
  EXPECT_NE(plain, faster);
  // A seed that is not a whole number in range is a usage error naming what
  // was typed (CLI11 had turned 99999999999999999999 into 2^63 - 1, a seed).
  const CliResult nan = run_fxsim("render " + kSnow + " --frames 1" + kSmall + "-o " + out_pattern(dir) + " --fps nan");
  EXPECT_EQ(nan.exit_code, 64) << nan.err;  // (it said "got null": JSON has no NaN)
  EXPECT_NE(nan.err.find("--fps nan: expected a number"), std::string::npos) << nan.err;
  // A decimal number as typed, nothing else (CLI11 read 0x10 as 16 and " 24"
  // as 24, and named 1e999 "inf"); the same for validate.
  for (const char* bad : {"0x10", " 24", "24 ", "1e999", "1e-400", "abc"})
    for (const char* command : {"render", "validate"}) {
      const std::string outputs = command == std::string("render") ? " --frames 1" + kSmall + "-o " + out_pattern(dir) : "";
      const CliResult r = run_fxsim(fmt::format("{} {}{} --fps '{}'", command, kSnow, outputs, bad));
      EXPECT_EQ(r.exit_code, 64) << command << " --fps '" << bad << "': " << r.err;
      EXPECT_NE(r.err.find(fmt::format("--fps {}: expected a number of frames per second", bad)), std::string::npos) << r.err;
    }
  for (const char* bad : {"-1", "99999999999999999999", "12x"}) {
    const CliResult r = run_fxsim("render " + kSnow + " --frames 1" + kSmall + "-o " + out_pattern(dir) + " --seed " + bad);
    EXPECT_EQ(r.exit_code, 64) << bad << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("--seed ") + bad + ": expected a whole number"), std::string::npos) << r.err;
  }
}

TEST(RenderBatch, AnInvalidOverrideIsASceneErrorNamingTheOverride) {
  TempDir dir("bad-set");
  const CliResult r = run_fxsim("render " + kSnow + " --frames 1" + kSmall + "-o " + out_pattern(dir) +
                                " --set /emitters/0/max_particles=-5");
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.err.find("--set /emitters/0/max_particles=-5: /emitters/0/max_particles: expected"), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
  // A key the override made on its way (the file has no /nope): the override's problem, not line 1 of the file.
  const CliResult made = run_fxsim("render " + kSnow + " --frames 1" + kSmall + "-o " + out_pattern(dir) + " --set /nope/x=1");
  EXPECT_EQ(made.exit_code, 65);
  EXPECT_NE(made.err.find("--set /nope/x=1: /nope: unknown key \"nope\""), std::string::npos) << made.err;
  // An index where the scene has no array: a usage error (it made an array
  // padded with nulls, whose problems were blamed on the file, line 1).
  const CliResult padded = run_fxsim("render " + kSnow + " --frames 1" + kSmall + "-o " + out_pattern(dir) +
                                     " --set /environment/lights/5/type=point");
  EXPECT_EQ(padded.exit_code, 64) << padded.err;
  EXPECT_NE(padded.err.find("the scene has no array at /environment/lights"), std::string::npos) << padded.err;
  EXPECT_EQ(made.err.find("snow.json:1:1"), std::string::npos) << made.err;
  const CliResult malformed = run_fxsim("render " + kSnow + " --set emitters=3");
  EXPECT_EQ(malformed.exit_code, 64) << malformed.err;
  EXPECT_NE(malformed.err.find("--set emitters=3: expected /json/pointer=VALUE"), std::string::npos) << malformed.err;
}

TEST(RenderBatch, UnsetRemovesAKeySoItsDefaultApplies) {
  // snow.json's seed is 7; without it the default, 1, applies.
  TempDir unset("unset"), seeded("unset-seed"), plain("unset-plain");
  const std::string args = " --frames 2" + kSmall + "-q -o ";
  const CliResult r = run_fxsim("render " + kSnow + args + out_pattern(unset) + " --unset /seed");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(run_fxsim("render " + kSnow + args + out_pattern(seeded) + " --seed 1").exit_code, 0);
  ASSERT_EQ(run_fxsim("render " + kSnow + args + out_pattern(plain)).exit_code, 0);
  EXPECT_EQ(read_text_file(unset / "f_0002.png"), read_text_file(seeded / "f_0002.png"));
  EXPECT_NE(read_text_file(unset / "f_0002.png"), read_text_file(plain / "f_0002.png"));
  // A key that is not there, and an array's element, are refused before anything is written.
  TempDir dir("unset-bad");
  const CliResult missing = run_fxsim("render " + kSnow + args + out_pattern(dir) + " --unset /environment/fgo");
  EXPECT_EQ(missing.exit_code, 64) << missing.err;
  EXPECT_NE(missing.err.find("--unset /environment/fgo: the scene has no /environment/fgo"), std::string::npos)
      << missing.err;
  const CliResult element = run_fxsim("render " + kSnow + args + out_pattern(dir) + " --unset /emitters/0");
  EXPECT_EQ(element.exit_code, 64) << element.err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
  // A flag's override through a value --set made a number names that --set.
  const CliResult blocked = run_fxsim("render " + kSnow + args + out_pattern(dir) + " --fps 30 --set /output=5");
  EXPECT_EQ(blocked.exit_code, 64) << blocked.err;
  EXPECT_NE(blocked.err.find("--set /output=5 made /output a number"), std::string::npos) << blocked.err;
}

TEST(RenderBatch, AnArgumentThatIsNotUtf8IsAUsageErrorBeforeAnyWork) {
  // It ended the render as an internal error (70) once the output folder was
  // made: the manifest's JSON holds UTF-8 only.
  TempDir dir("not-utf8");
  const CliResult r = run_fxsim("render " + kSnow + " --frames 1" + kSmall + "-o \"" + (dir / "").string() +
                                "$(printf 'o\\377')/f_#.png\"");
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("is not UTF-8 text"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
  const CliResult accented = run_fxsim("render " + kSnow + " --frames 1" + kSmall + "-q -o '" + (dir / "é/f_#.png").string() + "'");
  EXPECT_EQ(accented.exit_code, 0) << accented.err;
}

TEST(RenderBatch, ReadsTheSceneFromStandardInput) {
  TempDir dir("stdin");
  const CliResult r =
      run_fxsim("render - --frames 2" + kSmall + "-q -o " + out_pattern(dir), "", FXSIM_SOURCE_DIR "/scenes/snow.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  TempDir file_dir("stdin-file");
  ASSERT_EQ(run_fxsim("render " + kSnow + " --frames 2" + kSmall + "-q -o " + out_pattern(file_dir)).exit_code, 0);
  EXPECT_EQ(read_text_file(dir / "f_0002.png"), read_text_file(file_dir / "f_0002.png"));
  write_text_file(dir / "bad.json", "{\"fxsim\": 2}");
  const CliResult bad = run_fxsim("render - --frames 2", "", (dir / "bad.json").string());
  EXPECT_EQ(bad.exit_code, 65);
  EXPECT_NE(bad.err.find("<stdin>:1:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("\n<stdin>: "), std::string::npos) << bad.err;  // the count names it so too (it said "-")
  EXPECT_EQ(bad.err.find("\n-: "), std::string::npos) << bad.err;
}

TEST(RenderBatch, WithoutATerminalEachFrameGetsOneLogLine) {
  TempDir dir("lines");
  const CliResult r = run_fxsim("render " + kSnow + " --frames 3-5" + kSmall + "-o " + out_pattern(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 3u) << r.err;
  for (int i = 0; i < 3; ++i) {
    const std::string& line = lines[size_t(i)];
    EXPECT_EQ(line.rfind("fxsim: frame " + std::to_string(3 + i) + " (" + std::to_string(i + 1) + "/3)", 0), 0u) << line;
    EXPECT_NE(line.find("30000 live particles"), std::string::npos) << line;
    EXPECT_NE(line.find(" ms "), std::string::npos) << line;
    EXPECT_NE(line.find("f_000" + std::to_string(3 + i) + ".png"), std::string::npos) << line;
  }
  EXPECT_NE(r.out.find("rendered 3 frames"), std::string::npos) << r.out;
}

TEST(RenderBatch, ProgressAsJsonLines) {
  TempDir dir("jsonl");
  const CliResult r = run_fxsim("render " + kSnow + " --frames 4,6" + kSmall + "--progress jsonl -o " + out_pattern(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<int> frames;
  for (const std::string& line : lines_of(r.err)) {
    const auto event = nlohmann::json::parse(line);
    if (event["event"] == "frame") {
      frames.push_back(event["frame"].get<int>());
      EXPECT_EQ(event["live"].get<int>(), 30000);
      EXPECT_EQ(event["count"].get<int>(), 2);
      EXPECT_TRUE(event["file"].get<std::string>().find(".png") != std::string::npos);
    }
  }
  EXPECT_EQ(frames, (std::vector<int>{4, 6}));
  // Its other messages (checkpoints, shards, warnings) and an error are JSON
  // too: they came as text lines among the objects.
  ASSERT_EQ(run_fxsim("render " + kSnow + " --frames 8 --simulate-only --checkpoint-every 4 -q --checkpoints '" +
                      (dir / "ck").string() + "'").exit_code, 0);
  const CliResult more = run_fxsim("render " + kSnow + " --frames 5-6" + kSmall + "--progress jsonl --shard 1/1 "
                                   "--checkpoint-every 6 --checkpoints '" + (dir / "ck").string() + "' -o " + out_pattern(dir));
  ASSERT_EQ(more.exit_code, 0) << more.err;
  std::vector<std::string> notes;
  for (const std::string& line : lines_of(more.err)) {
    const auto event = nlohmann::json::parse(line);  // throws on a text line
    if (event["event"] == "note") notes.push_back(event["message"]);
  }
  ASSERT_EQ(notes.size(), 3u) << more.err;  // the shard, the checkpoint read and the one written
  EXPECT_EQ(notes[0].rfind("shard 1/1", 0), 0u) << notes[0];
  EXPECT_EQ(notes[1].rfind("starting from checkpoint", 0), 0u) << notes[1];
  EXPECT_EQ(notes[2].rfind("checkpoint of frame 6 written", 0), 0u) << notes[2];
  // With the statistics on standard output, the summary comes to stderr as a note.
  const CliResult stats = run_fxsim("render " + kSnow + " --frames 1" + kSmall + "--progress jsonl --stats - -o " +
                                    out_pattern(dir));
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const auto summary = nlohmann::json::parse(lines_of(stats.err).back());  // it was a text line
  EXPECT_EQ(summary["event"], "note");
  EXPECT_EQ(summary["message"].get<std::string>().rfind("rendered 1 frame", 0), 0u) << stats.err;
  const CliResult error = run_fxsim("render " + kSnow + " --frames 5" + kSmall + "--progress jsonl -o /proc/none/f_#.png");
  EXPECT_EQ(error.exit_code, 73);
  const auto last = nlohmann::json::parse(lines_of(error.err).back());
  EXPECT_EQ(last["event"], "error");
  EXPECT_EQ(last["exit"], 73);
  // And those found while the options are read (they were text).
  for (const std::string bad : {"--seed -1", "--fps abc", "--width 0", "--bogus", "x"}) {
    const CliResult usage = run_fxsim("render " + kSnow + " --progress jsonl " + bad);
    EXPECT_EQ(usage.exit_code, 64) << bad;
    ASSERT_EQ(lines_of(usage.err).size(), 1u) << bad << ": " << usage.err;
    const auto line = nlohmann::json::parse(usage.err);
    EXPECT_EQ(line["event"], "error") << bad;
    EXPECT_EQ(line["exit"], 64) << bad;
  }
}

TEST(RenderBatch, InfoJsonHasWhatTheTextSays) {
  const CliResult info = run_fxsim("info --json");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto j = nlohmann::json::parse(info.out);
  for (const char* key : {"platform", "renderer", "device_class", "gpu_backend", "max_image_side", "devices"})
    EXPECT_TRUE(j.contains(key)) << key;
  if (j.value("gpu_backend", false)) {  // the text's "limits:" line
    EXPECT_GT(j.value("storage_block_bytes", int64_t(0)), 0);
    EXPECT_GT(j.value("work_groups", int64_t(0)), 0);
  }
  // Without a GL: a document all the same (standard output was empty).
  const CliResult none = run_fxsim("info --json", "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json");
  EXPECT_EQ(none.exit_code, 69) << none.err;
  const auto error = nlohmann::json::parse(none.out);
  EXPECT_EQ(error["exit"], 69);
  EXPECT_NE(error["error"].get<std::string>().find("no headless OpenGL"), std::string::npos) << none.out;
}

TEST(RenderBatch, ThreadsCapsEveryThreadFxsimStartsLlvmpipesToo) {
  if (fxsim_info().value("device_class", "") != "llvmpipe")
    GTEST_SKIP() << "counts llvmpipe's threads; this GL is another driver, with threads of its own";
  // The process's threads, counted while it renders: with --threads 1 the
  // simulation, the encoders and llvmpipe (LP_NUM_THREADS) get one each.
  const auto tasks_while_rendering = [](int threads) {
    // (Once its first frame is written: every pool has started.)
    TempDir dir("threads");
    render_and_when_written(fmt::format("'{}/scenes/fountain-ring.json' -q --threads {} -o '{}'", FXSIM_SOURCE_DIR,
                                        threads, (dir / "f_####.png").string()),
                            dir / "f_0001.png", 60,
                            fmt::format("ls /proc/$pid/task | wc -l > '{}'; kill $pid", (dir / "tasks").string()),
                            dir / "count.sh");  // (its status: killed)
    return std::stoi(read_text_file(dir / "tasks"));
  };
  const int one = tasks_while_rendering(1), eight = tasks_while_rendering(8);
  EXPECT_LE(one, 6);  // main, one simulation thread, one encoder, one llvmpipe thread, driver helpers
  EXPECT_GE(eight, one + 14);  // 8 llvmpipe threads, 8 simulation threads, 4 encoders
}

TEST(RenderBatch, PngLevelChangesTheFileSizeNotThePixels) {
  TempDir stored("png-0"), small("png-9");
  ASSERT_EQ(run_fxsim("render " + kSnow + " --frames 2" + kSmall + "-q --png-level 0 -o " + out_pattern(stored)).exit_code, 0);
  ASSERT_EQ(run_fxsim("render " + kSnow + " --frames 2" + kSmall + "-q --set /output/png_level=9 -o " +
                      out_pattern(small)).exit_code, 0);
  EXPECT_GT(fs::file_size(stored / "f_0002.png"), fs::file_size(small / "f_0002.png"));
  const CliResult same = run_fxsim("compare '" + (stored / "f_0002.png").string() + "' '" +
                                   (small / "f_0002.png").string() + "'");
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(run_fxsim("render " + kSnow + " --png-level 10").exit_code, 64);
}

TEST(RenderBatch, OnATerminalProgressIsOneLineRedrawnWithPercentAndEta) {
  TempDir dir("tty");
  // script(1) runs fxsim on a pseudo-terminal.
  const std::string command = "script -qec \"'" + std::string(FXSIM_EXE) + "' render " + kSnow +
                              " --frames 40-44 --width 96 --height 54 -o '" + (dir / "f_####.png").string() +
                              "'\" /dev/null > '" + (dir / "tty.txt").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string shown = read_text_file(dir / "tty.txt");
  EXPECT_NE(shown.find('\r'), std::string::npos);
  EXPECT_NE(shown.find("100%  frame 44/44  5 written  30000 live"), std::string::npos) << shown;
  EXPECT_NE(shown.find("ETA"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("fxsim: frame"), std::string::npos) << shown;  // no per-frame lines on a terminal
  // Each redraw fits an 80-column terminal (a pseudo-terminal reports no size).
  size_t start = 0;
  for (size_t i = 0; i <= shown.size(); ++i)
    if (i == shown.size() || shown[i] == '\r' || shown[i] == '\n') {
      std::string redraw = shown.substr(start, i - start);
      if (const size_t erase = redraw.find("\033[K"); erase != std::string::npos) redraw.resize(erase);
      if (redraw.find("elapsed") != std::string::npos) {  // not the summary
        EXPECT_LE(redraw.size(), 79u) << redraw;
      }
      start = i + 1;
    }
}
