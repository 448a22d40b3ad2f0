#include "core/manifest.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "core/exit_codes.h"
#include "core/frame_output.h"
#include "core/limits.h"

namespace fxsim {

namespace fs = std::filesystem;
using nlohmann::json;

ManifestWriter::ManifestWriter(fs::path folder) : folder_(std::move(folder)) {}

void ManifestWriter::append(const std::string& line) {
  const fs::path file = folder_ / kManifestName;
  // O_NONBLOCK: a FIFO standing there must not hang the render (its open
  // would wait for a reader); O_NOFOLLOW: nor a link lead elsewhere. Only a
  // regular file is appended to.
  const int fd = ::open(file.c_str(), O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int error = errno;
    struct stat there {};
    const bool odd = fd >= 0 || ((error == ELOOP || error == ENXIO) && ::lstat(file.c_str(), &there) == 0);
    if (fd >= 0) ::close(fd);
    throw FxError(ExitCode::cannot_write,
                  odd ? fmt::format("{}: exists and is not a regular file; fxsim appends only to a regular file", file.string())
                      : fmt::format("{}: cannot append to the manifest ({})", file.string(), std::strerror(error)));
  }
  // One write per line under a lock: shards appending at once never interleave.
  ::flock(fd, LOCK_EX);
  // A file whose last line has no end (an editor that drops it, a write cut
  // short by a full disk) gets one first: else this line would be glued to it
  // and both records lost.
  char last = '\n';
  const bool sized = ::fstat(fd, &st) == 0;
  if (sized && st.st_size > 0 && ::pread(fd, &last, 1, st.st_size - 1) != 1) last = '\n';
  const std::string text = (last == '\n' ? "" : "\n") + line + "\n";
  size_t done = 0;
  bool ok = true;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += size_t(n);
  }
  const int error = errno;
  // A line cut short (a full disk) is taken back: the file keeps whole lines.
  if (!ok && done > 0 && sized) (void)::ftruncate(fd, st.st_size);
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (!ok)
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot append to the manifest ({})", file.string(), std::strerror(error)));
}

void ManifestWriter::add(const ManifestRun& r) {
  json line{{"type", "run"}, {"run", r.run}, {"started", r.started}, {"scene", r.scene}, {"scene_hash", r.scene_hash},
            {"look_hash", r.look_hash}, {"fxsim_version", r.fxsim_version}, {"device", r.device}, {"backend", r.backend}, {"output", r.output},
            {"width", r.width}, {"height", r.height}, {"shard", r.shard}, {"frames", r.frames}};
  if (!r.selection.empty()) line["selection"] = r.selection;
  if (!r.videos.empty()) line["videos"] = r.videos;
  append(line.dump());
}

void ManifestWriter::add(const ManifestFrame& f) {
  json files = json::array();
  for (const ManifestFile& file : f.files) files.push_back({{"file", file.file}, {"bytes", file.bytes}, {"sha256", file.sha256}});
  json line{{"type", "frame"}, {"run", f.run}, {"frame", f.frame}, {"files", files}, {"state_hash", f.state_hash},
            {"seconds", std::round(f.seconds * 1e4) / 1e4}};
  if (!f.inputs.empty()) line["inputs"] = f.inputs;
  append(line.dump());
}

void ManifestWriter::add(const ManifestVideo& v) {
  append(json{{"type", "video"}, {"run", v.run}, {"file", v.file.file}, {"bytes", v.file.bytes}, {"sha256", v.file.sha256},
              {"frames", v.frames}}
             .dump());
}

namespace {
// A line's value that is not what it must be (the line is then damaged).
struct BadValue : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A whole number in lo..hi: a float or one out of range was read as a
// wrapped int ("width": 1e30 as -2147483648, a frame 2^63 as frame 0).
int whole_number(const json& value, const std::string& what, int lo, int hi) {
  // (JSON's 0 and up are unsigned: their lower bound is checked too.)
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() ? value.get<uint64_t>() < uint64_t(std::max(lo, 0)) || value.get<uint64_t>() > uint64_t(hi)
                                  : value.get<int64_t>() < lo || value.get<int64_t>() > hi))
    throw BadValue(fmt::format("{} is {}, not a whole number in {}..{}", what, value.dump(), lo, hi));
  return value.get<int>();
}
}  // namespace

