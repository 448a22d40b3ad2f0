// render: scene (+ command-line overrides) → Simulation + Renderer → the frame
// loop → its outputs (PNG frames, statistics, state hashes), with progress.
#include <algorithm>
#include <array>
#include <iterator>
#include <cctype>
#include <cmath>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/render_farm.h"
#include "core/device_class.h"
#include "core/exit_codes.h"
#include "core/limits.h"
#include "core/manifest.h"
#include "core/parallel.h"
#include "core/frame_output.h"
#include "core/input_digest.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/atomic_file.h"
#include "render/checkpoint_files.h"
#include "render/child_process.h"
#include "render/frame_loop.h"
#include "render/frame_sinks.h"
#include "render/gl_session.h"
#include "render/output_files.h"
#include "render/plate_pass.h"
#include "render/renderer.h"
#include "render/video_sink.h"

namespace fxsim {

std::vector<SceneOverride> scene_overrides(const RenderOptions& options) {
  std::vector<SceneOverride> overrides;
  for (const std::string& unset : options.unsets) overrides.push_back(parse_unset_override(unset));
  for (const std::string& set : options.sets) overrides.push_back(parse_set_override(set));
  if (options.fps) {  // finite (cli/main.cpp: JSON has no NaN, a scene's message would say "null")
    // A whole number as JSON's integer, so that a problem shows it as given ("got 0", not "got 0.0").
    const double fps = *options.fps;
    const Json value = std::abs(fps) < 1e15 && fps == std::floor(fps) ? Json(int64_t(fps)) : Json(fps);
    overrides.push_back({fmt::format("--fps {}", fps), "/output/fps", value, false, {}});
  }
  if (options.seed) overrides.push_back({fmt::format("--seed {}", *options.seed), "/seed", *options.seed, false, {}});
  if (options.png_level)
    overrides.push_back(
        {fmt::format("--png-level {}", *options.png_level), "/output/png_level", *options.png_level, false, {}});
  if (options.width)
    overrides.push_back({fmt::format("--width {}", *options.width), "/output/width", *options.width, false, {}});
  if (options.height)
    overrides.push_back({fmt::format("--height {}", *options.height), "/output/height", *options.height, false, {}});
  return overrides;
}

namespace {

// On Ctrl-C or a kill, the frame being written must not be left half-written.
// A commit in progress (a frame renamed into place and its lines appended) is
// let finish first, so the text outputs cover exactly the frames on disk.
bool g_quiet = false;        // (read by on_interrupt)
bool g_json_lines = false;   // --progress jsonl: standard error stays JSON Lines

extern "C" void on_interrupt(int signal) {
  stop_commits();
  stop_child_processes(signal);  // ffmpeg: its temporary file is removed next; shards stop after their frame
  remove_partial_output();  // and the text outputs made that no frame was written to: as a failure leaves them
  if (!g_quiet) {  // write(2) alone: async-signal-safe
    const char* what = signal == SIGINT ? "interrupted (SIGINT)" : signal == SIGTERM ? "terminated (SIGTERM)"
                                                                                     : "hung up (SIGHUP)";
    const char code[] = {char('0' + (128 + signal) / 100), char('0' + (128 + signal) / 10 % 10),
                         char('0' + (128 + signal) % 10), '\0'};
    const char* const parts[] = {g_json_lines ? R"({"event":"error","message":")" : "\nfxsim: ", what,
                                 ": stopped; every frame on disk is whole",
                                 g_json_lines ? R"(","exit":)" : "\n", g_json_lines ? code : "",
                                 g_json_lines ? "}\n" : ""};
    for (const char* part : parts) [[maybe_unused]] const ssize_t n = ::write(2, part, std::strlen(part));
  }
  _exit(128 + signal);
}

// From here on an interrupt stops the render cleanly (on_interrupt).
void stop_cleanly_on_interrupt(const RenderOptions& options) {
  g_quiet = options.quiet;
  g_json_lines = parse_progress_style(options.progress, false) == ProgressStyle::jsonl;
  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, on_interrupt);
}

FrameSelection frames_to_render(const RenderOptions& options, const Scene& scene) {
  if (!options.frames) return FrameSelection{{{1, scene.output.frames}}};
  const auto parsed = parse_frame_selection(*options.frames);
  if (!parsed)
    throw FxError(ExitCode::usage, fmt::format("--frames {}: expected N, A-B with 1 <= A <= B <= {}, A-B:S (every "
                                               "S-th frame), or a comma-separated list of those", *options.frames,
                                               kMaxFrames));
  return *parsed;  // frames past output.frames are simulated on
}

// Where output.KEY's value came from, for a message: a flag that set it, or the scene.
std::string where_output_is_set(const RenderOptions& options, const std::string& key) {
  if (key == "fps" && options.fps) return fmt::format("--fps {}", *options.fps);
  // The last --set of the key (or of output whole) is what the render sees.
  for (auto set = options.sets.rbegin(); set != options.sets.rend(); ++set)
    if (set->rfind("/output/" + key + "=", 0) == 0 || set->rfind("/output=", 0) == 0) return "--set " + *set;
  return "the scene's output." + key;
}

// A video output's problem (video_output_problem) as a usage error of `flag`:
// where the key it names was set, but for the path, which is the flag's own.
FxError video_output_error(const RenderOptions& options, const std::string& flag, const std::string& path,
                           const OutputProblem& problem) {
  return FxError(ExitCode::usage, fmt::format("{} {}: {}{}", flag, path, problem.message,
                                              problem.key == "path" ? "" : " (" + where_output_is_set(options, problem.key) + ")"));
}


// The folder the frames (and the manifest, and by default the checkpoints) go
// into: the output pattern's, above any '#'.
std::filesystem::path output_folder(const std::string& pattern) {
  std::filesystem::path folder = std::filesystem::path(pattern).parent_path();
  while (folder.string().find('#') != std::string::npos) folder = folder.parent_path();
  return folder.empty() ? "." : folder;
}

// The manifest a video is recorded in: its folder's (a video's name has no '#').
std::filesystem::path video_manifest(const std::string& video) {
  const std::filesystem::path folder = std::filesystem::path(video).parent_path();
  return (folder.empty() ? std::filesystem::path(".") : folder) / kManifestName;
}

