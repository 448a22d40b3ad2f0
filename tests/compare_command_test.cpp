// `fxsim compare` with idiff's thresholds and exit codes: 0 PASS, 1 WARNING,
// 2 FAILURE, 3 sizes differ; file problems 66.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/image.h"
#include "core/png_writer.h"

using namespace fxsim;
using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
// A 10×10 grey image; `changed` pixels get `delta` added to red.
fs::path image(const TempDir& dir, const std::string& name, int changed, int delta, int size = 10) {
  Image im{size, size, std::vector<uint8_t>(size_t(size * size) * 4, 100)};
  for (int i = 0; i < changed; ++i) im.rgba[size_t(i) * 4] = uint8_t(100 + delta);
  for (size_t i = 3; i < im.rgba.size(); i += 4) im.rgba[i] = 255;
  const auto png = encode_png(im);
  write_text_file(dir / name, std::string(png.begin(), png.end()));
  return dir / name;
}

int compare(const fs::path& a, const fs::path& b, const std::string& flags, std::string* out = nullptr) {
  const CliResult r = run_fxsim(fmt::format("compare '{}' '{}' {}", a.string(), b.string(), flags));
  if (out) *out = r.out + r.err;
  return r.exit_code;
}
}  // namespace

TEST(Compare, IdenticalImagesPass) {
  TempDir d("cmp-same");
  std::string out;
  EXPECT_EQ(compare(image(d, "a.png", 0, 0), image(d, "b.png", 0, 0), "", &out), 0);
  EXPECT_NE(out.find("PASS"), std::string::npos) << out;
  EXPECT_NE(out.find("Peak SNR = inf"), std::string::npos) << out;
}

TEST(Compare, AnyDifferenceFailsByDefaultAndTheReportSaysWhere) {
  TempDir d("cmp-default");
  std::string out;
  EXPECT_EQ(compare(image(d, "a.png", 0, 0), image(d, "b.png", 3, 51), "", &out), 2);
  EXPECT_NE(out.find("Comparing \""), std::string::npos);
  EXPECT_NE(out.find("a.png\" and \""), std::string::npos) << out;  // both names
  EXPECT_NE(out.find("Max error  = 0.2 @ (0, 0, R)"), std::string::npos) << out;
  EXPECT_NE(out.find("3 pixels (3%) over 1e-06 (fail"), std::string::npos) << out;
  EXPECT_NE(out.find("RMS error"), std::string::npos) << out;
  EXPECT_NE(out.find("FAILURE"), std::string::npos) << out;
}

TEST(Compare, FailAndFailPercentThresholds) {
  TempDir d("cmp-fail");
  const auto a = image(d, "a.png", 0, 0), b = image(d, "b.png", 3, 51);  // 3 % of pixels off by 0.2
  EXPECT_EQ(compare(a, b, "--fail 0.25 --warn 0.25"), 0);                  // under the pixel threshold
  EXPECT_EQ(compare(a, b, "--fail 0.1 --failpercent 5 --warn 0.25"), 0);   // few enough failing pixels
  EXPECT_EQ(compare(a, b, "--fail 0.1 --failpercent 2 --warn 0.25"), 2);   // too many
  // "1 percent" is --failpercent 1, not a fraction: 3 % of the pixels fail it.
  EXPECT_EQ(compare(a, b, "--fail 0.1 --failpercent 1"), 2);
}

TEST(Compare, HardFailCatchesOnePixelBeyondIt) {
  TempDir d("cmp-hard");
  const auto a = image(d, "a.png", 0, 0), b = image(d, "b.png", 1, 153);  // one pixel off by 0.6
  EXPECT_EQ(compare(a, b, "--failpercent 5 --warnpercent 5"), 0);
  std::string out;
  EXPECT_EQ(compare(a, b, "--failpercent 5 --warnpercent 5 --hardfail 0.5", &out), 2);
  EXPECT_NE(out.find("Max error over 0.5 (hardfail)\nFAILURE"), std::string::npos) << out;  // why, when the percentages pass
}

