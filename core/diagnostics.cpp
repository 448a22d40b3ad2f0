#include "core/diagnostics.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <tuple>

#include "core/json_locations.h"
#include "core/limits.h"

namespace fxsim {

namespace {
std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out;
}

// A pointer of a deeply nested or long-keyed value, cut to a readable length.
std::string shortened_pointer(const std::string& pointer) {
  constexpr size_t kKeep = 120;
  if (pointer.size() <= 2 * kKeep) return pointer;
  return pointer.substr(0, kKeep) + "…" + pointer.substr(pointer.size() - kKeep);
}

// Insertions, deletions, substitutions and swaps of two neighbours, each
// one edit (the optimal string alignment distance): "fvo" is one from "fov"
// (a slip of the fingers), two from "far", which it was suggested before.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
  std::iota(last.begin(), last.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[b.size()];
}
}  // namespace

SceneError::SceneError(std::vector<std::string> lines, size_t total, bool missing_files)
    : FxError(missing_files ? ExitCode::input_missing : ExitCode::invalid_scene, join_lines(lines)), lines_(std::move(lines)),
      total_(std::max(total, lines_.size())) {}

std::vector<std::string> format_diagnostics(std::string_view file_label, const JsonLocations& where,
                                            const std::vector<Diagnostic>& diagnostics) {
  struct Located {
    LineColumn at;
    const Diagnostic* diagnostic;
  };
  // Each lookup walks the text, so only the problems that are shown are located.
  std::vector<Located> located;
  for (size_t i = 0; i < diagnostics.size() && i < kMaxProblemsShown; ++i) {
    const Diagnostic& d = diagnostics[i];
    located.push_back({d.offset ? where.at_offset(*d.offset) : d.at_key ? where.key(d.pointer) : where.value(d.pointer), &d});
  }
  std::stable_sort(located.begin(), located.end(), [](const Located& a, const Located& b) {
    return std::tie(a.at.line, a.at.column) < std::tie(b.at.line, b.at.column);
  });
  std::vector<std::string> lines;
  for (const auto& l : located)
    lines.push_back(fmt::format("{}:{}:{}: {}: {}", file_label, l.at.line, l.at.column,
                                l.diagnostic->pointer.empty() ? "/" : shortened_pointer(l.diagnostic->pointer),
                                l.diagnostic->message));
  if (diagnostics.size() > located.size())
    lines.push_back(fmt::format("{}: … and {} more problems not shown", file_label, diagnostics.size() - located.size()));
  return lines;
}

std::string nearest_word(std::string_view word, std::span<const std::string> candidates) {
  std::string best;
  if (word.size() > 64) return best;  // no key is that long: not a typo, and costly to compare
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace fxsim
