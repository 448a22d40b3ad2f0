// Videos through a real ffmpeg child process (Debian's ffmpeg): frame count,
// size and codec probed with ffprobe; a video beside PNG frames; a clear
// refusal without ffmpeg; and an interrupt leaving no video, no temporary
// file and no ffmpeg behind.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <array>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include "cli_runner.h"
#include "core/image.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
const std::string kVideoSnow = "'" FXSIM_SOURCE_DIR "/scenes/snow.json'";

// "codec,width,height,pix_fmt,frames" of the first video stream.
std::string probe(const fs::path& video) {
  TempDir out("probe");
  const std::string command = "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                              "stream=codec_name,width,height,pix_fmt,nb_read_frames -of csv=p=0 '" +
                              video.string() + "' > '" + (out / "p").string() + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::string text = read_text_file(out / "p");
  while (!text.empty() && (text.back() == '\n' || text.back() == ',')) text.pop_back();
  return text;
}
}  // namespace

TEST(RenderVideo, Mp4IsH264WithEveryFrame) {
  TempDir dir("mp4");
  const CliResult r = run_fxsim("render " + kVideoSnow + " --frames 1-12 --width 160 --height 90 -q -o '" +
                                (dir / "snow.mp4").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(probe(dir / "snow.mp4"), "h264,160,90,yuv420p,12");
  // No PNGs, no leftovers: the video and the manifest that records it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);
  EXPECT_TRUE(fs::is_regular_file(dir / "fxsim-manifest.jsonl"));
}

TEST(RenderVideo, EachFormatIsTheSameBytesFromRunToRun) {
  // Same scene, seed and binary, the same bytes: a WebM's container held a
  // random track UID. And on one core as on all (x264 and libvpx sized their
  // threads from the CPUs, and a WebM's frames differed with them).
  TempDir dir("repeat");
  for (const char* extension : {"webm", "mp4", "mov", "gif"}) {
    std::string bytes[2];
    for (int run = 0; run < 2; ++run) {
      const fs::path video = dir / fmt::format("v{}.{}", run, extension);
      // (At 320x180: x264 and libvpx take one thread for frames of a few rows whatever the CPUs.)
      const CliResult r = run_fxsim("render " + kVideoSnow + " --frames 1-3 --width 320 --height 180 -q -o '" +
                                    video.string() + "'", run == 1 ? "taskset -c 0" : "");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      bytes[run] = read_text_file(video);
    }
    EXPECT_EQ(bytes[0], bytes[1]) << extension;
  }
}

TEST(RenderVideo, AVideoNamedWithAFrameNumberIsRefused) {
  // -o v_###.mp4 wrote a file named v_###.mp4, exit 0: a '#' run is a frame number elsewhere.
  TempDir dir("hash-video");
  const CliResult o = run_fxsim("render " + kVideoSnow + " --frames 1-3 -o '" + (dir / "v_###.mp4").string() + "'");
  EXPECT_EQ(o.exit_code, 64) << o.err;
  EXPECT_NE(o.err.find("a '#' in it would be written as it is"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("output.path"), std::string::npos) << o.err;  // -o's, not the scene's
  const CliResult beside = run_fxsim("render " + kVideoSnow + " --frames 1-3 -o '" + (dir / "f_#.png").string() +
                                     "' --video '" + (dir / "v_#.webm").string() + "'");
  EXPECT_EQ(beside.exit_code, 64) << beside.err;
  const CliResult scene = run_fxsim("render " + kVideoSnow + " --frames 1-3 --set '/output/path=" + (dir / "v#.gif").string() + "'");
  EXPECT_EQ(scene.exit_code, 65) << scene.err;  // a scene's value, though set by --set
  EXPECT_NE(scene.err.find("/output/path"), std::string::npos) << scene.err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RenderVideo, OddSizesArePaddedForYuv420AndMovKeepsAlpha) {
  TempDir dir("odd");
  ASSERT_EQ(run_fxsim("render " + kVideoSnow + " --frames 1-5 --width 101 --height 57 -q -o '" + (dir / "a.webm").string() +
                      "'").exit_code, 0);
  EXPECT_EQ(probe(dir / "a.webm"), "vp9,102,58,yuv420p,5");
  ASSERT_EQ(run_fxsim("render " + kVideoSnow + " --frames 1-5 --width 101 --height 57 -q -o '" + (dir / "a.mov").string() +
                      "'").exit_code, 0);
  const std::string mov = probe(dir / "a.mov");
  EXPECT_EQ(mov.rfind("prores,101,57,yuva444p", 0), 0u) << mov;
  EXPECT_EQ(mov.substr(mov.size() - 2), ",5") << mov;
  ASSERT_EQ(run_fxsim("render " + kVideoSnow + " --frames 1-5 --width 101 --height 57 -q -o '" + (dir / "a.gif").string() +
                      "'").exit_code, 0);
  EXPECT_EQ(probe(dir / "a.gif").substr(0, 11), "gif,101,57,");
  // The added column and row repeat the edge: padded with black, the dark
  // bled into the edge pixels through the shared chroma (and showed as a
  // black line where a player does not crop).
  ASSERT_EQ(run_fxsim("render " + kVideoSnow + " --frames 1 --width 101 --height 57 -q --unset /environment/sky "
                      "--set /environment/ground=null --set '/output/background=\"#ffffff\"' -o '" +
                      (dir / "w.mp4").string() + "'").exit_code, 0);
  const std::string decode = "ffmpeg -v error -i '" + (dir / "w.mp4").string() +
                             "' -frames:v 1 -f rawvideo -pix_fmt gray '" + (dir / "w.gray").string() + "'";
  ASSERT_EQ(std::system(decode.c_str()), 0) << decode;
  const std::string grey = read_text_file(dir / "w.gray");
  ASSERT_EQ(grey.size(), size_t(102 * 58));
  for (int y = 0; y < 58; y += 7) EXPECT_GT(uint8_t(grey[size_t(y) * 102 + 101]), 200) << "row " << y;
  for (int x = 0; x < 102; x += 7) EXPECT_GT(uint8_t(grey[size_t(57) * 102 + size_t(x)]), 200) << "column " << x;
}

// ffmpeg takes a name for an option where it starts with '-', for a protocol
// where a colon comes first ("file:", "pipe:", "http:"): each is a legal
// file name and is written as that file.
TEST(RenderVideo, NamesFfmpegWouldReadAsOptionsOrProtocolsAreFiles) {
  TempDir dir("names");
  for (const std::string name : {"-x.mp4", "file:z.mp4", "pipe:1.webm", "http:h.mp4"}) {
    const CliResult r = run_fxsim("render " + kVideoSnow + " --frames 1-3 --width 64 --height 36 -q -o '" + name + "'",
                                  "cd '" + dir.path().string() + "' &&");
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(probe(dir / name).substr(probe(dir / name).size() - 2), ",3") << name;
  }
  // --video beside PNG frames too; and nothing else is left (no partial files).
  ASSERT_EQ(run_fxsim("render " + kVideoSnow + " --frames 1-2 --width 64 --height 36 -q -o 'f/f_####.png' --video 'file:v.mp4'",
                      "cd '" + dir.path().string() + "' &&").exit_code, 0);
  EXPECT_EQ(probe(dir / "file:v.mp4"), "h264,64,36,yuv420p,2");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 7);  // and the manifest
}

TEST(RenderVideo, AVideoBesideThePngFrames) {
  TempDir dir("beside");
  // (With a $TMPDIR that is not there, ffmpeg's messages go to /tmp: the
  // video was refused, 73, after the folder was made.)
  const CliResult r = run_fxsim("render " + kVideoSnow + " --frames 3-8 --width 96 --height 54 -q -o '" +
                                (dir / "f_####.png").string() + "' --video '" + (dir / "v.mp4").string() + "'",
                                "TMPDIR=" + (dir / "no-such-folder").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int f = 3; f <= 8; ++f) EXPECT_TRUE(fs::exists(dir / ("f_000" + std::to_string(f) + ".png"))) << f;
  EXPECT_EQ(probe(dir / "v.mp4"), "h264,96,54,yuv420p,6");
}

TEST(RenderVideo, VideosAreBt709AndSaySo) {
  // Untagged, ffmpeg converted by BT.601's matrix and a player taking HD for
  // BT.709 shifted the colours. Now converted by BT.709's, and tagged so
  // (primaries BT.709, the sRGB curve, limited range): ffmpeg decodes each
  // back to the PNG frame's colours.
  TempDir dir("tags");
  const auto mean = [](const fs::path& png) {
    const fxsim::Image image = fxsim::read_png(png);
    std::array<double, 3> sum{};
    for (size_t i = 0; i < image.rgba.size(); i += 4)
      for (int c = 0; c < 3; ++c) sum[c] += image.rgba[i + c];
    for (double& s : sum) s /= double(image.width) * image.height;
    return sum;
  };
  for (const std::string format : {"mp4", "webm", "mov"}) {
    const fs::path video = dir / ("v." + format);
    ASSERT_EQ(run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/campfire.json' --frames 1-2 --width 160 --height 90 -q -o '" +
                        (dir / "f_####.png").string() + "' --video '" + video.string() + "'").exit_code, 0) << format;
    const std::string command = "ffprobe -v error -select_streams v:0 -show_entries "
                                "stream=color_range,color_space,color_transfer,color_primaries -of csv=p=0 '" +
                                video.string() + "' > '" + (dir / "tags").string() + "' && ffmpeg -v error -i '" +
                                video.string() + "' -frames:v 1 -pix_fmt rgb24 -y '" + (dir / "back.png").string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    EXPECT_EQ(read_text_file(dir / "tags"), "tv,bt709,iec61966-2-1,bt709\n") << format;
    const auto png = mean(dir / "f_0001.png"), back = mean(dir / "back.png");
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(back[c], png[c], 2.0) << format << " channel " << c;
  }
}

