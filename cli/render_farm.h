#pragma once
// What `render` does for farms (docs/farms.md): which shard of the frames
// this process renders, which frames are already whole on disk, where
// checkpoints go, and one child process per device for --devices.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/manifest.h"
#include "core/scene.h"
#include "core/shards.h"

namespace fxsim {

// --shard, else the cluster's environment; nullopt: every frame. Throws
// FxError(usage) for a malformed --shard or contradicting variables.
std::optional<Shard> choose_shard(const RenderOptions& options);

// The checkpoint folder: --checkpoints, else checkpoints/ in the frames'
// folder (the part of the output pattern before any '#').
std::filesystem::path checkpoint_folder(const RenderOptions& options, const std::string& output_pattern);

// The frames of `frames` whose files (the image, its layers, its plate copy)
// are not all there, whole, at the output's size, and, where the manifest in
// `folder` records them, of the size and SHA-256 of their latest record (what
// `fxsim verify` checks: a damaged file is written again, not kept). A file
// no line records is kept only where every run line that was to write it is
// of this scene's simulation and look (a run killed between writing and
// recording it); else, or where no run line was to write it, it is drawn again.
// A frame drawn by another backend or device class (the run line's
// "backend", against `this_backend()`: "cpu" or "gpu on <class>") is drawn
// again too: the backends' frames differ within the golden tolerance, not
// to the byte. `this_backend` is called only if some file could be kept (it
// may start the GL to learn what `auto` picks).
std::vector<int> frames_to_write(const Scene& scene, const std::string& pattern, const std::filesystem::path& folder,
                                 const std::vector<int>& frames, const std::function<std::string()>& this_backend);

// Records for the frames in `kept` (left alone by --skip-existing) that no
// line of the manifest in `folder` records: a run stopped between writing a
// frame and recording it (SIGKILL, a lost node). Made from the files as they
// are (sizes, SHA-256), without a state hash, under run `run`.
std::vector<ManifestFrame> unrecorded_frames(const Scene& scene, const std::string& pattern,
                                             const std::filesystem::path& folder, const std::vector<int>& kept,
                                             const std::string& run);

// --devices: runs this command once per device with --device D --shard I/N
// (N the number of devices), at once, and returns the first failing exit
// status (0 when all succeed).
int run_on_devices(const RenderOptions& options);

}  // namespace fxsim
