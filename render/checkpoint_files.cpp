#include "render/checkpoint_files.h"

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>
#include <zlib.h>

#include "core/exit_codes.h"
#include "core/limits.h"
#include "core/parallel.h"
#include "core/sha256.h"
#include "render/atomic_file.h"
#include "render/output_files.h"

namespace fxsim {

namespace fs = std::filesystem;

namespace {
constexpr char kMagic[8] = {'F', 'X', 'S', 'I', 'M', 'C', 'K', 'P'};
constexpr size_t kDigestBytes = 32;
constexpr size_t kPieceBytes = size_t(16) << 20;
constexpr uint64_t kMostInflated = 1032;  // deflate's largest ratio of bytes out to bytes in

template <class T>
void put(std::vector<uint8_t>& out, T v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

[[noreturn]] void damaged(const fs::path& path, const std::string& why) {
  throw FxError(ExitCode::input_missing, fmt::format("{}: not a usable checkpoint ({})", path.string(), why));
}

// Reads a checkpoint's bytes in order, refusing to read past the end.
class Cursor {
 public:
  Cursor(const fs::path& path, const std::vector<uint8_t>& bytes) : path_(path), bytes_(bytes) {}
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  const uint8_t* take(size_t n) {
    if (n > bytes_.size() - at_) damaged(path_, "truncated");
    const uint8_t* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  size_t at() const { return at_; }

 private:
  const fs::path& path_;
  const std::vector<uint8_t>& bytes_;
  size_t at_ = 0;
};

std::vector<uint8_t> read_whole(const fs::path& path, size_t limit = SIZE_MAX) {
  // Not opened unless a regular file: the open of a FIFO blocks until a writer comes.
  std::error_code error;
  if (!fs::is_regular_file(path, error))
    throw FxError(ExitCode::input_missing, fmt::format("{}: not a regular file", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FxError(ExitCode::input_missing, fmt::format("{}: cannot read the checkpoint", path.string()));
  std::vector<uint8_t> bytes;
  if (limit == SIZE_MAX) {
    in.seekg(0, std::ios::end);
    bytes.resize(size_t(in.tellg()));
    in.seekg(0);
  } else {
    bytes.resize(limit);
  }
  in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
  bytes.resize(size_t(in.gcount()));
  return bytes;
}

struct Piece {
  uint64_t raw = 0, packed = 0;
};

// The header (and, when asked, where the pieces are) of a checkpoint's bytes.
CheckpointInfo parse_header(const fs::path& path, Cursor& c) {
  if (std::memcmp(c.take(8), kMagic, 8) != 0) damaged(path, "not an fxsim checkpoint");
  if (const uint32_t format = c.get<uint32_t>(); format != kCheckpointFormat)
    damaged(path, fmt::format("format {}, this fxsim reads format {}", format, kCheckpointFormat));
  const uint32_t header_bytes = c.get<uint32_t>();
  const uint8_t* header_text = c.take(header_bytes);
  CheckpointInfo info;
  info.path = path;
  try {
    const auto header = nlohmann::json::parse(header_text, header_text + header_bytes);
    info.key = {header.at("scene_hash"), header.at("fxsim_version"), header.at("backend")};
    // Whole numbers in range before they are converted (a float or a huge
    // number converted to an integer is undefined).
    const auto whole = [&](const char* name, double most) {
      const auto& value = header.at(name);
      if (!value.is_number_integer() || value.get<double>() < 0 || value.get<double>() > most)
        damaged(path, fmt::format("its header's {} is not a whole number in 0..{}", name, most));
      return value.get<int64_t>();
    };
    info.frame = int(whole("frame", kMaxFrames));
    info.step = whole("step", 9.0e18);
    info.time = header.at("time");
    info.state_bytes = uint64_t(whole("state_bytes", 9.0e18));
  } catch (const nlohmann::json::exception& e) {
    damaged(path, fmt::format("its header cannot be read: {}", e.what()));
  }
  return info;
}
}  // namespace

std::string checkpoint_file_name(int frame) { return fmt::format("checkpoint_{:06}.fxck", frame); }

fs::path write_checkpoint(const fs::path& folder, const CheckpointKey& key, int frame, int64_t step, double time,
                          const std::vector<uint8_t>& state, int threads) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (!fs::is_directory(folder))
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot make the checkpoint folder ({})", folder.string(),
                                                      error ? error.message() : "a file stands there"));
  const std::string header = nlohmann::json{{"scene_hash", key.scene_hash}, {"fxsim_version", key.version},
                                            {"backend", key.backend}, {"frame", frame}, {"step", step},
                                            {"time", time}, {"state_bytes", state.size()}}.dump();
  // The state in pieces, compressed at once on every thread.
  const size_t count = std::max<size_t>(1, (state.size() + kPieceBytes - 1) / kPieceBytes);
  std::vector<std::vector<uint8_t>> packed(count);
  ThreadPool pool(threads);
  pool.run(count, [&](size_t i) {
    const size_t begin = i * kPieceBytes, size = std::min(kPieceBytes, state.size() - std::min(begin, state.size()));
    uLongf bytes = compressBound(uLong(size));
    packed[i].resize(bytes);
    if (compress2(packed[i].data(), &bytes, state.data() + begin, uLong(size), 1) != Z_OK)
      throw FxError(ExitCode::internal, "cannot compress a checkpoint");
    packed[i].resize(bytes);
  });
  std::vector<uint8_t> bytes(kMagic, kMagic + 8);
  put(bytes, kCheckpointFormat);
  put(bytes, uint32_t(header.size()));
  bytes.insert(bytes.end(), header.begin(), header.end());
  put(bytes, uint32_t(count));
  for (size_t i = 0; i < count; ++i) {
    put(bytes, uint64_t(std::min(kPieceBytes, state.size() - std::min(i * kPieceBytes, state.size()))));
    put(bytes, uint64_t(packed[i].size()));
  }
  for (const auto& piece : packed) bytes.insert(bytes.end(), piece.begin(), piece.end());
  const std::vector<uint8_t> sum = [&] {
    Sha256 digest;
    digest.add(bytes.data(), bytes.size());
    return digest.digest();
  }();
  bytes.insert(bytes.end(), sum.begin(), sum.end());

  // Whole or not at all: a temporary file (removed by an interrupt) renamed into place.
  const fs::path path = folder / checkpoint_file_name(frame);
  check_output_path(path.string());
  const fs::path temporary = partial_path(path);
  const PartialFile partial(temporary);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (size_t done = 0; ok && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += size_t(n);
  }
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int why = errno;
    ::unlink(temporary.c_str());
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot write the checkpoint ({})", path.string(), std::strerror(why)));
  }
  return path;
}

CheckpointInfo read_checkpoint_info(const fs::path& path) {
  const std::vector<uint8_t> start = read_whole(path, 1 << 16);  // the header is a few hundred bytes
  Cursor c(path, start);
  return parse_header(path, c);
}

namespace {
bool digest_matches(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < kDigestBytes) return false;
  Sha256 digest;
  digest.add(bytes.data(), bytes.size() - kDigestBytes);
  return std::memcmp(digest.digest().data(), bytes.data() + bytes.size() - kDigestBytes, kDigestBytes) == 0;
}
}  // namespace