TEST(RenderVideo, WithoutFfmpegTheRenderIsRefusedBeforeAnyWork) {
  TempDir dir("no-ffmpeg");
  // A PATH with no ffmpeg on it.
  const CliResult r = run_fxsim("render " + kVideoSnow + " --frames 1-3 -o '" + (dir / "v.mp4").string() + "'",
                                "PATH=/nonexistent");
  EXPECT_EQ(r.exit_code, 72) << r.err;
  EXPECT_NE(r.err.find("needs ffmpeg, which is not installed"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
  const CliResult beside = run_fxsim("render " + kVideoSnow + " --frames 1-3 -o '" + (dir / "f_#.png").string() +
                                     "' --video '" + (dir / "v.webm").string() + "'", "PATH=/nonexistent");
  EXPECT_EQ(beside.exit_code, 72) << beside.err;
  EXPECT_TRUE(fs::is_empty(dir.path()));  // not even the PNG frames
  // validate gives render's verdict: it said ok.
  const std::string video_scene = "validate " + kVideoSnow + " --set '/output/path=\"" + (dir / "v.mp4").string() + "\"'";
  const CliResult checked = run_fxsim(video_scene, "PATH=/nonexistent");
  EXPECT_EQ(checked.exit_code, 72) << checked.out << checked.err;
  EXPECT_NE(checked.err.find("needs ffmpeg, which is not installed"), std::string::npos) << checked.err;
  EXPECT_EQ(run_fxsim(video_scene).exit_code, 0);  // ffmpeg on the PATH
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RenderVideo, AnInterruptLeavesNoVideoNoTemporaryFileAndNoFfmpeg) {
  TempDir dir("video-interrupt");
  const std::string video = (dir / "long.mp4").string();
  const std::string command = "timeout --preserve-status -s TERM 3 '" + std::string(FXSIM_EXE) + "' render '" +
                              FXSIM_SOURCE_DIR "/scenes/fountain-ring.json' --quiet --width 640 --height 360 -o '" +
                              video + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_TRUE(fs::is_empty(dir.path()));
  // No ffmpeg still writing into this folder ("[f]" keeps pgrep's own shell from matching).
  const std::string pgrep = "pgrep -f '[f]fmpeg .*" + dir.path().string() + "' > /dev/null";
  EXPECT_NE(std::system(pgrep.c_str()), 0);
}

TEST(RenderVideo, AnFfmpegKilledMidwaySaysSoAndLeavesNoVideo) {
  // ffmpeg killed by a signal wrote nothing on its way out: the message ended
  // "stopped at frame 11: " with nothing after the colon.
  TempDir dir("video-killed"), logs("video-killed-logs");
  const std::string script = "'" + std::string(FXSIM_EXE) + "' render '" FXSIM_SOURCE_DIR
                             "/scenes/fountain-ring.json' --quiet --width 640 --height 360 -o '" +
                             (dir / "long.mp4").string() + "' 2> '" + (logs / "err").string() +
                             "' & for i in $(seq 300); do pkill -KILL -f '[f]fmpeg .*" + dir.path().string() +
                             "' && break; sleep 0.05; done; wait $!";
  std::ofstream(logs / "kill.sh") << script << "\n";
  const CliResult r = run_command("sh '" + (logs / "kill.sh").string() + "'");
  const std::string err = read_text_file(logs / "err");
  EXPECT_EQ(r.exit_code, 73) << err;
  EXPECT_NE(err.find("(killed by SIGKILL)"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RenderVideo, TheCrfSetsTheQualityAndIsRefusedWhereItWouldChangeNothing) {
  // No test used --video-crf, and it was taken silently where ffmpeg never
  // saw it (frames alone, a .mov or .gif) or could not use it (H.264 ends at 51).
  TempDir dir("video-crf");
  const std::string render = "render " + kVideoSnow + " --frames 1-6 --width 96 --height 54 -q";
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "fine.mp4").string() + "' --video-crf 10").exit_code, 0);
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "coarse.mp4").string() + "' --video-crf 45").exit_code, 0);
  EXPECT_GT(fs::file_size(dir / "fine.mp4"), fs::file_size(dir / "coarse.mp4"));
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "v.webm").string() + "' --video-crf 63").exit_code, 0);
  // With an .mp4 beside, a .gif takes it too: the .mp4 uses it (this was refused).
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "both.mp4").string() + "' --video '" + (dir / "both.gif").string() +
                      "' --video-crf 20").exit_code,
            0);
  const std::array<std::pair<std::string, std::string>, 5> refused = {{
      {" -o '" + (dir / "f_#.png").string() + "' --video-crf 20", "this render writes no video"},
      {" -o '" + (dir / "v.mov").string() + "' --video-crf 20", "or .gif (a palette) has none"},
      {" -o '" + (dir / "f_#.png").string() + "' --video '" + (dir / "v.gif").string() + "' --video-crf 20",
       "or .gif (a palette) has none"},
      {" -o '" + (dir / "v.mov").string() + "' --simulate-only --checkpoint-every 2 --video-crf 20",
       "--simulate-only writes checkpoints only, no video"},
      {" -o '" + (dir / "v.mp4").string() + "' --video-crf 52", "0 to 51"},
  }};
  for (const auto& [args, says] : refused) {
    const CliResult r = run_fxsim(render + args);
    EXPECT_EQ(r.exit_code, 64) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  // The five videos, and the manifest that records them; no refused one.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 6);
}

