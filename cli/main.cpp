// fxsim: parse the command line, then hand over to one subcommand:
//   render   scene → validated Scene → Simulation + Renderer → PNG frames
//   validate scene → every problem, no GL
//   info     EGL devices and the GL context fxsim would use
//   compare  two PNGs or folders of PNGs
//   bench    throughput figures
#include <cmath>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <limits>
#include <fmt/format.h>
#include <new>

#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/completion.h"
#include "core/exit_codes.h"
#include "core/number_text.h"
#include "core/shards.h"
#include "core/utf8.h"
#include "core/scene_schema.h"

using namespace fxsim;

namespace {
constexpr const char* kRasteriserHelp =
    "who draws the sprites: gl (the GL rasteriser), compute (tiles sorted and blended by compute shaders, "
    "OpenGL 4.3), cpu (the same algorithm on the CPU's threads) or auto (compute for large batches on a hardware "
    "GPU; cpu on a software GL such as llvmpipe for batches of small sprites, enough of them for the frame; gl "
    "elsewhere)";
constexpr const char* kFillResolutionHelp =
    "at which resolution sprite batches are drawn: auto (batches of large sprites that cover the frame at least once, "
    "measured before drawing, at half size, composited back with a depth-aware upsample; the rest at full size), "
    "full or half (every batch)";
constexpr const char* kTileListsHelp =
    "what the compute rasteriser's tile lists hold: indices of the sprites, records (a copy of each sprite, "
    "sorted with its tile, read in order: faster where millions of sprites lie in no screen order, such as rain "
    "and snow) or auto (records for such draws of 1.4 M sprites or more); the frames are the same bytes either way";
constexpr const char* kCoverageHelp =
    "how the compute rasteriser's blend finds which of a pixel's samples a sprite covers: corners (each pixel "
    "from the sprite's corners), planes (each sprite's edge planes found once, for all the pixels of its tile: "
    "faster for rain's and snow's draws of millions of sprites, slower for small draws and a fountain's dense "
    "jet) or auto (planes for draws, or parts with --part-sprites, of 1 M drawn sprites or more, unless most "
    "are tall on screen and in screen order); a sample on an edge may be rounded differently";
constexpr const char* kPartSpritesHelp =
    "the compute rasteriser draws batches in parts of at most N sprites (N rounded down to a multiple of 16, at "
    "least 16), newest first, each skipping what the parts in front hide: less GPU memory; the edges of opaque "
    "sprites may differ slightly from a batch drawn whole (0, the default: parts as large as the GL's storage "
    "blocks hold)";

}  // namespace

namespace {
// A command's exit status once what it printed has reached standard output:
// `fxsim schema > /dev/full` exited 0 with nothing written, and `compare`'s
// verdict was its exit status whether or not its report could be written.
// Not for an error status already given (render's own 73 for `--stats -`).
int delivered(int status) {
  if ((std::fflush(stdout) == 0 && !std::ferror(stdout)) || status >= int(fxsim::ExitCode::usage)) return status;
  // (The reason is gone by now: an earlier write in the command may have failed, with errno since reused.)
  std::fprintf(stderr, "fxsim: standard output cannot be written (a full disk, a closed pipe?): what it says is lost\n");
  return int(fxsim::ExitCode::cannot_write);
}
}  // namespace

