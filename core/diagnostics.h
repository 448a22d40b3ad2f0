#pragma once
// Problems found in a scene, each tied to the JSON pointer of the value (or
// key) it is about, collected so that all of them are reported at once.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/exit_codes.h"

namespace fxsim {

class JsonLocations;

struct Diagnostic {
  std::string pointer;  // JSON pointer; "" is the whole document
  std::string message;  // "expected …, got …"
  bool at_key = false;  // point at the member's key rather than its value
  std::optional<size_t> offset;  // where it is, when already known (the scanner's problems)
  bool missing_file = false;     // a file it names is missing, unreadable or not a regular file
};

// Formats "file:line:col: /pointer: message" for the first kMaxProblemsShown
// diagnostics, in document order.
std::vector<std::string> format_diagnostics(std::string_view file_label, const JsonLocations& where,
                                            const std::vector<Diagnostic>& diagnostics);

// The candidate closest to `word` by edit distance, or "" if none is close enough
// to be a plausible typo.
std::string nearest_word(std::string_view word, std::span<const std::string> candidates);

// Thrown when a scene has problems; what() is every formatted diagnostic, one
// per line. `total` counts the problems found, shown or not (at least lines.size()).
class SceneError : public FxError {
 public:
  // Exit 65; 66 (input_missing) with `missing_files`: every problem is a file
  // the scene names that is missing, unreadable or not a regular file.
  explicit SceneError(std::vector<std::string> lines, size_t total = 0, bool missing_files = false);
  const std::vector<std::string>& lines() const { return lines_; }
  size_t total() const { return total_; }

 private:
  std::vector<std::string> lines_;
  size_t total_;
};

}  // namespace fxsim
