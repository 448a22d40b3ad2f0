#pragma once
// Where rendered frames go. The frame loop hands every frame to each sink
// twice: prepare() (slow work such as encoding, on encoder threads, several
// frames at once, so it must not touch the sink's state), then commit() (the
// quick step that makes the output whole: a rename, an appended line), one
// frame at a time in frame order, the sinks in the reverse of the order they
// started. Commits of one frame happen inside one CommitSection, so an
// interrupt leaves every sink's output consistent with the same frames.
//
// A sink's constructor only checks (nothing is created, so a refused render
// writes nothing); start() creates its files once every check has passed.
// New outputs (EXR, video, masks, manifests) are new sinks.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/manifest.h"
#include "core/scene.h"
#include "core/image.h"
#include "core/frame_output.h"
#include "core/input_digest.h"
#include "core/png_writer.h"
#include "core/stats.h"
#include "render/frame_target.h"
#include "render/output_files.h"

namespace fxsim {

// Files a sink's prepare() made for a frame, written by its commit().
struct PreparedFile {
  PreparedFile() = default;
  PreparedFile(std::filesystem::path where, std::vector<uint8_t> content) : path(std::move(where)), bytes(std::move(content)) {}
  std::filesystem::path path;
  std::vector<uint8_t> bytes;
  std::string sha256;  // of `bytes`, when a manifest records it (hashed on the encoder threads)
};
using Prepared = std::vector<PreparedFile>;

// One rendered frame as the sinks receive it.
struct FrameRecord {
  int frame = 0;
  double time = 0;     // simulated seconds
  uint64_t live = 0;   // live particles drawn, secondaries included
  double seconds = 0;  // wall time from the previous frame's hand-over to this one's (simulate + draw + read)
  Image image;                        // 8-bit sRGB, straight alpha
  std::optional<LinearImage> linear;  // linear, premultiplied (float targets: transparent, 16-bit, EXR)
  FrameLayers layers;                 // depth and masks, when the output asks for them
  PlateDigests plates;                // the plate files it was drawn over, for the manifest
  FrameStats stats;
  // (frame, state hash) of every frame simulated since the previous record,
  // this one included, when a sink wants every hash; else only this frame's
  // when a sink wants it (hashes cover frames that are not drawn too).
  std::vector<std::pair<int, uint64_t>> hashes;
  // This frame's state hash captured for a sink that wants only the drawn
  // frames' (fetched on the GL thread at hand-over, hashed when asked).
  std::shared_ptr<StateCapture> state;
  // What each sink's prepare() made, in the frame loop's order of sinks.
  std::vector<Prepared> prepared;
};

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual bool wants_hashes() const { return false; }      // of every frame simulated
  virtual bool wants_frame_hash() const { return false; }  // of each drawn frame
  virtual bool writes_stdout() const { return false; }
  virtual void start() {}
  virtual Prepared prepare(const FrameRecord&) const { return {}; }
  virtual void commit(const FrameRecord& record, const Prepared& prepared) = 0;
  // After the last frame's commit: completes what spans frames (a video file).
  virtual void finish() {}
  // The render failed before its first frame was committed: takes back what
  // start() made where that can be undone (the text outputs' files).
  virtual void abandon() {}
};

// How frames are written: the format follows the path's extension.
struct ImageEncoding {
  ImageFormat format = ImageFormat::png;
  PngSettings png;
  int bit_depth = 8;  // PNG: 8 (from the 8-bit frame) or 16 (from the linear frame)
  std::filesystem::path clean_plate;  // a plate pattern to copy beside each frame (the "plate" layer), or empty
  OutputSettings::Tone tone = OutputSettings::Tone::clip;  // of 16-bit PNG (the 8-bit frame has it already)
};

// Whether every pixel of `record` is the same as `encoding` writes it (the
// 8-bit frame, 16-bit samples after the tone, EXR's halves): a float frame
// may differ where its file does not (an exposure of 20: white throughout in 16 bits).
bool one_colour_as_written(const FrameRecord& record, const ImageEncoding& encoding);

// One image per frame at a path pattern ('#' runs are the frame number): PNG
// (8 or 16 bits, straight alpha) or OpenEXR (half float, premultiplied linear).
class ImageSequenceSink : public FrameSink {
 public:
  // Refuses (73) a first frame path that is not a regular file.
  ImageSequenceSink(std::string pattern, int first_frame, ImageEncoding encoding = {});
  void start() override;
  // The frame's file, and with PNG its layers' files beside it
  // (f_0001.depth.png, f_0001.mask.rain.png); EXR holds them as channels.
  Prepared prepare(const FrameRecord& record) const override;
  void commit(const FrameRecord& record, const Prepared& files) override;
  // Records the run in `manifest` when the sink starts, then each frame's
  // files (size, SHA-256), state hash, time and the digest of the textures
  // and plates it was drawn from (`inputs`: made before the textures were
  // read to draw; the plates' come with each frame).
  // `state_hashes`: each frame's state hash too (a full read of the state).
  void record_in(RunManifest& manifest, bool state_hashes, InputDigest inputs) {
    manifest_ = &manifest, state_hashes_ = state_hashes, inputs_ = std::move(inputs);
  }
  bool wants_frame_hash() const override { return manifest_ != nullptr && state_hashes_; }
  // Frame lines written right after the run line (frames kept by --skip-existing that no line records).
  void adopt(std::vector<ManifestFrame> frames) { adopted_ = std::move(frames); }
  const ImageEncoding& encoding() const { return encoding_; }

 private:
  // Makes the folder of `file` (and cleans up after killed runs there) the
  // first time a frame goes into it.
  void enter_folder(const std::filesystem::path& file);

  std::string pattern_;
  std::filesystem::path first_path_;
  ImageEncoding encoding_;
  std::set<std::filesystem::path> folders_;  // made or checked already
  RunManifest* manifest_ = nullptr;
  bool state_hashes_ = true;
  std::optional<InputDigest> inputs_;
  std::vector<ManifestFrame> adopted_;
};

// Every file frame `frame` of `scene` writes at `pattern` (the image, then
// with PNG its layers' files, then the clean plate's copy), as prepare() names them.
std::vector<std::filesystem::path> frame_files(const Scene& scene, const std::string& pattern, int frame);
// The same files as patterns, each '#' run standing for the frame number.
std::vector<std::string> frame_file_patterns(const Scene& scene, const std::string& pattern);
// Throws check_output_path's FxError (73) for a file of one of `frames` that
// is there and is not a regular file (a FIFO, a link, a folder), before any
// work: such a file at a later frame was found only after the frames before it were written.
void check_frames_replaceable(const Scene& scene, const std::string& pattern, const std::vector<int>& frames);

// A text output, written line by line as frames are committed.
class TextSink : public FrameSink {
 public:
  explicit TextSink(std::string path);  // "-": standard output; checked now, created by start()
  bool writes_stdout() const override { return path_ == "-"; }
  void start() override;
  void finish() override;
  void abandon() override;

 protected:
  std::string path_;
  std::optional<TextOutput> out_;
};

// The statistics of every drawn frame as JSON Lines (docs/scene-format.md).
class StatisticsSink : public TextSink {
 public:
  using TextSink::TextSink;
  void commit(const FrameRecord& record, const Prepared&) override;
};

// "frame hash" for every simulated frame (what the golden tests compare).
class StateHashSink : public TextSink {
 public:
  using TextSink::TextSink;
  bool wants_hashes() const override { return true; }
  void commit(const FrameRecord& record, const Prepared&) override;
};

}  // namespace fxsim