TEST(Compare, WarningsExitOne) {
  TempDir d("cmp-warn");
  const auto a = image(d, "a.png", 0, 0), b = image(d, "b.png", 3, 51);
  std::string out;
  EXPECT_EQ(compare(a, b, "--fail 0.5 --warn 0.1", &out), 1);
  EXPECT_NE(out.find("WARNING"), std::string::npos) << out;
  EXPECT_EQ(compare(a, b, "--fail 0.5 --warn 0.1 --warnpercent 5"), 0);
  EXPECT_EQ(compare(a, b, "--fail 0.5 --warn 0.1 --warnpercent 5 --hardwarn 0.1"), 1);
}

TEST(Compare, DifferentSizesExitThreeAndNameBothSizes) {
  TempDir d("cmp-size");
  std::string out;
  EXPECT_EQ(compare(image(d, "a.png", 0, 0), image(d, "b.png", 0, 0, 12), "", &out), 3);
  EXPECT_NE(out.find("sizes differ: 10x10 and 12x12"), std::string::npos) << out;
}

TEST(Compare, WritesADifferenceImageAndJson) {
  TempDir d("cmp-diff");
  std::string out;
  EXPECT_EQ(compare(image(d, "a.png", 0, 0), image(d, "b.png", 3, 51), "--json --diff '" + (d / "diff.png").string() + "'",
                    &out), 2);
  const auto json = nlohmann::json::parse(out);
  EXPECT_EQ(json["exit"], 2);
  EXPECT_EQ(json["images"][0]["verdict"], "FAILURE");
  EXPECT_EQ(json["images"][0]["fail_pixels"], 3);
  EXPECT_NEAR(json["images"][0]["max"].get<double>(), 0.2, 1e-9);
  EXPECT_EQ(json["images"][0]["bits"], 8);
  const Image diff = read_png(d / "diff.png");
  EXPECT_EQ(diff.width, 10);
  EXPECT_GT(diff.rgba[0], diff.rgba[4 * 50]);  // the changed pixel is hot, an equal one dark
}

TEST(Compare, AHeatMapGoesIntoAFolderMadeForIt) {
  // A folder not there yet was taken for one removed while fxsim ran (73, no verdict).
  TempDir d("cmp-diff-folder");
  std::string out;
  EXPECT_EQ(compare(image(d, "a.png", 0, 0), image(d, "b.png", 3, 51), "--diff '" + (d / "new/maps/diff.png").string() + "'",
                    &out), 2) << out;
  EXPECT_EQ(read_png(d / "new/maps/diff.png").width, 10);
  EXPECT_NE(out.find("FAILURE"), std::string::npos) << out;
}

TEST(Compare, ANanThresholdOrADiffOverAnInputIsRefused) {
  // "nan" passed the range check and then every image passed; --diff b.png
  // replaced the image compared with its heat map.
  TempDir d("cmp-refused");
  const auto a = image(d, "a.png", 0, 0), b = image(d, "b.png", 3, 51);
  const std::string before = read_text_file(b);
  for (const char* flags : {"--fail nan", "--warnpercent NaN", "--hardfail nan"}) {
    std::string out;
    EXPECT_EQ(compare(a, b, flags, &out), 64) << flags;
    EXPECT_NE(out.find("expected a number, got"), std::string::npos) << out;
  }
  std::string out;
  EXPECT_EQ(compare(a, b, "--diff '" + b.string() + "'", &out), 64);
  EXPECT_NE(out.find("that is the second image it compares"), std::string::npos) << out;
  EXPECT_EQ(compare(d.path(), d.path(), "--diff '" + d.path().string() + "'", &out), 64);
  EXPECT_EQ(compare(a, b, "--diff -", &out), 64);  // (it wrote a file named "-")
  EXPECT_NE(out.find("--diff -: the heat map is a PNG file"), std::string::npos) << out;
  EXPECT_EQ(read_text_file(b), before);
  EXPECT_FALSE(fs::exists(d / "diff_a.png"));
}

