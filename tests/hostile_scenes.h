#pragma once
// Hostile and mistaken scenes, each with the words its refusal must contain:
// refused by fxsim (tests/hostile_input_test.cpp) and, where a schema can
// judge them, by the scene format's JSON Schema (tests/schema_test.cpp).
#include <string>
#include <vector>

namespace fxsim::test {

struct Hostile {
  const char* name;
  // Builds the scene's text when a test needs it, not when the tests are
  // registered: the largest are megabytes, and every process of the CLI
  // suite (one a test under ctest) registers them all.
  std::string (*text)();
  const char* words;
};

// A scene of one emitter (its JSON object) with more top-level keys before it ("\"seed\": 7, ").
std::string with_emitter(const std::string& emitter, const std::string& top = "");
std::vector<Hostile> hostile_scenes();

}  // namespace fxsim::test
