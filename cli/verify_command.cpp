// verify: a folder's frames against its manifest (core/manifest.h). Every
// frame a run was to write must have a record whose files are there, of the
// recorded size and SHA-256, and decode at the run's size; records of the
// same frame by runs of the same scene, version and backend must agree.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/exr_file.h"
#include "core/frame_output.h"
#include "core/image.h"
#include "core/manifest.h"
#include "core/sha256.h"
#include "render/atomic_file.h"

namespace fxsim {

namespace fs = std::filesystem;

namespace {
// Why `file` does not decode as a w × h image, or "".
std::string decode_problem(const fs::path& file, int width, int height) {
  int w = 0, h = 0;
  if (image_format_of(file.string()) == ImageFormat::exr) {
    try {
      const ExrChannels exr = read_exr(file);
      w = exr.width, h = exr.height;
    } catch (const FxError& e) {
      return e.what();
    }
  } else if (file.extension() == ".png") {
    if (std::string why = png_problem(file, &w, &h, PngUse::frame); !why.empty()) return why;
  } else {
    return "";
  }
  return w == width && h == height ? "" : fmt::format("it is {}x{}, the run's frames are {}x{}", w, h, width, height);
}

// The first folder below `folder` on the way to `file` (a path relative to
// it) that is a symbolic link, or empty: a frame reached through one
// (v/0001 linked elsewhere, for v/####/f.png) is gone once the link's target
// is, or when the folder is copied without following links.
fs::path linked_folder_on_the_way(const fs::path& folder, const fs::path& file) {
  fs::path at = folder;
  for (const fs::path& part : file.parent_path()) {
    at /= part;
    std::error_code error;
    if (fs::is_symlink(fs::symlink_status(at, error))) return at;
  }
  return {};
}
}  // namespace

int run_verify(const std::string& folder_text, bool quiet) {
  const fs::path folder = folder_text;
  const Manifest manifest = read_manifest(folder / kManifestName);
  std::vector<std::string> missing, corrupt, mismatched;
  for (const std::string& bad : manifest.bad_lines) corrupt.push_back(fmt::format("{}: {}", kManifestName, bad));
  // A render records its run before any frame: a manifest without one (empty,
  // cut short) vouches for nothing.
  if (manifest.runs.empty()) corrupt.push_back(fmt::format("{}: it records no run", kManifestName));

  std::map<std::string, const ManifestRun*> runs;
  for (const ManifestRun& r : manifest.runs) runs[r.run] = &r;
  // The latest record of each frame file, and the records' state hashes per run kind.
  std::map<std::string, const ManifestFrame*> latest;  // by the frame's image file
  std::map<std::string, std::map<std::string, std::string>> hashes;  // file → (scene, version, backend) → state hash
  // Frame files whose record was refused (said once, as corrupt: not again
  // as a frame without a record or a file no run was to write).
  std::set<std::string> refused;
  std::map<std::string, std::set<int>> run_frames;  // run → the frames it was to write (none for a video's run)
  for (const ManifestRun& r : manifest.runs)
    if (r.writes_frames()) run_frames[r.run].insert(r.frames.begin(), r.frames.end());
  // Records refused (the frame's image they claim, where known), said after
  // the loop unless a later record of the same frame stands: the frame was
  // drawn again since (--skip-existing draws such frames again), and the
  // manifest, appended to only, keeps the old line.
  struct Refusal {
    size_t at;
    std::string image, message;
    bool of_a_run;  // its run known: the frame is said once, as corrupt
  };
  std::vector<Refusal> refusals;
  std::map<std::string, size_t> recorded_at;  // image → its latest valid record's place
  for (size_t at = 0; at < manifest.frames.size(); ++at) {
    const ManifestFrame& f = manifest.frames[at];
    const auto run = runs.find(f.run);
    if (run == runs.end()) {
      refusals.push_back({at, f.files.empty() ? "" : f.files.front().file,
                          fmt::format("frame {}: its record names no known run ({})", f.frame, f.run), false});
      continue;
    }
    const ManifestRun& r = *run->second;
    const std::string own = frame_path(r.output, f.frame);
    const auto refuse = [&](const std::string& why) {
      refusals.push_back({at, own, fmt::format("{}: frame {}: {}", own, f.frame, why), true});
    };
    if (f.files.empty()) {
      refuse("its record lists no files");
      continue;
    }
    // Files are named relative to the folder: one outside it is no frame of
    // it (and is not read).
    if (const auto outside = std::find_if(f.files.begin(), f.files.end(), [](const ManifestFile& file) {
          const fs::path path = file.file;
          return path.is_absolute() || std::find(path.begin(), path.end(), "..") != path.end();
        });
        outside != f.files.end()) {
      refuse(fmt::format("its record names {}, outside the folder", outside->file));
      continue;
    }
    const std::string& image = f.files.front().file;
    // The record's frame is its file's (a record edited to another frame vouched for nothing).
    if (image != own) {
      refuse(fmt::format("its record names {} as its image", image));
      continue;
    }
    // And one its run was to write (a run line edited to fewer frames hid the rest).
    if (!run_frames[r.run].count(f.frame)) {
      refuse(fmt::format("its record's run {} was not to write it", r.run));
      continue;
    }
    latest[image] = &f;
    recorded_at[image] = at;
    if (f.state_hash.empty()) continue;  // recorded without one (--no-manifest-hashes, or kept by --skip-existing)
    const std::string kind = r.scene_hash + " " + r.fxsim_version + " " + r.backend;
    auto& seen = hashes[image];
    if (const auto it = seen.find(kind); it != seen.end() && it->second != f.state_hash)
      mismatched.push_back(fmt::format("{}: frame {} was simulated differently by two runs of the same scene, version "
                                       "and backend (state {} and {})", image, f.frame, it->second, f.state_hash));
    seen[kind] = f.state_hash;
  }
  for (const Refusal& refusal : refusals) {
    if (const auto later = recorded_at.find(refusal.image); later != recorded_at.end() && later->second > refusal.at)
      continue;
    corrupt.push_back(refusal.message);
    if (refusal.of_a_run) refused.insert(refusal.image);
  }
  // The scenes of the frames there now: each frame's latest record's run
  // (every frame drawn again with another seed is one scene again).
  std::set<std::string> current_runs, scenes, looks, backends, versions;
  for (const auto& [image, record] : latest) current_runs.insert(record->run);
  for (const ManifestRun& r : manifest.runs)
    if (current_runs.count(r.run)) {
      scenes.insert(r.scene_hash);
      if (!r.look_hash.empty()) looks.insert(r.look_hash + " " + r.scene_hash);
      if (!r.backend.empty()) backends.insert(r.backend);
      if (!r.fxsim_version.empty()) versions.insert(r.fxsim_version);
    }
  // The current runs, each named with what tells them apart ("run (scene)").
  const auto runs_with = [&](const auto& detail) {
    std::string list;
    for (const ManifestRun& r : manifest.runs)
      if (current_runs.count(r.run) && !detail(r).empty()) list += (list.empty() ? "" : ", ") + r.run + " (" + detail(r) + ")";
    return list;
  };
  if (scenes.size() > 1) {
    // Each scene with its runs: one file rendered with other overrides is
    // another scene under the same name (runs A, B, C of one name, "2 scenes").
    std::vector<std::string> groups;
    for (const std::string& scene : scenes) {
      std::vector<std::string> of_scene;
      std::string file;
      for (const ManifestRun& r : manifest.runs)
        if (current_runs.count(r.run) && r.scene_hash == scene) of_scene.push_back(r.run), file = r.scene;
      groups.push_back(fmt::format("{} (scene {}) in run{} {}", file, scene.substr(0, 8), of_scene.size() == 1 ? "" : "s",
                                   fmt::join(of_scene, ", ")));
    }
    mismatched.push_back(fmt::format("the folder holds frames of {} different scenes (or overrides): {}", scenes.size(),
                                     fmt::join(groups, "; ")));
  }
  else if (looks.size() > 1)
    mismatched.push_back(fmt::format("the folder holds frames of {} different looks of one simulation (exposure, fog, "
                                     "colours, lights…): runs {}", looks.size(),
                                     runs_with([&](const ManifestRun& r) { return r.look_hash.empty() ? "" : r.scene; })));
  // The GPU's arithmetic is its own: its frames differ from the CPU's within
  // the golden tolerance, and its state hashes differ (shards on a farm of
  // GPU and CPU nodes, --backend auto, mixed them without a word).
  if (backends.size() > 1)
    mismatched.push_back(fmt::format("the folder holds frames simulated by {} backends or GPU classes ({}), whose "
                                     "pixels and state hashes differ: runs {}", backends.size(),
                                     fmt::join(backends, ", "),
                                     runs_with([](const ManifestRun& r) { return r.backend; })));
  // A later fxsim may draw the same scene differently (0.2.0's flames).
  if (versions.size() > 1)
    mismatched.push_back(fmt::format("the folder holds frames drawn by {} versions of fxsim ({}), which may draw a scene "
                                     "differently: runs {}", versions.size(), fmt::join(versions, ", "),
                                     runs_with([](const ManifestRun& r) { return "fxsim " + r.fxsim_version; })));

  // Every frame every run was to write.
  std::set<std::string> expected;
  struct Drawn {
    size_t frames = 0;
    std::string first;  // image
  };
  std::map<std::pair<int, int>, Drawn> sizes;  // (width, height) → the frames last drawn so
  size_t files_checked = 0;
  // A recorded file there as written: a regular file (not a link, nor
  // reached through one) of the recorded size and SHA-256; else the problem
  // is added to `missing` or `corrupt` ("NAME: WHAT: why") and false returned.
  const auto as_recorded = [&](const ManifestFile& file, const std::string& what) {
    ++files_checked;
    const fs::path path = folder / file.file;
    std::error_code error;
    // A link is not the file the render wrote, even to the same bytes:
    // copied without following links, or once its target goes, the frame is gone.
    if (fs::is_symlink(fs::symlink_status(path, error))) {
      corrupt.push_back(fmt::format("{}: {}: a symbolic link stands there, not the file the render wrote", file.file, what));
      return false;
    }
    if (const fs::path link = linked_folder_on_the_way(folder, file.file); !link.empty()) {
      corrupt.push_back(fmt::format("{}: {}: reached through {}, a symbolic link, not the folder the render wrote into",
                                    file.file, what, link.string()));
      return false;
    }
    if (!fs::is_regular_file(path, error)) {
      if (fs::exists(path, error))
        corrupt.push_back(fmt::format("{}: {}: not a regular file stands there", file.file, what));
      else
        missing.push_back(fmt::format("{}: {}: the file is missing", file.file, what));
      return false;
    }
    uint64_t bytes = 0;
    const std::string sha = sha256_of_file(path, bytes);
    if (bytes != file.bytes)
      corrupt.push_back(fmt::format("{}: {}: {} bytes, the manifest says {}{}", file.file, what, bytes, file.bytes,
                                    bytes < file.bytes ? " (truncated?)" : " (written to since?)"));
    else if (sha != file.sha256)
      corrupt.push_back(fmt::format("{}: {}: its SHA-256 is not the one recorded", file.file, what));
    return bytes == file.bytes && sha == file.sha256;
  };
  for (const ManifestRun& r : manifest.runs)
    for (const int frame : r.writes_frames() ? r.frames : std::vector<int>{}) {
      const std::string image = frame_path(r.output, frame);
      if (!expected.insert(image).second) continue;
      const auto record = latest.find(image);
      if (record == latest.end()) {
        std::error_code error;
        if (refused.count(image)) continue;
        if (fs::exists(fs::symlink_status(folder / image, error)))  // (said "never written" with the file there)
          missing.push_back(fmt::format("{}: frame {} has no record: the file is there, but no line says which run "
                                        "wrote it (one stopped between writing and recording it?); render --skip-existing "
                                        "records it where every run that was to write it is of its scene and look, "
                                        "else draws it again",
                                        image, frame));
        else
          missing.push_back(fmt::format("{}: frame {} has no record (never written)", image, frame));
        continue;
      }
      // The size is that of the run that wrote the file last (a frame drawn again at another size is that run's).
      const ManifestRun& record_run = *runs.at(record->second->run);
      Drawn& drawn = sizes[{record_run.width, record_run.height}];
      if (drawn.frames++ == 0) drawn.first = image;
      for (const ManifestFile& file : record->second->files)
        if (as_recorded(file, fmt::format("frame {}", frame)))
          if (std::string why = decode_problem(folder / file.file, record_run.width, record_run.height); !why.empty())
            corrupt.push_back(fmt::format("{}: frame {}: {}", file.file, frame, why));
    }

  // The videos: each one a run was to write must have a record (the latest
  // of its file counts: a run that stopped before its video was done left
  // the one before in place), and be there as recorded. A video is checked
  // by its bytes, not decoded (that takes ffmpeg).
  std::map<std::string, const ManifestVideo*> latest_video;
  for (const ManifestVideo& v : manifest.videos) {
    const auto run = runs.find(v.run);
    if (run == runs.end())
      corrupt.push_back(fmt::format("{}: the video's record names no known run ({})", v.file.file, v.run));
    else if (std::find(run->second->videos.begin(), run->second->videos.end(), v.file.file) == run->second->videos.end())
      corrupt.push_back(fmt::format("{}: the video's record's run {} was not to write it", v.file.file, v.run));
    else
      latest_video[v.file.file] = &v;  // (a name from a run's list: no folder, inside this one)
  }
  std::set<std::string> expected_videos;
  for (const ManifestRun& r : manifest.runs)
    for (const std::string& video : r.videos) {
      if (fs::path(video).has_parent_path() || video == "." || video == "..") {
        corrupt.push_back(fmt::format("{}: run {} names a video outside the folder", video, r.run));
        continue;
      }
      if (!expected_videos.insert(video).second) continue;
      const auto record = latest_video.find(video);
      std::error_code error;
      if (record == latest_video.end())
        missing.push_back(fmt::format("{}: the video has no record: {}", video,
                                      fs::exists(fs::symlink_status(folder / video, error))
                                          ? "the file is there, but no line says it was finished (a run stopped "
                                            "between the two?)"
                                          : "never finished (the run stopped before it?); render it again, alone "
                                            "with -o NAME (--skip-existing resumes frames, not a video)"));
      else if (as_recorded(record->second->file, "the video"))
        // A video of another scene or look than the frames beside it (drawn
        // with another seed since) passed as the folder's.
        if (const ManifestRun& made = *runs.at(record->second->run);
            !scenes.empty() && (!scenes.count(made.scene_hash) ||
                                (!made.look_hash.empty() && !looks.empty() &&
                                 !looks.count(made.look_hash + " " + made.scene_hash))))
          mismatched.push_back(fmt::format("{}: the video was made by run {}, of another scene or look than the frames "
                                           "beside it (another seed, override or exposure?)", video, made.run));
    }

  // The frames of a sharded render that no run was to write: a shard that
  // never ran wrote no run line, and the folder passed without its frames.
  for (const ManifestRun& r : manifest.runs) {
    if (r.selection.empty() || !r.writes_frames()) continue;
    const std::optional<FrameSelection> selection = parse_frame_selection(r.selection);  // (checked when read)
    for (const int frame : selection->frames()) {
      const std::string image = frame_path(r.output, frame);
      if (!expected.insert(image).second) continue;
      std::error_code error;
      const bool there = fs::exists(fs::symlink_status(folder / image, error));
      missing.push_back(fmt::format("{}: frame {} has no record: no run was to write it, yet it is one of the frames "
                                    "{} that run {} drew shard {} of (a shard that never ran?){}",
                                    image, frame, r.selection, r.run, r.shard, there ? "; the file is there" : ""));
    }
  }

  // Frame files of a run's pattern that no run was to write (left by a render
  // whose manifest lines are gone): a video made from the folder, or a glob,
  // takes them in. Patterns with a '#' folder are not searched.
  std::set<std::string> patterns;
  for (const ManifestRun& r : manifest.runs)
    if (r.writes_frames() && fs::path(r.output).parent_path().empty()) patterns.insert(r.output);
  // And the layer files beside them (NAME.depth.png, NAME.mask.rain.png,
  // NAME.motion.png, NAME.plate.EXT for a frame NAME.png) that no latest
  // record lists: they were not found. Not those of a frame already said to
  // be missing or corrupt (its record refused, or none): said once.
  std::set<std::string> listed;
  for (const auto& [image, record] : latest)
    for (const ManifestFile& file : record->files) listed.insert(file.file);
  const auto layer_of_pattern = [&](const std::string& name) {
    for (const std::string& pattern : patterns) {
      const fs::path p(pattern);
      const std::string stem = fs::path(p).replace_extension().string();
      for (const char* layer : {".depth.", ".motion.", ".plate.", ".mask."}) {
        const size_t at = name.find(layer);
        if (at == std::string::npos || !matches_frame_pattern(stem, name.substr(0, at))) continue;
        const std::string image = name.substr(0, at) + p.extension().string();
        if (refused.count(image) || (expected.count(image) && !latest.count(image))) return false;
        const std::string rest = name.substr(at + std::strlen(layer));  // "png", "rain.png", "exr"
        if (layer == std::string(".mask.") ? rest.find('.') != std::string::npos : rest.find('.') == std::string::npos)
          return true;
      }
    }
    return false;
  };
  std::error_code listing;
  std::set<std::string> extra, extra_layers;
  for (fs::directory_iterator it(folder, listing), end; !listing && it != end; it.increment(listing)) {
    const std::string name = it->path().filename().string();
    if (expected.count(name) || refused.count(name) || listed.count(name)) continue;
    for (const std::string& pattern : patterns)
      if (matches_frame_pattern(pattern, name)) extra.insert(name);
    // (A temporary file of a render still writing, or of a killed one that
    // the next render removes, is not a layer.)
    if (!extra.count(name) && name.find(kPartialMark) == std::string::npos && layer_of_pattern(name))
      extra_layers.insert(name);
  }
  for (const std::string& name : extra)
    mismatched.push_back(fmt::format("{}: a frame file no run of the manifest was to write", name));
  for (const std::string& name : extra_layers)
    mismatched.push_back(fmt::format("{}: a layer file beside the frames that no record lists", name));

  // A frame drawn again at another size leaves a sequence of mixed sizes,
  // which no video or dataset loader takes as one.
  if (sizes.size() > 1) {
    std::string list;
    for (const auto& [size, drawn] : sizes)
      list += fmt::format("{}{}x{} ({} frame{}, {} first)", list.empty() ? "" : ", ", size.first, size.second,
                          drawn.frames, drawn.frames == 1 ? "" : "s", drawn.first);
    mismatched.push_back(fmt::format("the folder's frames are of {} sizes: {}", sizes.size(), list));
  }

  const size_t problems = missing.size() + corrupt.size() + mismatched.size();
  for (const auto& [label, list] : {std::pair{"missing", &missing}, {"corrupt", &corrupt}, {"mismatched", &mismatched}})
    for (const std::string& line : *list) fmt::print("{}: {}\n", label, line);
  // "6 frames", "6 frames and 1 video", "1 video"
  std::string written = fmt::format("{} frame{}", expected.size(), expected.size() == 1 ? "" : "s");
  if (!expected_videos.empty())
    written = fmt::format("{}{} video{}", expected.empty() ? "" : written + " and ", expected_videos.size(),
                          expected_videos.size() == 1 ? "" : "s");
  if (!quiet || problems)
    fmt::print("{}: {} of {} run{}, {} file{} checked: {}\n", folder.string(), written, manifest.runs.size(),
               manifest.runs.size() == 1 ? "" : "s",
               files_checked, files_checked == 1 ? "" : "s",
               problems == 0 ? "all present and whole"
                             : fmt::format("{} missing, {} corrupt, {} mismatched", missing.size(), corrupt.size(),
                                           mismatched.size()));
  return problems == 0 ? 0 : 1;
}

}  // namespace fxsim
