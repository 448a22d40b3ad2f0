#include "core/json_locations.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <unordered_set>

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

std::vector<std::string> json_pointer_tokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  while (!pointer.empty() && pointer.front() == '/') {
    pointer.remove_prefix(1);
    const size_t end = std::min(pointer.find('/'), pointer.size());
    std::string token;
    for (size_t i = 0; i < end; ++i) {
      if (pointer[i] == '~' && i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += pointer[i];
      }
    }
    tokens.push_back(std::move(token));
    pointer.remove_prefix(end);
  }
  return tokens;
}

size_t utf8_bom_length(std::string_view text) { return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; }

namespace {

void append_utf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += char(code);
  } else if (code < 0x800) {
    out += char(0xC0 | (code >> 6));
    out += char(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += char(0xE0 | (code >> 12));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  } else {
    out += char(0xF0 | (code >> 18));
    out += char(0x80 | ((code >> 12) & 0x3F));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  }
}

// A forward-only reader over the text. Every method tolerates malformed input:
// it stops at the end of the text instead of reading past it.
class Cursor {
 public:
  Cursor(std::string_view text, size_t pos = 0) : text_(text), pos_(pos) {}
  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void advance() { ++pos_; }

  void skip_space() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  // Reads a string token (at its opening quote) and decodes its escapes as a
  // JSON parser does, so that keys compare as nlohmann sees them.
  bool read_string(std::string* out) {
    ++pos_;  // opening quote
    while (!at_end() && text_[pos_] != '"') {
      if (text_[pos_] != '\\') {
        if (out) *out += text_[pos_];
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= text_.size()) return false;
      const char esc = text_[pos_ + 1];
      pos_ += 2;
      if (esc != 'u') {
        if (!out) continue;
        switch (esc) {
          case 'n': *out += '\n'; break;
          case 't': *out += '\t'; break;
          case 'r': *out += '\r'; break;
          case 'b': *out += '\b'; break;
          case 'f': *out += '\f'; break;
          default: *out += esc; break;
        }
        continue;
      }
      auto hex4 = [&](uint32_t& code) {
        if (pos_ + 4 > text_.size()) return false;
        code = 0;
        for (int i = 0; i < 4; ++i) {
          const char h = text_[pos_ + size_t(i)];
          const int digit = h >= '0' && h <= '9'   ? h - '0'
                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                   : -1;
          if (digit < 0) return false;
          code = code * 16 + uint32_t(digit);
        }
        pos_ += 4;
        return true;
      };
      uint32_t code = 0;
      if (!hex4(code)) return false;
      if (code >= 0xD800 && code < 0xDC00 && text_.substr(pos_, 2) == "\\u") {  // a surrogate pair
        pos_ += 2;
        uint32_t low = 0;
        if (!hex4(low)) return false;
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
      }
      if (out) append_utf8(*out, code);
    }
    if (at_end()) return false;
    ++pos_;  // closing quote
    return true;
  }

  std::string_view read_scalar() {
    const size_t start = pos_;
    while (!at_end() && std::string_view(",]}: \t\r\n").find(text_[pos_]) == std::string_view::npos) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // Skips one value of any depth without recursion.
  bool skip_value() {
    const char c = peek();
    if (c == '"') return read_string(nullptr);
    if (c != '{' && c != '[') return !read_scalar().empty();
    size_t depth = 0;
    while (!at_end()) {
      const char ch = text_[pos_];
      if (ch == '"') {
        if (!read_string(nullptr)) return false;
        continue;
      }
      ++pos_;
      if (ch == '{' || ch == '[') ++depth;
      if ((ch == '}' || ch == ']') && --depth == 0) return true;
    }
    return false;
  }

 private:
  std::string_view text_;
  size_t pos_;
};

// Beyond the largest finite double (nlohmann refuses the whole document for it).
bool number_overflows(std::string_view token) {
  if (token.empty() || !(token[0] == '-' || (token[0] >= '0' && token[0] <= '9'))) return false;
  const std::string copy(token);
  return std::isinf(std::strtod(copy.c_str(), nullptr));
}

}  // namespace

JsonLocations::JsonLocations(std::string_view text) : text_(text) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
  scan();
}

