#include "render/video_sink.h"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>
#include <fmt/format.h>

#include "core/exit_codes.h"
#include "core/sha256.h"
#include "render/output_files.h"

namespace fxsim {

namespace {
// ": what ffmpeg said", or nothing where it said nothing (killed by a signal).
std::string with_colon(const std::string& messages) { return messages.empty() ? "" : ": " + messages; }

const char* encoder_of(VideoFormat f) {
  switch (f) {
    case VideoFormat::mp4: return "libx264";
    case VideoFormat::webm: return "libvpx-vp9";
    case VideoFormat::mov: return "prores_ks";
    case VideoFormat::gif: return "gif";
  }
  return "";
}

const char* muxer_of(VideoFormat f) {
  switch (f) {
    case VideoFormat::mp4: return "mp4";
    case VideoFormat::webm: return "webm";
    case VideoFormat::mov: return "mov";
    case VideoFormat::gif: return "gif";
  }
  return "";
}

}  // namespace

void check_video_encoder(const std::string& path, VideoFormat format) {
  if (find_program("ffmpeg").empty())
    throw FxError(ExitCode::no_video_encoder,
                  fmt::format("{}: writing a video needs ffmpeg, which is not installed (Debian: apt-get install "
                              "ffmpeg; scripts/fxsim installs it)", path));
  const ProgramOutput encoders = run_program({"ffmpeg", "-hide_banner", "-encoders"});
  if (!encoders.ok || encoders.out.find(std::string(" ") + encoder_of(format) + " ") == std::string::npos)
    throw FxError(ExitCode::no_video_encoder,
                  fmt::format("{}: this ffmpeg has no {} encoder, which {} files need", path, encoder_of(format),
                              muxer_of(format)));
}

VideoSink::VideoSink(std::string path, int width, int height, double fps, VideoSettings settings)
    : path_(std::move(path)), width_(width), height_(height), fps_(fps), settings_(settings) {
  const auto format = video_format_of(path_);
  if (!format)
    throw FxError(ExitCode::usage, fmt::format("{}: a video file ends in .mp4, .webm, .mov or .gif after a file name",
                                               path_));
  format_ = *format;
  const bool yuv420 = format_ == VideoFormat::mp4 || format_ == VideoFormat::webm;
  fed_width_ = yuv420 ? (width_ + 1) / 2 * 2 : width_;
  fed_height_ = yuv420 ? (height_ + 1) / 2 * 2 : height_;
  check_output_path(path_);
  check_video_encoder(path_, format_);
}

VideoSink::~VideoSink() {
  // Not finished (an error stopped the render): no half-written video under the final name.
  if (ffmpeg_) {
    ffmpeg_.reset();
    std::filesystem::remove(partial_);
  }
}

void VideoSink::start() {
  prepare_output_folder(path_);
  remove_stale_partials(std::filesystem::path(path_).parent_path());
  partial_ = partial_path(path_);
  const std::filesystem::path written = std::filesystem::absolute(partial_);  // ffmpeg's file
  folder_ = written.parent_path();
  struct stat folder {};
  if (::stat(folder_.c_str(), &folder) == 0) folder_device_ = folder.st_dev, folder_inode_ = folder.st_ino;
  registered_ = std::make_unique<PartialFile>(partial_);
  std::vector<std::string> argv = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo",
                                   "-pix_fmt", "rgba", "-s", fmt::format("{}x{}", fed_width_, fed_height_), "-framerate",
                                   fmt::format("{}", fps_), "-i", "pipe:0"};
  // The frames' RGB goes to Y'CbCr by BT.709's matrix in limited range, and
  // the stream says so, with BT.709 primaries (sRGB's) and the sRGB curve the
  // frames carry: untagged, ffmpeg used BT.601's matrix, and a player taking
  // HD video for BT.709 shifted the colours (fire's red by 9 levels).
  // (Tagged by setparams: ProRes in .mov kept no tags given as output options.)
  const std::string bt709 =
      "scale=out_color_matrix=bt709:out_range=tv,"
      "setparams=colorspace=bt709:color_primaries=bt709:color_trc=iec61966-2-1:range=tv";
  const auto add = [&](std::initializer_list<std::string> more) { argv.insert(argv.end(), more); };
  // The encoders' threads are fixed: x264 and libvpx size their pools from
  // the CPUs by default, and their output follows the pool (a WebM's frames
  // differed between one core and two), so the same scene made other video
  // bytes on another machine, or under another --threads.
  add({"-threads", std::to_string(kVideoEncoderThreads)});
  switch (format_) {
    case VideoFormat::mp4:
      add({"-c:v", "libx264", "-preset", "medium", "-crf", std::to_string(settings_.crf.value_or(18)), "-pix_fmt",
           "yuv420p", "-vf", bt709});
      break;
    case VideoFormat::webm:
      add({"-c:v", "libvpx-vp9", "-crf", std::to_string(settings_.crf.value_or(31)), "-b:v", "0", "-row-mt", "1",
           "-pix_fmt", "yuv420p", "-vf", bt709});
      break;
    case VideoFormat::mov:
      add({"-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le", "-vf", bt709});
      break;
    case VideoFormat::gif: add({"-vf", "split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse"}); break;
  }
  // ffmpeg reads a name as an option where it starts with '-' and as a
  // protocol where it has a colon before any slash ("file:a.mp4",
  // "http:x.mp4", "pipe:1.webm"): its file protocol and an absolute path
  // name the file whatever it is called.
  // bitexact: no random identifiers in the container (a WebM's track UID
  // differed from run to run), so that a scene renders to the same bytes.
  add({"-fflags", "+bitexact", "-f", muxer_of(format_), "file:" + written.string()});
  ffmpeg_ = std::make_unique<ChildProcess>(argv);
}