// A video was in no manifest: verify passed a folder whose video was gone
// or cut short, and a video-only render left nothing to verify.
TEST(RenderVideo, VerifyChecksTheVideosTheManifestRecords) {
  TempDir dir("video-verify");
  const std::string render = "render " + kVideoSnow + " --frames 1-3 --width 64 --height 36 -q";
  // A video alone: its folder's manifest records the run and the video.
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "alone/clip.mp4").string() + "'").exit_code, 0);
  CliResult v = run_fxsim("verify '" + (dir / "alone").string() + "'");
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find(": 1 video of 1 run, 1 file checked: all present and whole"), std::string::npos) << v.out;
  // Frames with a video beside them, and one in another folder (whose own manifest records it).
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "seq/f_####.png").string() + "' --video '" +
                      (dir / "seq/clip.webm").string() + "'").exit_code, 0);
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "seq/f_####.png").string() + "' --video '" +
                      (dir / "other/clip.gif").string() + "'").exit_code, 0);
  v = run_fxsim("verify '" + (dir / "seq").string() + "'");
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find(": 3 frames and 1 video of 2 runs, 4 files checked: all present and whole"), std::string::npos)
      << v.out;
  EXPECT_EQ(run_fxsim("verify '" + (dir / "other").string() + "'").exit_code, 0);
  // One folder however spelled, made by the render: one run line (out/. gave
  // a second one of the same run, and verify failed the folder for good).
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "new/f_####.png").string() + "' --video '" +
                      (dir / "new/./clip.mp4").string() + "'").exit_code, 0);
  const std::string lines = read_text_file(dir / "new/fxsim-manifest.jsonl");
  EXPECT_EQ(lines.find("\"type\":\"run\""), lines.rfind("\"type\":\"run\"")) << lines;
  EXPECT_EQ(run_fxsim("verify '" + (dir / "new").string() + "'").exit_code, 0);
  // A video of another seed beside the frames is not theirs: mismatched (it passed).
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "new/clip.mp4").string() + "' --set /seed=99").exit_code, 0);
  v = run_fxsim("verify '" + (dir / "new").string() + "'");
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find("mismatched: clip.mp4: the video was made by run "), std::string::npos) << v.out;
  ASSERT_EQ(run_fxsim(render + " -o '" + (dir / "new/clip.mp4").string() + "'").exit_code, 0);
  EXPECT_EQ(run_fxsim("verify '" + (dir / "new").string() + "'").exit_code, 0);
  // Cut short, gone, or a link in its place.
  fs::resize_file(dir / "seq/clip.webm", 100);
  v = run_fxsim("verify '" + (dir / "seq").string() + "'");
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find("corrupt: clip.webm: the video: 100 bytes, the manifest says"), std::string::npos) << v.out;
  fs::remove(dir / "alone/clip.mp4");
  v = run_fxsim("verify '" + (dir / "alone").string() + "'");
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find("missing: clip.mp4: the video: the file is missing"), std::string::npos) << v.out;
  fs::rename(dir / "other/clip.gif", dir / "clip.gif");
  fs::create_symlink(dir / "clip.gif", dir / "other/clip.gif");
  v = run_fxsim("verify '" + (dir / "other").string() + "'");
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find("corrupt: clip.gif: the video: a symbolic link stands there"), std::string::npos) << v.out;
  // A run that stopped before its video was done: the frames' run line
  // names it, and no line says it was finished.
  const std::string killed = "timeout --preserve-status -s KILL 2 '" + std::string(FXSIM_EXE) + "' render '" +
                             FXSIM_SOURCE_DIR "/scenes/fountain-ring.json' -q --width 64 --height 36 -o '" +
                             (dir / "stopped/f_####.png").string() + "' --video '" +
                             (dir / "stopped/long.mp4").string() + "'";
  const int status = std::system(killed.c_str());
  ASSERT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGKILL)) << status;
  v = run_fxsim("verify '" + (dir / "stopped").string() + "'");
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find("missing: long.mp4: the video has no record: never finished"), std::string::npos) << v.out;
  // A video-only render stopped before its end leaves no manifest, as it leaves no video.
  const std::string killed_alone = "timeout --preserve-status -s KILL 2 '" + std::string(FXSIM_EXE) + "' render '" +
                                   FXSIM_SOURCE_DIR "/scenes/fountain-ring.json' -q --width 64 --height 36 -o '" +
                                   (dir / "stopped-alone/long.mp4").string() + "'";
  (void)std::system(killed_alone.c_str());
  EXPECT_FALSE(fs::exists(dir / "stopped-alone/fxsim-manifest.jsonl"));
}