TEST(Compare, FoldersCompareByNameAndAMissingImageFails) {
  TempDir a("cmp-fa"), b("cmp-fb");
  image(a, "f1.png", 0, 0), image(b, "f1.png", 0, 0);
  image(a, "f2.png", 0, 0);
  std::string out;
  EXPECT_EQ(compare(a.path(), b.path(), "", &out), 2);
  EXPECT_NE(out.find("f2.png: missing from"), std::string::npos) << out;
  EXPECT_EQ(compare(a.path() / "nosuch.png", b.path() / "f1.png", ""), 66);
  // A folder of the name on the other side is there, not missing: said so.
  fs::create_directory(b / "f2.png");
  EXPECT_EQ(compare(a.path(), b.path(), "", &out), 2);
  EXPECT_NE(out.find("f2.png: is not a regular file in " + b.path().string()), std::string::npos) << out;
}

TEST(Compare, FoldersWriteTheirHeatMapsIntoAFolderNewOrThereAlready) {
  TempDir a("cmp-da"), b("cmp-db"), out("cmp-dout");
  image(a, "f1.png", 0, 0), image(b, "f1.png", 3, 51);
  image(a, "f2.png", 0, 0), image(b, "f2.png", 0, 0);
  const fs::path maps = out / "maps";
  EXPECT_EQ(compare(a.path(), b.path(), "--diff '" + maps.string() + "'"), 2);
  EXPECT_TRUE(fs::is_regular_file(maps / "diff_f1.png"));
  EXPECT_TRUE(fs::is_regular_file(maps / "diff_f2.png"));
  // Compared again (the usual second look), the folder is reused and its maps replaced.
  fs::remove(maps / "diff_f2.png");
  std::string said;
  EXPECT_EQ(compare(a.path(), b.path(), "--diff '" + maps.string() + "'", &said), 2) << said;
  EXPECT_TRUE(fs::is_regular_file(maps / "diff_f2.png"));
  // A file where the folder should be, or a folder where a map should be: refused before any map is written.
  write_text_file(out / "file", "notes");
  EXPECT_EQ(compare(a.path(), b.path(), "--diff '" + (out / "file").string() + "'", &said), 73);
  EXPECT_NE(said.find("is not a folder"), std::string::npos) << said;
  EXPECT_EQ(read_text_file(out / "file"), "notes");
  fs::remove_all(maps);
  fs::create_directories(maps / "diff_f2.png");
  EXPECT_EQ(compare(a.path(), b.path(), "--diff '" + maps.string() + "'", &said), 73);
  EXPECT_NE(said.find("diff_f2.png: exists and is a directory"), std::string::npos) << said;
  EXPECT_FALSE(fs::exists(maps / "diff_f1.png"));
}

// A heat map that cannot be written is the answer: no verdict printed before
// it. /proc passes a root's access() check and then takes no new file: the
// message names that, not a folder removed during a render.
TEST(Compare, AHeatMapThatCannotBeWrittenComesBeforeAnyVerdict) {
  TempDir d("cmp-proc");
  const auto a = image(d, "a.png", 0, 0), b = image(d, "b.png", 0, 0);
  std::string out;
  EXPECT_EQ(compare(a, b, "--diff /proc/fxsim-compare-diff.png", &out), 73) << out;
  EXPECT_EQ(out.find("PASS"), std::string::npos) << out;
  EXPECT_EQ(out.find("render"), std::string::npos) << out;
  EXPECT_NE(out.find("/proc/fxsim-compare-diff.png: cannot "), std::string::npos) << out;
}

TEST(Compare, SixteenBitImagesAreComparedInTheirOwnSamples) {
  // Read as 8 bits, only their high bytes were compared: 129 steps of 65535
  // passed, and two 16-bit frames 40 steps apart failed at 1/255.
  TempDir d("cmp-16");
  const auto grey = [&](const std::string& name, uint16_t first) {
    const std::vector<uint8_t> png = encode_grey_png({first, 25700, 25700, 25700}, 2, 2, 16, {.srgb = false});
    write_text_file(d / name, std::string(png.begin(), png.end()));
    return d / name;
  };
  const fs::path a = grey("a.png", 25700), b = grey("b.png", 25829);
  std::string out;
  EXPECT_EQ(compare(a, b, "", &out), 2);
  EXPECT_NE(out.find(fmt::format("Max error  = {:.6g} @ (0, 0, R)", 129 / 65535.0)), std::string::npos) << out;
  EXPECT_NE(out.find(fmt::format("Mean error = {:.6g}", 129 / 65535.0 / 4)), std::string::npos) << out;  // over 4 grey samples
  EXPECT_EQ(compare(a, b, "--fail 0.002 --warn 0.002"), 0);  // 129/65535 = 0.00197
  ASSERT_EQ(compare(a, b, "--json", &out), 2);
  EXPECT_EQ(nlohmann::json::parse(out)["images"][0]["bits"], 16);  // max's steps are of 65535
  EXPECT_EQ(compare(a, b, "--fail 0.0019 --warn 0.0019"), 2);
  ASSERT_EQ(compare(a, b, "--diff '" + (d / "diff.png").string() + "'"), 2);
  const Image heat = read_png(d / "diff.png");
  EXPECT_NE(heat.rgba[0], heat.rgba[4]);  // the one pixel that differs shows
}

