#include "cli_runner.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fxsim::test {

namespace fs = std::filesystem;

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

TempDir::TempDir(const std::string& tag) {
  static int counter = 0;
  path_ = fs::temp_directory_path() / ("fxsim-test-" + tag + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!std::getenv("FXSIM_KEEP_TEST_FILES")) fs::remove_all(path_, ec);
}

std::vector<std::string> example_scene_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(FXSIM_SOURCE_DIR "/scenes"))
    if (e.path().extension() == ".json" && e.path().stem() != "suite") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

fs::path example_scene(const std::string& name) { return fs::path(FXSIM_SOURCE_DIR) / "scenes" / (name + ".json"); }

CliResult run_fxsim(const std::string& arguments, const std::string& prefix, const std::string& standard_input) {
  return run_command(prefix + " '" + FXSIM_EXE + "' " + arguments, standard_input, arguments);
}

CliResult run_command(const std::string& command_line, const std::string& standard_input, const std::string& label) {
  const std::string& arguments = label.empty() ? command_line : label;
  TempDir capture("capture");
  const std::string command = command_line + " >'" + (capture / "out").string() + "' 2>'" +
                              (capture / "err").string() + "' <'" + standard_input + "'";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text_file(capture / "out");
  result.err = read_text_file(capture / "err");
  // Logged (ctest shows it only for a failing test) so that an unexpected exit says why, even where the
  // test's own assertion prints only the code.
  if (result.exit_code != 0)
    std::cerr << "[" << (label.empty() ? "" : "fxsim ") << arguments.substr(0, 200) << "] exited " << result.exit_code << "; its stderr: "
              << result.err.substr(0, 2000) << "\n";
  return result;
}

int render_and_when_written(const std::string& arguments, const fs::path& file, int seconds, const std::string& then,
                            const fs::path& script) {
  std::ostringstream text;
  text << "'" << FXSIM_EXE << "' render " << arguments << " & pid=$!\nfor i in $(seq 1 " << seconds * 20
       << "); do [ -e '" << file.string() << "' ] && break; sleep 0.05; done\n" << then << "\nwait $pid\nexit $?\n";
  write_text_file(script, text.str());
  return std::system(("bash '" + script.string() + "'").c_str());
}

nlohmann::json fxsim_info() {
  const CliResult info = run_fxsim("info --json");
  if (info.exit_code != 0) throw std::runtime_error("fxsim info --json: exit " + std::to_string(info.exit_code) + ": " + info.err);
  return nlohmann::json::parse(info.out);
}

bool fxsim_gl_is_software(const nlohmann::json& info) {
  return info.at("auto_rasterisers") == nlohmann::json{"cpu", "gl"};
}

}  // namespace fxsim::test
