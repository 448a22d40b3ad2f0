// test: renders every scene of one or more suites (fxsim render as child
// processes, several at once), compares the chosen frames with the goldens of
// this device class and the state hashes with the golden hashes, prints a
// line per scene and a summary, and writes JUnit, JSON and HTML reports.
// Exit 0 when every scene passes, 1 when any fails.
#include <array>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <fmt/format.h>
#include <optional>
#include <fstream>
#include <mutex>
#include <cerrno>
#include <csignal>
#include <sys/stat.h>
#include <pthread.h>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/parallel.h"
#include "core/image_compare.h"
#include "core/png_writer.h"
#include "core/test_results.h"
#include "core/test_suite.h"
#include "render/atomic_file.h"
#include "render/child_process.h"
#include "render/egl_context.h"
#include "render/output_files.h"

namespace fxsim {

namespace fs = std::filesystem;

namespace {
using Clock = std::chrono::steady_clock;
// A test's renders draw every frame it asks for: inside a Slurm array task or
// a Kubernetes Indexed Job they took their shard from its variables.
const std::array<std::string, 2> kEveryFrame = {"--shard", "1/1"};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Held while a golden or a report is written: an interrupt waits for it,
// so that what it leaves is whole.
std::recursive_mutex g_writing;

// Folders in the scratch folder (and itself) are made under the same lock:
// an interrupt's waiter removes the scratch folder holding it and exits, so
// none can be made after (an interrupt during start-up left an empty
// /tmp/fxsim-test-PID, the scratch folder made just after its removal).
void make_scratch_folder(const fs::path& p) {
  const std::lock_guard lock(g_writing);
  fs::create_directories(p);
}

void write_all(const fs::path& p, const std::string& text) {
  const std::lock_guard lock(g_writing);
  std::error_code error;
  if (!p.parent_path().empty() && !fs::create_directories(p.parent_path(), error) && error)
    throw FxError(ExitCode::cannot_write,
                  fmt::format("{}: cannot make its folder {} ({})", p.string(), p.parent_path().string(), error.message()));
  write_file_atomically(p, std::vector<uint8_t>(text.begin(), text.end()));
}

// The scratch folder, made anew with a name no other run has (mkdtemp):
// one named by the process id alone was taken as it stood, so the layers a
// killed run had left in it were compared as this run's. Throws FxError(73).
fs::path make_unique_scratch_folder() {
  std::error_code error;
  const fs::path temporary = fs::temp_directory_path(error);
  if (error)
    throw FxError(ExitCode::cannot_write, fmt::format("fxsim test: no folder for its scratch files ({}: {})",
                                                      std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp",
                                                      error.message()));
  std::string name = (temporary / "fxsim-test-XXXXXX").string();
  if (::mkdtemp(name.data()) == nullptr)
    throw FxError(ExitCode::cannot_write, fmt::format("fxsim test: cannot make a scratch folder in {} ({})",
                                                      temporary.string(), std::strerror(errno)));
  return name;
}

// On Ctrl-C or a kill while the suites run: the renders are stopped, the
// golden or report being written is let finish, the scratch folder goes,
// and fxsim exits 128 + the signal. The interrupts are blocked in every
// thread (the workers inherit the mask) and waited for by one, which may
// then do what a signal handler may not (remove a folder, take a lock).
// Left alone, a Ctrl-C ended fxsim at once: the renders ran on to their
// end, the scratch folder stayed, and a golden could be left half-written.
//
// It makes the scratch folder once the interrupts are blocked, and removes it
// when the run ends, however it ends.
class StopCleanlyOnInterrupt {
 public:
  StopCleanlyOnInterrupt() {
    const sigset_t interrupts = interrupt_signals();
    pthread_sigmask(SIG_BLOCK, &interrupts, &before_);
    try {
      scratch_ = make_unique_scratch_folder();
    } catch (...) {
      pthread_sigmask(SIG_SETMASK, &before_, nullptr);
      throw;
    }
    waiter_ = std::thread([this, interrupts] {
      siginfo_t info;
      const timespec tick{0, 100'000'000};
      int signal = -1;
      while (!done_.load() && (signal = sigtimedwait(&interrupts, &info, &tick)) < 0) {
      }
      if (signal < 0) return;
      const std::lock_guard lock(g_writing);
      stop_child_processes(signal);
      std::error_code ignored;
      fs::remove_all(scratch_, ignored);  // (nothing is made in it while the lock is held: make_scratch_folder)
      std::fflush(stdout);  // (the lines before, then this one)
      fmt::print(stderr, "\nfxsim test: {}: stopped; every golden and report file on disk is whole\n",
                 signal == SIGINT ? "interrupted (SIGINT)" : signal == SIGTERM ? "terminated (SIGTERM)" : "hung up (SIGHUP)");
      _exit(128 + signal);
    });
  }
  ~StopCleanlyOnInterrupt() {
    done_ = true;
    waiter_.join();
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
    pthread_sigmask(SIG_SETMASK, &before_, nullptr);  // (one pending now ends fxsim as it would have)
  }
  const fs::path& scratch() const { return scratch_; }
  StopCleanlyOnInterrupt(const StopCleanlyOnInterrupt&) = delete;
  StopCleanlyOnInterrupt& operator=(const StopCleanlyOnInterrupt&) = delete;

