#include "core/scene_format_docs.h"

#include <algorithm>
#include <regex>
#include <sstream>
#include <vector>

namespace fxsim {

namespace {
std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

const std::regex& code_span() {
  static const std::regex span("`([^`]*)`");
  return span;
}

std::vector<std::string> code_spans(const std::string& s) {
  std::vector<std::string> out;
  for (std::sregex_iterator it(s.begin(), s.end(), code_span()), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

// Where a heading's tables put their keys; nullopt: its tables list no keys.
std::optional<std::string> heading_prefix(int level, const std::string& title, const std::string& chapter) {
  if (title == "Top level") return std::string();
  if (title == "Emitters") return std::string("/emitters/<>");
  if (title == "Light") return std::string("/environment/lights/*");
  const std::vector<std::string> names = code_spans(title);
  if (names.size() != 1 || title != "`" + names[0] + "`") return std::nullopt;
  if (level == 2) return "/" + names[0];
  if (level == 3 && chapter == "Emitters") return "/emitters/<" + names[0] + ">";
  return std::nullopt;
}

// One JSON value from a code span: JSON itself, or a colour as the tables write it (#ffffff).
std::optional<nlohmann::json> default_value(const std::string& span) {
  static const std::regex colour("#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?");
  if (std::regex_match(span, colour)) return nlohmann::json(span);
  if (!nlohmann::json::accept(span)) return std::nullopt;
  nlohmann::json value = nlohmann::json::parse(span);
  if (value.is_string() && value.get<std::string>().find('<') != std::string::npos) return std::nullopt;  // "<type><index>"
  return value;
}

// The default cell's values, one per key (or one for all of them); empty when
// the cell says something else ("per type", "none", "`1` when …").
std::vector<nlohmann::json> default_values(const std::string& cell, size_t keys) {
  const std::vector<std::string> spans = code_spans(cell);
  const std::string rest = std::regex_replace(cell, code_span(), "");
  if (spans.empty() || rest.find_first_not_of(", ") != std::string::npos) return {};
  if (spans.size() != keys && spans.size() != 1) return {};
  std::vector<nlohmann::json> values;
  for (const std::string& span : spans) {
    std::optional<nlohmann::json> value = default_value(span);
    if (!value) return {};
    values.push_back(*value);
  }
  return values;
}
}  // namespace

std::map<std::string, KeyDoc> documented_keys(std::string_view markdown) {
  std::map<std::string, KeyDoc> out;
  std::optional<std::string> prefix;
  std::string chapter, under;  // the level-2 heading; a "`wind`:" line's object for the next table
  size_t columns = 0;          // of the table being read (0: none)
  static const std::regex heading("(#{2,3}) (.*)"), object_line("`([a-z_]+)`:\\s*");
  std::istringstream lines{std::string(markdown)};
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, heading)) {
      const int level = int(m[1].length());
      if (level == 2) chapter = m[2];
      prefix = heading_prefix(level, m[2], chapter);
      under.clear();
      columns = 0;
      continue;
    }
    if (std::regex_match(line, m, object_line)) {
      under = m[1];
      continue;
    }
    if (line.rfind("|", 0) != 0) {
      if (columns) under.clear();  // the table it named has ended
      columns = 0;
      continue;
    }
    if (line.rfind("| key |", 0) == 0) {
      columns = size_t(std::count(line.begin(), line.end(), '|')) - 1;
      continue;
    }
    if (!prefix || columns < 3 || line.rfind("| `", 0) != 0) continue;
    // Cells: key, (type,) default, then the meaning, which may itself hold a '|' (|d − s|).
    std::vector<std::string> cells;
    size_t at = 1;
    for (size_t c = 0; c + 1 < columns; ++c) {
      const size_t bar = line.find('|', at);
      if (bar == std::string::npos) break;
      cells.push_back(trim(line.substr(at, bar - at)));
      at = bar + 1;
    }
    if (cells.size() + 1 != columns) continue;
    std::string meaning = trim(line.substr(at));
    if (!meaning.empty() && meaning.back() == '|') meaning = trim(meaning.substr(0, meaning.size() - 1));
    const std::vector<std::string> keys = code_spans(cells[0]);
    const std::vector<nlohmann::json> values = default_values(cells[columns - 2], keys.size());
    for (size_t k = 0; k < keys.size(); ++k) {
      std::string path = keys[k];
      std::replace(path.begin(), path.end(), '.', '/');
      KeyDoc& doc = out[*prefix + (under.empty() ? "" : "/" + under) + "/" + path];
      doc.meaning = meaning;
      if (!values.empty()) doc.value = values[values.size() == 1 ? 0 : k];
    }
  }
  return out;
}

std::string without_links(const std::string& markdown) {
  static const std::regex link("\\[([^\\]]*)\\]\\([^)]*\\)");
  return std::regex_replace(markdown, link, "$1");
}

std::string plain_text(const std::string& markdown) {
  std::string text = std::regex_replace(without_links(markdown), std::regex("\\\\\\|"), "|");  // a table's \| is a |
  text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
  return text;
}

}  // namespace fxsim