// The manifests a render appends to: its frames' folder's, each video's folder's.
std::vector<std::string> manifests_written(const RenderOptions& options, const std::string& pattern, bool video_only) {
  std::vector<std::string> out{(video_only ? video_manifest(pattern) : output_folder(pattern) / kManifestName).string()};
  if (options.video) out.push_back(video_manifest(*options.video).string());
  return out;
}

// Whether `path` could be one of the files (image, layers, plate copy) of a
// frame of `pattern`, both resolved.
bool could_be_a_frame(const Scene& scene, const std::string& pattern, const std::string& path) {
  const std::string q = resolved(path);
  for (const std::string& file : frame_file_patterns(scene, pattern))
    if (matches_frame_pattern(resolved(file), q)) return true;
  return false;
}

// The outputs besides the frames or video of -o, as (flag, path): --stats
// and --state-hashes where they are files, --video.
std::vector<std::pair<std::string, std::string>> other_outputs(const RenderOptions& options) {
  std::vector<std::pair<std::string, std::string>> files;
  if (options.stats && *options.stats != "-") files.emplace_back("--stats", *options.stats);
  if (options.state_hashes && *options.state_hashes != "-") files.emplace_back("--state-hashes", *options.state_hashes);
  if (options.video) files.emplace_back("--video", *options.video);
  return files;
}

// Nothing written over a file the scene reads: -o plates/street.png over
// the scene's plate replaced it with the composite (and its depth layer the
// depth plate), exit 0, and the next render drew over a rainy "clean" plate.
void refuse_outputs_over_scene_inputs(const RenderOptions& options, const Scene& scene, bool video_only,
                                      const std::vector<int>& frames) {
  const std::string& pattern = scene.output.path;
  const std::vector<std::pair<std::string, std::string>> files = other_outputs(options);
  const auto refuse = [](const std::string& flag, const std::string& output, const std::string& input) {
    throw FxError(ExitCode::usage, fmt::format("{} {}: that would write over {}, which the scene reads", flag, output, input));
  };
  const auto same = [](const std::string& output, const std::string& file) {
    return output.find('#') == std::string::npos ? resolved(output) == resolved(file)
                                                 : matches_frame_pattern(resolved(output), resolved(file));
  };
  // A file read every frame, against every output.
  const auto refuse_over = [&](const std::string& file, const std::string& input) {
    if (video_only ? same(pattern, file) : could_be_a_frame(scene, pattern, file)) refuse("-o", pattern, input);
    for (const auto& [flag, path] : files)
      if (same(path, file)) refuse(flag, path, input);
  };
  for (const std::filesystem::path& texture : scene.texture_files) refuse_over(texture.string(), "the texture " + texture.string());
  for (const auto& [what, plate] : {std::pair{"the plate", scene.output.plate.string()},
                                    {"the depth plate", scene.output.plate_depth.string()}}) {
    if (plate.empty()) continue;
    if (plate.find('#') == std::string::npos) {
      refuse_over(plate, fmt::format("{} {}", what, plate));
      continue;
    }
    // A sequence: a file written once (a video, a text file, a single
    // frame) against any frame's plate; each frame's files against that
    // frame's plate, where they share a folder (each frame's name made, not
    // its folder resolved).
    std::vector<std::pair<std::string, std::string>> outputs = files;
    if (video_only) outputs.emplace_back("-o", pattern);
    else
      for (const std::string& file : frame_file_patterns(scene, pattern)) outputs.emplace_back("-o", file);
    const std::filesystem::path in(plate);
    for (const auto& [flag, output] : outputs) {
      if (output.find('#') == std::string::npos) {
        if (matches_frame_pattern(resolved(plate), resolved(output))) refuse(flag, output, fmt::format("{} {}", what, plate));
        continue;
      }
      const std::filesystem::path out(output);
      const bool folders_vary = in.parent_path().string().find('#') != std::string::npos ||
                                out.parent_path().string().find('#') != std::string::npos;
      if (!folders_vary && resolved(in.parent_path().empty() ? "." : in.parent_path().string()) !=
                               resolved(out.parent_path().empty() ? "." : out.parent_path().string()))
        continue;
      for (const int frame : frames) {
        const std::string a = frame_path(plate, frame), b = frame_path(output, frame);
        if (folders_vary ? resolved(a) == resolved(b)
                         : std::filesystem::path(a).filename() == std::filesystem::path(b).filename())
          refuse(flag, output, fmt::format("{} of frame {} ({})", what, frame, a));
      }
    }
  }
}