Manifest read_manifest(const fs::path& path) {
  // Not opened unless a regular file: the open of a FIFO blocks until a writer comes.
  std::error_code error;
  if (fs::exists(path, error) && !fs::is_regular_file(path, error))
    throw FxError(ExitCode::input_missing, fmt::format("{}: not a regular file", path.string()));
  std::ifstream in(path);
  if (!in) throw FxError(ExitCode::input_missing, fmt::format("{}: no manifest to read", path.string()));
  Manifest m;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    try {
      const json j = json::parse(line);
      if (j.at("type") == "run") {
        ManifestRun r;
        r.run = j.at("run"), r.started = j.value("started", ""), r.scene = j.value("scene", "");
        r.scene_hash = j.at("scene_hash"), r.look_hash = j.value("look_hash", "");
        r.fxsim_version = j.value("fxsim_version", "");
        r.device = j.value("device", ""), r.backend = j.value("backend", ""), r.output = j.at("output");
        r.width = whole_number(j.at("width"), "\"width\"", 1, kMaxImageSide);
        r.height = whole_number(j.at("height"), "\"height\"", 1, kMaxImageSide);
        r.shard = j.value("shard", "");
        r.selection = j.value("selection", "");
        if (!r.selection.empty() && !parse_frame_selection(r.selection))
          throw BadValue(fmt::format("\"selection\" is {}, not a selection of frames", json(r.selection).dump()));
        const json& frames = j.at("frames");  // (an object's values, or a number, iterated too)
        if (!frames.is_array()) throw BadValue(fmt::format("\"frames\" is {}, not a list of frames", frames.dump()));
        for (const json& frame : frames) r.frames.push_back(whole_number(frame, "a frame", 1, kMaxFrames));
        if (j.contains("videos")) {
          const json& videos = j.at("videos");
          if (!videos.is_array()) throw BadValue(fmt::format("\"videos\" is {}, not a list of files", videos.dump()));
          for (const json& video : videos) r.videos.push_back(video.get<std::string>());
        }
        m.runs.push_back(std::move(r));
      } else if (j.at("type") == "frame") {
        ManifestFrame f;
        f.run = j.at("run"), f.frame = whole_number(j.at("frame"), "\"frame\"", 1, kMaxFrames);
        f.state_hash = j.value("state_hash", "");
        f.inputs = j.value("inputs", "");
        f.seconds = j.value("seconds", 0.0);
        const json& files = j.at("files");
        // A size is a count: -1 read as 18446744073709551615 bytes.
        if (std::any_of(files.begin(), files.end(), [](const json& file) { return !file.at("bytes").is_number_unsigned(); })) {
          m.bad_lines.push_back(fmt::format("line {}: a file's \"bytes\" is not a count of bytes", number));
          continue;
        }
        for (const json& file : files) f.files.push_back({file.at("file"), file.at("bytes"), file.at("sha256")});
        m.frames.push_back(std::move(f));
      } else if (j.at("type") == "video") {
        ManifestVideo v;
        v.run = j.at("run"), v.file.file = j.at("file"), v.file.sha256 = j.at("sha256");
        if (!j.at("bytes").is_number_unsigned()) throw BadValue("the video's \"bytes\" is not a count of bytes");
        v.file.bytes = j.at("bytes");
        v.frames = whole_number(j.at("frames"), "\"frames\"", 1, kMaxFrames);
        m.videos.push_back(std::move(v));
      } else {
        m.bad_lines.push_back(fmt::format("line {}: unknown type", number));
      }
    } catch (const BadValue& e) {
      m.bad_lines.push_back(fmt::format("line {}: {}", number, e.what()));
    } catch (const json::exception& e) {
      // A line cut short by a machine that died mid-write reads as damaged, not fatal.
      // nlohmann's "[json.exception.parse_error.101] " prefix says nothing to a user.
      std::string why = e.what();
      if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos) why.erase(0, why.find("] ") + 2);
      m.bad_lines.push_back(fmt::format("line {}: {}", number, why));
    }
  }
  return m;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string new_run_id() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return fmt::format("{}-{}-{:x}", host, getpid(), ns);
}

}  // namespace fxsim