 private:
  fs::path scratch_;
  sigset_t before_;
  std::atomic<bool> done_{false};
  std::thread waiter_;
};

// The first line where two hash files differ: "frame 12: 0123… here, 4567… in the golden".
std::string first_hash_difference(const std::string& actual, const std::string& golden) {
  std::istringstream a(actual), g(golden);
  std::string la, lg;
  for (int line = 1;; ++line) {
    const bool more_a = bool(std::getline(a, la)), more_g = bool(std::getline(g, lg));
    if (!more_a && !more_g) return "";
    if (more_a != more_g)
      return fmt::format("{} has more frames (line {})", more_a ? "this run" : "the golden", line);
    if (la != lg) return fmt::format("first difference at line {}: \"{}\" here, \"{}\" in the golden", line, la, lg);
  }
}

struct Job {
  const Suite* suite;
  size_t suite_index;  // its place among the suites: its scratch folder's (two suites may share a name)
  size_t scene_index;  // its place in the suite: its scratch folder's (a name may be too long for one)
  const SuiteScene* scene;
  SceneCheck* result;
};

class Runner {
 public:
  Runner(const TestOptions& o, DeviceClass device, fs::path work, int threads_each)
      : options_(o), device_(std::move(device)), work_(std::move(work)), threads_each_(threads_each),
        self_(fs::read_symlink("/proc/self/exe")) {}

  void run(const Job& job) {
    const auto started = Clock::now();
    const SuiteScene& scene = *job.scene;
    SceneCheck& out = *job.result;
    out.name = scene.name;
    out.scene = scene.scene.string();
    out.backend = scene.backend;
    out.tolerance = scene.tolerance;
    // Named by the places of the suite and scene (and the scene's name, cut
    // short, to be read): two suites may share a name, a scene's may be too
    // long for a folder's with more before it.
    const fs::path dir =
        work_ / fmt::format("{}-{}-{}", job.suite_index + 1, job.scene_index + 1, scene.name.substr(0, 64));
    make_scratch_folder(dir);
    std::string frames;
    for (const int f : scene.frames) frames += (frames.empty() ? "" : ",") + std::to_string(f);
    // The render starts in its scratch folder and writes there by relative
    // names: a '#' in the scratch folder's path (a TMPDIR, a suite's or a
    // scene's name) would be read as the frame number and the frames go
    // elsewhere.
    const std::string scene_file = fs::absolute(scene.scene).string();
    std::vector<std::string> argv = {self_.string(), "render", scene_file, "--width", std::to_string(scene.width),
                                     "--height", std::to_string(scene.height), "--frames", frames, "--backend",
                                     scene.backend, "--quiet", "--encoders", "1", "--threads",
                                     std::to_string(threads_each_), "-o", "frame_####.png",
                                     "--state-hashes", "state-hashes.txt", kEveryFrame[0], kEveryFrame[1]};
    if (options_.device) argv.insert(argv.end(), {"--device", std::to_string(*options_.device)});
    if (options_.rasteriser) argv.insert(argv.end(), {"--rasteriser", *options_.rasteriser});
    if (options_.fill_resolution) argv.insert(argv.end(), {"--fill-resolution", *options_.fill_resolution});
    ChildProcess render(argv, OnInterrupt::kill, dir.string());
    const int status = render.finish();
    if (status != 0) {
      out.render_error = fmt::format("fxsim render exited with {}: {}", status, render.error_tail());
      out.seconds = seconds_since(started);
      return;
    }
    const GoldenSet set = golden_set(*job.suite, scene, device_);
    for (const int frame : scene.frames) {
      out.frames.push_back(check_frame(*job.suite, scene, set, dir, frame, ""));
      const std::vector<std::string> layers = layers_written(dir, frame);
      for (const std::string& layer : layers) out.frames.push_back(check_frame(*job.suite, scene, set, dir, frame, layer));
      for (FrameCheck& stale : unwritten_layers(set, frame, layers)) out.frames.push_back(std::move(stale));
    }
    for (FrameCheck& stale : unchecked_frames(set, scene.frames)) out.frames.push_back(std::move(stale));
    if (scene.hashes) {
      // CPU hashes are shared by every device: only the base class writes them.
      const bool may_write = scene.backend == "gpu" || device_.base == job.suite->base_class;
      out.hashes = check_hashes(set.hashes, dir / "state-hashes.txt", may_write);
      if (scene.backend == "gpu" && !options_.no_cpu_check) {
        // The GPU's hashes are its device class's; the simulation must still match the CPU's shared ones.
        SuiteScene on_cpu = scene;
        on_cpu.backend = "cpu";
        const fs::path cpu_dir = dir / "cpu";
        make_scratch_folder(cpu_dir);
        // Only the last frame is drawn (at the suite's size: plates must match it); every frame is hashed.
        ChildProcess cpu_render({self_.string(), "render", scene_file, "--width", std::to_string(scene.width),
                                 "--height", std::to_string(scene.height),
                                 "--frames", std::to_string(scene.frames.back()), "--backend", "cpu", "--quiet",
                                 "--threads", std::to_string(threads_each_), "-o", "f_####.png",
                                 "--state-hashes", "state-hashes.txt", kEveryFrame[0], kEveryFrame[1]},
                                OnInterrupt::kill, cpu_dir.string());
        if (const int cpu_status = cpu_render.finish(); cpu_status != 0)
          out.render_error = fmt::format("fxsim render --backend cpu exited with {}: {}", cpu_status, cpu_render.error_tail());
        else
          out.cpu_hashes = check_hashes(golden_set(*job.suite, on_cpu, device_).hashes, cpu_dir / "state-hashes.txt",
                                        device_.base == job.suite->base_class);
      }
    }
    out.seconds = seconds_since(started);
  }

