#pragma once
// Where each value of a JSON document was written, and the checks nlohmann's
// parser does not make. nlohmann::json keeps no source positions, so this small
// scanner walks the same text: once up front (nesting depth, duplicate keys
// compared after unescaping, numbers beyond the range of a double), and again
// for each diagnostic, to find the line and column of a JSON pointer.
//
// Hostile input costs nothing extra: the scan keeps an explicit stack (no
// recursion), remembers only the keys of the objects still open (memory linear
// in the text), and stops at kMaxDepth. Nothing is stored per value; a lookup
// walks the text to the pointer, so it costs at most one pass.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxsim {

struct LineColumn {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in bytes
};

// A problem the scan found: the pointer it concerns and the byte offset.
struct JsonScanProblem {
  std::string pointer;
  size_t offset = 0;
  std::string message;
};

class JsonLocations {
 public:
  // Deeper nesting is refused: no scene needs more than a handful of levels.
  static constexpr int kMaxDepth = 256;
  // At most this many problems of each kind are kept (the rest are counted).
  static constexpr size_t kMaxProblems = 100;

  // `text` need not be valid JSON: the scan stops quietly where it is not.
  explicit JsonLocations(std::string_view text);

  // Position of the value at `pointer` (or of its key, when asked and known);
  // falls back to the nearest enclosing value that is found.
  LineColumn value(const std::string& pointer) const;
  LineColumn key(const std::string& pointer) const;
  LineColumn at_offset(size_t offset) const;

  // Nesting deeper than kMaxDepth: where it first happened.
  const std::optional<JsonScanProblem>& too_deep() const { return too_deep_; }
  // Object members whose key (after unescaping) occurred earlier in the same object.
  const std::vector<JsonScanProblem>& duplicate_keys() const { return duplicates_; }
  // Numbers whose magnitude is beyond the largest double.
  const std::vector<JsonScanProblem>& out_of_range_numbers() const { return numbers_; }

 private:
  struct Found {
    size_t value = 0;
    std::optional<size_t> key;
  };
  Found find(const std::string& pointer) const;
  void scan();

  std::string_view text_;
  std::vector<size_t> line_starts_;
  std::optional<JsonScanProblem> too_deep_;
  std::vector<JsonScanProblem> duplicates_, numbers_;
};

// Escapes one reference token of a JSON pointer ("~" → "~0", "/" → "~1").
std::string json_pointer_token(std::string_view token);
// The parent of a pointer ("/a/b" → "/a", "/a" → "").
std::string json_pointer_parent(const std::string& pointer);
// The reference tokens of a pointer, unescaped ("/a~1b/0" → {"a/b", "0"}).
std::vector<std::string> json_pointer_tokens(std::string_view pointer);

// A UTF-8 byte-order mark at the start of a text, which JSON parsers refuse
// but editors write: its length (3) or 0.
size_t utf8_bom_length(std::string_view text);

}  // namespace fxsim