TEST(Compare, TheMeanIsOverTheImagesOwnChannels) {
  // Over RGBA for an RGB image, alpha's zeros lowered the mean by a quarter
  // (and raised the PSNR), as idiff, which averages over the file's channels, does not.
  TempDir d("cmp-channels");
  const auto rgb = [&](const std::string& name, uint8_t r) {
    Image im{1, 1, {r, 10, 10, 255}};  // opaque: written as RGB
    const auto png = encode_png(im);
    write_text_file(d / name, std::string(png.begin(), png.end()));
    return d / name;
  };
  std::string out;
  EXPECT_EQ(compare(rgb("a.png", 10), rgb("b.png", 13), "", &out), 2);
  EXPECT_NE(out.find(fmt::format("Mean error = {:.6g}", 3 / 255.0 / 3)), std::string::npos) << out;
}

TEST(Compare, FoldersWithNothingToCompareOrAnUnreadableImage) {
  // Folders of EXR frames, or empty ones, passed: "0 image pairs compared".
  TempDir a("cmp-none-a"), b("cmp-none-b");
  write_text_file(a / "f_1.exr", "x");
  std::string out;
  EXPECT_EQ(compare(a.path(), b.path(), "", &out), 66);
  EXPECT_NE(out.find("hold no PNG images to compare (compare reads PNG, not the EXR frames there)"), std::string::npos)
      << out;
  // An unreadable image fails its pair; the others are compared, the JSON printed (it was lost).
  image(a, "f1.png", 0, 0), image(b, "f1.png", 0, 0);
  write_text_file(a / "f2.png", "junk"), image(b, "f2.png", 0, 0);
  image(a, "f3.png", 0, 0);
  EXPECT_EQ(compare(a.path(), b.path(), "", &out), 2);
  EXPECT_NE(out.find("1 image pair compared, 1 image missing from one side, 1 pair unreadable, worst: FAILURE"),
            std::string::npos)
      << out;
  const CliResult json = run_fxsim(fmt::format("compare '{}' '{}' --json", a.path().string(), b.path().string()));
  EXPECT_EQ(json.exit_code, 2) << json.err;
  const auto results = nlohmann::json::parse(json.out);
  ASSERT_EQ(results["images"].size(), 3u);
  EXPECT_EQ(results["images"][0]["verdict"], "PASS");
  EXPECT_NE(results["images"][1]["unreadable"].get<std::string>().find("not a PNG"), std::string::npos);
  EXPECT_EQ(results["images"][2]["missing"], true);
  // Two files: an unreadable input is still 66.
  EXPECT_EQ(compare(a / "f2.png", b / "f2.png", ""), 66);
}

TEST(Compare, FramesAsWideAsRenderWritesAreRead) {
  // render writes frames up to 16384 a side; compare and verify read PNGs as
  // textures (8192 a side) and called a 9000-pixel frame unreadable (66; in
  // folders a FAILURE of identical frames; verify "corrupt").
  TempDir dir("cmp-wide");
  Image wide{9000, 2, std::vector<uint8_t>(size_t(9000) * 2 * 4, 200)};
  const auto png = encode_png(wide);
  write_text_file(dir / "a.png", std::string(png.begin(), png.end()));
  write_text_file(dir / "b.png", std::string(png.begin(), png.end()));
  EXPECT_EQ(compare(dir / "a.png", dir / "b.png", ""), 0);
  const CliResult rendered = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/sleet.json' --width 9000 --height 2 --frames 1 -q -o '" +
                                       (dir / "f/f_####.png").string() + "'");
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  const CliResult verified = run_fxsim("verify '" + (dir / "f").string() + "'");
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
}