 private:
  static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

  // The ground-truth layers the render wrote beside frame `frame` ("depth",
  // "mask.rain", "motion"), sorted; the clean plate is a copy of the input, not
  // compared.
  static std::vector<std::string> layers_written(const fs::path& dir, int frame) {
    const std::string prefix = fs::path(golden_frame_name(frame)).stem().string() + ".";  // "frame_0024.", "frame_10000."
    std::vector<std::string> layers;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.size() <= prefix.size() + 4 || name.compare(0, prefix.size(), prefix) != 0 || entry.path().extension() != ".png")
        continue;
      const std::string layer = name.substr(prefix.size(), name.size() - prefix.size() - 4);
      if (layer != "plate") layers.push_back(layer);
    }
    std::sort(layers.begin(), layers.end());
    return layers;
  }

  // How a report names the lookup folder a golden came from.
  static std::string set_name(const GoldenSet& set, const fs::path& folder) {
    return folder == set.lookup.back() ? "base set" : folder.filename().string();
  }

  // A golden nothing reads any more, found in `folder` of the set: --update
  // removes it from the set it writes (`removed` says why); otherwise its
  // frame fails (`failed` says why, then how to mend it).
  FrameCheck stale_golden(const GoldenSet& set, const fs::path& folder, int frame, const std::string& layer,
                          const fs::path& golden, const std::string& removed, const std::string& failed) {
    FrameCheck f;
    f.frame = frame;
    f.layer = layer;
    f.golden = golden;
    f.golden_set = set_name(set, folder);
    std::error_code error;
    if (options_.update && folder == set.folder && fs::remove(f.golden, error)) {
      f.status = CheckStatus::updated;
      f.message = fmt::format("removed {}: {}", f.golden.string(), removed);
      f.golden.clear();
    } else if (options_.update && folder == set.folder) {  // (a folder of that name, not empty; a read-only folder)
      f.status = CheckStatus::fail;
      f.message = fmt::format("{}; --update could not remove it ({})", failed,
                              error ? error.message() : "it is not there");
    } else {
      f.status = CheckStatus::fail;
      f.message = fmt::format("{} (remove it{})", failed, folder == set.folder ? ", or run with --update" : "");
    }
    return f;
  }

  // Goldens of layers the render no longer writes beside frame `frame` (a
  // scene whose depth or motion stopped coming out passed, its goldens
  // unread): each fails, and --update removes those of its own set.
  std::vector<FrameCheck> unwritten_layers(const GoldenSet& set, int frame, const std::vector<std::string>& written) {
    std::vector<FrameCheck> out;
    std::set<std::string> seen(written.begin(), written.end());
    for (const fs::path& folder : set.lookup) {
      std::error_code error;
      if (!fs::is_directory(folder, error)) continue;
      for (const std::string& layer : layers_written(folder, frame)) {
        if (!seen.insert(layer).second) continue;
        const fs::path golden = folder / golden_frame_name(frame, layer);
        out.push_back(stale_golden(set, folder, frame, layer, golden, fmt::format("the render writes no {} layer", layer),
                                   fmt::format("the render wrote no {} layer, but the golden set has {}: the scene lost "
                                               "an output, or the golden is left from one it no longer asks for",
                                               layer, golden.string())));
      }
    }
    return out;
  }

