#include "core/json_locations.h"

#include <algorithm>

namespace fxsim {

std::string json_pointer_token(std::string_view token) {
  std::string out;
  for (char ch : token) {
    if (ch == '~') out += "~0";
    else if (ch == '/') out += "~1";
    else out += ch;
  }
  return out;
}

std::string json_pointer_parent(const std::string& pointer) {
  const size_t slash = pointer.rfind('/');
  return slash == std::string::npos ? std::string() : pointer.substr(0, slash);
}

JsonLocations::JsonLocations(std::string_view text) : text_(text) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
  skip_space();
  scan_value("");
}

void JsonLocations::skip_space() {
  while (pos_ < text_.size() &&
         (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
    ++pos_;
}

// Reads a string token starting at its opening quote and returns its content
// (escapes other than \uXXXX decoded; those are kept literally: only used for keys).
std::string JsonLocations::scan_string() {
  std::string out;
  ++pos_;  // opening quote
  while (pos_ < text_.size() && text_[pos_] != '"') {
    if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
      const char esc = text_[pos_ + 1];
      switch (esc) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': out += text_.substr(pos_, 6); pos_ += 4; break;
        default: out += esc; break;
      }
      pos_ += 2;
    } else {
      out += text_[pos_++];
    }
  }
  ++pos_;  // closing quote
  return out;
}

void JsonLocations::scan_value(const std::string& pointer) {
  values_.emplace(pointer, pos_);
  if (pos_ >= text_.size()) return;
  const char ch = text_[pos_];
  if (ch == '{') {
    ++pos_;
    skip_space();
    while (pos_ < text_.size() && text_[pos_] != '}') {
      const size_t key_pos = pos_;
      const std::string member = pointer + "/" + json_pointer_token(scan_string());
      if (!keys_.emplace(member, key_pos).second)
        duplicates_.push_back(member);
      skip_space();
      ++pos_;  // ':'
      skip_space();
      scan_value(member);
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      skip_space();
    }
    ++pos_;
  } else if (ch == '[') {
    ++pos_;
    skip_space();
    for (size_t index = 0; pos_ < text_.size() && text_[pos_] != ']'; ++index) {
      scan_value(pointer + "/" + std::to_string(index));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      skip_space();
    }
    ++pos_;
  } else if (ch == '"') {
    scan_string();
  } else {
    while (pos_ < text_.size() && std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos)
      ++pos_;
  }
}

LineColumn JsonLocations::at_offset(size_t offset) const {
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const size_t line = size_t(it - line_starts_.begin());
  return {int(line), int(offset - line_starts_[line - 1]) + 1};
}

LineColumn JsonLocations::value(const std::string& pointer) const {
  for (std::string p = pointer;; p = json_pointer_parent(p)) {
    if (auto it = values_.find(p); it != values_.end()) return at_offset(it->second);
    if (p.empty()) return {};
  }
}

LineColumn JsonLocations::key(const std::string& pointer) const {
  if (auto it = keys_.find(pointer); it != keys_.end()) return at_offset(it->second);
  return value(pointer);
}

}  // namespace fxsim
