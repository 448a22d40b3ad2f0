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
#include "core/sha256.h"
#include "render/atomic_file.h"
#include "render/output_files.h"

namespace fxsim {

namespace fs = std::filesystem;

namespace {
constexpr char kMagic[8] = {'F', 'X', 'S', 'I', 'M', 'C', 'K', 'P'};
constexpr size_t kDigestBytes = 32;

template <class T>
void put(std::vector<uint8_t>& out, T v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

template <class T>
T get(const std::vector<uint8_t>& in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  return v;
}

std::vector<uint8_t> read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FxError(ExitCode::input_missing, fmt::format("{}: cannot read the checkpoint", path.string()));
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

[[noreturn]] void damaged(const fs::path& path, const std::string& why) {
  throw FxError(ExitCode::input_missing, fmt::format("{}: not a usable checkpoint ({})", path.string(), why));
}

// The header of a checkpoint's bytes, and where its compressed state starts.
CheckpointInfo parse(const fs::path& path, const std::vector<uint8_t>& bytes, bool verify_digest, size_t* state_at,
                     uint64_t* compressed) {
  if (bytes.size() < 8 + 4 + 4 || std::memcmp(bytes.data(), kMagic, 8) != 0) damaged(path, "not an fxsim checkpoint");
  if (const uint32_t format = get<uint32_t>(bytes, 8); format != kCheckpointFormat)
    damaged(path, fmt::format("format {}, this fxsim reads format {}", format, kCheckpointFormat));
  const uint32_t header_bytes = get<uint32_t>(bytes, 12);
  if (bytes.size() < 16 + size_t(header_bytes) + 8 + kDigestBytes) damaged(path, "truncated");
  const size_t at = 16 + header_bytes;
  const uint64_t length = get<uint64_t>(bytes, at);
  if (length > bytes.size() || bytes.size() != at + 8 + length + kDigestBytes) damaged(path, "truncated");
  if (verify_digest) {
    Sha256 digest;
    digest.add(bytes.data(), bytes.size() - kDigestBytes);
    if (std::memcmp(digest.digest().data(), bytes.data() + bytes.size() - kDigestBytes, kDigestBytes) != 0)
      damaged(path, "its SHA-256 does not match: damaged");
  }
  CheckpointInfo info;
  info.path = path;
  try {
    const auto header = nlohmann::json::parse(bytes.begin() + 16, bytes.begin() + std::ptrdiff_t(at));
    info.key = {header.at("scene_hash"), header.at("fxsim_version"), header.at("backend")};
    info.frame = header.at("frame");
    info.step = header.at("step");
    info.time = header.at("time");
    info.state_bytes = header.at("state_bytes");
  } catch (const nlohmann::json::exception& e) {
    damaged(path, fmt::format("its header cannot be read: {}", e.what()));
  }
  if (state_at) *state_at = at + 8;
  if (compressed) *compressed = length;
  return info;
}
}  // namespace

std::string checkpoint_file_name(int frame) { return fmt::format("checkpoint_{:06}.fxck", frame); }

fs::path write_checkpoint(const fs::path& folder, const CheckpointKey& key, int frame, int64_t step, double time,
                          const std::vector<uint8_t>& state) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (!fs::is_directory(folder))
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot make the checkpoint folder", folder.string()));
  const std::string header = nlohmann::json{{"scene_hash", key.scene_hash}, {"fxsim_version", key.version},
                                            {"backend", key.backend}, {"frame", frame}, {"step", step},
                                            {"time", time}, {"state_bytes", state.size()}}.dump();
  uLongf packed_bytes = compressBound(uLong(state.size()));
  std::vector<uint8_t> packed(packed_bytes);
  if (compress2(packed.data(), &packed_bytes, state.data(), uLong(state.size()), 1) != Z_OK)
    throw FxError(ExitCode::internal, "cannot compress a checkpoint");
  packed.resize(packed_bytes);
  std::vector<uint8_t> bytes(kMagic, kMagic + 8);
  put(bytes, kCheckpointFormat);
  put(bytes, uint32_t(header.size()));
  bytes.insert(bytes.end(), header.begin(), header.end());
  put(bytes, uint64_t(packed.size()));
  bytes.insert(bytes.end(), packed.begin(), packed.end());
  Sha256 digest;
  digest.add(bytes.data(), bytes.size());
  const std::vector<uint8_t> sum = digest.digest();
  bytes.insert(bytes.end(), sum.begin(), sum.end());

  // Whole or not at all: a temporary file (removed by an interrupt) renamed into place.
  const fs::path path = folder / checkpoint_file_name(frame);
  check_output_path(path.string());
  const fs::path temporary = fmt::format("{}.partial-{}", path.string(), getpid());
  {
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
  }
  return path;
}

CheckpointInfo read_checkpoint_info(const fs::path& path, bool verify_digest) {
  return parse(path, read_whole(path), verify_digest, nullptr, nullptr);
}

std::vector<uint8_t> read_checkpoint_state(const CheckpointInfo& info) {
  const std::vector<uint8_t> bytes = read_whole(info.path);
  size_t at = 0;
  uint64_t length = 0;
  const CheckpointInfo again = parse(info.path, bytes, true, &at, &length);
  std::vector<uint8_t> state(again.state_bytes);
  uLongf size = uLongf(state.size());
  if (uncompress(state.data(), &size, bytes.data() + at, uLong(length)) != Z_OK || size != state.size())
    damaged(info.path, "its state cannot be uncompressed");
  return state;
}

std::optional<CheckpointInfo> find_checkpoint(const fs::path& folder, const CheckpointKey& key, int at_most,
                                              std::vector<std::string>& warnings) {
  std::error_code error;
  if (!fs::is_directory(folder, error)) return std::nullopt;
  std::vector<CheckpointInfo> fitting;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().extension() != ".fxck" || !entry.is_regular_file()) continue;
    CheckpointInfo info;
    try {
      info = read_checkpoint_info(entry.path(), false);  // the digest only of the one chosen
    } catch (const FxError& e) {
      warnings.push_back(fmt::format("ignoring {}", e.what()));
      continue;
    }
    if (info.key.scene_hash != key.scene_hash) {
      warnings.push_back(fmt::format("ignoring checkpoint {}: it is of another scene (or other overrides)",
                                     entry.path().string()));
    } else if (info.key.version != key.version) {
      warnings.push_back(fmt::format("ignoring checkpoint {}: made by fxsim {}, this is fxsim {}", entry.path().string(),
                                     info.key.version, key.version));
    } else if (info.key.backend != key.backend) {
      warnings.push_back(fmt::format("ignoring checkpoint {}: made by the {} backend, this render uses the {} backend",
                                     entry.path().string(), info.key.backend, key.backend));
    } else if (info.frame >= 1 && info.frame <= at_most) {
      fitting.push_back(std::move(info));
    }
  }
  std::sort(fitting.begin(), fitting.end(), [](const auto& a, const auto& b) { return a.frame > b.frame; });
  for (const CheckpointInfo& info : fitting) {
    try {
      read_checkpoint_info(info.path, true);
      return info;
    } catch (const FxError& e) {
      warnings.push_back(fmt::format("ignoring {}", e.what()));
    }
  }
  return std::nullopt;
}

}  // namespace fxsim