void VideoSink::commit(const FrameRecord& record, const Prepared&) {
  if (record.image.width != width_ || record.image.height != height_)
    throw FxError(ExitCode::internal, "a frame's size differs from the video's");
  const std::vector<uint8_t>* fed = &record.image.rgba;
  if (fed_width_ != width_ || fed_height_ != height_) {
    // The edge repeated, not black: black would bleed into the edge pixels'
    // colour through the shared chroma samples.
    padded_.resize(size_t(fed_width_) * size_t(fed_height_) * 4);
    const size_t row = size_t(width_) * 4, fed_row = size_t(fed_width_) * 4;
    for (int y = 0; y < fed_height_; ++y) {
      const uint8_t* from = record.image.rgba.data() + size_t(std::min(y, height_ - 1)) * row;
      uint8_t* to = padded_.data() + size_t(y) * fed_row;
      std::copy(from, from + row, to);
      if (fed_width_ > width_) std::copy(from + row - 4, from + row, to + row);
    }
    fed = &padded_;
  }
  if (!ffmpeg_->write(fed->data(), fed->size())) {
    ffmpeg_->finish();  // it stopped reading: how it ended says why
    // (It opens its file after the first frames: a folder removed by then is why.)
    if (output_folder_gone(path_)) throw FxError(ExitCode::cannot_write, output_folder_gone_message(path_));
    throw FxError(ExitCode::cannot_write,
                  fmt::format("{}: ffmpeg stopped at frame {} ({}){}", path_, record.frame, ffmpeg_->ending(),
                              with_colon(ffmpeg_->error_tail())));
  }
  // A folder removed while ffmpeg writes into it: its file, unlinked, takes
  // every frame without complaint, and the render went on to the last frame
  // before the rename failed. Found here, frame by frame (a stat), it stops at once.
  if (folder_gone())
    throw FxError(ExitCode::cannot_write,
                  fmt::format("{}; stopped after frame {}", output_folder_gone_message(path_), record.frame));
  ++frames_;
}

bool VideoSink::folder_gone() const {
  // Only a folder that is not there, or is another one (removed and made
  // again, or renamed away): an error such as EIO on network storage may
  // pass, and the rename at the end says what it finds.
  struct stat folder {};
  if (::stat(folder_.c_str(), &folder) != 0) return errno == ENOENT || errno == ENOTDIR;
  return folder_inode_ != 0 && (folder.st_dev != folder_device_ || folder.st_ino != folder_inode_);
}

void VideoSink::finish() {
  const int status = ffmpeg_->finish();
  const std::string ending = ffmpeg_->ending(), messages = ffmpeg_->error_tail();
  ffmpeg_.reset();
  // ffmpeg (5.1) exits 0 when it cannot write the file's end ("Error writing
  // trailer …: No space left on device"): the mp4 had no index and the webm
  // lacked frames. It runs with -loglevel error, so any message is a failure.
  if (status != 0 || !messages.empty()) {
    std::error_code ignored;
    std::filesystem::remove(partial_, ignored);
    if (output_folder_gone(path_)) throw FxError(ExitCode::cannot_write, output_folder_gone_message(path_));
    throw FxError(ExitCode::cannot_write, fmt::format("{}: ffmpeg failed ({}){}", path_,
                                                      status != 0 ? ending : "it reported an error, though it exited 0",
                                                      with_colon(messages)));
  }
  const CommitSection section;
  check_output_path(path_);  // again: it may have changed while the video was written
  std::error_code error;
  std::filesystem::rename(partial_, path_, error);
  if (error) {
    std::filesystem::remove(partial_);
    if (error == std::errc::no_such_file_or_directory && output_folder_gone(path_))
      throw FxError(ExitCode::cannot_write, output_folder_gone_message(path_));
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot rename the finished video into place ({})", path_,
                                                      error.message()));
  }
  registered_.reset();
  if (!manifest_) return;
  // The run line, where frames have not written it: a video-only render
  // stopped before its end leaves no manifest, as it leaves no video.
  manifest_->begin();
  // Its bytes as they lie under their name, read back: verify compares them.
  ManifestVideo line;
  line.run = manifest_->run().run;
  line.file.file = std::filesystem::path(path_).filename().string();
  line.file.sha256 = sha256_of_file(path_, line.file.bytes);
  line.frames = frames_;
  manifest_->writer().add(line);
}

}  // namespace fxsim