bool checkpoint_intact(const fs::path& path) {
  try {
    return digest_matches(read_whole(path));
  } catch (const FxError&) {
    return false;
  }
}

std::vector<uint8_t> read_checkpoint_state(const fs::path& path, int threads) {
  const std::vector<uint8_t> bytes = read_whole(path);
  if (bytes.size() < kDigestBytes) damaged(path, "truncated");
  if (!digest_matches(bytes)) damaged(path, "its SHA-256 does not match: damaged or truncated");
  Cursor c(path, bytes);
  const CheckpointInfo info = parse_header(path, c);
  const uint32_t count = c.get<uint32_t>();
  // Each piece is 16 bytes of the table: no more than the file holds (before
  // the table is allocated), and as written: every piece kPieceBytes of the
  // state but the last, which is at most that. So the sizes add up without
  // overflow, and each piece is uncompressed into its own part of the state.
  if (count == 0 || count > (bytes.size() - c.at()) / 16) damaged(path, "its table of pieces does not fit it");
  std::vector<Piece> pieces(count);
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    Piece& p = pieces[i];
    p.raw = c.get<uint64_t>();
    p.packed = c.get<uint64_t>();
    if (i + 1 < count ? p.raw != kPieceBytes : p.raw > kPieceBytes) damaged(path, "its pieces are not as written");
    // Deflate turns a byte of its stream into at most 1032 (a run of 258 in
    // two bits): a piece claiming more cannot be whole, and a table of such
    // pieces had the state allocated from a 1 KB file (1 GB for 64 pieces).
    if (p.raw > kMostInflated * p.packed) damaged(path, "its pieces claim more than their compressed bytes can hold");
    total += p.raw;
  }
  if (total != info.state_bytes) damaged(path, "its pieces do not add up to its state");
  std::vector<const uint8_t*> at(count);
  for (uint32_t i = 0; i < count; ++i) at[i] = c.take(pieces[i].packed);
  if (c.at() + kDigestBytes != bytes.size()) damaged(path, "trailing bytes");
  std::vector<uint8_t> state(info.state_bytes);
  std::vector<size_t> offset(count, 0);
  for (uint32_t i = 1; i < count; ++i) offset[i] = offset[i - 1] + pieces[i - 1].raw;
  ThreadPool pool(threads);
  std::vector<int> failed(count, 0);
  pool.run(count, [&](size_t i) {
    uLongf size = uLongf(pieces[i].raw);
    failed[i] = uncompress(state.data() + offset[i], &size, at[i], uLong(pieces[i].packed)) != Z_OK || size != pieces[i].raw;
  });
  if (std::count(failed.begin(), failed.end(), 1) > 0) damaged(path, "its state cannot be uncompressed");
  return state;
}

