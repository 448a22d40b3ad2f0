#include "cli/completion.h"

#include <fmt/format.h>
#include <set>
#include <vector>

namespace fxsim {

namespace {
// What a value is: one of a few words, a path, a scene file, a folder, or anything (nothing to offer).
enum class ValueKind { none, choices, path, scene, folder };

struct OptionInfo {
  std::vector<std::string> names;  // "--backend", "-o"
  std::string description;
  bool takes_value = false;
  bool repeatable = false;  // --set, --unset, test's --scene: given again, offered again
  ValueKind kind = ValueKind::none;
  std::vector<std::string> choices;
};

struct CommandInfo {
  std::string name, description;
  std::vector<OptionInfo> options;
  ValueKind positional = ValueKind::none;  // what its positional arguments are
  std::vector<std::string> positional_choices;  // with ValueKind::choices (completion's bash or zsh)
};

// The words of a validator's set, "TEXT:{auto,gl,compute}" → auto gl compute.
std::vector<std::string> choices_of(const std::string& type_name) {
  const size_t open = type_name.find('{'), close = type_name.find('}');
  std::vector<std::string> words;
  if (open == std::string::npos || close == std::string::npos || close < open) return words;
  std::string word;
  for (size_t i = open + 1; i <= close; ++i) {
    const char c = type_name[i];
    if (c == ',' || c == '}') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else if (c != ' ') {
      word += c;
    }
  }
  return words;
}

// Options and positionals whose value is a path, by their long name (test's --scene is a scene's name).
ValueKind kind_of(const std::string& command, const std::string& name) {
  static const std::set<std::string> paths = {"output", "video", "stats", "state-hashes", "junit", "json",
                                              "diff", "a", "b", "suites"};
  static const std::set<std::string> folders = {"report", "folder", "checkpoints"};
  if (name == "scene") return command == "test" ? ValueKind::none : ValueKind::scene;
  if (paths.count(name)) return ValueKind::path;
  if (folders.count(name)) return ValueKind::folder;
  return ValueKind::none;
}

std::vector<CommandInfo> commands_of(const CLI::App& app) {
  std::vector<CommandInfo> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    CommandInfo command{sub->get_name(), sub->get_description(), {}, ValueKind::none, {}};
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_positional()) {
        if (command.positional != ValueKind::none) continue;
        command.positional_choices = choices_of(opt->get_type_name());
        const ValueKind k = kind_of(sub->get_name(), opt->get_name(true, false));
        command.positional = !command.positional_choices.empty() ? ValueKind::choices
                             : k == ValueKind::none                ? ValueKind::path
                                                                   : k;
        continue;
      }
      OptionInfo info;
      for (const std::string& s : opt->get_snames()) info.names.push_back("-" + s);
      for (const std::string& l : opt->get_lnames()) info.names.push_back("--" + l);
      info.description = opt->get_description();
      info.takes_value = opt->get_items_expected_max() > 0;  // flags expect none
      info.repeatable = info.takes_value && opt->get_expected_max() > 1;
      info.choices = choices_of(opt->get_type_name());
      info.kind = !info.choices.empty() ? ValueKind::choices
                  : opt->get_lnames().empty() ? ValueKind::none
                                              : kind_of(sub->get_name(), opt->get_lnames().front());
      command.options.push_back(std::move(info));
    }
    commands.push_back(std::move(command));
  }
  return commands;
}

