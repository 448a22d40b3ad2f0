#pragma once
// Where each value of a JSON document was written. nlohmann::json keeps no
// source positions, so after it has parsed a document successfully this small
// scanner walks the same text once and records, for every JSON pointer, the
// byte offset of its value and (for object members) of its key. Diagnostics
// use it to print file:line:column.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fxsim {

struct LineColumn {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in bytes
};

class JsonLocations {
 public:
  // `text` must be valid JSON (parse it with nlohmann first).
  explicit JsonLocations(std::string_view text);

  // Position of the value at `pointer` (or of its key, when asked and known);
  // falls back to the nearest enclosing value that is known.
  LineColumn value(const std::string& pointer) const;
  LineColumn key(const std::string& pointer) const;
  LineColumn at_offset(size_t offset) const;

  // Pointers of object members whose key occurred earlier in the same object.
  const std::vector<std::string>& duplicate_keys() const { return duplicates_; }

 private:
  void scan_value(const std::string& pointer);
  std::string scan_string();
  void skip_space();

  std::string_view text_;
  size_t pos_ = 0;
  std::vector<size_t> line_starts_;
  std::unordered_map<std::string, size_t> values_, keys_;
  std::vector<std::string> duplicates_;
};

// Escapes one reference token of a JSON pointer ("~" → "~0", "/" → "~1").
std::string json_pointer_token(std::string_view token);
// The parent of a pointer ("/a/b" → "/a", "/a" → "").
std::string json_pointer_parent(const std::string& pointer);

}  // namespace fxsim