// No two outputs in one file: the text outputs (--stats, --state-hashes)
// would overwrite each other, a frame or its layers, a video or the manifest,
// and the render end with 0 and a file that is neither.
void refuse_shared_outputs(const RenderOptions& options, const Scene& scene, bool video_only) {
  const std::string& pattern = scene.output.path;
  const std::vector<std::pair<std::string, std::string>> files = other_outputs(options);
  for (const auto& [what, path] : files) {
    if (path.empty()) throw FxError(ExitCode::usage, fmt::format("{} \"\": expected a file path", what));
    // (--state-hashes n6/ was written as a file once the render had made n6 a folder: 73 after the work began.)
    if (path.back() == '/' || path.ends_with("/.") || path.ends_with("/.."))
      throw FxError(ExitCode::usage, fmt::format("{} {}: that names a folder; expected a file path", what, path));
  }
  const auto same = [](const std::string& a, const std::string& b) { return resolved(a) == resolved(b); };
  const std::vector<std::string> manifests = manifests_written(options, pattern, video_only);
  const auto is_a_manifest = [&](const std::string& path) {
    return std::any_of(manifests.begin(), manifests.end(), [&](const std::string& m) { return same(path, m); });
  };
  // Nor one over the scene (--stats scene.json replaced it, exit 0).
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"the scene file it reads", options.scene == "-" ? "" : options.scene}};
  for (const auto& [what, path] : files) refuse_output_over_input(what, path, inputs);
  refuse_outputs_in_one_file(files);
  // The folders the render makes for its frames or video (a run of # in a
  // folder's name stands for any frame's number), up to the first.
  const auto is_output_folder = [&](const std::string& path) {
    const std::string q = resolved(path);
    for (std::filesystem::path folder = std::filesystem::path(pattern).parent_path(); !folder.empty();
         folder = folder.parent_path()) {
      if (matches_frame_pattern(resolved(folder.string()), q)) return true;
      if (folder == folder.parent_path()) break;  // "/"
    }
    return false;
  };
  for (size_t a = 0; a < files.size(); ++a) {
    // (--stats out, for frames out/f_####.png: the render made the folder,
    // wrote its manifest there and then failed, 73.)
    if (is_output_folder(files[a].second))
      throw FxError(ExitCode::usage, fmt::format("{} {}: that is the folder the render writes its {} into; give a file",
                                                 files[a].first, files[a].second, video_only ? "video" : "frames"));
    if (video_only ? same(files[a].second, pattern) : could_be_a_frame(scene, pattern, files[a].second))
      throw FxError(ExitCode::usage, fmt::format("{} {}: that is where the render writes its {}", files[a].first,
                                                 files[a].second, video_only ? "video" : "frames and their layers"));
    if (is_a_manifest(files[a].second))
      throw FxError(ExitCode::usage, fmt::format("{} {}: that is the output folder's manifest", files[a].first,
                                                 files[a].second));
    // Nor a checkpoint the render writes (the statistics were replaced by it, exit 0).
    const std::filesystem::path file(files[a].second);
    if (options.checkpoint_every && file.extension() == ".fxck" && file.filename().string().rfind("checkpoint_", 0) == 0 &&
        same(file.parent_path().empty() ? "." : file.parent_path().string(),
             checkpoint_folder(options, pattern).string()))
      throw FxError(ExitCode::usage, fmt::format("{} {}: that is where the render writes its checkpoints", files[a].first,
                                                 files[a].second));
  }
  // Nor the checkpoint folder where a file is written (--checkpoints
  // out/f_0001.png was made a folder, filled with checkpoints, and the
  // render then failed at that frame, 73).
  if (options.checkpoint_every) {
    const std::string given = checkpoint_folder(options, pattern).string();
    const std::string what = options.checkpoints ? "--checkpoints " + given : "the checkpoint folder " + given;
    // As a folder's name: cc/f_0001.png/ and cc/./f_0001.png/. are cc/f_0001.png.
    std::string folder = std::filesystem::path(given).lexically_normal().string();
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    if (video_only ? same(folder, pattern) : could_be_a_frame(scene, pattern, folder))
      throw FxError(ExitCode::usage, fmt::format("{}: that is where the render writes its {}", what,
                                                 video_only ? "video" : "frames and their layers"));
    if (is_a_manifest(folder)) throw FxError(ExitCode::usage, fmt::format("{}: that is the output folder's manifest", what));
    for (const auto& [flag, path] : files)
      if (same(folder, path)) throw FxError(ExitCode::usage, fmt::format("{}: {} writes that file", what, flag));
  }
}

// --video-crf where it would change nothing, refused rather than ignored: no
// video, or none with a CRF (a .mov is ProRes 4444, a .gif a palette), or
// 52 and more for an .mp4 (H.264 stops at 51; VP9 at 63).
// The formats of the videos this render writes: -o's and --video's.
std::vector<VideoFormat> videos_written(const RenderOptions& options, const std::string& pattern, bool video_only) {
  std::vector<VideoFormat> videos;
  if (!options.simulate_only && video_only) videos.push_back(*video_format_of(pattern));
  if (!options.simulate_only && options.video)
    if (const auto format = video_format_of(*options.video)) videos.push_back(*format);
  return videos;
}

void refuse_idle_crf(const RenderOptions& options, const std::string& pattern, bool video_only) {
  if (!options.video_crf) return;
  const int crf = *options.video_crf;
  const std::vector<VideoFormat> videos = videos_written(options, pattern, video_only);
  const auto has = [&](VideoFormat f) { return std::find(videos.begin(), videos.end(), f) != videos.end(); };
  if (videos.empty() && options.simulate_only)
    throw FxError(ExitCode::usage, fmt::format("--video-crf {}: --simulate-only writes checkpoints only, no video", crf));
  if (videos.empty())
    throw FxError(ExitCode::usage, fmt::format("--video-crf {}: this render writes no video; give -o FILE.mp4 or "
                                               "--video FILE.mp4 (or .webm)", crf));
  if (!has(VideoFormat::mp4) && !has(VideoFormat::webm))
    throw FxError(ExitCode::usage, fmt::format("--video-crf {}: a CRF sets the quality of .mp4 and .webm videos; a "
                                               ".mov (ProRes 4444) or .gif (a palette) has none", crf));
  if (has(VideoFormat::mp4) && crf > 51)
    throw FxError(ExitCode::usage, fmt::format("--video-crf {}: H.264 (.mp4) takes a CRF of 0 to 51 (VP9, .webm, 0 "
                                               "to 63)", crf));
}

// What a video would not show as the user may expect, said before the work:
// frames that are not consecutive play one after another at the scene's
// rate (a stride of 2 plays twice as fast), and a CRF of 0 makes x264
// encode losslessly in a profile most players cannot decode.
void warn_about_videos(const RenderOptions& options, const std::string& pattern, bool video_only,
                       const std::vector<int>& frames, double fps) {
  const std::vector<VideoFormat> videos = videos_written(options, pattern, video_only);
  if (videos.empty()) return;
  if (options.video_crf == 0 && std::find(videos.begin(), videos.end(), VideoFormat::mp4) != videos.end())
    warn("--video-crf 0: x264 encodes losslessly in its High 4:4:4 Predictive profile, which most players, browsers "
         "and hardware decoders cannot play; give 1 or more for the High profile, or write PNG frames");
  for (size_t i = 1; i < frames.size(); ++i)
    if (frames[i] != frames[i - 1] + 1) {
      warn(fmt::format("the video shows the {} selected frames one after another at {} fps, but they are not "
                       "consecutive (frame {} follows frame {}): it plays faster than the scene, or jumps",
                       frames.size(), fps, frames[i], frames[i - 1]));
      break;
    }
}

// A manifest's run line: what this render sets out to write (the caller adds
// the device and backend it knows).
ManifestRun manifest_run(const Scene& scene, const std::string& scene_file, const std::string& run_id,
                         const std::vector<int>& frames, const std::optional<Shard>& shard,
                         const std::string& selection) {
  ManifestRun run;
  run.run = run_id;
  run.started = utc_now();
  run.scene = scene_file;
  run.scene_hash = scene.simulation_key;
  run.look_hash = scene.look_key;
  run.fxsim_version = FXSIM_VERSION;
  run.output = std::filesystem::path(scene.output.path).lexically_relative(output_folder(scene.output.path)).string();
  run.width = scene.output.width;
  run.height = scene.output.height;
  run.frames = frames;
  run.shard = shard ? fmt::format("{}/{}", shard->index, shard->count) : "";
  run.selection = selection;
  return run;
}

