#pragma once
// SHA-256 (OpenSSL's libcrypto): checkpoint integrity, the manifest's file
// digests, scene keys.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxsim {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void add(const void* data, size_t bytes);
  void add(std::string_view text) { add(text.data(), text.size()); }
  std::vector<uint8_t> digest();  // 32 bytes; the object is spent
  std::string hex();              // 64 lowercase hex digits; the object is spent

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

std::string sha256_hex(const void* data, size_t bytes);
inline std::string sha256_hex(std::string_view text) { return sha256_hex(text.data(), text.size()); }
inline std::string sha256_hex(const std::vector<uint8_t>& bytes) { return sha256_hex(bytes.data(), bytes.size()); }
// A file's digest, read in pieces; `bytes` gets its size (what was read: an
// unreadable file is the digest of nothing, of size 0).
std::string sha256_of_file(const std::filesystem::path& path, uint64_t& bytes);

}  // namespace fxsim
