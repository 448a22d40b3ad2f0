#pragma once
// What `fxsim test` found, and the files it writes about it for CI: a JUnit
// XML file (one test case per scene and frame, and one per scene for its state
// hashes), a JSON file, and a static HTML report.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device_class.h"
#include "core/image_compare.h"

namespace fxsim {

enum class CheckStatus { pass, warn, fail, missing, updated };
const char* status_name(CheckStatus s);  // "PASS", "WARN", "FAIL", "MISSING", "UPDATED"
inline bool failed(CheckStatus s) { return s == CheckStatus::fail || s == CheckStatus::missing; }

// One image of a frame compared with its golden: the frame itself or one of
// its ground-truth layers (depth, masks, motion).
struct FrameCheck {
  int frame = 0;
  std::string layer;                    // "": the frame; else "depth", "mask.rain", "motion"
  std::string label() const;            // "frame 24", "frame 24 mask.rain"
  CheckStatus status = CheckStatus::pass;
  ImageComparison comparison;           // when a golden was compared
  std::filesystem::path golden, actual, diff;  // diff: a heat map, for differing frames
  std::string golden_set;               // "base set", "nvidia", …
  std::string message;                  // one line with the figures
};

struct HashCheck {
  CheckStatus status = CheckStatus::pass;
  std::string message;
};

struct SceneCheck {
  std::string name, scene, backend;
  CompareThresholds tolerance;
  std::vector<FrameCheck> frames;
  std::optional<HashCheck> hashes;
  std::optional<HashCheck> cpu_hashes;  // a GPU-backend scene's CPU simulation against the shared hashes
  std::string render_error;  // the render itself failed: its exit code and messages
  double seconds = 0;
  bool failed() const;
  bool warned() const;
};

struct SuiteCheck {
  std::string name;
  std::filesystem::path goldens;
  DeviceClass device;
  std::vector<SceneCheck> scenes;
  double seconds = 0;
  // Why the run stopped before checking this suite's scenes (its exit code
  // and message: a suite or scene that cannot be read, a GL that cannot
  // start), or "". The reports say so: a run that stopped left an earlier
  // run's reports in place, which CI then published as this run's.
  std::string stopped;
};

// "max 32/255 (0.125) at (12, 40), 46.0 % of pixels over 3/255 (1 % allowed)"
std::string describe_comparison(const ImageComparison& c, const CompareThresholds& t);

std::string junit_xml(const std::vector<SuiteCheck>& suites);
nlohmann::json results_json(const std::vector<SuiteCheck>& suites);
// Writes DIR/index.html with the images it shows copied beside it: for each
// failing frame the golden, the actual image and the difference heat map side
// by side with a flip toggle; thumbnails of the passing frames; the tolerances.
void write_html_report(const std::vector<SuiteCheck>& suites, const std::filesystem::path& dir);

}  // namespace fxsim
