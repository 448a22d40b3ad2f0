#pragma once
// The scene format's documentation (docs/scene-format.md, built into the
// binary) read as data: each key its tables document, with the meaning and
// the default they give, so that `fxsim schema` shows editors the same words
// the manual does (VS Code shows them on hover and while completing).
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fxsim {

// docs/scene-format.md as it was when this binary was built.
std::string_view scene_format_markdown();

struct KeyDoc {
  std::string meaning;                   // the table's "meaning" cell, Markdown
  std::optional<nlohmann::json> value;   // the default, where the cell gives exactly one JSON value per key
};

// The documented keys by schema pattern (core/scene_schema.cpp): "/output/width",
// "/environment/wind/velocity", "/environment/lights/*/range",
// "/emitters/<snow>/drag", and "/emitters/<>/size" for the keys every emitter
// has. Tables are placed by their heading (and a "`wind`:" line above one);
// "a.b" keys are nested.
std::map<std::string, KeyDoc> documented_keys(std::string_view markdown);

// Markdown without its links (the words kept): the manual's relative links lead nowhere in an editor.
std::string without_links(const std::string& markdown);
// Markdown → plain text: links keep their words, code spans lose their backticks, "\|" is "|".
std::string plain_text(const std::string& markdown);

}  // namespace fxsim
