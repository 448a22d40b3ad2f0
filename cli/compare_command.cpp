// compare: two PNGs, or two folders of PNGs by file name, with the thresholds
// and exit codes of OpenImageIO's idiff (see core/image_compare.h):
// 0 PASS, 1 WARNING, 2 FAILURE, 3 sizes differ; the worst over all pairs.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/frame_output.h"
#include "core/image_compare.h"
#include "core/png_writer.h"
#include "render/atomic_file.h"
#include "render/output_files.h"

namespace fxsim {

namespace fs = std::filesystem;

namespace {
int exit_code_of(CompareVerdict v) {
  switch (v) {
    case CompareVerdict::pass: return 0;
    case CompareVerdict::warning: return 1;
    case CompareVerdict::failure: return 2;
    case CompareVerdict::different_size: return 3;
  }
  return 2;
}

std::string number(double x) { return std::isinf(x) ? "inf" : fmt::format("{:g}", x); }

void print_report(const std::string& a, const std::string& b, const ImageComparison& c, const CompareThresholds& t) {
  fmt::print("Comparing \"{}\" and \"{}\"\n", a, b);
  if (!c.same_size()) {
    fmt::print("  sizes differ: {}x{} and {}x{}\n{}\n", c.width_a, c.height_a, c.width_b, c.height_b,
               verdict_name(c.verdict));
    return;
  }
  fmt::print("  Mean error = {:.6g}\n  RMS error = {:.6g}\n  Peak SNR = {}\n  Max error  = {:.6g} @ ({}, {}, {})\n",
             c.mean, c.rms, std::isinf(c.psnr) ? "inf" : fmt::format("{:.4g}", c.psnr), c.max, c.max_x, c.max_y,
             c.max_channel);
  fmt::print("  {} pixels ({:.3g}%) over {} (warn, {}% allowed)\n", c.warn_pixels, c.warn_percent(), number(t.warn),
             number(t.warn_percent));
  fmt::print("  {} pixels ({:.3g}%) over {} (fail, {}% allowed)\n", c.fail_pixels, c.fail_percent(), number(t.fail),
             number(t.fail_percent));
  // A verdict the percentages do not explain comes from a hard limit: say so.
  if (!std::isinf(t.hard_fail) && c.max > t.hard_fail) fmt::print("  Max error over {} (hardfail)\n", number(t.hard_fail));
  else if (!std::isinf(t.hard_warn) && c.max > t.hard_warn) fmt::print("  Max error over {} (hardwarn)\n", number(t.hard_warn));
  fmt::print("{}\n", verdict_name(c.verdict));
}

nlohmann::json to_json(const std::string& a, const std::string& b, const ImageComparison& c) {
  nlohmann::json j{{"a", a}, {"b", b}, {"verdict", verdict_name(c.verdict)},
                   {"size_a", {c.width_a, c.height_a}}, {"size_b", {c.width_b, c.height_b}}};
  if (c.same_size()) {
    j["mean"] = c.mean;
    j["rms"] = c.rms;
    j["psnr"] = std::isinf(c.psnr) ? nlohmann::json(nullptr) : nlohmann::json(c.psnr);  // null: identical
    j["max"] = c.max;
    j["bits"] = c.bits;  // the errors are fractions; a step is 1/255 (8) or 1/65535 (16)
    j["max_at"] = {{"x", c.max_x}, {"y", c.max_y}, {"channel", std::string(1, c.max_channel)}};
    j["fail_pixels"] = c.fail_pixels;
    j["fail_percent"] = c.fail_percent();
    j["warn_pixels"] = c.warn_pixels;
    j["warn_percent"] = c.warn_percent();
  }
  return j;
}

// The PNG files of a folder, by name: `.png` in any case (`UP.PNG` pairs
// were passed over, and a folder of them held "no PNG images").
std::vector<std::string> png_names(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.is_regular_file() && image_format_of(entry.path().filename().string()) == ImageFormat::png)
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool holds_exr(const fs::path& folder) {
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().extension() == ".exr") return true;
  return false;
}

// Two PNGs compared: two 16-bit ones in their own samples (errors as
// fractions of 65535: an 8-bit reading kept their high bytes alone), any
// other pair in 8 bits; over the channels the files have. The heat map to
// `diff`, when given and the sizes agree.
ImageComparison compare_files(const std::string& a, const std::string& b, const CompareThresholds& thresholds,
                              const std::optional<fs::path>& diff) {
  ImageComparison c;
  std::vector<uint8_t> heat_map;
  if (png_bit_depth(a) == 16 && png_bit_depth(b) == 16) {
    const Samples16 deep_a = read_png16(a, 4, PngUse::frame), deep_b = read_png16(b, 4, PngUse::frame);
    c = compare_images(deep_a, deep_b, thresholds, compared_channels(deep_a.file_channels, deep_b.file_channels), true);
    if (diff && c.same_size()) heat_map = encode_png(difference_heat_map(deep_a, deep_b));
  } else {
    const Image image_a = read_png(a, PngUse::frame), image_b = read_png(b, PngUse::frame);
    c = compare_images(image_a, image_b, thresholds, compared_channels(image_a.file_channels, image_b.file_channels));
    if (diff && c.same_size()) heat_map = encode_png(difference_heat_map(image_a, image_b));
  }
  // Sizes that differ make no map: an earlier run's at --diff would stand as this one's.
  if (diff && heat_map.empty()) {
    std::error_code ignored;
    if (fs::is_regular_file(fs::symlink_status(*diff, ignored))) fs::remove(*diff, ignored);
  }
  // The heat map first: a verdict printed and then a failure to write it read as two answers.
  if (!heat_map.empty()) {
    // Its folder made as render makes its output's (a folder that does not
    // exist yet read as one removed while fxsim ran).
    const fs::path folder = fs::absolute(*diff).parent_path();
    std::error_code made;
    fs::create_directories(folder, made);
    if (made)
      throw FxError(ExitCode::cannot_write,
                    fmt::format("--diff {}: cannot make the folder {} ({})", diff->string(), folder.string(), made.message()));
    write_file_atomically(*diff, heat_map);
  }
  return c;
}
}  // namespace

