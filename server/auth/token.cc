// Token minting and hashing on OpenSSL's libcrypto.
#include "server/auth/token.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace kbench::auth {
namespace {

constexpr size_t kTokenBytes = 32;  // 256 bits: the hash needs no salt (see token.h).

}  // namespace

absl::StatusOr<std::string> MintToken() {
  std::array<unsigned char, kTokenBytes> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return absl::InternalError("RAND_bytes failed: the system has no entropy source");
  }
  return absl::StrCat("kbt_", absl::BytesToHexString(absl::string_view(
                                  reinterpret_cast<const char*>(bytes.data()), bytes.size())));
}

std::string Sha256Hex(absl::string_view token) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest.data());
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool IsSha256Hex(absl::string_view s) {
  if (s.size() != size_t{2} * SHA256_DIGEST_LENGTH) return false;
  for (char c : s) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace kbench::auth
