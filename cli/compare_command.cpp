#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <vector>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/image_compare.h"

namespace fxsim {

namespace fs = std::filesystem;

namespace {
bool within(const ImageDifference& d, const CompareOptions& o) {
  return d.same_size && d.fraction_over <= o.max_fraction;
}

void report(const std::string& label, const ImageDifference& d, const CompareOptions& o) {
  if (!d.same_size) {
    fmt::print("{}: different sizes\n", label);
    return;
  }
  fmt::print("{}: max {} mean {:.4f} over-{} {:.6f} {}\n", label, d.max_difference, d.mean_difference, o.max_diff,
             d.fraction_over, within(d, o) ? "ok" : "DIFFERENT");
}

std::vector<std::string> png_names(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.is_regular_file() && entry.path().extension() == ".png") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

int run_compare(const CompareOptions& o) {
  for (const auto& p : {o.a, o.b})
    if (!fs::exists(p)) throw FxError(ExitCode::input_missing, fmt::format("{}: no such file or folder", p));
  if (fs::is_directory(o.a) != fs::is_directory(o.b))
    throw FxError(ExitCode::usage, "compare takes two images or two folders, not one of each");
  if (!fs::is_directory(o.a)) {
    const ImageDifference d = compare_images(read_png(o.a), read_png(o.b), o.max_diff);
    report(fs::path(o.b).filename().string(), d, o);
    return within(d, o) ? 0 : int(ExitCode::images_differ);
  }
  const auto names_a = png_names(o.a), names_b = png_names(o.b);
  int differing = 0;
  for (const auto& name : names_a) {
    if (!std::binary_search(names_b.begin(), names_b.end(), name)) {
      fmt::print("{}: missing from {}\n", name, o.b);
      ++differing;
      continue;
    }
    const ImageDifference d = compare_images(read_png(fs::path(o.a) / name), read_png(fs::path(o.b) / name), o.max_diff);
    report(name, d, o);
    differing += within(d, o) ? 0 : 1;
  }
  for (const auto& name : names_b)
    if (!std::binary_search(names_a.begin(), names_a.end(), name)) {
      fmt::print("{}: missing from {}\n", name, o.a);
      ++differing;
    }
  fmt::print("{} of {} images differ\n", differing, std::max(names_a.size(), names_b.size()));
  return differing == 0 ? 0 : int(ExitCode::images_differ);
}

}  // namespace fxsim