  // Goldens of frames the suite no longer checks (its `frames` changed, or
  // the scene's count): never read, they stood as if still the reference.
  // Each fails, as a layer's does; --update removes those of its own set.
  std::vector<FrameCheck> unchecked_frames(const GoldenSet& set, const std::vector<int>& checked) {
    std::vector<FrameCheck> out;
    const std::set<int> frames(checked.begin(), checked.end());
    for (const fs::path& folder : set.lookup) {
      std::error_code error;
      if (!fs::is_directory(folder, error)) continue;
      std::map<std::string, int> unchecked;  // file name -> its frame, in name order
      for (const auto& entry : fs::directory_iterator(folder, error))
        if (const auto frame = golden_frame_of(entry.path().filename().string()); frame && !frames.count(*frame))
          unchecked.emplace(entry.path().filename().string(), *frame);
      for (const auto& [name, frame] : unchecked)
        out.push_back(stale_golden(set, folder, frame, "", folder / name,
                                   fmt::format("the suite no longer checks frame {}", frame),
                                   fmt::format("the golden set has {}, but the suite does not check frame {}: a golden "
                                               "left from frames it no longer lists",
                                               (folder / name).string(), frame)));
    }
    return out;
  }

  FrameCheck check_frame(const Suite& suite, const SuiteScene& scene, const GoldenSet& set, const fs::path& dir,
                         int frame, const std::string& layer) {
    FrameCheck f;
    f.frame = frame;
    f.layer = layer;
    const std::string name = golden_frame_name(frame, layer);
    f.actual = dir / name;
    fs::path golden_folder;
    for (const fs::path& folder : set.lookup)
      if (fs::is_regular_file(folder / name)) {
        f.golden = folder / name;
        f.golden_set = set_name(set, folder);
        golden_folder = folder;
        break;
      }
    // The render ended well but wrote no such file (the scratch folder's
    // '#' once sent its frames elsewhere, and --update wrote empty goldens).
    std::error_code error;
    if (!fs::is_regular_file(f.actual, error)) {
      f.status = CheckStatus::fail;
      f.message = fmt::format("the render wrote no {}", name);
      return f;
    }
    // --update writes the frames that fail or have no golden; a frame within
    // the tolerance keeps the golden it matched (no churn in the goldens).
    // It writes into its own set, or into the more specific set whose
    // golden failed (an exact class's, nvidia-h200/): that one is read first,
    // and a golden written below it was never read.
    const auto write_golden = [&] {
      const auto at = [&](const fs::path& folder) { return std::find(set.lookup.begin(), set.lookup.end(), folder); };
      const bool more_specific = !golden_folder.empty() && at(golden_folder) < at(set.folder);
      const fs::path target = (more_specific ? golden_folder : set.folder) / name;
      try {
        // (write_all makes the folder under the lock an interrupt waits for:
        // made here before it, an interrupt between the two left it empty.)
        write_all(target, read_all(f.actual));
      } catch (const FxError& e) {  // a golden that is a link or a FIFO, a folder that cannot be made: this frame's
        f.status = CheckStatus::fail;
        f.message = fmt::format("--update could not write the golden: {}", e.what());
        return f;
      }
      f.status = CheckStatus::updated;
      f.golden = target;
      f.golden_set = more_specific ? set_name(set, golden_folder) : set.name;
      f.message = fmt::format("written to {}", target.string());
      return f;
    };
    if (f.golden.empty()) {
      if (options_.update) return write_golden();
      f.status = CheckStatus::missing;
      f.message = fmt::format("no golden {} for device class {} ({} backend); create it with fxsim test {} --update",
                              name, device_.base, scene.backend, suite.file.string());
      return f;
    }
    const Image actual = read_png(f.actual, PngUse::frame);
    const int actual_bits = png_bit_depth(f.actual);
    Image golden;
    std::optional<Samples16> golden16;  // where both are 16-bit layers (depth, motion)
    try {
      golden = read_png(f.golden, PngUse::frame);
      // Of another depth, it is not this output's golden: an 8-bit golden of
      // a 16-bit depth layer was compared in 8 bits, its errors of 600 mm
      // passing as 3/255.
      if (const int golden_bits = png_bit_depth(f.golden); golden_bits != actual_bits) {
        if (options_.update) return write_golden();
        f.status = CheckStatus::fail;
        f.message = fmt::format("the golden has {} bits a sample, the render wrote {}; fxsim test {} --update "
                                "writes a new one", golden_bits, actual_bits, suite.file.string());
        return f;
      }
      if (actual_bits == 16) golden16 = read_png16(f.golden, 4, PngUse::frame);
    } catch (const FxError& e) {
      // A damaged golden fails its frame (--update writes a new one for this device class), not the whole run.
      if (options_.update) return write_golden();
      f.status = CheckStatus::fail;
      f.message = fmt::format("the golden cannot be read ({}); fxsim test {} --update writes a new one", e.what(),
                              suite.file.string());
      return f;
    }
    // 16-bit layers (depth, motion) in their own steps; over the channels the files have.
    const ComparedChannels channels = compared_channels(golden.file_channels, actual.file_channels);
    std::vector<uint8_t> heat_map;
    if (golden16) {
      Samples16 actual16 = read_png16(f.actual, 4, PngUse::frame);
      // The motion layer's B is KITTI's validity flag, 0 or 1: compared as
      // 0 or full scale, a flag that differs is a pixel over any threshold
      // (as 1 of 65535 steps, every pixel's flag flipped passed).
      if (f.actual.string().ends_with(".motion.png"))
        for (Samples16* samples : {&*golden16, &actual16})
          for (size_t i = 2; i < samples->samples.size(); i += 4) samples->samples[i] = samples->samples[i] ? 65535 : 0;
      f.comparison = compare_images(*golden16, actual16, scene.tolerance, channels);
      if (f.comparison.max > 0 && f.comparison.same_size()) heat_map = encode_png(difference_heat_map(*golden16, actual16));
    } else {
      f.comparison = compare_images(golden, actual, scene.tolerance, channels);
      if (f.comparison.max > 0 && f.comparison.same_size()) heat_map = encode_png(difference_heat_map(golden, actual));
    }
    f.status = f.comparison.verdict == CompareVerdict::pass      ? CheckStatus::pass
               : f.comparison.verdict == CompareVerdict::warning ? CheckStatus::warn
                                                                 : CheckStatus::fail;
    f.message = describe_comparison(f.comparison, scene.tolerance);
    if (options_.update && f.status == CheckStatus::fail) return write_golden();
    if (f.status == CheckStatus::fail && f.golden_set == "base set" && set.name != "base set")
      f.message += fmt::format("; compared with the base set: there is no {} set yet (fxsim test … --update makes one)",
                               set.name);
    if (!heat_map.empty()) {
      f.diff = dir / ("diff_" + name);
      write_file_atomically(f.diff, heat_map);
    }
    return f;
  }