TEST(Compare, FolderNamesAnyCaseOfPngAndNamesThatAreNotUtf8) {
  TempDir a("cmp-ua"), b("cmp-ub");
  image(a, "UP.PNG", 0, 0), image(b, "UP.PNG", 3, 51);  // were passed over: PASS
  EXPECT_EQ(compare(a.path(), b.path(), ""), 2);
  image(a, "\xff.png", 0, 0), image(b, "\xff.png", 0, 0);  // --json threw on the name: 70, no JSON
  std::string out;
  EXPECT_EQ(compare(a.path(), b.path(), "--json", &out), 2) << out;
  EXPECT_NE(out.find("\"exit\": 2"), std::string::npos) << out;
}

TEST(Compare, AnOldHeatMapOfAPairThatMakesNoneNowIsRemoved) {
  TempDir a("cmp-oa"), b("cmp-ob"), out("cmp-oout");
  image(a, "f1.png", 0, 0), image(b, "f1.png", 3, 51);
  const fs::path maps = out / "maps";
  EXPECT_EQ(compare(a.path(), b.path(), "--diff '" + maps.string() + "'"), 2);
  ASSERT_TRUE(fs::is_regular_file(maps / "diff_f1.png"));
  image(b, "f1.png", 0, 0, 12);  // now of another size: no map, and the old one went
  EXPECT_EQ(compare(a.path(), b.path(), "--diff '" + maps.string() + "'"), 3);
  EXPECT_FALSE(fs::exists(maps / "diff_f1.png"));
  // The same for two images: the earlier run's map stayed at --diff.
  const fs::path map = out / "d.png";
  EXPECT_EQ(compare(a / "f1.png", image(a, "g.png", 3, 51), "--diff '" + map.string() + "'"), 2);
  ASSERT_TRUE(fs::is_regular_file(map));
  EXPECT_EQ(compare(a / "f1.png", b / "f1.png", "--diff '" + map.string() + "'"), 3);
  EXPECT_FALSE(fs::exists(map));
}

TEST(Compare, AFifoIsNoImageWhicheverSideItIs) {
  // Given first, it was opened to read its bit depth and fxsim hung.
  TempDir d("cmp-fifo");
  ASSERT_EQ(mkfifo((d / "f.png").c_str(), 0600), 0);
  const fs::path png = image(d, "a.png", 0, 0);
  for (const auto& [a, b] : {std::pair{d / "f.png", png}, {png, d / "f.png"}}) {
    const CliResult r = run_fxsim(fmt::format("compare '{}' '{}'", a.string(), b.string()), "timeout 20");
    EXPECT_EQ(r.exit_code, 66) << a << r.err;
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  }
}

TEST(Cli, WhatCannotReachStandardOutputIsAnError) {
  // `fxsim schema > /dev/full` exited 0 with nothing written; compare's exit
  // status was its verdict though its report was lost.
  TempDir dir("stdout-full");
  image(dir, "a.png", 0, 0), image(dir, "b.png", 3, 51);
  // So did --help and --version (CLI11 prints them).
  for (const std::string& command : {std::string("schema"), std::string("info --json"), std::string("--help"),
                                    std::string("--version"), std::string("render --help"),
                                    std::string("validate '" FXSIM_SOURCE_DIR "/scenes/rain.json'"),
                                    "compare '" + (dir / "a.png").string() + "' '" + (dir / "b.png").string() + "'"}) {
    write_text_file(dir / "full.sh", "'" FXSIM_EXE "' " + command + " > /dev/full\n");
    const CliResult r = run_command("bash '" + (dir / "full.sh").string() + "'");
    EXPECT_EQ(r.exit_code, 73) << command << r.err;
    EXPECT_NE(r.err.find("standard output cannot be written"), std::string::npos) << command << r.err;
  }
}
