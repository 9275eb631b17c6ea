// Bearer tokens: minting, hashing and comparison. The auth file stores only a token's SHA-256,
// so a leaked file does not leak credentials; tokens are 256 random bits, so an unsalted hash
// cannot be brute-forced.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kbench::auth {

// A new token: "kbt_" and 64 hex digits of OpenSSL's CSPRNG (RAND_bytes).
absl::StatusOr<std::string> MintToken();

// Lower-case hex SHA-256 of `token`.
std::string Sha256Hex(absl::string_view token);

// True when a and b are equal; the time taken depends only on their lengths (CRYPTO_memcmp), so
// a caller cannot learn a stored hash byte by byte from response times.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

// True for 64 hex digits, the only form the auth file accepts.
bool IsSha256Hex(absl::string_view s);

}  // namespace kbench::auth