  HashCheck check_hashes(const fs::path& golden, const fs::path& actual_file, bool may_write) {
    HashCheck h;
    const std::string actual = read_all(actual_file);
    // Not read unless a regular file: reading a FIFO blocked the run for ever.
    std::error_code error;
    if (fs::exists(fs::symlink_status(golden, error)) && !fs::is_regular_file(golden, error)) {
      h.status = CheckStatus::fail;
      h.message = fmt::format("{}: not a regular file, so neither read nor replaced", golden.string());
      return h;
    }
    if (options_.update && may_write) {
      const bool same = fs::exists(golden) && read_all(golden) == actual;
      if (!same) write_all(golden, actual);  // (goldens read-only and unchanged: a pass, not 73)
      h.status = same ? CheckStatus::pass : CheckStatus::updated;
      h.message = same ? "unchanged" : fmt::format("written to {}", golden.string());
      return h;
    }
    if (!fs::exists(golden)) {
      h.status = CheckStatus::missing;
      h.message = options_.update && !may_write
                      ? fmt::format("no golden state hashes {}; --update writes the CPU's only on the suite's base "
                                    "device class (its \"base_class\", llvmpipe unless the suite says otherwise)",
                                    golden.string())
                      : fmt::format("no golden state hashes {}; create them with --update", golden.string());
      return h;
    }
    const std::string difference = first_hash_difference(actual, read_all(golden));
    h.status = difference.empty() ? CheckStatus::pass : CheckStatus::fail;
    h.message = difference.empty() ? "every frame's state hash matches" : "the simulation changed: " + difference;
    return h;
  }

  const TestOptions& options_;
  DeviceClass device_;
  fs::path work_;
  int threads_each_;
  fs::path self_;
};

std::string scene_line(const SceneCheck& s) {
  std::string worst;
  if (!s.render_error.empty()) worst = s.render_error;
  for (const FrameCheck& f : s.frames)
    if (worst.empty() && (failed(f.status) || f.status == CheckStatus::warn))
      worst = fmt::format("{}: {}", f.label(), f.message);
  if (worst.empty() && s.hashes && failed(s.hashes->status)) worst = "state hashes: " + s.hashes->message;
  if (worst.empty() && s.cpu_hashes && failed(s.cpu_hashes->status)) worst = "CPU state hashes: " + s.cpu_hashes->message;
  double max = 0;
  for (const FrameCheck& f : s.frames)
    if (f.comparison.bits == 8) max = std::max(max, f.comparison.max);  // "max N/255": the 8-bit images
  const bool updated = std::any_of(s.frames.begin(), s.frames.end(), [](const FrameCheck& f) { return f.status == CheckStatus::updated; });
  const std::string status = s.failed() ? "FAIL" : updated ? "UPDATED" : s.warned() ? "WARN" : "PASS";
  if (worst.empty()) {
    // (A golden of a layer the render no longer writes, or of a frame no
    // longer checked, is removed: updated, with no golden.)
    size_t written = 0, removed = 0;
    for (const FrameCheck& f : s.frames)
      if (f.status == CheckStatus::updated) ++(f.golden.empty() ? removed : written);
    const size_t images = s.frames.size() - removed;
    worst = updated ? fmt::format("{} of {} images written{}{}{}", written, images,
                                  written < images ? " (the others within the tolerance, kept)" : "",
                                  removed ? fmt::format(", {} golden{} no longer used removed", removed,
                                                        removed == 1 ? "" : "s")
                                          : "",
                                  s.hashes ? fmt::format("; hashes: {}", s.hashes->message) : "")
                    : fmt::format("{} images, max {}/255{}", s.frames.size(), std::lround(max * 255),
                                  !s.hashes                                  ? ""
                                  : s.hashes->status == CheckStatus::updated ? ", hashes written"
                                                                             : ", hashes match");
    if (s.backend == "gpu" && s.hashes && !s.cpu_hashes) worst += ", CPU not checked";  // --no-cpu-check
  }
  return fmt::format("{:<8} {:<22} {:<4} {:6.1f} s  {}", status, s.name, s.backend, s.seconds, worst);
}
// Why a run stopped, as its reports give it: the exit code, then the
// message (a suite's or scene's problems, one a line).
std::string stopped_reason(const std::exception& e) {
  const auto* error = dynamic_cast<const FxError*>(&e);
  std::string text;
  if (const auto* scene = dynamic_cast<const SceneError*>(&e))
    for (const std::string& line : scene->lines()) text += (text.empty() ? "" : "\n") + line;
  if (text.empty()) text = e.what();
  return fmt::format("exit {}: {}", error ? int(error->code()) : int(ExitCode::internal), text);
}