TEST(RenderVideo, ALosslessMp4AndFramesThatAreNotConsecutiveAreWarnedAbout) {
  // Both played wrong without a word: x264's lossless profile (High 4:4:4
  // Predictive) most players cannot decode, and frames 1-8:2 at 24 fps play
  // twice as fast as the scene.
  TempDir dir("video-warn");
  const std::string render = "render " + kVideoSnow + " --width 64 --height 36 --progress none";
  const CliResult lossless = run_fxsim(render + " --frames 1-2 -o '" + (dir / "l.mp4").string() + "' --video-crf 0");
  ASSERT_EQ(lossless.exit_code, 0) << lossless.err;
  EXPECT_NE(lossless.err.find("warning: --video-crf 0: x264 encodes losslessly in its High 4:4:4 Predictive profile"),
            std::string::npos) << lossless.err;
  const CliResult strided = run_fxsim(render + " --frames 1-8:2 -o '" + (dir / "s.mp4").string() + "'");
  ASSERT_EQ(strided.exit_code, 0) << strided.err;
  EXPECT_NE(strided.err.find("the video shows the 4 selected frames one after another at 24 fps, but they are not "
                             "consecutive (frame 3 follows frame 1)"), std::string::npos) << strided.err;
  const CliResult plain = run_fxsim(render + " --frames 1-3 -o '" + (dir / "p.mp4").string() + "' --video-crf 1");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("warning"), std::string::npos) << plain.err;
}