void JsonLocations::scan() {
  struct Open {
    bool object;
    size_t next_index = 0;
    std::unordered_set<std::string> keys;  // of an object: those seen so far
  };
  std::vector<Open> open;
  std::vector<std::string> path;  // path[i]: the escaped token that leads into open[i + 1]
  std::string pending;            // the escaped token of the value about to be read
  const auto pointer_of_pending = [&] {
    if (open.empty()) return std::string();
    std::string p;
    for (const auto& token : path) p += "/" + token;
    return p + "/" + pending;
  };
  const auto close_container = [&] {
    open.pop_back();
    if (!open.empty()) path.pop_back();
  };

  enum class Want { value, member, comma_or_end } want = Want::value;
  Cursor c(text_);
  for (;;) {
    c.skip_space();
    const char ch = c.peek();
    switch (want) {
      case Want::value:
        if (ch == '{' || ch == '[') {
          if (open.size() >= size_t(kMaxDepth)) {
            too_deep_ = JsonScanProblem{pointer_of_pending(), c.pos(),
                                        fmt::format("nested deeper than {} levels (the most a scene may have)", kMaxDepth)};
            return;
          }
          if (!open.empty()) path.push_back(pending);
          open.push_back(Open{ch == '{', 0, {}});
          c.advance();
          want = Want::member;
          break;
        }
        if (ch == '"') {
          if (!c.read_string(nullptr)) return;
        } else {
          const size_t at = c.pos();
          const std::string_view token = c.read_scalar();
          if (token.empty()) return;
          if (number_overflows(token) && numbers_.size() < kMaxProblems)
            numbers_.push_back({pointer_of_pending(), at,
                                fmt::format("expected a number within the range of a double (about ±1.8e308), got {}",
                                            token.size() > 40 ? std::string(token.substr(0, 37)) + "..."
                                                              : std::string(token))});
        }
        if (open.empty()) return;  // the document was one scalar
        want = Want::comma_or_end;
        break;
      case Want::member: {
        Open& container = open.back();
        if (ch == (container.object ? '}' : ']')) {
          c.advance();
          close_container();
          if (open.empty()) return;
          want = Want::comma_or_end;
          break;
        }
        if (container.object) {
          if (ch != '"') return;  // malformed: nlohmann says where
          const size_t key_at = c.pos();
          std::string key;
          if (!c.read_string(&key)) return;
          pending = json_pointer_token(key);
          if (!container.keys.insert(std::move(key)).second && duplicates_.size() < kMaxProblems)
            duplicates_.push_back({pointer_of_pending(), key_at,
                                   "duplicate key: this key was already given earlier in the same object"});
          c.skip_space();
          if (c.peek() != ':') return;
          c.advance();
        } else {
          pending = std::to_string(container.next_index++);
        }
        want = Want::value;
        break;
      }
      case Want::comma_or_end:
        if (ch == ',') {
          c.advance();
          want = Want::member;
        } else if (ch == (open.back().object ? '}' : ']')) {
          c.advance();
          close_container();
          if (open.empty()) return;
        } else {
          return;
        }
        break;
    }
  }
}

JsonLocations::Found JsonLocations::find(const std::string& pointer) const {
  Cursor c(text_);
  c.skip_space();
  Found found{c.pos(), std::nullopt};
  for (const std::string& token : json_pointer_tokens(pointer)) {
    const char open = c.peek();
    if (open != '{' && open != '[') return found;
    c.advance();
    size_t index = 0;
    size_t wanted = 0;
    if (open == '[') {
      if (token.empty() || token.size() > 18 || token.find_first_not_of("0123456789") != std::string::npos) return found;
      wanted = std::stoull(token);
    }
    for (;;) {
      c.skip_space();
      if (c.peek() == (open == '{' ? '}' : ']') || c.at_end()) return found;
      std::optional<size_t> key_at;
      bool match = false;
      if (open == '{') {
        key_at = c.pos();
        std::string key;
        if (c.peek() != '"' || !c.read_string(&key)) return found;
        c.skip_space();
        if (c.peek() != ':') return found;
        c.advance();
        c.skip_space();
        match = key == token;
      } else {
        match = index++ == wanted;
      }
      if (match) {
        found = {c.pos(), key_at};
        break;
      }
      if (!c.skip_value()) return found;
      c.skip_space();
      if (c.peek() != ',') return found;
      c.advance();
    }
  }
  return found;
}

LineColumn JsonLocations::at_offset(size_t offset) const {
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const size_t line = size_t(it - line_starts_.begin());
  // Characters, as an editor counts them, not bytes: a UTF-8 continuation
  // byte (10xxxxxx) adds none ("éé" before the error moved it two columns on).
  int column = 1;
  for (size_t i = line_starts_[line - 1]; i < std::min(offset, text_.size()); ++i)
    column += (static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80;
  return {int(line), column + int(offset > text_.size() ? offset - text_.size() : 0)};
}

LineColumn JsonLocations::value(const std::string& pointer) const { return at_offset(find(pointer).value); }

LineColumn JsonLocations::key(const std::string& pointer) const {
  const Found f = find(pointer);
  return at_offset(f.key.value_or(f.value));
}

}  // namespace fxsim
