#pragma once
// Process exit codes (sysexits-style) and the error type that carries one.
// Errors a user can cause are thrown as FxError and turned into an exit code in
// cli/main.cpp; tests check the code, not the wording.
#include <stdexcept>
#include <string>

namespace fxsim {

enum class ExitCode : int {
  ok = 0,
  images_differ = 1,
  usage = 64,
  invalid_scene = 65,
  input_missing = 66,
  no_gl = 69,
  internal = 70,
  no_video_encoder = 72,  // a video was asked for and ffmpeg (or its encoder) is not installed
  cannot_write = 73,
};

class FxError : public std::runtime_error {
 public:
  FxError(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

}  // namespace fxsim