std::string join(const std::vector<std::string>& words, const char* separator = " ") {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

// bash: plain `complete -F`, no bash-completion helpers needed.
std::string bash_script(const std::vector<CommandInfo>& commands) {
  std::vector<std::string> names;
  for (const CommandInfo& c : commands) names.push_back(c.name);
  std::string cases;
  for (const CommandInfo& c : commands) {
    std::vector<std::string> all, with_value;
    std::string value_cases;
    for (const OptionInfo& o : c.options) {
      all.insert(all.end(), o.names.begin(), o.names.end());
      if (!o.takes_value) continue;
      const std::string pattern = join(o.names, "|");
      switch (o.kind) {
        case ValueKind::choices:
          value_cases += fmt::format("        {}) COMPREPLY=($(compgen -W '{}' -- \"$cur\")); return ;;\n", pattern,
                                     join(o.choices));
          break;
        case ValueKind::path:
        case ValueKind::scene:
          value_cases += fmt::format("        {}) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n",
                                     pattern);
          break;
        case ValueKind::folder:
          value_cases += fmt::format("        {}) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n",
                                     pattern);
          break;
        case ValueKind::none: with_value.push_back(pattern); break;
      }
    }
    if (!with_value.empty()) value_cases += fmt::format("        {}) return ;;\n", join(with_value, "|"));
    const std::string positional =
        c.positional == ValueKind::scene
            ? "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -X '!*.json' -- \"$cur\") $(compgen -d -- \"$cur\"))"
        : c.positional == ValueKind::folder ? "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))"
        : c.positional == ValueKind::path   ? "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))"
        : c.positional == ValueKind::choices
            ? fmt::format("COMPREPLY=($(compgen -W '{}' -- \"$cur\"))", join(c.positional_choices))
            : "COMPREPLY=()";
    cases += fmt::format(R"(    {})
      case "$prev" in
{}      esac
      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W '{}' -- "$cur")); else {}; fi ;;
)",
                         c.name, value_cases, join(all), positional);
  }
  return fmt::format(R"(# bash completion for fxsim (made by `fxsim completion bash`)
_fxsim() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" sub="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${{COMP_WORDS[i]}}" in {}) sub="${{COMP_WORDS[i]}}"; break ;; esac
  done
  if [[ -z "$sub" ]]; then
    COMPREPLY=($(compgen -W '{} --help --version' -- "$cur"))
    return
  fi
  case "$sub" in
{}  esac
}}
complete -F _fxsim fxsim
)",
                     join(names, "|"), join(names), cases);
}

// zsh: text for '…' with [ ] : and ' escaped as _arguments wants them.
std::string zsh_text(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '[' || c == ']' || c == ':') out += '\\';
    if (c == '\'') out += "'\\'";
    if (c == '\n') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

std::string zsh_script(const std::vector<CommandInfo>& commands) {
  std::string described, cases;
  for (const CommandInfo& c : commands) {
    described += fmt::format("    '{}:{}'\n", c.name, zsh_text(c.description));
    std::string specs;
    for (const OptionInfo& o : c.options) {
      std::string action;
      if (o.takes_value) switch (o.kind) {
          case ValueKind::choices: action = ":value:(" + join(o.choices) + ")"; break;
          case ValueKind::path:
          case ValueKind::scene: action = ":file:_files"; break;
          case ValueKind::folder: action = ":folder:_files -/"; break;
          case ValueKind::none: action = ":value: "; break;
        }
      const std::string text = fmt::format("[{}]{}", zsh_text(o.description), action);
      // A repeatable option is offered again ('*'), with no exclusion of its other names.
      if (o.names.size() == 1) {
        specs += fmt::format("        '{}{}{}' \\\n", o.repeatable ? "*" : "", o.names.front(), text);
      } else if (o.repeatable) {
        specs += fmt::format("        '*'{{{}}}'{}' \\\n", join(o.names, ","), text);
      } else {
        specs += fmt::format("        '({})'{{{}}}'{}' \\\n", join(o.names), join(o.names, ","), text);
      }
    }
    const std::string positional = c.positional == ValueKind::scene    ? "'*:scene:_files -g \"*.json\"'"
                                   : c.positional == ValueKind::folder ? "'*:folder:_files -/'"
                                   : c.positional == ValueKind::path   ? "'*:file:_files'"
                                   : c.positional == ValueKind::choices
                                       ? fmt::format("'1:{}:({})'", c.name == "completion" ? "shell" : "value",
                                                     join(c.positional_choices))
                                       : "";
    cases += fmt::format("    {})\n      _arguments \\\n{}        {} ;;\n", c.name, specs, positional);
  }
  return fmt::format(R"(#compdef fxsim
# zsh completion for fxsim (made by `fxsim completion zsh`)
_fxsim() {{
  local -a commands
  commands=(
{}  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local command=$words[2]
  shift words
  (( CURRENT-- ))
  case $command in
{}  esac
}}
# Autoloaded from $fpath (the package's vendor-completions) this is _fxsim,
# run at once; sourced (source <(fxsim completion zsh)) it registers itself.
if [[ "$funcstack[1]" == _fxsim ]]; then
  _fxsim "$@"
else
  compdef _fxsim fxsim
fi
)",
                     described, cases);
}
}  // namespace

std::string completion_script(const CLI::App& app, const std::string& shell) {
  const std::vector<CommandInfo> commands = commands_of(app);
  return shell == "zsh" ? zsh_script(commands) : bash_script(commands);
}

}  // namespace fxsim
