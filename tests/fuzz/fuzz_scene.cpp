// libFuzzer target: any bytes as a scene file, through parsing and validation.
// A scene may be refused with fxsim's own error (FxError: exit 65 or 66), and
// nothing else may happen: any other exception, a sanitizer report, a crash or
// a timeout is a finding (scripts/fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/exit_codes.h"
#include "core/scene_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    // Textures resolve against a folder that does not exist: the fuzzer
    // reaches the file checks without reading the machine's files.
    fxsim::parse_scene_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json",
                            "/nonexistent-fxsim-fuzz");
  } catch (const fxsim::FxError&) {
  }
  return 0;
}
