#include "render/frame_sinks.h"

#include <fmt/format.h>

#include "core/frame_output.h"
#include "render/atomic_file.h"

namespace fxsim {

PngSequenceSink::PngSequenceSink(std::string pattern, int first_frame)
    : pattern_(std::move(pattern)), first_path_(frame_path(pattern_, first_frame)) {
  check_output_path(first_path_.string());
}

void PngSequenceSink::start() { enter_folder(first_path_); }

void PngSequenceSink::enter_folder(const std::filesystem::path& file) {
  if (!folders_.insert(file.parent_path()).second) return;
  prepare_output_folder(file);
  remove_stale_partials(file.parent_path());
}

void PngSequenceSink::prepare(const FrameRecord& record) { png_ = encode_png(record.image); }

void PngSequenceSink::commit(const FrameRecord& record) {
  const std::filesystem::path path = frame_path(pattern_, record.frame);
  // A '#' in the folder part gives each frame its own folder: made on first
  // use. A folder made earlier that is gone now stops the render
  // (write_file_atomically refuses to recreate it).
  enter_folder(path);
  write_file_atomically(path, png_);
}

TextSink::TextSink(std::string path) : path_(std::move(path)) {
  if (path_ != "-") check_output_path(path_);
}

void TextSink::start() { out_ = TextOutput::open(path_); }

void StatisticsSink::commit(const FrameRecord& record) { out_->append(to_json_line(record.stats) + "\n"); }

void StateHashSink::commit(const FrameRecord& record) {
  std::string lines;
  for (const auto& [frame, hash] : record.hashes) lines += fmt::format("{} {:016x}\n", frame, hash);
  out_->append(lines);
}

}  // namespace fxsim