// Whether `path`, the file of output `what` (--junit, --json, --report's
// index.html), is absent or a report an earlier fxsim test wrote: where a
// stopped report may go while the suites' scenes and goldens are unknown
// (they could not be read), rather than over a file that may be one of them.
bool holds_a_report_or_nothing(const std::string& what, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  if (!S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  if (what == "--junit") return head.rfind("<?xml", 0) == 0 && head.find("<testsuites name=\"fxsim test\"") != std::string::npos;
  if (what == "--report") return head.find("<title>fxsim test") != std::string::npos;
  // --json: a list of suites, each object's keys in order ("device_class" first)
  const size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head[first] == '[' &&
         (head.find_first_not_of(" \t\r\n", first + 1) == head.find(']', first) ||
          head.find("\"device_class\"") != std::string::npos);
}

// Writes the reports asked for (--junit, --json, --report) of `results`,
// each whole or not begun.
void write_reports(const TestOptions& o, const std::vector<SuiteCheck>& results) {
  const std::lock_guard lock(g_writing);
  if (o.junit) write_all(*o.junit, junit_xml(results));
  if (o.json)  // (scene files' names need not be UTF-8)
    write_all(*o.json, results_json(results).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (o.report) write_html_report(results, *o.report);
}

// A run that stops says so in its reports: an earlier run's left in place
// were published by CI (a JUnit step that runs "always") as this run's.
// Each suite, named as given, is one error.
void write_stopped_reports(const TestOptions& o, const std::string& reason) {
  std::vector<SuiteCheck> results;
  for (const std::string& suite : o.suites) {
    results.emplace_back();
    results.back().name = suite;
    results.back().stopped = reason;
  }
  try {
    write_reports(o, results);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fxsim test: the reports could not be written to say the run stopped: {}\n", e.what());
  }
}

// Renders and checks every scene of the suites (read, their outputs checked)
// in the scratch folder `work`, and prints their lines and the summary. A
// scene whose check throws is an error in its result, and `stopped` the first such.
std::vector<SuiteCheck> check_suites(const TestOptions& o, std::vector<Suite>& suites, const fs::path& work,
                                     Clock::time_point started, std::exception_ptr& stopped) {
  // The device class of the GL the renders will get.
  DeviceClass device;
  bool software = true;
  {
    const auto context = EglContext::create(o.device, 3, 3);
    device = device_class(context->info().vendor, context->info().renderer);
    software = context->software();
  }
  const DeviceClass gl_device = device;  // (the GL's, whatever class the goldens are of)
  if (o.device_class) {
    // A folder's name under each scene's goldens: "../x" or "/abs" had
    // --update write goldens outside them.
    const std::string& c = *o.device_class;
    const bool name = !c.empty() && c.front() != '.' && c.front() != '-' &&
                      std::all_of(c.begin(), c.end(), [](char ch) {
                        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
                      });
    if (!name)
      throw FxError(ExitCode::usage, fmt::format("--device-class {}: expected a class name such as llvmpipe or "
                                                 "nvidia-h200 (letters, digits, '-', '_', '.'; see fxsim info)", c));
    if (o.update && c.substr(0, c.find('-')) != device.base)
      fmt::print(stderr, "fxsim test: warning: --update with --device-class {} on a GL of class {}: the goldens "
                         "written are this GL's renders\n", c, device.exact);
    device = {c, c.substr(0, c.find('-'))};
  }
  for (Suite& suite : suites)
    for (SuiteScene& scene : suite.scenes)
      if (scene.backend == "auto") scene.backend = software ? "cpu" : "gpu";

  size_t total = 0;
  for (const Suite& s : suites) total += s.scenes.size();
  const int cores = thread_count(0);
  // llvmpipe renders on the cores: two renders at once share them; a GPU takes a few at once.
  // No more at once than there are scenes (--jobs 256 for one scene said
  // "256 at once" and gave its one render a single thread).
  const int jobs = std::clamp(o.jobs > 0 ? o.jobs : software ? cores / 2 : 4, 1, int(std::max<size_t>(total, 1)));
  const int threads_each = std::max(1, cores / jobs);

  std::vector<SuiteCheck> results(suites.size());
  std::vector<Job> queue;
  for (size_t i = 0; i < suites.size(); ++i) {
    // Two suites of one name (a/s and b/s) are named by their paths as given:
    // JUnit's class names and the report told them apart by name alone.
    const bool shared = std::count_if(suites.begin(), suites.end(), [&](const Suite& s) { return s.name == suites[i].name; }) > 1;
    results[i].name = shared ? o.suites[i] : suites[i].name;
    results[i].goldens = suites[i].goldens;
    results[i].device = device;
    results[i].scenes.resize(suites[i].scenes.size());
    for (size_t k = 0; k < suites[i].scenes.size(); ++k)
      queue.push_back({&suites[i], i, k, &suites[i].scenes[k], &results[i].scenes[k]});
  }
  // (--device-class nvidia on llvmpipe said "on nvidia (nvidia)".)
  fmt::print("fxsim test: {} scene{} on {} ({}){}, {} at once{}\n", total, total == 1 ? "" : "s", gl_device.base,
             gl_device.exact, o.device_class ? fmt::format(", goldens of class {}", device.exact) : "", jobs,
             o.update ? ", updating goldens" : "");
  std::atomic<size_t> next{0};
  // Scene lines are printed under the lock an interrupt takes before it
  // kills the renders: a render it killed is not then printed as a FAIL
  // ("fxsim render exited with -1"), nor counted in a summary.
  std::recursive_mutex& print = g_writing;
  std::exception_ptr error;
  std::vector<std::thread> workers;
  for (int w = 0; w < jobs; ++w)
    workers.emplace_back([&] {
      Runner runner(o, device, work, threads_each);
      for (size_t i; (i = next++) < queue.size();) {
        try {
          runner.run(queue[i]);
        } catch (const std::exception& e) {
          const std::lock_guard lock(print);
          if (!error) error = std::current_exception();
          queue[i].result->render_error = "the check stopped: " + stopped_reason(e);
          fmt::print("{}\n", scene_line(*queue[i].result));
          std::fflush(stdout);
          continue;
        }
        const std::lock_guard lock(print);
        fmt::print("{}\n", scene_line(*queue[i].result));
        std::fflush(stdout);
      }
    });
  for (std::thread& t : workers) t.join();
  stopped = error;  // rethrown once the reports are written (the scratch folder goes with stop_cleanly)
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  for (SuiteCheck& r : results) r.seconds = seconds;

  size_t failed_scenes = 0, images = 0;
  std::string names;
  for (const SuiteCheck& r : results)
    for (const SceneCheck& s : r.scenes) {
      images += s.frames.size();
      if (s.failed()) names += (failed_scenes++ ? ", " : "") + s.name;
    }
  // The summary first: a report that cannot be written (73) does not hide the results.
  const std::lock_guard lock(print);
  fmt::print("{} scene{}, {} images in {:.1f} s on {}: {} passed, {} failed{}\n", total, total == 1 ? "" : "s", images,
             seconds, gl_device.base, total - failed_scenes, failed_scenes, failed_scenes ? " (" + names + ")" : "");
  std::fflush(stdout);
  return results;
}
}  // namespace

int run_test(const TestOptions& o) {
  const auto started = Clock::now();
  // The interrupts blocked from the start, before the GL makes threads of its
  // own (NVIDIA's driver keeps some), which would otherwise take a Ctrl-C and
  // end fxsim without the cleaning up below.
  const StopCleanlyOnInterrupt stop_cleanly;
  const fs::path& work = stop_cleanly.scratch();
  // The outputs, checked before any render: none over an input or another
  // output (--json suite.json replaced the suite; --junit and --json of one
  // file kept the JSON), each writable where it is (one under a file ended
  // the run with 70 after every scene had rendered). What needs no suite
  // read is checked first, so that a suite that cannot be read can be said
  // in the reports.
  std::vector<std::pair<std::string, std::string>> inputs, outputs;
  if (o.junit) outputs.emplace_back("--junit", *o.junit);
  if (o.json) outputs.emplace_back("--json", *o.json);
  if (o.report) outputs.emplace_back("--report", (fs::path(*o.report) / "index.html").string());
  // (render's text outputs take '-' for standard output; here the scenes' lines are printed there)
  for (const auto& [what, value] : {std::pair{"--junit", o.junit}, {"--json", o.json}, {"--report", o.report}})
    if (value == "-")
      throw FxError(ExitCode::usage, fmt::format("{} -: fxsim test prints each scene's line on standard output; give "
                                                 "a file", what));
  for (const auto& [what, path] : outputs) check_output_path(path);
  refuse_outputs_in_one_file(outputs);
  // The report's images go into DIR/images: a file there ended the run with
  // 73 after every scene had rendered (and a link there would have its
  // target's images removed).
  if (o.report) {
    const fs::path images = fs::path(*o.report) / "images";
    std::error_code error;
    if (fs::exists(fs::symlink_status(images, error)) && !fs::is_directory(fs::symlink_status(images, error)))
      throw FxError(ExitCode::cannot_write,
                    fmt::format("--report {}: {} exists and is not a folder", *o.report, images.string()));
  }
  // Suites are read and every scene validated before anything renders. One
  // that cannot be read is said in the reports, but only where no scene or
  // golden can be (they are unknown until it is read): in a report an
  // earlier fxsim test wrote, or where there is no file yet.
  std::vector<Suite> suites;
  try {
    for (const std::string& path : o.suites) suites.push_back(load_suite(path, o.backend));
  } catch (const std::exception& e) {
    const bool ours = std::all_of(outputs.begin(), outputs.end(),
                                  [](const auto& output) { return holds_a_report_or_nothing(output.first, output.second); });
    if (ours) write_stopped_reports(o, stopped_reason(e));
    throw;
  }
  for (Suite& suite : suites) {
    if (o.only.empty()) continue;
    std::erase_if(suite.scenes, [&](const SuiteScene& s) { return std::find(o.only.begin(), o.only.end(), s.name) == o.only.end(); });
  }
  for (const Suite& suite : suites) {
    inputs.emplace_back("the suite file",
                        (fs::is_directory(suite.file) ? suite.file / "suite.json" : suite.file).string());
    for (const SuiteScene& scene : suite.scenes) inputs.emplace_back("a scene of the suite", scene.scene.string());
  }
  for (const auto& [what, path] : outputs) refuse_output_over_input(what, path, inputs);
  for (const auto& [what, path] : outputs) {
    const std::string output = resolved(path);
    for (const Suite& suite : suites) {
      // Inside a goldens folder it would be read as a golden, or be one
      // (--junit golden/s/frame_0002.png replaced a golden).
      const std::string goldens = resolved(suite.goldens.string()) + "/";
      if (output.compare(0, goldens.size(), goldens) == 0)
        throw FxError(ExitCode::usage, fmt::format("{} {}: inside the goldens folder {}, whose files are the goldens; "
                                                   "write it elsewhere", what, path, suite.goldens.string()));
      // A folder without a suite.json is every *.json in it: a .json report
      // written there was read as a scene by the next run (65 on every run after).
      if (suite.every_json && fs::path(path).extension() == ".json" &&
          fs::path(output).parent_path() == fs::path(resolved(suite.file.string())))
        throw FxError(ExitCode::usage, fmt::format("{} {}: in {}, whose *.json files are the suite's scenes: the "
                                                   "next run would read it as one; write it elsewhere, or list the "
                                                   "scenes in a suite.json", what, path, suite.file.string()));
    }
  }

  // From here a run that stops says so in its reports, its outputs checked.
  // A scene whose check stopped (a scratch folder that could not be made) is
  // an error among the others' results, and the run exits with its code.
  std::vector<SuiteCheck> results;
  std::exception_ptr stopped;
  try {
    for (const std::string& name : o.only) {
      const bool known = std::any_of(suites.begin(), suites.end(), [&](const Suite& s) {
        return std::any_of(s.scenes.begin(), s.scenes.end(), [&](const SuiteScene& sc) { return sc.name == name; });
      });
      if (!known) throw FxError(ExitCode::usage, fmt::format("--scene {}: no such scene in the suite", name));
    }
    results = check_suites(o, suites, work, started, stopped);
  } catch (const std::exception& e) {
    write_stopped_reports(o, stopped_reason(e));
    throw;
  }
  try {
    write_reports(o, results);
  } catch (const fs::filesystem_error& e) {  // changed since the check (a folder removed, a disk full)
    throw FxError(ExitCode::cannot_write, fmt::format("{}: cannot write ({})", e.path1().string(), e.code().message()));
  }
  if (o.report) fmt::print("report: {}\n", (fs::path(*o.report) / "index.html").string());
  if (stopped) std::rethrow_exception(stopped);
  const bool failing = std::any_of(results.begin(), results.end(), [](const SuiteCheck& r) {
    return std::any_of(r.scenes.begin(), r.scenes.end(), [](const SceneCheck& s) { return s.failed(); });
  });
  return failing ? int(ExitCode::images_differ) : 0;
}

}  // namespace fxsim
