#include "render/frame_sinks.h"

#include <fmt/format.h>

#include "core/frame_output.h"
#include "core/exit_codes.h"
#include "core/exr_file.h"
#include "core/png_writer.h"
#include "render/atomic_file.h"

namespace fxsim {

ImageSequenceSink::ImageSequenceSink(std::string pattern, int first_frame, ImageEncoding encoding)
    : pattern_(std::move(pattern)), first_path_(frame_path(pattern_, first_frame)), encoding_(encoding) {
  check_output_path(first_path_.string());
}

void ImageSequenceSink::start() { enter_folder(first_path_); }

void ImageSequenceSink::enter_folder(const std::filesystem::path& file) {
  if (!folders_.insert(file.parent_path()).second) return;
  prepare_output_folder(file);
  remove_stale_partials(file.parent_path());
}

std::vector<uint8_t> ImageSequenceSink::prepare(const FrameRecord& record) const {
  const bool linear = encoding_.format == ImageFormat::exr || encoding_.bit_depth == 16;
  if (linear && !record.linear)
    throw FxError(ExitCode::internal, "a frame for EXR or 16-bit PNG was not rendered in float");
  if (encoding_.format == ImageFormat::exr) return encode_exr(*record.linear);
  if (encoding_.bit_depth == 16) return encode_png16(*record.linear, encoding_.png);
  return encode_png(record.image, encoding_.png);
}

void ImageSequenceSink::commit(const FrameRecord& record, const std::vector<uint8_t>& png) {
  const std::filesystem::path path = frame_path(pattern_, record.frame);
  // A '#' in the folder part gives each frame its own folder: made on first
  // use. A folder made earlier that is gone now stops the render
  // (write_file_atomically refuses to recreate it).
  enter_folder(path);
  write_file_atomically(path, png);
}

TextSink::TextSink(std::string path) : path_(std::move(path)) {
  if (path_ != "-") check_output_path(path_);
}

void TextSink::start() { out_ = TextOutput::open(path_); }

void StatisticsSink::commit(const FrameRecord& record, const std::vector<uint8_t>&) { out_->append(to_json_line(record.stats) + "\n"); }

void StateHashSink::commit(const FrameRecord& record, const std::vector<uint8_t>&) {
  std::string lines;
  for (const auto& [frame, hash] : record.hashes) lines += fmt::format("{} {:016x}\n", frame, hash);
  out_->append(lines);
}

}  // namespace fxsim