// A run's backend as the manifest and checkpoints name it: "cpu", "gpu on <device class>".
std::string backend_name(const GlSession& gl) {
  const GlInfo& info = gl.context().info();
  return gl.backend() == Backend::gpu ? "gpu on " + device_class(info.vendor, info.renderer).exact : std::string("cpu");
}

// The manifest's `backend`: the backend, and the drawing options given that
// change pixels ("cpu, --fill-resolution half"). Frames drawn so differ
// within the golden tolerance, as another backend's do, and --skip-existing
// draws them again (it kept them: the run line did not say). --tile-lists
// is left out: the same bytes either way. Checkpoints keep backend_name's:
// the simulation is the same whatever draws it.
std::string drawing_name(const GlSession& gl, const RenderOptions& options) {
  std::string name = backend_name(gl);
  for (const auto& [flag, value] : {std::pair{"--rasteriser", options.rasteriser},
                                    {"--fill-resolution", options.fill_resolution}, {"--coverage", options.coverage}})
    if (value != "auto") name += fmt::format(", {} {}", flag, value);
  if (options.part_sprites != 0) name += fmt::format(", --part-sprites {}", options.part_sprites);
  return name;
}

// "frames 1-12 (12)", "frames 3, 7 and 9 (3)"
std::string describe_frames(const std::vector<int>& frames) {
  if (frames.empty()) return "no frames";
  const bool contiguous = frames.back() - frames.front() + 1 == int(frames.size());
  return contiguous ? fmt::format("frames {}-{} ({})", frames.front(), frames.back(), frames.size())
                    : fmt::format("{} frames from {} to {}", frames.size(), frames.front(), frames.back());
}

// The default checkpoint folder follows the frames: a render whose -o moved
// them away from the scene's output.path (where a --simulate-only run without
// -o put its checkpoints) finds none and starts at 0. Said, not guessed at,
// where one there could serve (this scene's, at or before frame `at_most`),
// and also under --quiet: it is a warning.
void hint_at_checkpoints_elsewhere(const RenderOptions& options, const std::string& path_in_scene,
                                   const std::string& path, const CheckpointKey& key, int at_most) {
  if (options.checkpoints) {
    // A folder given that is not there (a slip of the name) started every
    // shard of a farm at frame 0 without a word; one to be written
    // (--checkpoint-every) may be new.
    std::error_code ec;
    if (!options.checkpoint_every && !std::filesystem::exists(*options.checkpoints, ec))
      warn(fmt::format("--checkpoints {}: no such folder, so the simulation starts at frame 0",
                       printable(*options.checkpoints)));
    return;
  }
  const std::filesystem::path used = checkpoint_folder(options, path), beside_scene = checkpoint_folder(options, path_in_scene);
  if (resolved(used.string()) == resolved(beside_scene.string())) return;  // (links followed)
  std::error_code ec;
  for (std::filesystem::directory_iterator it(beside_scene, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".fxck") {
      try {
        const CheckpointInfo info = read_checkpoint_info(it->path());
        if (!(info.key == key) || info.frame < 1 || info.frame > at_most) continue;
      } catch (const FxError&) {
        continue;  // not a checkpoint, or damaged: none to point at
      }
      warn(fmt::format("no checkpoint in {}, so the simulation starts at frame 0; {} (beside the scene's output.path) "
                       "has checkpoints: give --checkpoints {} to start from them",
                       printable(used.string()), printable(beside_scene.string()), printable(beside_scene.string())));
      return;
    }
}

// Checkpoints: written every N frames, read at the start.
class Checkpoints {
 public:
  Checkpoints(std::filesystem::path folder, CheckpointKey key, std::optional<int> every, int threads, bool quiet)
      : folder_(std::move(folder)), key_(std::move(key)), every_(every), threads_(threads), quiet_(quiet) {}

  // Restores the newest fitting checkpoint at a frame <= at_most (warning about
  // those that do not fit, or claim a state over `most_state_bytes`); returns
  // its frame, or 0 when none.
  int resume(Simulation& simulation, int at_most, uint64_t most_state_bytes) {
    std::vector<std::string> warnings;
    const auto started = std::chrono::steady_clock::now();
    const std::optional<LoadedCheckpoint> found = load_checkpoint(folder_, key_, at_most, most_state_bytes, warnings, threads_);
    for (const std::string& w : warnings) warn(w);
    if (!found) return 0;
    try {
      simulation.load_state(found->state);
    } catch (const FxError& e) {  // named: "the checkpoint does not fit this scene: …" said not which
      throw FxError(e.code(), fmt::format("{}: {}", found->info.path.string(), e.what()));
    }
    if (simulation.frame() != found->info.frame)
      throw FxError(ExitCode::invalid_scene, fmt::format("{}: the checkpoint's state is of frame {}, its header says {}",
                                                         found->info.path.string(), simulation.frame(), found->info.frame));
    if (!quiet_)
      note(fmt::format("starting from checkpoint {} (frame {}, read in {:.2f} s)", printable(found->info.path.string()),
                       found->info.frame, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()));
    return found->info.frame;
  }

  // After the simulation reached `frame`: its checkpoint, when one is due and not there yet.
  void reached(Simulation& simulation, int frame) {
    if (!every_ || frame % *every_ != 0 || known_whole_.count(frame)) return;
    const std::filesystem::path path = folder_ / checkpoint_file_name(frame);
    // One made by an earlier run is kept if whole (a damaged one was kept for
    // ever, and every later render fell back past it); another scene's is
    // replaced, saying so.
    try {
      const CheckpointInfo there = read_checkpoint_info(path);
      if (whole_of(there, frame)) return;
      if (there.key.scene_hash != key_.scene_hash)
        warn(fmt::format("replacing checkpoint {}, of another scene (or other overrides)", printable(path.string())));
    } catch (const FxError&) {
    }
    const auto started = std::chrono::steady_clock::now();
    const std::vector<uint8_t> state = simulation.save_state();
    write_checkpoint(folder_, key_, frame, int64_t(frame) * simulation_substeps_, simulation.time(), state, threads_);
    ++written_;
    if (!quiet_)
      note(fmt::format("checkpoint of frame {} written ({:.1f} MB of state, {:.2f} s) → {}", frame,
                       double(state.size()) / 1e6,
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), printable(path.string())));
  }
  // The frames up to `last` whose checkpoints are due and not there whole
  // (of this key), in order.
  std::vector<int> not_there(int last) {
    std::vector<int> gaps;
    if (!every_) return gaps;
    for (int frame = *every_; frame <= last; frame += *every_) {
      const std::filesystem::path path = folder_ / checkpoint_file_name(frame);
      try {
        if (whole_of(read_checkpoint_info(path), frame)) {
          known_whole_.insert(frame);  // (reached() need not read it again)
          continue;
        }
      } catch (const FxError&) {
      }
      gaps.push_back(frame);
    }
    return gaps;
  }
  // Whether a gap not_there() found needs a word: a file there but not
  // whole, or a whole checkpoint after it (up to at_most) that a resume
  // would have taken. A folder simply not filled yet needs none.
  bool gap_is_news(int gap, int at_most) const {
    std::error_code error;
    if (std::filesystem::exists(folder_ / checkpoint_file_name(gap), error)) return true;
    const auto later = known_whole_.upper_bound(gap);
    return later != known_whole_.end() && *later <= at_most;
  }
  void set_substeps(int substeps) { simulation_substeps_ = substeps; }
  int written() const { return written_; }

 private:
  // Whether `info`'s file is a whole checkpoint of this key and of `frame`
  // (one copied under another frame's name was kept as this one's).
  bool whole_of(const CheckpointInfo& info, int frame) const {
    return info.key == key_ && info.frame == frame && checkpoint_intact(info.path);
  }

  std::filesystem::path folder_;
  CheckpointKey key_;
  std::optional<int> every_;
  int threads_;
  bool quiet_;
  int simulation_substeps_ = 1;
  std::set<int> known_whole_;  // checkpoints not_there() read whole
  int written_ = 0;
};

}  // namespace

