#include "cli/render_farm.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <map>
#include <set>
#include <sstream>

#include "cli/progress.h"
#include "core/exit_codes.h"
#include "core/exr_file.h"
#include "core/frame_output.h"
#include "core/image.h"
#include "core/input_digest.h"
#include "core/parallel.h"
#include "core/sha256.h"
#include "render/child_process.h"
#include "render/egl_context.h"
#include "render/frame_sinks.h"

namespace fxsim {

namespace fs = std::filesystem;

std::optional<Shard> choose_shard(const RenderOptions& options) {
  if (options.shard) {
    std::optional<Shard> shard = parse_shard(*options.shard);
    if (!shard) throw FxError(ExitCode::usage, fmt::format("--shard {}: expected I/N with 1 <= I <= N", *options.shard));
    if (options.shard_count)
      throw FxError(ExitCode::usage, fmt::format("--shard-count {} is the count of a Kubernetes Indexed Job's shards "
                                                 "(with JOB_COMPLETION_INDEX); --shard {} gives its count itself",
                                                 *options.shard_count, *options.shard));
    return shard;
  }
  std::optional<Shard> shard =
      shard_from_environment([](const char* name) { return std::getenv(name); }, options.shard_count);
  // Ignored, it rendered every frame in every pod of a Job left NonIndexed.
  if (!shard && options.shard_count)
    throw FxError(ExitCode::usage, fmt::format("--shard-count {}: JOB_COMPLETION_INDEX is not set (nor "
                                               "SLURM_ARRAY_TASK_ID), so every frame would be rendered; run it in "
                                               "an Indexed Job (completionMode: Indexed) or give --shard I/N",
                                               *options.shard_count));
  return shard;
}

fs::path checkpoint_folder(const RenderOptions& options, const std::string& output_pattern) {
  if (options.checkpoints) return *options.checkpoints;
  fs::path folder = fs::path(output_pattern).parent_path();
  // Frames in folders of their own (out/####/f.png): the folder above the first '#'.
  while (folder.string().find('#') != std::string::npos) folder = folder.parent_path();
  return folder / "checkpoints";
}

namespace {
// Whether `file` is there, whole, at width × height: a regular file (a link
// there is not written; the render then refuses to replace it, as verify does).
bool whole(const fs::path& file, int width, int height) {
  std::error_code error;
  if (!fs::is_regular_file(fs::symlink_status(file, error))) return false;
  if (image_format_of(file.string()) == ImageFormat::exr) {
    try {
      const ExrChannels exr = read_exr(file);
      return exr.width == width && exr.height == height;
    } catch (const FxError&) {
      return false;
    }
  }
  if (file.extension() != ".png") return true;  // a plate copy in another format: its bytes are the plate's
  int w = 0, h = 0;
  return png_problem(file, &w, &h, PngUse::frame).empty() && w == width && h == height;
}
}  // namespace

std::vector<int> frames_to_write(const Scene& scene, const std::string& pattern, const fs::path& folder,
                                 const std::vector<int>& frames, const std::function<std::string()>& this_backend) {
  // Each file's latest record (a frame drawn again is recorded again), and
  // the simulation and look keys and the fxsim version of the run that wrote
  // it: a frame of another scene or look (a seed, an exposure or an override
  // since), or drawn by another fxsim (whose flames or fireballs may differ),
  // is drawn again, not kept beside this one's.
  struct Record {
    ManifestFile file;
    std::string inputs;  // the frame's
    std::string scene_hash, look_hash, version, backend;
    bool run_known = true;  // its record names a run line of the manifest
  };
  std::optional<std::string> ours_backend;  // asked for once, when first needed
  const auto backend_differs = [&](const std::string& backend) {
    if (backend.empty()) return false;  // a manifest from before runs recorded it
    if (!ours_backend) ours_backend = this_backend();
    return backend != *ours_backend;
  };
  std::map<std::string, Record> recorded;
  // A frame written but not recorded (its run killed between the two) was
  // written by one of the runs that were to write its image: kept only where
  // each of them is of this scene and look. Its file said nothing of the
  // seed or the exposure that made it (a seed changed since was kept, and
  // verify passed the mixed folder); a file no run line accounts for (a
  // manifest removed, a file copied in) is drawn again.
  struct Planned {
    bool ours = true;                  // every run that was to write it is of this scene and look
    std::set<std::string> backends;    // and of these backends
  };
  std::map<std::string, Planned> planned_here;  // image file -> the runs that were to write it
  std::error_code error;
  if (fs::exists(folder / kManifestName, error)) {
    const Manifest manifest = read_manifest(folder / kManifestName);
    std::map<std::string, const ManifestRun*> runs;
    for (const ManifestRun& run : manifest.runs) {
      runs[run.run] = &run;
      if (!run.writes_frames()) continue;  // (a video's run)
      const bool ours = run.scene_hash == scene.simulation_key && run.look_hash == scene.look_key &&
                        run.fxsim_version == FXSIM_VERSION;
      for (const int frame : run.frames) {
        Planned& planned = planned_here[frame_path(run.output, frame)];
        planned.ours = planned.ours && ours;
        planned.backends.insert(run.backend);
      }
    }
    for (const ManifestFrame& f : manifest.frames) {
      const auto run = runs.find(f.run);
      for (const ManifestFile& file : f.files)
        recorded[file.file] = {file, f.inputs, run == runs.end() ? "" : run->second->scene_hash,
                               run == runs.end() ? "" : run->second->look_hash,
                               run == runs.end() ? "" : run->second->fxsim_version,
                               run == runs.end() ? "" : run->second->backend, run != runs.end()};
    }
  }
  // The textures and plates a frame reads: one drawn from files changed
  // since is drawn again. A frame whose record does not say what it was
  // drawn from (kept without a line, or from before records did) is drawn
  // again where the scene reads such files. One whose plate is gone now
  // (a farm that removes the plates of finished frames) cannot be checked
  // against it, and is kept.
  const InputDigest inputs(scene);
  int digested = 0;  // the frame `digest` is of (frames count from 1): its files share it
  std::optional<std::string> digest;
  const auto inputs_of = [&](int frame) -> const std::optional<std::string>& {
    if (frame != digested) digest = inputs.of_frame_now(frame), digested = frame;
    return digest;
  };
  const auto as_recorded = [&](const fs::path& file, const fs::path& image, int frame) {
    const auto record = recorded.find(file.lexically_relative(folder).string());
    if (record == recorded.end()) {  // written and not recorded (a run stopped between): kept, then recorded, if ours
      if (inputs.any()) return false;
      const auto planned = planned_here.find(image.lexically_relative(folder).string());
      if (planned == planned_here.end() || !planned->second.ours) return false;
      const std::set<std::string>& backends = planned->second.backends;
      return std::none_of(backends.begin(), backends.end(), backend_differs);
    }
    // A record whose run line is gone (edited away) says of no scene: verify
    // calls it corrupt, and it was kept.
    if (!record->second.run_known) return false;
    if (!record->second.scene_hash.empty() && record->second.scene_hash != scene.simulation_key) return false;
    if (!record->second.look_hash.empty() && record->second.look_hash != scene.look_key) return false;
    if (!record->second.version.empty() && record->second.version != FXSIM_VERSION) return false;
    if (backend_differs(record->second.backend)) return false;
    if (const std::optional<std::string>& now = inputs_of(frame); now && record->second.inputs != *now) return false;
    uint64_t bytes = 0;
    const std::string sha = sha256_of_file(file, bytes);
    return bytes == record->second.file.bytes && sha == record->second.file.sha256;
  };
  std::vector<int> out;
  for (const int frame : frames) {
    bool done = true;
    const std::vector<fs::path> files = frame_files(scene, pattern, frame);
    for (const fs::path& file : files)
      done = done && whole(file, scene.output.width, scene.output.height) && as_recorded(file, files.front(), frame);
    if (!done) out.push_back(frame);
  }
  return out;
}

std::vector<ManifestFrame> unrecorded_frames(const Scene& scene, const std::string& pattern, const fs::path& folder,
                                             const std::vector<int>& kept, const std::string& run) {
  std::set<std::string> recorded;
  std::error_code error;
  if (fs::exists(folder / kManifestName, error))
    for (const ManifestFrame& f : read_manifest(folder / kManifestName).frames)
      if (!f.files.empty()) recorded.insert(f.files.front().file);
  std::vector<ManifestFrame> out;
  for (const int frame : kept) {
    const std::vector<fs::path> files = frame_files(scene, pattern, frame);
    if (recorded.count(files.front().lexically_relative(folder).string())) continue;
    ManifestFrame record;
    record.run = run;
    record.frame = frame;
    for (const fs::path& file : files) {
      uint64_t bytes = 0;
      const std::string sha = sha256_of_file(file, bytes);
      record.files.push_back({file.lexically_relative(folder).string(), bytes, sha});
    }
    out.push_back(std::move(record));
  }
  return out;
}

int run_on_devices(const RenderOptions& options) {
  std::vector<int> devices;
  std::stringstream list(*options.devices);
  for (std::string item; std::getline(list, item, ',');) {
    char* end = nullptr;
    const long d = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || d < 0 || d > 255)
      throw FxError(ExitCode::usage, fmt::format("--devices {}: expected device indices such as 0,1", *options.devices));
    devices.push_back(int(d));
  }
  if (devices.empty()) throw FxError(ExitCode::usage, "--devices: expected device indices such as 0,1");
  if (devices.size() > size_t(kMaxChildProcesses))
    throw FxError(ExitCode::usage, fmt::format("--devices {}: at most {} shards at once", *options.devices,
                                               kMaxChildProcesses));
  if (options.shard || options.device)
    throw FxError(ExitCode::usage, "--devices runs one shard per device itself: give it without --shard and --device");
  if (options.scene == "-")
    throw FxError(ExitCode::usage, "--devices: a scene on standard input can be read once, not by each device's "
                                   "shard: save it to a file and name that");
  // A cluster's task (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX) renders its
  // own shard, split across the devices: shard i of N on D devices is
  // shards (i-1)·D+1 … i·D of N·D, whose frames are exactly shard i's. (Every
  // task rendered every frame.)
  const std::optional<Shard> cluster = choose_shard(options);
  const size_t shards = devices.size() * size_t(cluster ? cluster->count : 1);
  if (shards > size_t(kMaxShards))
    throw FxError(ExitCode::usage, fmt::format("--devices {}: {} shards of {} on {} devices are {} shards, more than the "
                                               "{} fxsim splits frames into", *options.devices, cluster->count,
                                               cluster->source, devices.size(), shards, kMaxShards));
  const size_t first = devices.size() * size_t(cluster ? cluster->index - 1 : 0);
  // Each device there before any child starts: not found by one child
  // after the others have written their frames. (A device named twice runs
  // two shards.)
  const size_t found = EglContext::list_devices().size();
  for (const int d : devices)
    if (size_t(d) >= found)
      throw FxError(ExitCode::no_gl, fmt::format("--devices {}: there is no EGL device {} ({} found; see `fxsim info`)",
                                                 *options.devices, d, found));
  const auto started = std::chrono::steady_clock::now();
  // The same command line without --devices, plus each child's device and shard.
  std::vector<std::string> base;
  for (size_t i = 0; i < options.argv.size(); ++i) {
    const std::string& a = options.argv[i];
    if (a == "--devices") {
      ++i;
      continue;
    }
    if (a.rfind("--devices=", 0) == 0) continue;
    if (cluster && a == "--shard-count") {  // each child's shard is given whole
      ++i;
      continue;
    }
    if (cluster && a.rfind("--shard-count=", 0) == 0) continue;
    base.push_back(i == 0 ? fs::read_symlink("/proc/self/exe").string() : a);
  }
  // The cores are shared: without --threads each child gets its share
  // (N renders each using every core would fight over them for PNG encoding).
  if (options.threads == 0)
    base.insert(base.end(), {"--threads", std::to_string(std::max(1, thread_count(0) / int(devices.size())))});
  std::vector<std::unique_ptr<ChildProcess>> children;
  for (size_t k = 0; k < devices.size(); ++k) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), {"--device", std::to_string(devices[k]), "--shard",
                             fmt::format("{}/{}", first + k + 1, shards)});
    if (!options.quiet)
      note(fmt::format("shard {}/{} on device {}{}", first + k + 1, shards, devices[k],
                       cluster ? fmt::format(" (of {}, shard {}/{})", cluster->source, cluster->index, cluster->count)
                               : ""));
    // An interrupt passes on to each shard, which stops after the frame it is writing.
    children.push_back(std::make_unique<ChildProcess>(argv, OnInterrupt::pass_on));
  }
  int status = 0;
  for (size_t k = 0; k < children.size(); ++k) {
    const int exit_status = children[k]->finish();
    // A shard stopped by a signal (killed by the system, say) ends the run as
    // a signal ends a render: 128 + N.
    const int s = children[k]->signal() != 0 ? 128 + children[k]->signal() : exit_status;
    if (s != 0 && status == 0) status = s;
    if (s != 0)
      note(fmt::format("the shard on device {} ended ({}): {}", devices[k], children[k]->ending(),
                       children[k]->error_tail()));
  }
  if (status == 0 && !options.quiet)
    note(fmt::format("{} shard{} of {} rendered on device{} {} in {:.2f} s", devices.size(),
                     devices.size() == 1 ? "" : "s", scene_name(options.scene), devices.size() == 1 ? "" : "s",
                     *options.devices,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()));
  return status;
}

}  // namespace fxsim
