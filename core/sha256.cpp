#include "core/sha256.h"

#include <fmt/format.h>
#include <fstream>
#include <openssl/evp.h>

#include "core/exit_codes.h"

namespace fxsim {

struct Sha256::Context {
  EVP_MD_CTX* md = nullptr;
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  context_->md = EVP_MD_CTX_new();
  if (!context_->md || EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr) != 1)
    throw FxError(ExitCode::internal, "SHA-256 is not available from libcrypto");
}

Sha256::~Sha256() { EVP_MD_CTX_free(context_->md); }

void Sha256::add(const void* data, size_t bytes) { EVP_DigestUpdate(context_->md, data, bytes); }

std::vector<uint8_t> Sha256::digest() {
  std::vector<uint8_t> out(EVP_MAX_MD_SIZE);
  unsigned length = 0;
  EVP_DigestFinal_ex(context_->md, out.data(), &length);
  out.resize(length);
  return out;
}

std::string Sha256::hex() {
  std::string out;
  for (const uint8_t b : digest()) out += fmt::format("{:02x}", b);
  return out;
}

std::string sha256_hex(const void* data, size_t bytes) {
  Sha256 h;
  h.add(data, bytes);
  return h.hex();
}

std::string sha256_of_file(const std::filesystem::path& path, uint64_t& bytes) {
  std::ifstream in(path, std::ios::binary);
  Sha256 digest;
  std::vector<char> buffer(1 << 20);
  bytes = 0;
  while (in) {
    in.read(buffer.data(), std::streamsize(buffer.size()));
    digest.add(buffer.data(), size_t(in.gcount()));
    bytes += uint64_t(in.gcount());
  }
  return digest.hex();
}

}  // namespace fxsim
