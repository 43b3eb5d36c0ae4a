#include "services/common/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <array>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "engine/check.h"

namespace trix::service {
namespace {

// A CSPRNG that fails leaves us no safe way to make a secret: stop loudly.
template <size_t N>
std::array<unsigned char, N> RandomBytes() {
  std::array<unsigned char, N> bytes;
  TRIX_CHECK(RAND_bytes(bytes.data(), static_cast<int>(N)) == 1)
      << "no secure randomness";
  return bytes;
}

}  // namespace

std::string NewSeatToken() {
  const auto bytes = RandomBytes<32>();
  return absl::WebSafeBase64Escape(
      absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::string NewUuid() {
  auto b = RandomBytes<16>();
  b[6] = (b[6] & 0x0F) | 0x40;  // version 4
  b[8] = (b[8] & 0x3F) | 0x80;  // RFC 4122 variant
  return absl::StrFormat(
      "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
      b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
      b[15]);
}

bool IsUuid(absl::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

uint64_t RandomUint64() {
  const auto b = RandomBytes<8>();
  uint64_t v = 0;
  for (unsigned char c : b) v = (v << 8) | c;
  return v;
}

std::string RandomBytes(size_t n) {
  std::string bytes(n, '\0');
  TRIX_CHECK(RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()),
                        static_cast<int>(n)) == 1)
      << "no secure randomness";
  return bytes;
}

std::string TokenHash(absl::string_view token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  // Lengths are not secret (tokens and digests have fixed, published lengths);
  // the bytes are compared with no early return, so the time says nothing of
  // where the first difference is. No hashing: a seat's every action compares
  // its token with the four seats' (Table::SeatOf).
  if (a.size() != b.size()) return false;
  return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool TokenMatches(absl::string_view token, absl::string_view stored_hash) {
  return ConstantTimeEquals(TokenHash(token), stored_hash);
}

std::string BearerToken(absl::string_view authorization) {
  if (!absl::ConsumePrefix(&authorization, "Bearer ")) return "";
  return std::string(authorization);
}

}  // namespace trix::service
