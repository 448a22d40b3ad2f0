#pragma once
// The render manifest: every run appends to fxsim-manifest.jsonl in its output
// folder a line describing the run, then one line per frame written (its
// files with size and SHA-256, the simulation's state hash, the time taken)
// and one per video once it is in place (a video's folder has its own
// manifest, with a run line of its own where no frames go there).
// Several shards may append to one manifest at once: each line is one write
// under an exclusive lock. `fxsim verify` reads it back (docs/farms.md).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fxsim {

constexpr const char* kManifestName = "fxsim-manifest.jsonl";

struct ManifestRun {
  std::string run;          // an id unique to the run (host, pid, start time)
  std::string started;      // UTC, ISO 8601
  std::string scene;        // the scene file as given
  std::string scene_hash;   // Scene::simulation_key
  std::string look_hash;    // Scene::look_key ("" in manifests from before it)
  std::string fxsim_version;
  std::string device;       // the GL's renderer
  std::string backend;      // "cpu", or "gpu on <device class>"
  std::string output;       // the frame path pattern, relative to the manifest's folder; "": no frames (a video only)
  std::vector<std::string> videos;  // the videos it is to write into the manifest's folder (file names)
  int width = 0, height = 0;
  std::string shard;        // "2/4", or "" when not sharded
  std::vector<int> frames;  // the frames this run is to write (skipped ones included)
  // A shard's: the frames of every shard together, as --frames writes them
  // ("1-48"), so that verify misses the frames of a shard that never ran; "" unsharded.
  std::string selection;

  bool writes_frames() const { return !output.empty(); }
};

struct ManifestFile {
  std::string file;  // relative to the manifest's folder
  uint64_t bytes = 0;
  std::string sha256;
};

struct ManifestFrame {
  std::string run;
  int frame = 0;
  std::vector<ManifestFile> files;  // the frame's image first, then its layers
  std::string state_hash;           // 16 hex digits, as --state-hashes writes them
  // InputDigest::of_frame: the contents of the textures and plates it was
  // drawn from ("" where the scene reads none, in records of frames kept
  // without a line, and in manifests from before it).
  std::string inputs;
  double seconds = 0;               // simulate + draw + read back
};

struct ManifestVideo {
  std::string run;
  ManifestFile file;  // as renamed into place, once ffmpeg had finished
  int frames = 0;     // the frames it shows
};

// Appends lines to FOLDER/fxsim-manifest.jsonl (made if missing).
class ManifestWriter {
 public:
  explicit ManifestWriter(std::filesystem::path folder);
  void add(const ManifestRun& run);
  void add(const ManifestFrame& frame);
  void add(const ManifestVideo& video);
  const std::filesystem::path& folder() const { return folder_; }

 private:
  void append(const std::string& line);
  std::filesystem::path folder_;
};

struct Manifest {
  std::vector<ManifestRun> runs;
  std::vector<ManifestFrame> frames;
  std::vector<ManifestVideo> videos;
  std::vector<std::string> bad_lines;  // "line N: why"
};

// One run's record in one folder's manifest: its run line, written once by
// the first of the run's outputs there to start (the frames, a video), then
// the records of each.
class RunManifest {
 public:
  RunManifest(std::filesystem::path folder, ManifestRun run) : writer_(std::move(folder)), run_(std::move(run)) {}
  void begin() {
    if (!begun_) writer_.add(run_), begun_ = true;
  }
  ManifestRun& run() { return run_; }
  ManifestWriter& writer() { return writer_; }

 private:
  ManifestWriter writer_;
  ManifestRun run_;
  bool begun_ = false;
};

// Throws FxError(input_missing) when the manifest cannot be read.
Manifest read_manifest(const std::filesystem::path& file);

// A run id: host, pid and the time, unique enough across a farm.
std::string new_run_id();
std::string utc_now();

}  // namespace fxsim