TEST(RenderVideo, AKilledRenderLeavesNoTemporaryFileOfFfmpegsMessages) {
  // ffmpeg's messages went to $TMPDIR/fxsim-child-XXXXXX, removed only by a
  // render that ended: one killed with SIGKILL left it, with no process id
  // in its name for a later run to tell it was stale.
  TempDir dir("video-sigkill"), tmp("video-sigkill-tmp");
  // Exit 3: ffmpeg never ran (nothing tested); 4: it outlived the kill by 5 s.
  const std::string ffmpeg = "pgrep -f '[f]fmpeg .*" + dir.path().string() + "' > /dev/null";
  const std::string script = "TMPDIR='" + tmp.path().string() + "' '" + std::string(FXSIM_EXE) +
                             "' render '" FXSIM_SOURCE_DIR "/scenes/fountain-ring.json' --quiet --width 640 --height 360 -o '" +
                             (dir / "long.mp4").string() + "' & seen=0; for i in $(seq 300); do " + ffmpeg +
                             " && { seen=1; break; }; sleep 0.05; done; kill -KILL $!; wait $!; [ $seen = 1 ] || exit 3; " +
                             "for i in $(seq 100); do " + ffmpeg + " || exit 0; sleep 0.05; done; exit 4";
  TempDir logs("video-sigkill-logs");
  std::ofstream(logs / "kill.sh") << script << "\n";
  const CliResult r = run_command("sh '" + (logs / "kill.sh").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(RenderVideo, WhatAVideoCannotCarryIsRefusedNotDropped) {
  // Layers (a dataset's ground truth), 16-bit samples and an .mp4's
  // transparency were dropped without a word, and the render ended with 0.
  TempDir dir("cannot-carry");
  const std::string video = " -o '" + (dir / "v.mp4").string() + "'";
  const CliResult layers = run_fxsim("render " + kVideoSnow + " --frames 1-2 -q --set '/output/layers=[\"mask\"]'" + video);
  EXPECT_EQ(layers.exit_code, 64) << layers.err;
  EXPECT_NE(layers.err.find("a video carries no layers"), std::string::npos) << layers.err;
  write_text_file(dir / "clear.json", R"({"fxsim": 1, "output": {"width": 32, "height": 18, "frames": 2,
    "background": "transparent"}, "emitters": [{"type": "snow"}]})");
  const CliResult clear = run_fxsim("render '" + (dir / "clear.json").string() + "' -q" + video);
  EXPECT_EQ(clear.exit_code, 64) << clear.err;
  EXPECT_NE(clear.err.find("only a .mov (ProRes 4444) keeps alpha"), std::string::npos) << clear.err;
  const CliResult webm = run_fxsim("render '" + (dir / "clear.json").string() + "' -q -o '" + (dir / "v.webm").string() + "'");
  EXPECT_EQ(webm.exit_code, 64) << webm.err;  // VP9 here is yuv420p: no alpha either
  // Written in the scene: its own error, at the key.
  const CliResult deep = run_fxsim("render " + kVideoSnow + " -q --set /output/path=v.webm --set /output/bit_depth=16");
  EXPECT_EQ(deep.exit_code, 65) << deep.err;
  EXPECT_NE(deep.err.find("/output/bit_depth: a video's samples are 8-bit"), std::string::npos) << deep.err;
  // Beside transparent frames an .mp4 showed their straight colour without
  // its coverage, exit 0.
  const CliResult beside = run_fxsim("render '" + (dir / "clear.json").string() + "' -q -o '" +
                                     (dir / "f_#.png").string() + "' --video '" + (dir / "v.mp4").string() + "'");
  EXPECT_EQ(beside.exit_code, 64) << beside.err;
  EXPECT_NE(beside.err.find("--video " + (dir / "v.mp4").string() + ": of the videos only a .mov"), std::string::npos)
      << beside.err;
  // A GIF's frame times are hundredths of a second: at 60 frames a second they
  // were 1/100 s and 2/100 s, which browsers play as 1/10 s.
  const CliResult fast = run_fxsim("render " + kVideoSnow + " --frames 1-2 -q --fps 60 -o '" + (dir / "v.gif").string() + "'");
  EXPECT_EQ(fast.exit_code, 64) << fast.err;
  EXPECT_NE(fast.err.find("a GIF plays at most 50 frames a second"), std::string::npos) << fast.err;
  EXPECT_NE(fast.err.find("(--fps 60)"), std::string::npos) << fast.err;
  // Set by --set: that is named, not the scene ("the scene's output.fps").
  const CliResult set = run_fxsim("render " + kVideoSnow + " --frames 1-2 -q --set /output/fps=60 -o '" +
                                  (dir / "v.gif").string() + "'");
  EXPECT_EQ(set.exit_code, 64) << set.err;
  EXPECT_NE(set.err.find("(--set /output/fps=60)"), std::string::npos) << set.err;
  const CliResult gif_scene = run_fxsim("render " + kVideoSnow + " -q --set /output/path=v.gif --set /output/fps=60");
  EXPECT_EQ(gif_scene.exit_code, 65) << gif_scene.err;
  EXPECT_NE(gif_scene.err.find("/output/fps: a GIF plays at most 50"), std::string::npos) << gif_scene.err;
  EXPECT_TRUE(fs::exists(dir / "clear.json"));
  for (const char* file : {"v.mp4", "f_1.png", "v.gif"}) EXPECT_FALSE(fs::exists(dir / file)) << file;
}