std::optional<LoadedCheckpoint> load_checkpoint(const fs::path& folder, const CheckpointKey& key, int at_most,
                                                uint64_t most_state_bytes, std::vector<std::string>& warnings,
                                                int threads) {
  std::error_code error;
  if (!fs::is_directory(folder, error)) return std::nullopt;
  std::vector<CheckpointInfo> fitting;
  // In name order (the warnings too: the folder's own order is any); a
  // checkpoint past `at_most` could not have served, and is passed over
  // without a word.
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder, error))
    if (entry.path().extension() == ".fxck" && entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    CheckpointInfo info;
    try {
      info = read_checkpoint_info(file);
    } catch (const FxError& e) {
      warnings.push_back(fmt::format("ignoring {}", e.what()));
      continue;
    }
    if (info.frame < 1 || info.frame > at_most) continue;
    if (info.key.scene_hash != key.scene_hash) {
      warnings.push_back(fmt::format("ignoring checkpoint {}: it is of another scene (or other overrides)",
                                     file.string()));
    } else if (info.key.version != key.version) {
      warnings.push_back(fmt::format("ignoring checkpoint {}: made by fxsim {}, this is fxsim {}", file.string(),
                                     info.key.version, key.version));
    } else if (info.key.backend != key.backend) {
      warnings.push_back(fmt::format("ignoring checkpoint {}: made by the {} backend, this render uses the {} backend",
                                     file.string(), info.key.backend, key.backend));
    } else {
      fitting.push_back(std::move(info));
    }
  }
  // The newest first; a damaged one is passed over for the one before it.
  std::sort(fitting.begin(), fitting.end(), [](const auto& a, const auto& b) { return a.frame > b.frame; });
  for (CheckpointInfo& info : fitting) {
    // Its header's word, before the state is allocated: a hand-made 1 MB file
    // could claim 1 GB of state in pieces deflate could give.
    if (info.state_bytes > most_state_bytes) {
      warnings.push_back(fmt::format("ignoring checkpoint {}: its header claims a state of {} bytes, more than this "
                                     "scene's state can take ({} bytes)",
                                     info.path.string(), info.state_bytes, most_state_bytes));
      continue;
    }
    try {
      std::vector<uint8_t> state = read_checkpoint_state(info.path, threads);
      return LoadedCheckpoint{std::move(info), std::move(state)};
    } catch (const FxError& e) {
      warnings.push_back(fmt::format("ignoring {}", e.what()));
    }
  }
  return std::nullopt;
}

}  // namespace fxsim