int main(int argc, char** argv) {
  // Names and values go into JSON (the manifest, the statistics, the scene
  // an override changes), which holds UTF-8 only: a name that is not UTF-8
  // ended a render as an internal error (70) after its folder was made.
  for (int i = 1; i < argc; ++i)
    if (!is_utf8(argv[i])) {
      std::fprintf(stderr, "fxsim: argument %d is not UTF-8 text: fxsim writes names and values into JSON (the "
                           "manifest, the statistics), which holds UTF-8 only; rename the file or folder\n", i);
      return int(ExitCode::usage);
    }
  CLI::App app{"fxsim: a headless, deterministic particle-effects simulator and renderer"};
  app.set_version_flag("--version", std::string("fxsim ") + FXSIM_VERSION);
  app.require_subcommand(1);

  RenderOptions render;
  auto* render_cmd = app.add_subcommand("render", "simulate a scene and write its frames as PNG or video");
  render_cmd->add_option("scene", render.scene, "scene file (JSON), or - to read it from standard input")->required();
  render_cmd->add_option("-o,--output", render.output,
                         "output path: PNG frames where a run of # is the frame number, or a video (.mp4, .webm, "
                         ".mov, .gif, through ffmpeg)");
  render_cmd->add_option("--video", render.video, "also write the frames as a video file (.mp4, .webm, .mov, .gif)");
  render_cmd->add_option("--video-crf", render.video_crf,
                         "video quality for .mp4 (H.264, 0-51, default 18) and .webm (VP9, 0-63, default 31): lower is better; "
                         "refused where no .mp4 or .webm is written")
      ->check(CLI::Range(0, 63));
  render_cmd->add_option("--frames", render.frames,
                         "frames to write: N, A-B, A-B:S (every S-th), or a list such as 1-240:2,300; may go past "
                         "output.frames (simulation still starts at 0)");
  render_cmd->add_option("--width", render.width, "image width, overrides output.width")->check(CLI::Range(1, 16384));
  render_cmd->add_option("--height", render.height, "image height, overrides output.height")->check(CLI::Range(1, 16384));
  // Read as text: CLI11 turns a number past the type's range into its
  // largest value, which is a seed too (99999999999999999999 rendered with
  // 2^63 - 1); and it read "0x10" and " 24" as frame rates, 1e999 as "inf".
  std::optional<std::string> fps_text;
  render_cmd->add_option("--fps", fps_text, "frames per second, overrides output.fps")->type_name("FLOAT");
  std::optional<std::string> seed_text;
  render_cmd->add_option("--seed", seed_text, "the scene's seed, overrides seed")->type_name("UINT");
  render_cmd->add_option("--set", render.sets,
                         "set a scene value before validation: /json/pointer=VALUE (VALUE is JSON, or else a "
                         "string); repeatable, applied in order")
      ->allow_extra_args(false);
  render_cmd->add_option("--unset", render.unsets,
                         "remove a scene key before validation, so its default applies: /json/pointer; "
                         "repeatable, applied before --set")
      ->allow_extra_args(false);
  render_cmd->add_option("--png-level", render.png_level, "PNG compression 0 (fastest) to 9 (smallest), overrides "
                                                          "output.png_level (default 1)")
      ->check(CLI::Range(0, 9));
  render_cmd->add_option("--threads", render.threads,
                         "the most CPU threads fxsim uses: simulation, PNG encoders and llvmpipe (LP_NUM_THREADS) "
                         "(default: all cores)")
      ->check(CLI::Range(1, 1024));
  render_cmd->add_option("--encoders", render.encoders,
                         "PNG encoder threads (default: the cores the backend leaves free: all but one on the GPU "
                         "backend, half on the CPU backend)")
      ->check(CLI::Range(1, 64));
  render_cmd->add_option("--stats", render.stats, "write per-frame statistics as JSON Lines to FILE");
  render_cmd->add_option("--state-hashes", render.state_hashes, "write each frame's simulation-state hash to FILE");
  render_cmd->add_option("--device", render.device, "EGL device index to render on (see `fxsim info`)")
      ->check(CLI::Range(0, 255));
  render_cmd->add_option("--backend", render.backend,
                         "where particles are stepped: cpu, gpu (compute shaders, OpenGL 4.3) or auto "
                         "(gpu on a hardware GPU, cpu on a software GL)")
      ->check(CLI::IsMember({"cpu", "gpu", "auto"}));
  render_cmd->add_option("--rasteriser", render.rasteriser, kRasteriserHelp)->check(CLI::IsMember({"auto", "gl", "compute", "cpu"}));
  render_cmd->add_option("--fill-resolution", render.fill_resolution, kFillResolutionHelp)
      ->check(CLI::IsMember({"auto", "full", "half"}));
  render_cmd->add_option("--tile-lists", render.tile_lists, kTileListsHelp)
      ->check(CLI::IsMember({"auto", "indices", "records"}));
  render_cmd->add_option("--coverage", render.coverage, kCoverageHelp)->check(CLI::IsMember({"auto", "corners", "planes"}));
  render_cmd->add_option("--part-sprites", render.part_sprites, kPartSpritesHelp)
      ->check(CLI::Range(int64_t(0), int64_t(1) << 40));
  render_cmd->add_option("--progress", render.progress,
                         "progress on stderr: auto (a bar on a terminal, else one line per frame), bar, lines, "
                         "jsonl or none")
      ->check(CLI::IsMember({"auto", "bar", "lines", "jsonl", "none"}));
  render_cmd->add_flag("-q,--quiet", render.quiet, "print nothing but errors and warnings (no progress, no notes, no summary)");
  render_cmd->add_option("--checkpoint-every", render.checkpoint_every,
                         "write the complete simulation state every N frames, so later renders of these frames "
                         "start there")
      ->check(CLI::Range(1, 10000000));
  render_cmd->add_option("--checkpoints", render.checkpoints,
                         "the checkpoint folder (default: checkpoints/ beside the frames); renders start from the "
                         "newest fitting checkpoint at or before their first frame");
  render_cmd->add_flag("--simulate-only", render.simulate_only,
                       "only simulate up to the last frame, writing checkpoints (needs --checkpoint-every)");
  render_cmd->add_option("--shard", render.shard,
                         "render the I-th of N contiguous chunks of the frames (I/N); default: from "
                         "SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX when set");
  render_cmd->add_option("--shard-count", render.shard_count,
                         "the number of shards of a Kubernetes Indexed Job (with JOB_COMPLETION_INDEX)")
      ->check(CLI::Range(1, kMaxShards));
  render_cmd->add_flag("--skip-existing", render.skip_existing,
                       "leave frames whose files exist, decode at the right size and, where the manifest records them, "
                       "have the recorded size and SHA-256 and were drawn by this scene, look, fxsim version and backend, as they are "
                       "(resume a run)");
  // (A callback, not a "!" flag: CLI11's help showed that one as "--no-manifest-hashes{false}".)
  render_cmd->add_flag_callback("--no-manifest-hashes", [&render] { render.manifest_hashes = false; },
                       "leave the state hash out of the manifest's frame lines (it copies the whole simulation state "
                       "every frame drawn)");
  render_cmd->add_option("--devices", render.devices,
                         "render one shard per EGL device, such as 0,1 (child processes, each with --device and "
                         "--shard)");

  std::string validate_scene;
  auto* validate_cmd = app.add_subcommand("validate", "check a scene and print every problem (no GL needed)");
  validate_cmd->add_option("scene", validate_scene, "scene file (JSON), or - to read it from standard input")->required();
  std::string validate_backend = "cpu";
  validate_cmd->add_option("--backend", validate_backend,
                           "the backend whose memory needs are checked against this machine's free RAM: cpu (default) "
                           "or gpu (particles on the GPU; render checks the GPU's memory)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  // The scene as a render with the same options sees it (a farm's scripts
  // read the frame count and rate from here).
  RenderOptions validate_overrides;
  std::optional<std::string> validate_fps_text;
  validate_cmd->add_option("--fps", validate_fps_text, "frames per second, overrides output.fps (as render's)")
      ->type_name("FLOAT");
  validate_cmd->add_option("--set", validate_overrides.sets,
                           "set a scene value before validation: /json/pointer=VALUE, as render's; repeatable")
      ->allow_extra_args(false);
  validate_cmd->add_option("--unset", validate_overrides.unsets,
                           "remove a scene key before validation: /json/pointer, as render's; repeatable")
      ->allow_extra_args(false);

  std::optional<int> info_device;
  bool info_json = false;
  auto* info_cmd = app.add_subcommand("info", "list EGL devices and the OpenGL context fxsim gets");
  info_cmd->add_option("--device", info_device, "try this EGL device index")->check(CLI::Range(0, 255));
  info_cmd->add_flag("--json", info_json, "print it as JSON (with the device class goldens are kept under)");

  TestOptions test;
  auto* test_cmd = app.add_subcommand(
      "test", "render suites of scenes and compare them with their goldens (exit 0 all pass, 1 any fails)");
  test_cmd->add_option("suite", test.suites, "suite file, or a folder of scenes (its suite.json, else every *.json)")
      ->required();
  test_cmd->add_option("--scene", test.only, "test only this scene (by name; repeatable)");
  test_cmd->add_flag("--update", test.update, "write the goldens of this device class (and backend) from this run");
  test_cmd->add_option("--junit", test.junit, "write a JUnit XML file (one test case per scene and frame)");
  test_cmd->add_option("--report", test.report, "write an HTML report into this folder");
  test_cmd->add_option("--json", test.json, "write the results as JSON");
  test_cmd->add_option("--backend", test.backend, "cpu or gpu, overriding the suite's")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  test_cmd->add_option("--rasteriser", test.rasteriser, kRasteriserHelp)->check(CLI::IsMember({"auto", "gl", "compute", "cpu"}));
  test_cmd->add_option("--fill-resolution", test.fill_resolution, kFillResolutionHelp)
      ->check(CLI::IsMember({"auto", "full", "half"}));
  test_cmd->add_option("--device-class", test.device_class,
                       "use the goldens of this device class instead of the GL's (such as nvidia-h200)");
  test_cmd->add_option("--device", test.device, "EGL device index (see `fxsim info`)")->check(CLI::Range(0, 255));
  test_cmd->add_flag("--no-cpu-check", test.no_cpu_check,
                     "on the GPU backend, skip simulating each scene once more on the CPU backend against the shared "
                     "CPU state hashes (for a GPU runner whose CPU suite runs elsewhere)");
  test_cmd->add_option("--jobs", test.jobs, "scenes rendered at once (default: half the cores on a software GL, 4 on "
                                            "a GPU)")
      ->check(CLI::Range(1, 256));

  CompareOptions compare;
  auto* compare_cmd = app.add_subcommand(
      "compare", "compare two PNGs or two folders of PNGs as OpenImageIO's idiff does (exit 0 pass, 1 warning, "
                 "2 failure, 3 sizes differ)");
  compare_cmd->add_option("a", compare.a, "image or folder")->required();
  compare_cmd->add_option("b", compare.b, "image or folder")->required();
  // idiff's thresholds, once for failing and once for warning. CLI::Range
  // lets "nan" through (no comparison with it fails), and a NaN threshold
  // passed every image.
  const CLI::Validator a_number(
      [](std::string& text) {
        double value = 0;
        return CLI::detail::lexical_cast(text, value) && std::isnan(value) ? "expected a number, got " + text
                                                                            : std::string();
      },
      "", "A NUMBER");
  for (const bool fail : {true, false}) {
    const std::string verb = fail ? "fail" : "warn";
    CompareThresholds& t = compare.thresholds;
    compare_cmd->add_option("--" + verb, fail ? t.fail : t.warn,
                            "a pixel " + verb + "s when a channel differs by more than this, 0..1 of full scale "
                            "(default 1e-6)")
        ->check(a_number)
        ->check(CLI::Range(0.0, 1.0));
    compare_cmd->add_option("--" + verb + "percent", fail ? t.fail_percent : t.warn_percent,
                            "the comparison " + verb + "s when more than this percentage of pixels " + verb +
                                " (default 0)")
        ->check(a_number)
        ->check(CLI::Range(0.0, 100.0));
    compare_cmd->add_option("--hard" + verb, fail ? t.hard_fail : t.hard_warn,
                            "the comparison " + verb + "s when any pixel differs by more than this (default: no limit)")
        ->check(a_number)
        ->check(CLI::Range(0.0, 1.0));
  }
  compare_cmd->add_option("--diff", compare.diff,
                          "write a difference heat map (for folders: a folder of diff_NAME.png)");
  compare_cmd->add_flag("--json", compare.json, "print the results as JSON");

  BenchOptions bench;
  auto* bench_cmd = app.add_subcommand("bench", "measure simulation, drawing and frame throughput (prints figures)");
  CLI::Option* bench_scene = bench_cmd->add_option("--scene", bench.scene, "measure this scene's frames (at its own "
                                                                           "size, or --width x --height) instead of a "
                                                                           "synthetic effect");
  bench_cmd->add_option("--effect", bench.effect, "snow, rain or fountain")
      ->capture_default_str()
      ->check(CLI::IsMember({"snow", "rain", "fountain"}))
      ->excludes(bench_scene);
  bench_cmd->add_option("--particles", bench.particles, "number of particles")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(1), int64_t(0x7FFFFFFF)))
      ->excludes(bench_scene);
  bench_cmd->add_option("--threads", bench.threads, "CPU threads (default: all cores)")->check(CLI::Range(1, 1024));
  bench_cmd->add_option("--steps", bench.steps, "steps per timing repetition")->capture_default_str()->check(CLI::Range(1, 100000));
  bench_cmd->add_option("--frames", bench.frames, "frames drawn for the per-frame figures (0 skips drawing)")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  bench_cmd->add_option("--width", bench.width,
                        fmt::format("image width (default: the scene's with --scene, else {})", BenchOptions::kBenchWidth))
      ->check(CLI::Range(1, 16384));
  bench_cmd->add_option("--height", bench.height,
                        fmt::format("image height (default: the scene's with --scene, else {})", BenchOptions::kBenchHeight))
      ->check(CLI::Range(1, 16384));
  bench_cmd->add_flag_callback("--no-turbulence", [&] { bench.turbulence = false; }, "steady wind and gusts only");
  bench_cmd->add_option("--backend", bench.backend, "cpu or gpu")->capture_default_str()->check(CLI::IsMember({"cpu", "gpu"}));
  bench_cmd->add_option("--rasteriser", bench.rasteriser, kRasteriserHelp)->check(CLI::IsMember({"auto", "gl", "compute", "cpu"}));
  bench_cmd->add_option("--fill-resolution", bench.fill_resolution, kFillResolutionHelp)
      ->check(CLI::IsMember({"auto", "full", "half"}));
  bench_cmd->add_option("--tile-lists", bench.tile_lists, kTileListsHelp)
      ->check(CLI::IsMember({"auto", "indices", "records"}));
  bench_cmd->add_option("--coverage", bench.coverage, kCoverageHelp)->check(CLI::IsMember({"auto", "corners", "planes"}));
  bench_cmd->add_option("--part-sprites", bench.part_sprites, kPartSpritesHelp)
      ->check(CLI::Range(int64_t(0), int64_t(1) << 40));
  bench_cmd->add_flag("--compare-rasterisers", bench.compare_rasterisers,
                      "also time the frames with each rasteriser (without it: on a hardware GPU when --rasteriser is auto; slow on "
                      "llvmpipe)");
  bench_cmd->add_option("--device", bench.device, "EGL device index (see `fxsim info`)")->check(CLI::Range(0, 255));
  bench_cmd->add_option("--encoders", bench.encoders, "PNG encoder threads for the end-to-end figure (default: as render)")
      ->check(CLI::Range(1, 64));
  bench_cmd->add_option("--png-level", bench.png_level, "PNG compression 0-9 (default 1)")->check(CLI::Range(0, 9));

  std::string verify_folder;
  bool verify_quiet = false;
  auto* verify_cmd = app.add_subcommand(
      "verify", "check a folder's frames against its manifest: missing, corrupt or mismatched frames (exit 1 if any)");
  verify_cmd->add_option("folder", verify_folder, "the output folder (holding fxsim-manifest.jsonl)")->required();
  verify_cmd->add_flag("-q,--quiet", verify_quiet, "print only the problems and their count (nothing when all is well)");

  auto* schema_cmd = app.add_subcommand(
      "schema", "print the JSON Schema (draft 2020-12) of the scene format, for editors and other checkers "
                "(installed as share/fxsim/scene.schema.json)");

  std::string completion_shell;
  auto* completion_cmd = app.add_subcommand(
      "completion", "print a shell completion script for bash or zsh (installed with fxsim; from a build: "
                    "source <(fxsim completion bash))");
  completion_cmd->add_option("shell", completion_shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));

  render.argv.assign(argv, argv + argc);
  // A first word that is no command nor option: CLI11 said only "A subcommand is required".
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::fprintf(stderr, "fxsim: %s: no such command; the commands are %s (fxsim --help)\n", argv[1], names.c_str());
    return int(ExitCode::usage);
  }
  if (argc == 1) {
    std::fprintf(stderr, "fxsim: a command is needed: %s (fxsim --help)\n", names.c_str());
    return int(ExitCode::usage);
  }
  // An option before any command that fxsim itself has not (it has --help
  // and --version): CLI11 said only "A subcommand is required".
  if (const std::string_view first = argv[1];
      first.size() > 1 && first[0] == '-' && first != "-h" && first != "--help" && first != "--version") {
    std::fprintf(stderr, "fxsim: %s: no such option; options go after the command: fxsim COMMAND [OPTIONS] "
                         "(the commands are %s; fxsim --help)\n", argv[1], names.c_str());
    return int(ExitCode::usage);
  }
  // render --progress jsonl: its errors are JSON Lines too, those found
  // while the options are read among them (--width 0, --seed -1 were text).
  if (argc > 1 && std::string_view(argv[1]) == "render")
    for (int i = 2; i < argc && std::string_view(argv[i]) != "--"; ++i)
      if (std::string_view(argv[i]) == "--progress=jsonl" ||
          (std::string_view(argv[i]) == "--progress" && i + 1 < argc && std::string_view(argv[i + 1]) == "jsonl"))
        set_message_style(ProgressStyle::jsonl);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    // CLI11 (2.1) lists the extra arguments last first: said here in the
    // order given, the command's then those after its -- (which CLI11 keeps
    // at the top).
    std::vector<std::string> extras;
    std::string where = "fxsim";
    for (const CLI::App* sub : app.get_subcommands()) {
      where += " " + sub->get_name();
      const std::vector<std::string> own = sub->remaining(false);
      extras.insert(extras.end(), own.begin(), own.end());
    }
    const std::vector<std::string> top = app.remaining(false);
    extras.insert(extras.end(), top.begin(), top.end());
    extras.erase(std::remove(extras.begin(), extras.end(), "--"), extras.end());
    std::string list;
    for (const std::string& extra : extras) list += (list.empty() ? "" : " ") + extra;
    const bool dashes = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--"; });
    if (report_error_as_json(fmt::format("{}: the following argument{} not expected: {}{}", where,
                                         extras.size() == 1 ? " was" : "s were", list,
                                         dashes ? " (options go before --)" : ""),
                             int(ExitCode::usage)))
      return int(ExitCode::usage);
    std::fprintf(stderr, "%s: the following argument%s not expected: %s%s\nRun with --help for more information.\n",
                 where.c_str(), extras.size() == 1 ? " was" : "s were", list.c_str(),
                 dashes ? " (options go before --)" : "");
    return int(ExitCode::usage);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? delivered(0) : int(ExitCode::usage);  // --help, --version
    // CLI11's own words ("scene is required", "--width: Value 0 not in
    // range 1 to 16384"), said in fxsim's voice: the command, then the problem.
    std::string where = "fxsim";
    for (const CLI::App* sub : app.get_subcommands()) where += " " + sub->get_name();
    if (report_error_as_json(where + ": " + e.what(), int(ExitCode::usage))) return int(ExitCode::usage);
    std::fprintf(stderr, "%s: %s\nRun with --help for more information.\n", where.c_str(), e.what());
    return int(ExitCode::usage);
  }

  try {
    // A decimal number as typed, finite: anything else is a usage error naming the text.
    const auto parse_fps = [](const std::optional<std::string>& text) -> std::optional<double> {
      if (!text) return std::nullopt;
      const std::optional<double> fps = number_of_text<double>(*text);
      if (!fps || !std::isfinite(*fps))
        throw FxError(ExitCode::usage, fmt::format("--fps {}: expected a number of frames per second", *text));
      return fps;
    };
    if (*render_cmd) {
      render.fps = parse_fps(fps_text);
      if (seed_text) {
        const std::optional<int64_t> seed = number_of_text<int64_t>(*seed_text);
        if (!seed || *seed < 0)
          throw FxError(ExitCode::usage, fmt::format("--seed {}: expected a whole number in 0..{}", *seed_text,
                                                     std::numeric_limits<int64_t>::max()));
        render.seed = *seed;
      }
      return delivered(run_render(render));
    }
    if (*validate_cmd) {
      validate_overrides.fps = parse_fps(validate_fps_text);
      return delivered(run_validate(validate_scene, validate_backend, validate_overrides));
    }
    if (*info_cmd) return delivered(run_info(info_device, info_json));
    if (*test_cmd) return delivered(run_test(test));
    if (*compare_cmd) return delivered(run_compare(compare));
    if (*bench_cmd) return delivered(run_bench(bench));
    if (*verify_cmd) return delivered(run_verify(verify_folder, verify_quiet));
    if (*schema_cmd) {
      std::puts(scene_schema().dump(2).c_str());
      return delivered(0);
    }
    if (*completion_cmd) {
      std::fputs(completion_script(app, completion_shell).c_str(), stdout);
      return delivered(0);
    }
  } catch (const SceneError& e) {
    // The summary line names what was read: the scene, or the suite.
    const std::string read = *bench_cmd                                ? bench.scene
                             : *test_cmd && test.suites.size() == 1 ? test.suites.front()
                             : *test_cmd                            ? "the suites"
                                                                    : render.scene;
    return report_scene_error(e, read);
  } catch (const FxError& e) {
    if (!report_error_as_json(e.what(), int(e.code()))) std::fprintf(stderr, "fxsim: %s\n", e.what());
    return int(e.code());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "fxsim: out of memory (the particles, the images, or a list of frames too long for this machine)\n");
    return int(ExitCode::internal);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fxsim: internal error: %s\n", e.what());
    return int(ExitCode::internal);
  }
  return int(ExitCode::usage);
}
