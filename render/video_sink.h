#pragma once
// A video file written through an ffmpeg child process fed raw RGBA frames
// over a pipe, in frame order. The format follows the file's extension:
//   .mp4   H.264 (libx264), yuv420p, quality by CRF (default 18)
//   .webm  VP9 (libvpx-vp9), yuv420p, quality by CRF (default 31)
//   .mov   ProRes 4444 (prores_ks) with alpha, yuva444p10le
//   .gif   a palette made from all the frames
// yuv420p needs even sizes: an odd width or height is padded by one pixel.
// ffmpeg writes to a temporary name beside the file, renamed into place when
// ffmpeg has finished; an interrupt kills ffmpeg and removes it.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "core/frame_output.h"
#include "core/manifest.h"
#include "render/atomic_file.h"
#include "render/child_process.h"
#include "render/frame_sinks.h"

namespace fxsim {

// The threads every video's encoder gets, whatever the machine: its bytes
// follow the count. Eight keep a 1080p x264 encode ahead of most draws.
constexpr int kVideoEncoderThreads = 8;

struct VideoSettings {
  std::optional<int> crf;  // mp4 and webm: 0 (lossless) to 51 (x264) or 63 (VP9); mov and gif have none
};

// Throws FxError(no_video_encoder, 72) when ffmpeg, or the encoder the video
// at `path` needs (its format known), is not installed.
void check_video_encoder(const std::string& path, VideoFormat format);

class VideoSink : public FrameSink {
 public:
  // Checks the path (73) and that ffmpeg and the format's encoder are
  // installed (72); starts nothing yet.
  VideoSink(std::string path, int width, int height, double fps, VideoSettings settings = {});
  ~VideoSink() override;
  void start() override;
  void commit(const FrameRecord& record, const Prepared&) override;
  void finish() override;
  // Records the video in `manifest` (its folder's) once it is in place, after
  // the run line if no output there wrote it before.
  void record_in(RunManifest& manifest) { manifest_ = &manifest; }
  const std::string& path() const { return path_; }

 private:
  bool folder_gone() const;

  std::string path_;
  VideoFormat format_;
  int width_, height_;
  // What ffmpeg is fed: 4:2:0 formats need even sizes, so an odd width or
  // height gets its last column or row once more.
  int fed_width_, fed_height_;
  std::vector<uint8_t> padded_;
  double fps_;
  VideoSettings settings_;
  std::filesystem::path partial_;
  // The folder ffmpeg writes into, as start() found it: a frame that finds
  // no folder there, or another one, stops the render (folder_gone()).
  std::filesystem::path folder_;
  dev_t folder_device_ = 0;
  ino_t folder_inode_ = 0;
  std::unique_ptr<PartialFile> registered_;
  std::unique_ptr<ChildProcess> ffmpeg_;
  int frames_ = 0;
  RunManifest* manifest_ = nullptr;
};

}  // namespace fxsim