int run_render(const RenderOptions& options) {
  set_message_style(parse_progress_style(options.progress, false));
  // --threads caps every thread fxsim starts, llvmpipe's too: Mesa reads
  // LP_NUM_THREADS when the context is made.
  const int cores = thread_count(options.threads);
  if (options.threads > 0) setenv("LP_NUM_THREADS", std::to_string(options.threads).c_str(), 1);

  // The camera's path is checked at every frame the render asks for, past output.frames too.
  const int last_asked = options.frames ? frames_to_render(options, Scene{}).last() : 0;
  Scene scene = parse_scene_file(options.scene, scene_overrides(options), last_asked);
  report_scene_warnings(scene, options.scene);
  const std::string path_in_scene = scene.output.path;  // (where checkpoints go by default, without -o)
  // -o is checked here (its '#' against the frames selected, its extension).
  if (options.output) {
    scene.output.path = *options.output;
    if (!image_format_of(scene.output.path) && !video_format_of(scene.output.path))
      throw FxError(ExitCode::usage, fmt::format("-o {}: expected a path ending in .png or .exr (frames) or .mp4, .webm, "
                                                 ".mov or .gif (a video) after a file name", scene.output.path));
    if (const auto problem = video_output_problem(scene.output, scene.output.path))
      throw video_output_error(options, "-o", scene.output.path, *problem);
  }
  const bool video_only = video_format_of(scene.output.path).has_value();  // -o out.mp4: a video, no PNGs
  // For the manifest of image frames: the textures hashed before anything reads them to draw.
  std::optional<InputDigest> inputs;
  if (!options.simulate_only && !video_only && !options.devices) inputs.emplace(scene);
  if (options.devices) {
    // Each device's child writes its shard's frames. A video, the statistics
    // and the state hashes are each one file of every frame, which no child
    // has: each child wrote it whole, and the last to end won (exit 0).
    if (options.video || video_only)
      throw FxError(ExitCode::usage, "--devices writes each shard's frames: a video is one file of every frame; write "
                                     "PNG or EXR frames with --devices and make the video from them (ffmpeg), or "
                                     "render the video without --devices");
    if (options.stats || options.state_hashes)
      throw FxError(ExitCode::usage, "--devices: --stats and --state-hashes are one file of every frame, which no "
                                     "device's shard has: give each a shard of its own (--device D --shard I/N), "
                                     "each with its own file");
    stop_cleanly_on_interrupt(options);  // the shards are told, and waited for
    return run_on_devices(options);
  }
  if (options.video)
    if (const auto problem = video_output_problem(scene.output, *options.video, true))
      throw video_output_error(options, "--video", *options.video, *problem);
  // EXR frames are half floats whatever output.bit_depth says (16 was taken without a word).
  if (scene.output.bit_depth != 8 && image_format_of(scene.output.path) == ImageFormat::exr)
    warn(fmt::format("output.bit_depth {} is for PNG frames: EXR frames hold half floats (their depth 32-bit floats) "
                     "whatever it says", scene.output.bit_depth));
  std::vector<int> wanted = frames_to_render(options, scene).frames();
  if (scene.output.transparent() && image_format_of(scene.output.path) != ImageFormat::exr) {
    const std::string exr = std::filesystem::path(scene.output.path).replace_extension(".exr").string();
    for (const EmitterSettings& e : scene.emitters)
      if (e.blend == BlendMode::additive) {
        warn(fmt::format("emitter \"{}\" adds light without coverage, which frames with straight alpha (PNG, "
                         "video) cannot keep: over the transparent background it is lost; write EXR frames "
                         "(-o {}) to composite it", e.name, exr));
        break;
      }
    if (scene.environment.lighting)
      for (const Light& light : scene.environment.lighting->lights)
        if (light.size > 0) {
          warn(fmt::format("a light's glowing disc (its \"size\") is light without coverage, which frames with "
                           "straight alpha (PNG, video) cannot keep: over the transparent background it is lost; "
                           "write EXR frames (-o {}) to composite it", exr));
          break;
        }
  }
  // The "plate" layer is the plate's own bytes: the frame's plate is graded
  // (an EXR frame is never tone mapped: its tone changes nothing of it).
  const bool tone_mapped_frames = scene.output.tone != OutputSettings::Tone::clip &&
                                  image_format_of(scene.output.path) != ImageFormat::exr;
  if (scene.output.plate_layer && !options.simulate_only &&
      (scene.camera.exposure != 0 || tone_mapped_frames || (scene.output.bloom && scene.output.bloom->strength > 0)))
    warn("the \"plate\" layer is the plate as it is, ungraded, while the frame's plate goes through the camera's "
         "exposure, the filmic tone or the bloom: the two differ by that grading, not by the particles alone");
  if (!video_only && !options.simulate_only && !wanted.empty())
    if (const std::string w = frame_padding_warning(scene.output.path, *std::min_element(wanted.begin(), wanted.end()),
                                                    *std::max_element(wanted.begin(), wanted.end()));
        !w.empty())
      warn(w);
  // A farm's share: a shard of the frames, less those already written.
  const std::optional<Shard> shard = choose_shard(options);
  std::string selection;  // every shard's frames, for the manifest
  if (shard && shard->count > 1 && !options.simulate_only && (options.video || video_only))
    throw FxError(ExitCode::usage, fmt::format("shard {}/{} ({}): a video is one file of every frame, which no shard "
                                               "has: each shard wrote it whole with its own frames, and the last to end "
                                               "won; render the shards' frames (PNG or EXR) and make the video from them "
                                               "(scripts/cluster/render-on-slurm does)",
                                               shard->index, shard->count, shard->source));
  if (shard) {
    selection = format_frame_selection(FrameSelection::of(wanted));
    wanted = shard_frames(wanted, *shard);
    // --simulate-only draws none of them: it steps from frame 1 (or a
    // checkpoint) to the shard's last and writes every checkpoint on the way.
    if (!options.quiet)
      note(fmt::format("shard {}/{} ({}): {}{}", shard->index, shard->count, shard->source, describe_frames(wanted),
                       options.simulate_only && !wanted.empty()
                           ? fmt::format("; --simulate-only draws none: it steps to frame {}, writing every checkpoint "
                                         "on the way", *std::max_element(wanted.begin(), wanted.end()))
                           : std::string()));
  }
  if (options.simulate_only && !options.checkpoint_every)
    throw FxError(ExitCode::usage, "--simulate-only writes checkpoints only: give --checkpoint-every N");
  if (options.simulate_only && (options.video || options.stats || options.state_hashes))
    throw FxError(ExitCode::usage, "--simulate-only writes checkpoints only: no --video, --stats or --state-hashes");
  if (options.simulate_only && !wanted.empty()) {
    const int last = *std::max_element(wanted.begin(), wanted.end());
    if (last < *options.checkpoint_every)
      throw FxError(ExitCode::usage, fmt::format("--simulate-only to frame {} with --checkpoint-every {} would write no "
                                                 "checkpoint: give N of at most {}",
                                                 last, *options.checkpoint_every, last));
  }
  if (options.checkpoints && options.checkpoints->empty())
    throw FxError(ExitCode::usage, "--checkpoints \"\": expected a folder");
  if (options.skip_existing && (video_only || options.video))
    throw FxError(ExitCode::usage, "--skip-existing resumes image sequences; a video is written whole");
  std::vector<int> to_write = wanted;
  // The GL starts here where --skip-existing must know the backend (what
  // `auto` picks, the device's class) to keep frames; else further on.
  std::optional<GlSession> gl_started;
  const auto this_backend = [&] {
    if (!gl_started) gl_started.emplace(options.device, parse_backend_choice(options.backend));
    return backend_name(*gl_started);
  };
  const auto this_drawing = [&] {
    this_backend();
    return drawing_name(*gl_started, options);
  };
  if (options.skip_existing && !options.simulate_only) {
    to_write = frames_to_write(scene, scene.output.path, output_folder(scene.output.path), wanted, this_drawing);
    if (!options.quiet && to_write.size() < wanted.size())
      note(fmt::format("--skip-existing: {} of {} frames are already written; {} to go", wanted.size() - to_write.size(),
                       wanted.size(), to_write.size()));
    // The text outputs are written anew, with the frames drawn now: an
    // interrupted run's lines for the frames kept were lost without a word.
    for (const auto& [flag, path] : {std::pair{"--stats", options.stats}, std::pair{"--state-hashes", options.state_hashes}})
      if (path && *path != "-" && to_write.size() < wanted.size() && !to_write.empty())
        warn(fmt::format("{} {} is written anew with the {} frames drawn now, not the {} kept by --skip-existing "
                         "(keep the earlier file under another name to have theirs)",
                         flag, *path, to_write.size(), wanted.size() - to_write.size()));
  }
  // Frames kept whose recording a stopped run never made are recorded now.
  const std::string run_id = new_run_id();
  std::vector<ManifestFrame> adopted;
  if (options.skip_existing && to_write.size() < wanted.size()) {
    std::vector<int> kept;
    std::set_difference(wanted.begin(), wanted.end(), to_write.begin(), to_write.end(), std::back_inserter(kept));
    adopted = unrecorded_frames(scene, scene.output.path, output_folder(scene.output.path), kept, run_id);
    if (!options.quiet && !adopted.empty())
      note(fmt::format("--skip-existing: {} of them had no line in the manifest; recorded from their files",
                       adopted.size()));
  }
  if (to_write.empty()) {
    if (!options.quiet)
      note(fmt::format("nothing to render ({})", wanted.empty() ? "this shard has no frames" : "every frame is written"));
    if (!adopted.empty()) {
      ManifestWriter writer(output_folder(scene.output.path));
      ManifestRun run = manifest_run(scene, options.scene, run_id, wanted, shard, selection);
      if (gl_started) run.backend = drawing_name(*gl_started, options);  // (known where frames_to_write asked)
      writer.add(run);
      for (const ManifestFrame& f : adopted) writer.add(f);
    }
    return 0;
  }
  const FrameSelection frames = FrameSelection::of(to_write);
  const int count = frames.count();
  if (scene.output.path == "-")
    throw FxError(ExitCode::usage, "-o -: frames are written as files; give a path such as out/frame_####.png");
  if (!video_only && count > 1 && scene.output.path.find('#') == std::string::npos)
    throw FxError(ExitCode::usage, fmt::format("output path \"{}\" has no run of '#' for the frame number, and {} "
                                               "frames are to be written", scene.output.path, count));
  if (options.stats && options.state_hashes && *options.stats == "-" && *options.state_hashes == "-")
    throw FxError(ExitCode::usage, "--stats - and --state-hashes -: only one of them can go to standard output");
  refuse_shared_outputs(options, scene, video_only);
  refuse_outputs_over_scene_inputs(options, scene, video_only, to_write);
  const ProgressStyle style = parse_progress_style(options.progress, options.quiet);
  if (!options.simulate_only)
    check_plates(scene, frames.frames());  // every plate frame the render needs, before anything renders
  // The outputs check their paths now, before any work; they create nothing yet.
  // They create their files in this order (run_frame_loop starts them): a
  // text file first, which only its creation can refuse (--stats /proc/s.jsonl
  // passes every check before), then the frames' folder and its manifest's
  // record of the run, which a refusal after them would leave behind. They
  // commit each frame in the reverse order: a text output's line comes once
  // the frame's image is on disk.
  std::vector<std::unique_ptr<FrameSink>> sinks;
  if (options.stats) sinks.push_back(std::make_unique<StatisticsSink>(*options.stats));
  if (options.state_hashes) sinks.push_back(std::make_unique<StateHashSink>(*options.state_hashes));
  const VideoSettings video{options.video_crf};
  refuse_idle_crf(options, scene.output.path, video_only);
  refuse_idle_compute_options(options.rasteriser, options.tile_lists, options.coverage, options.part_sprites);
  warn_about_videos(options, scene.output.path, video_only, frames.frames(), scene.output.fps);
  std::vector<VideoSink*> videos;
  const auto add_video = [&](const std::string& path) {
    auto sink = std::make_unique<VideoSink>(path, scene.output.width, scene.output.height, scene.output.fps, video);
    videos.push_back(sink.get());
    sinks.push_back(std::move(sink));
    check_output_path(video_manifest(path).string());
  };
  if (!options.simulate_only && video_only) add_video(scene.output.path);
  ImageSequenceSink* images = nullptr;
  if (!options.simulate_only && !video_only) {
    auto sink = std::make_unique<ImageSequenceSink>(
        scene.output.path, frames.first(),
        ImageEncoding{*image_format_of(scene.output.path),
                      PngSettings{scene.output.png_level, true, scene.output.transparent()}, scene.output.bit_depth,
                      scene.output.plate_layer ? scene.output.plate : std::filesystem::path(), scene.output.tone});
    images = sink.get();
    sinks.push_back(std::move(sink));
    check_frames_replaceable(scene, scene.output.path, frames.frames());
    check_output_path((output_folder(scene.output.path) / kManifestName).string());
  }
  if (options.video) add_video(*options.video);
  if (options.checkpoint_every) {  // where checkpoints will go: a folder fxsim can write into
    const std::filesystem::path folder = checkpoint_folder(options, scene.output.path);
    std::error_code ec;
    if (std::filesystem::exists(folder, ec) && !std::filesystem::is_directory(folder, ec))
      throw FxError(ExitCode::cannot_write, fmt::format("{}: the checkpoint folder is a file", folder.string()));
    check_output_folder(folder / "checkpoint");
    // And each checkpoint it may write: a folder standing there was found
    // when its frame came, after frames and manifest were written. (A link
    // to a file passes: a whole checkpoint there is read, not written; one
    // to be written is refused then, as before.)
    for (int frame = *options.checkpoint_every; frame <= frames.last(); frame += *options.checkpoint_every) {
      const std::filesystem::path file = folder / checkpoint_file_name(frame);
      if (!(std::filesystem::is_symlink(std::filesystem::symlink_status(file, ec)) &&
            std::filesystem::is_regular_file(file, ec)))
        check_output_path(file.string());
    }
  }

  stop_cleanly_on_interrupt(options);
  const auto started = std::chrono::steady_clock::now();
  const std::string backend = this_backend();
  GlSession& gl = *gl_started;
  check_memory(scene, gl.backend(), gl.context().software());
  Simulation simulation(scene, cores, gl.system_factory());
  const GlInfo& gl_info = gl.context().info();
  const std::filesystem::path checkpoint_dir = checkpoint_folder(options, scene.output.path);
  Checkpoints checkpoints(checkpoint_dir, {scene.simulation_key, FXSIM_VERSION, backend}, options.checkpoint_every,
                          cores, options.quiet);
  checkpoints.set_substeps(scene.output.substeps);
  // What killed runs left there half-written (a checkpoint is 100 MB or more), as in the frames' folder.
  if (std::error_code ec; std::filesystem::is_directory(checkpoint_dir, ec)) remove_stale_partials(checkpoint_dir);
  // From a checkpoint before the first frame where that frame needs its
  // previous one: the motion layer its positions, --stats its steps' births and deaths.
  int resume_at_most = frames.first() - (scene.output.motion_layer || options.stats ? 1 : 0);
  // --simulate-only writes every checkpoint on the way: one missing or
  // damaged before the last was left so, and the run said there was nothing
  // to simulate (a farm's checkpoints job).
  // It starts from the one before the first missing and stops at the last
  // one missing: the rest are there. (With all of them there it simulated
  // from time 0 again, writing none.)
  int simulate_to = frames.last();
  if (options.simulate_only) {
    const std::vector<int> gaps = checkpoints.not_there(frames.last());
    if (gaps.empty()) {
      simulate_to = frames.last() / *options.checkpoint_every * *options.checkpoint_every;
      resume_at_most = simulate_to;
    } else {
      simulate_to = gaps.back();
      if (gaps.front() <= resume_at_most && !options.quiet && checkpoints.gap_is_news(gaps.front(), resume_at_most))
        note(fmt::format("the checkpoint of frame {} is missing or damaged (or of another frame): simulating from "
                         "before it to write it again",
                         gaps.front()));
      resume_at_most = gaps.front() - 1;
    }
  }
  const int resumed = checkpoints.resume(simulation, resume_at_most, most_state_bytes(scene));
  if (resumed == 0 && frames.first() > 1)
    hint_at_checkpoints_elsewhere(options, path_in_scene, scene.output.path,
                                  {scene.simulation_key, FXSIM_VERSION, backend}, resume_at_most);

  if (options.simulate_only) {
    for (int frame = simulation.frame() + 1; frame <= simulate_to; ++frame) {
      simulation.advance_to_frame(frame);
      checkpoints.reached(simulation, frame);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!options.quiet && resumed >= simulate_to)
      fmt::print("nothing to simulate: the checkpoint of frame {} is there already ({})\n", resumed,
                 scene_name(options.scene));
    else if (!options.quiet)
      fmt::print("simulated frames {}-{} of {} in {:.2f} s ({} checkpoint{} written) on {}\n", resumed + 1, simulate_to,
                 scene_name(options.scene), seconds, checkpoints.written(), checkpoints.written() == 1 ? "" : "s", gl.describe());
    return 0;
  }

  // Every run appends to the manifest in its output folder what it was to
  // write, then each frame written; a video's folder's manifest records the
  // video (with a run line of its own where no frames go there).
  std::vector<std::unique_ptr<RunManifest>> manifests;
  const auto manifest_in = [&](const std::filesystem::path& folder, bool frames_there) -> RunManifest& {
    // (Compared as manifest files: a folder not made yet, spelled out/., resolves
    // lexically with a trailing '/', and one run had two run lines of one id.)
    const auto manifest_file = [](const std::filesystem::path& f) { return resolved((f / kManifestName).string()); };
    for (const auto& m : manifests)
      if (manifest_file(m->writer().folder()) == manifest_file(folder)) return *m;
    ManifestRun run = manifest_run(scene, options.scene, run_id, wanted, shard, selection);
    if (!frames_there) run.output.clear();
    run.device = gl_info.renderer;
    run.backend = drawing_name(gl, options);
    return *manifests.emplace_back(std::make_unique<RunManifest>(folder, std::move(run)));
  };
  if (images) {
    RunManifest& manifest = manifest_in(output_folder(scene.output.path), true);
    images->record_in(manifest, options.manifest_hashes, *inputs);
    images->adopt(std::move(adopted));
  }
  for (VideoSink* sink : videos) {
    RunManifest& manifest = manifest_in(video_manifest(sink->path()).parent_path(), false);
    manifest.run().videos.push_back(std::filesystem::path(sink->path()).filename().string());
    sink->record_in(manifest);
  }
  Renderer renderer(scene, scene.output.width, scene.output.height,
                    sprite_rasteriser(options.rasteriser, gl.context(), options.fill_resolution, options.threads,
                                      options.tile_lists, options.coverage, size_t(options.part_sprites)));
  if (renderer.frame_samples() != scene.output.samples)
    warn(fmt::format("output.samples {}: {} draws {} samples per pixel, the nearest count it has", scene.output.samples,
                     gl.context().info().renderer, renderer.frame_samples()));

  ProgressReport progress(style, frames.last(), count, scene.output.path);
  FrameLoopOptions loop;
  loop.encoders = options.encoders ? size_t(*options.encoders) : default_encoder_threads(cores, gl.backend());
  // Frames in which nothing shows, said at the end: an exposure of -20, a
  // fog that hides everything, an emitter with nothing to draw gave such
  // frames with exit 0 and no word.
  // A frame of one colour may show particles all the same (one pixel, or a
  // veil of them over it all): the colour of each is compared, after the
  // loop, with the frame drawn without its particles.
  std::vector<int> one_colour_frames;
  std::vector<std::array<uint8_t, 4>> one_colour_pixels;
  const ImageEncoding written = images ? images->encoding() : ImageEncoding{};  // a video's frames: 8-bit
  loop.on_committed = [&](const FrameRecord& frame) {
    progress.committed(frame);
    if (one_colour_as_written(frame, written) && frame.image.rgba.size() >= 4) {
      one_colour_frames.push_back(frame.frame);
      const uint8_t* first = frame.image.rgba.data();
      one_colour_pixels.push_back({first[0], first[1], first[2], first[3]});
    }
  };
  loop.on_skipped = [&](int frame) { progress.skipped(frame); };
  loop.on_simulated = [&](int frame) { checkpoints.reached(simulation, frame); };
  loop.include_current = true;
  loop.counts_per_frame = options.stats.has_value();
  std::vector<FrameSink*> outputs;
  for (const auto& sink : sinks) outputs.push_back(sink.get());
  const FrameLoopReport report = run_frame_loop(simulation, renderer, frames, outputs, loop);
  progress.finish();
  // (Each frame's own: the camera, a plate sequence or the lights may change the scenery.)
  std::vector<int> hidden;
  for (size_t k = 0; k < one_colour_frames.size(); ++k)
    if (const Image empty = renderer.render_without_particles(one_colour_frames[k]);
        one_colour(empty) && std::equal(empty.rgba.begin(), empty.rgba.begin() + 4, one_colour_pixels[k].begin()))
      hidden.push_back(one_colour_frames[k]);
  one_colour_frames = std::move(hidden);
  if (const std::vector<int>& f = one_colour_frames; !f.empty()) {
    const std::string which = f.size() == 1 ? fmt::format("frame {} is", f[0])
                              : f.back() - f.front() + 1 == int(f.size())
                                  ? fmt::format("frames {}-{} are", f.front(), f.back())
                              : f.size() <= 4 ? fmt::format("frames {} are", fmt::join(f, ", "))
                                              : fmt::format("frames {}, {}, {} … {} are", f[0], f[1], f[2], f.back());
    warn(fmt::format("{} of the {} frames drawn: {} one colour throughout, nothing shows (no particle there yet, or "
                     "the exposure, fog, opacity or emitters hide them all)",
                     f.size(), report.frames, which));
  }

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Standard output may carry the statistics or hashes: the summary then goes
  // to stderr, as a JSON Lines note where stderr is JSON Lines.
  const bool stdout_taken = std::any_of(sinks.begin(), sinks.end(), [](const auto& s) { return s->writes_stdout(); });
  if (!options.quiet) {
    // A JSON note escapes the path itself; a text line shows its control characters escaped.
    const bool as_json = stdout_taken && style == ProgressStyle::jsonl;
    const std::string summary = fmt::format(
               "rendered {} frame{} ({}{}-{}) of {} in {:.2f} s ({:.1f} frames/s), up to {} live particles "
               "(secondaries included), {}x{} on {}, {} {}encoder{} → {}",
               report.frames, report.frames == 1 ? "" : "s",
               report.frames < frames.last() - frames.first() + 1 ? "of " : "",  // "2 frames (of 3-5)": 3 and 5
               frames.first(), frames.last(), scene_name(options.scene), seconds,
               report.frames / seconds, report.peak_particles, scene.output.width, scene.output.height, gl.describe(),
               loop.encoders, video_only ? "" : image_format_of(scene.output.path) == ImageFormat::exr ? "EXR " : "PNG ",
               loop.encoders == 1 ? "" : "s", as_json ? scene.output.path : printable(scene.output.path));
    if (!stdout_taken)
      fmt::print("{}\n", summary);
    else if (style == ProgressStyle::jsonl)
      note(summary);
    else
      say("{}\n", summary);
  }
  return 0;
}

}  // namespace fxsim
