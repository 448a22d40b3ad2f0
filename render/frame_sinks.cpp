#include "render/frame_sinks.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <cstring>
#include <fstream>
#include <set>
#include <sys/stat.h>

#include "core/frame_output.h"
#include "core/exit_codes.h"
#include "core/exr_file.h"
#include "core/png_writer.h"
#include "core/sha256.h"
#include "core/tone.h"
#include "render/atomic_file.h"

namespace fxsim {

ImageSequenceSink::ImageSequenceSink(std::string pattern, int first_frame, ImageEncoding encoding)
    : pattern_(std::move(pattern)), first_path_(frame_path(pattern_, first_frame)), encoding_(encoding) {
  check_output_path(first_path_.string());
}

void ImageSequenceSink::start() {
  enter_folder(first_path_);
  if (!manifest_) return;
  manifest_->begin();
  for (const ManifestFrame& frame : adopted_) manifest_->writer().add(frame);
}

void ImageSequenceSink::enter_folder(const std::filesystem::path& file) {
  if (!folders_.insert(file.parent_path()).second) return;
  prepare_output_folder(file);
  remove_stale_partials(file.parent_path());
}

namespace {
// "out/f_0001.png" → "out/f_0001.<layer>.png"
std::filesystem::path beside(const std::filesystem::path& frame, const std::string& layer) {
  return frame.parent_path() / (frame.stem().string() + "." + layer + frame.extension().string());
}

// 16-bit grey, big-endian: depth in millimetres (0: no particle; at most 65.535 m).
std::vector<uint8_t> depth_png(const std::vector<float>& depth, int width, int height, const PngSettings& png) {
  std::vector<uint16_t> mm(depth.size());
  for (size_t i = 0; i < depth.size(); ++i)
    mm[i] = uint16_t(std::isfinite(depth[i]) ? std::lround(std::clamp(depth[i] * 1000.0f, 0.0f, 65535.0f)) : 0);
  PngSettings data = png;
  data.srgb = false;
  return encode_grey_png(mm, width, height, 16, data);
}

// 8-bit grey: coverage 0..255.
std::vector<uint8_t> mask_png(const std::vector<float>& mask, int width, int height, const PngSettings& png) {
  std::vector<uint16_t> coverage(mask.size());
  for (size_t i = 0; i < mask.size(); ++i) coverage[i] = uint16_t(std::lround(std::clamp(mask[i], 0.0f, 1.0f) * 255.0f));
  PngSettings data = png;
  data.srgb = false;
  return encode_grey_png(coverage, width, height, 8, data);
}
// 16-bit RGB in KITTI's optical-flow layout: R = x·64 + 2^15, G = y·64 + 2^15
// (pixels, clamped to ±512), B = 1 where a particle with a motion covers the
// pixel, else 0 (and R = G = 2^15).
std::vector<uint8_t> motion_png(const MotionLayer& motion, int width, int height, const PngSettings& png) {
  LinearImage flow{width, height, std::vector<float>(motion.x.size() * 4)};
  const auto encode = [](float pixels) { return std::round(std::clamp(pixels * 64.0f + 32768.0f, 0.0f, 65535.0f)) / 65535.0f; };
  for (size_t i = 0; i < motion.x.size(); ++i) {
    const bool covered = motion.coverage[i] > 0;
    flow.rgba[i * 4] = covered ? encode(motion.x[i]) : 32768.0f / 65535.0f;
    flow.rgba[i * 4 + 1] = covered ? encode(motion.y[i]) : 32768.0f / 65535.0f;
    flow.rgba[i * 4 + 2] = covered ? 1.0f / 65535.0f : 0.0f;
    flow.rgba[i * 4 + 3] = 1;
  }
  PngSettings data = png;
  data.srgb = false;
  data.alpha = false;  // KITTI's layout is RGB
  return encode_png16(flow, data);
}
}  // namespace

namespace {
// Whether every pixel of `image` gives the first's four samples (`as_written`
// turns a pixel's linear RGBA into them), bit for bit; it stops at the first
// that differs, so a frame where something shows costs a pixel or two.
template <class Sample, class AsWritten>
bool every_pixel_written_as_the_first(const LinearImage& image, AsWritten as_written) {
  if (image.rgba.size() < 4) return false;
  Sample first[4], other[4];
  as_written(&image.rgba[0], first);
  for (size_t i = 4; i < image.rgba.size(); i += 4) {
    as_written(&image.rgba[i], other);
    if (std::memcmp(first, other, sizeof first) != 0) return false;
  }
  return true;
}
}  // namespace

bool one_colour_as_written(const FrameRecord& record, const ImageEncoding& encoding) {
  if (!record.linear || (encoding.format != ImageFormat::exr && encoding.bit_depth != 16)) return one_colour(record.image);
  if (encoding.format == ImageFormat::exr)
    return every_pixel_written_as_the_first<float>(*record.linear, [](const float* rgba, float* out) {
      for (int c = 0; c < 4; ++c) out[c] = exr_stored(rgba[c]);
    });
  const bool toned = encoding.tone == OutputSettings::Tone::filmic, srgb = encoding.png.srgb;
  return every_pixel_written_as_the_first<uint16_t>(*record.linear, [&](const float* rgba, uint16_t* out) {
    float pixel[4] = {rgba[0], rgba[1], rgba[2], rgba[3]};
    if (toned) tone_map_pixel(pixel);
    png16_pixel(pixel, srgb, out);
  });
}

Prepared ImageSequenceSink::prepare(const FrameRecord& record) const {
  const std::filesystem::path path = frame_path(pattern_, record.frame);
  const bool linear = encoding_.format == ImageFormat::exr || encoding_.bit_depth == 16;
  if (linear && !record.linear)
    throw FxError(ExitCode::internal, "a frame for EXR or 16-bit PNG was not rendered in float");
  const int w = record.image.width, h = record.image.height;
  Prepared files;
  if (encoding_.format == ImageFormat::exr) {
    std::vector<ExrLayer> channels;
    if (record.layers.depth) channels.push_back({"Z", *record.layers.depth, true});
    for (const auto& [name, mask] : record.layers.masks) channels.push_back({"mask." + name, mask});
    if (record.layers.motion) {
      channels.push_back({"motion.x", record.layers.motion->x});
      channels.push_back({"motion.y", record.layers.motion->y});
    }
    files.push_back({path, encode_exr(*record.linear, channels)});
  } else {
    // (Two calls: one conditional expression of both copied the linear frame where there is no tone.)
    if (encoding_.bit_depth == 16 && encoding_.tone == OutputSettings::Tone::filmic)
      files.push_back({path, encode_png16(tone_mapped(*record.linear), encoding_.png)});
    else if (encoding_.bit_depth == 16)
      files.push_back({path, encode_png16(*record.linear, encoding_.png)});
    else
      files.push_back({path, encode_png(record.image, encoding_.png)});
  }
  if (!encoding_.clean_plate.empty()) {
    // The clean image of a (clean, composite, mask) triplet: the plate's own bytes, its own format.
    const std::filesystem::path plate = frame_path(encoding_.clean_plate.string(), record.frame);
    std::ifstream in(plate, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw FxError(ExitCode::input_missing, fmt::format("{}: cannot read the plate", plate.string()));
    files.push_back({path.parent_path() / (path.stem().string() + ".plate" + plate.extension().string()), std::move(bytes)});
  }
  if (encoding_.format != ImageFormat::exr) {
    if (record.layers.depth) files.push_back({beside(path, "depth"), depth_png(*record.layers.depth, w, h, encoding_.png)});
    for (const auto& [name, mask] : record.layers.masks)
      files.push_back({beside(path, "mask." + name), mask_png(mask, w, h, encoding_.png)});
    if (record.layers.motion) files.push_back({beside(path, "motion"), motion_png(*record.layers.motion, w, h, encoding_.png)});
  }
  if (manifest_) {
    for (PreparedFile& file : files) file.sha256 = sha256_hex(file.bytes);
    if (record.state) record.state->hash();  // here, on an encoder thread; commit reads it back
  }
  return files;
}

namespace {
// The files of the frame whose image is `image` (a frame's path, or the
// pattern), named as prepare() names them.
std::vector<std::string> files_beside(const Scene& scene, const std::string& image) {
  const std::filesystem::path path = image;
  std::vector<std::string> files{image};
  if (scene.output.plate_layer) {
    const std::filesystem::path plate = scene.output.plate;
    files.push_back((path.parent_path() / (path.stem().string() + ".plate" + plate.extension().string())).string());
  }
  if (image_format_of(image) == ImageFormat::png) {
    if (scene.output.depth_layer) files.push_back(beside(path, "depth").string());
    if (scene.output.mask_layers)
      for (const EmitterSettings& e : scene.emitters) files.push_back(beside(path, "mask." + e.name).string());
    if (scene.output.motion_layer) files.push_back(beside(path, "motion").string());
  }
  return files;
}
}  // namespace

std::vector<std::string> frame_file_patterns(const Scene& scene, const std::string& pattern) {
  // A '#' run stays in the name's stem or folder. (An emitter's name with a
  // '#' makes its mask's pattern match more than its files: harmless where
  // the patterns are matched against an output's path.)
  return files_beside(scene, pattern);
}

void check_frames_replaceable(const Scene& scene, const std::string& pattern, const std::vector<int>& frames) {
  const auto not_regular = [](const std::filesystem::path& file) {
    struct stat st {};
    return ::lstat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  };
  const std::filesystem::path folder_pattern = std::filesystem::path(pattern).parent_path();
  // Where the frames share a folder that can be listed: the names there that
  // are not regular files, found in one listing, not each frame's files
  // looked up (10 million frames). Elsewhere each file is looked up.
  bool listed = false;
  std::set<std::string> odd;
  if (folder_pattern.string().find('#') == std::string::npos) {
    const std::filesystem::path folder = folder_pattern.empty() ? "." : folder_pattern;
    std::error_code error;
    std::filesystem::directory_iterator it(folder, error);
    for (const std::filesystem::directory_iterator end; !error && it != end; it.increment(error))
      if (not_regular(it->path())) odd.insert(it->path().filename().string());
    listed = !error || error == std::errc::no_such_file_or_directory;
    if (listed && odd.empty()) return;
  }
  for (const int frame : frames)
    for (const std::filesystem::path& file : frame_files(scene, pattern, frame))
      if (listed ? odd.count(file.filename().string()) > 0 : not_regular(file)) check_output_path(file.string());
}

std::vector<std::filesystem::path> frame_files(const Scene& scene, const std::string& pattern, int frame) {
  // The frame's image first, then its layers named beside it, as prepare()
  // does: a '#' in an emitter's name is the name's (it was read as the
  // frame number, so --skip-existing drew such frames again every time).
  const std::vector<std::string> files = files_beside(scene, frame_path(pattern, frame));
  return {files.begin(), files.end()};
}

void ImageSequenceSink::commit(const FrameRecord& record, const Prepared& files) {
  // A frame's files are written all or none, since the manifest records
  // them together: every path is checked before the first is written, and
  // those written are removed again if a later one fails.
  for (const PreparedFile& file : files) check_output_path(file.path.string());
  // A '#' in the folder part gives each frame its own folder: made on first
  // use. A folder made earlier that is gone now stops the render
  // (write_file_atomically refuses to recreate it).
  size_t written = 0;
  try {
    for (; written < files.size(); ++written) {
      enter_folder(files[written].path);
      write_file_atomically(files[written].path, files[written].bytes);
    }
  } catch (...) {
    std::error_code ignored;
    for (size_t k = 0; k < written; ++k) std::filesystem::remove(files[k].path, ignored);
    throw;
  }
  if (!manifest_) return;
  ManifestFrame line;
  line.run = manifest_->run().run;
  line.frame = record.frame;
  line.seconds = record.seconds;
  for (const auto& [frame, hash] : record.hashes)
    if (frame == record.frame) line.state_hash = fmt::format("{:016x}", hash);
  if (record.state) line.state_hash = fmt::format("{:016x}", record.state->hash());
  if (inputs_) line.inputs = inputs_->of(record.plates);
  for (const PreparedFile& file : files)
    line.files.push_back({file.path.lexically_relative(manifest_->writer().folder()).string(), file.bytes.size(), file.sha256});
  manifest_->writer().add(line);
}

TextSink::TextSink(std::string path) : path_(std::move(path)) {
  if (path_ != "-") check_output_path(path_, true);
}

void TextSink::start() { out_ = TextOutput::open(path_); }

void TextSink::finish() {
  if (out_) out_->finish();
}

void TextSink::abandon() {
  if (out_) out_->abandon();
}

void StatisticsSink::commit(const FrameRecord& record, const Prepared&) { out_->append(to_json_line(record.stats) + "\n"); }

void StateHashSink::commit(const FrameRecord& record, const Prepared&) {
  std::string lines;
  for (const auto& [frame, hash] : record.hashes) lines += fmt::format("{} {:016x}\n", frame, hash);
  out_->append(lines);
}

}  // namespace fxsim
