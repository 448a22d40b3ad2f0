#pragma once
// Problems found in a scene, each tied to the JSON pointer of the value (or
// key) it is about, collected so that all of them are reported at once.
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
};

// Formats "file:line:col: /pointer: message" for each diagnostic, in document order.
std::vector<std::string> format_diagnostics(std::string_view file_label, const JsonLocations& where,
                                            std::vector<Diagnostic> diagnostics);

// The candidate closest to `word` by edit distance, or "" if none is close enough
// to be a plausible typo.
std::string nearest_word(std::string_view word, std::span<const std::string> candidates);

// Thrown when a scene has problems; what() is every formatted diagnostic, one per line.
class SceneError : public FxError {
 public:
  explicit SceneError(std::vector<std::string> lines);
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::vector<std::string> lines_;
};

}  // namespace fxsim
