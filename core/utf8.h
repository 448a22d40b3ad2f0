#pragma once
// UTF-8 checks for names that come from the file system (a suite's scene
// files, a command line): they are bytes, and JSON, XML and HTML hold text.
#include <string>
#include <string_view>

namespace fxsim {

// Whether `text` is valid UTF-8 (no overlong forms, surrogates or code
// points past U+10FFFF).
bool is_utf8(std::string_view text);

// `text` with each byte that starts no valid UTF-8 sequence replaced by
// U+FFFD, as nlohmann::json's error_handler_t::replace writes it.
std::string valid_utf8(std::string_view text);

}  // namespace fxsim
