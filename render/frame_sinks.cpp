#include "render/frame_sinks.h"

#include <fmt/format.h>

#include "core/frame_output.h"
#include "core/png_writer.h"
#include "render/atomic_file.h"

namespace fxsim {

PngSequenceSink::PngSequenceSink(std::string pattern, int first_frame, PngSettings png)
    : pattern_(std::move(pattern)), first_path_(frame_path(pattern_, first_frame)), png_(png) {
  check_output_path(first_path_.string());
}

void PngSequenceSink::start() { enter_folder(first_path_); }

void PngSequenceSink::enter_folder(const std::filesystem::path& file) {
  if (!folders_.insert(file.parent_path()).second) return;
  prepare_output_folder(file);
  remove_stale_partials(file.parent_path());
}

std::vector<uint8_t> PngSequenceSink::prepare(const FrameRecord& record) const { return encode_png(record.image, png_); }

void PngSequenceSink::commit(const FrameRecord& record, const std::vector<uint8_t>& png) {
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