int run_compare(const CompareOptions& o) {
  for (const auto& p : {o.a, o.b})
    if (!fs::exists(p)) throw FxError(ExitCode::input_missing, fmt::format("{}: no such file or folder", p));
  if (fs::is_directory(o.a) != fs::is_directory(o.b))
    throw FxError(ExitCode::usage, "compare takes two images or two folders, not one of each");
  const bool folders = fs::is_directory(o.a);
  // --diff: a heat map's file for two images, a folder of them for two
  // folders (one there already is reused: its diff_NAME.png are replaced).
  // Not over an input: --diff b.png replaced the image compared, and a
  // folder's heat maps among its images would be compared next time.
  // (- wrote a file named "-": the report goes to standard output.)
  if (o.diff == "-")
    throw FxError(ExitCode::usage, "--diff -: the heat map is a PNG file (and standard output carries the report); "
                                   "give a path");
  if (o.diff) refuse_output_over_input("--diff", *o.diff, {{"the first image it compares", o.a}, {"the second image it compares", o.b}});
  if (o.diff && folders && fs::is_directory(*o.diff)) check_output_folder(fs::path(*o.diff) / "diff_.png");
  else if (o.diff && folders && fs::exists(fs::symlink_status(*o.diff)))
    throw FxError(ExitCode::cannot_write,
                  fmt::format("--diff {}: exists and is not a folder; comparing folders, --diff names the folder for "
                              "their diff_NAME.png", *o.diff));
  else if (o.diff) check_output_path(*o.diff);
  std::vector<std::pair<std::string, std::string>> pairs;  // paths, "" for a missing side
  if (!folders) {
    pairs.emplace_back(o.a, o.b);
  } else {
    const auto names_a = png_names(o.a), names_b = png_names(o.b);
    std::vector<std::string> all = names_a;
    all.insert(all.end(), names_b.begin(), names_b.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    for (const auto& name : all)
      pairs.emplace_back(std::binary_search(names_a.begin(), names_a.end(), name) ? (fs::path(o.a) / name).string() : "",
                         std::binary_search(names_b.begin(), names_b.end(), name) ? (fs::path(o.b) / name).string() : "");
    // Nothing to compare is no pass: folders of EXR frames, or empty ones, passed.
    if (pairs.empty())
      throw FxError(ExitCode::input_missing,
                    fmt::format("{} and {} hold no PNG images to compare{}", o.a, o.b,
                                holds_exr(o.a) || holds_exr(o.b) ? " (compare reads PNG, not the EXR frames there)" : ""));
  }
  const auto diff_target = [&](const std::string& a) {
    return folders ? fs::path(*o.diff) / ("diff_" + fs::path(a).filename().string()) : fs::path(*o.diff);
  };
  if (o.diff && folders) {  // each heat map's path, before any is written
    for (const auto& [a, b] : pairs)
      if (!a.empty() && !b.empty()) check_output_path(diff_target(a).string());
    // A map of an earlier run, for a pair that makes none now (one side
    // missing, sizes that differ), would stand beside this run's as if new.
    std::error_code ignored;
    for (const auto& [a, b] : pairs)
      if (const fs::path old = diff_target(a.empty() ? b : a); fs::is_regular_file(fs::symlink_status(old, ignored)))
        fs::remove(old, ignored);
  }
  int worst = 0;
  size_t missing = 0, unreadable = 0;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& [a, b] : pairs) {
    if (a.empty() || b.empty()) {
      const std::string name = fs::path(a.empty() ? b : a).filename().string();
      // A folder (or another non-file) of that name is there, not missing.
      const std::string side = a.empty() ? o.a : o.b;
      std::error_code ignored;
      const bool other = fs::exists(fs::symlink_status(fs::path(side) / name, ignored));
      if (!o.json)
        fmt::print("{}: {} {}\nFAILURE\n", name, other ? "is not a regular file in" : "missing from", side);
      results.push_back({{"a", a}, {"b", b}, {"verdict", "FAILURE"}, {"missing", true}});
      worst = std::max(worst, 2);
      ++missing;
      continue;
    }
    ImageComparison c;
    try {
      c = compare_files(a, b, o.thresholds, o.diff ? std::optional(diff_target(a)) : std::nullopt);
    } catch (const FxError& e) {
      // Two images: the input is bad (66). In folders, the pair's failure,
      // and the rest are compared and reported (the JSON was lost).
      if (!folders || e.code() != ExitCode::input_missing) throw;
      if (!o.json) fmt::print("{}\nFAILURE\n", e.what());
      results.push_back({{"a", a}, {"b", b}, {"verdict", "FAILURE"}, {"unreadable", e.what()}});
      worst = std::max(worst, 2);
      ++unreadable;
      continue;
    }
    if (o.json) results.push_back(to_json(a, b, c));
    else print_report(a, b, c, o.thresholds);
    worst = std::max(worst, exit_code_of(c.verdict));
  }
  if (o.json) {
    // (A file's name need not be UTF-8: such bytes print as U+FFFD, where the dump threw, exit 70.)
    fmt::print("{}\n", nlohmann::json{{"images", results}, {"exit", worst}}.dump(2, ' ', false,
                                                                                 nlohmann::json::error_handler_t::replace));
  } else if (folders) {
    const size_t compared = pairs.size() - missing - unreadable;
    fmt::print("{} image pair{} compared{}{}, worst: {}\n", compared, compared == 1 ? "" : "s",
               missing ? fmt::format(", {} image{} missing from one side", missing, missing == 1 ? "" : "s") : "",
               unreadable ? fmt::format(", {} pair{} unreadable", unreadable, unreadable == 1 ? "" : "s") : "",
               worst == 0 ? "PASS" : worst == 1 ? "WARNING" : worst == 2 ? "FAILURE" : "FAILURE (sizes differ)");
  }
  return worst;
}

}  // namespace fxsim
