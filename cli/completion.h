#pragma once
// Shell completion scripts made from the command line's own definition (the
// CLI11 app of cli/main.cpp): subcommands, every option of each, the values
// of options that take one of a few (cpu|gpu|auto), files where a value is a
// path, scene files (*.json) for the scene. `fxsim completion bash|zsh`
// prints one; the build installs both (so they cannot drift from the options).
#include <string>

#include <CLI/CLI.hpp>

namespace fxsim {

std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace fxsim
