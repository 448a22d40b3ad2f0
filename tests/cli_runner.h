#pragma once
// Runs the fxsim executable built beside the tests and captures what it says.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fxsim::test {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// `arguments` is appended to the executable's path as shell words; `prefix`
// (e.g. "timeout 10") goes before it; standard input is read from the file given.
CliResult run_fxsim(const std::string& arguments, const std::string& prefix = "",
                    const std::string& standard_input = "/dev/null");
// Any command line (shell words), captured the same way; `label` names it in the log (default: the command).
CliResult run_command(const std::string& command_line, const std::string& standard_input = "/dev/null",
                      const std::string& label = "");

// Starts `fxsim render <arguments>` in the background, waits (polling, up to
// `seconds`) until `file` exists, runs `then` (fxsim's process id is in $pid),
// and returns the status of the script, which exits with fxsim's. The script
// is written to `script`, which the caller's folder listing must pass over.
int render_and_when_written(const std::string& arguments, const std::filesystem::path& file, int seconds,
                            const std::string& then, const std::filesystem::path& script);

// A fresh, empty temporary folder for one test, removed when it goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// What `fxsim info --json` says here, parsed. Throws if fxsim cannot say.
nlohmann::json fxsim_info();
// Whether fxsim's GL here is a software one: its info (by default asked
// afresh) says that `--rasteriser auto` chooses between the CPU rasteriser
// and GL, as it does only on a software GL (llvmpipe).
bool fxsim_gl_is_software(const nlohmann::json& info = fxsim_info());

// The example scenes in scenes/, by name without ".json", sorted (not suite.json, the golden-test suite).
std::vector<std::string> example_scene_names();
// The file of the example scene of that name: scenes/<name>.json.
std::filesystem::path example_scene(const std::string& name);

void write_text_file(const std::filesystem::path& path, const std::string& text);
std::string read_text_file(const std::filesystem::path& path);

}  // namespace fxsim::test