TEST(RenderVideo, AFolderThatVanishesMidVideoIsSaidToBeGone) {
  // The folder is removed while ffmpeg writes into it: the video cannot be
  // renamed into place, and the message said only "cannot rename (No such
  // file or directory)". Its file unlinked, ffmpeg takes every frame, and the
  // render went on to frame 400 (85 s in the sanitized suite): it stops at
  // the next frame, which the message names. So too where another folder of
  // that name took its place. Removed at once, before ffmpeg opens its file
  // (it does after the first frame), the message said only that ffmpeg stopped.
  struct Case {
    const char* what;
    bool ffmpeg_writing;  // the folder goes once ffmpeg has opened its file
    const char* then;     // after the folder is removed
  };
  for (const Case c : {Case{"removed while ffmpeg writes", true, ""},
                       Case{"replaced while ffmpeg writes", true, "mkdir -p \"$out\"; "},
                       Case{"removed at once", false, ""}}) {
    TempDir dir("video_vanish");
    const std::string out = (dir / "out").string();
    const std::string wait_for_ffmpeg =
        "for i in $(seq 1 1200); do ls \"$out\" 2>/dev/null | grep -q fxsim-partial && break; sleep 0.05; done; ";
    const int status = render_and_when_written(
        "'" FXSIM_SOURCE_DIR "/scenes/snow.json' --width 48 --height 27 --frames 1-400 --quiet -o '" + out +
            "/v.mp4' 2>'" + (dir / "err").string() + "'",
        dir / "out", 30,
        "out='" + out + "'; " + (c.ffmpeg_writing ? wait_for_ffmpeg : std::string()) + "rm -rf \"$out\"; " + c.then,
        dir / "vanish.sh");
    ASSERT_TRUE(WIFEXITED(status));
    const std::string err = read_text_file(dir / "err");
    EXPECT_EQ(WEXITSTATUS(status), 73) << c.what << ": " << err;
    EXPECT_NE(err.find("the output folder no longer exists"), std::string::npos) << c.what << ": " << err;
    if (c.ffmpeg_writing) {
      const size_t stopped = err.find("stopped after frame ");
      ASSERT_NE(stopped, std::string::npos) << c.what << ": " << err;
      EXPECT_LT(std::stoi(err.substr(stopped + 20)), 400) << c.what << ": " << err;
    }
    // Nothing written where the folder was, nor in the one that replaced it.
    EXPECT_TRUE(!fs::exists(dir / "out") || fs::is_empty(dir / "out")) << c.what;
  }
}
