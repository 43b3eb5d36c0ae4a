#include "services/common/player_tokens.h"

#include <jwt.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <algorithm>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace trix::service {
namespace {

absl::Status Refused(absl::string_view why) {
  return absl::UnauthenticatedError(absl::StrCat("the player token ", why));
}

// A base64url segment that holds a JSON object, or a discarded value.
nlohmann::json JsonSegment(absl::string_view segment) {
  std::string text;
  if (!absl::WebSafeBase64Unescape(segment, &text)) return nlohmann::json::value_t::discarded;
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return nlohmann::json::value_t::discarded;
  return doc;
}

std::string StringClaim(const nlohmann::json& doc, const char* name) {
  auto it = doc.find(name);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

bool EdDsaVerifies(const std::string& pem, absl::string_view signed_part,
                   absl::string_view signature_b64) {
  std::string signature;
  if (!absl::WebSafeBase64Unescape(signature_b64, &signature)) return false;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok =
      key != nullptr && ctx != nullptr &&
      EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, key) == 1 &&
      EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()),
                       signature.size(),
                       reinterpret_cast<const unsigned char*>(signed_part.data()),
                       signed_part.size()) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  return ok;
}

// libjwt checks RS256, ES256 and HS256 signatures; the algorithm it read must be
// the key's too.
bool LibjwtVerifies(const PlayerTokenKey& key, const std::string& token) {
  jwt_t* jwt = nullptr;
  const int rc = jwt_decode(&jwt, token.c_str(),
                            reinterpret_cast<const unsigned char*>(key.material.data()),
                            static_cast<int>(key.material.size()));
  const bool ok = rc == 0 && jwt != nullptr &&
                  jwt_get_alg(jwt) == jwt_str_alg(key.alg.c_str());
  jwt_free(jwt);
  return ok;
}

bool AudienceHolds(const nlohmann::json& claims, const std::string& audience) {
  auto aud = claims.find("aud");
  if (aud == claims.end()) return false;
  if (aud->is_string()) return *aud == audience;
  return aud->is_array() && std::find(aud->begin(), aud->end(), audience) != aud->end();
}

// The claim as a whole number of seconds; null when absent, an error otherwise.
absl::StatusOr<const nlohmann::json*> TimeClaim(const nlohmann::json& claims,
                                                const char* name, bool required) {
  auto it = claims.find(name);
  if (it == claims.end()) {
    if (required) return Refused(absl::StrCat("has no ", name));
    return nullptr;
  }
  if (!it->is_number_integer()) return Refused(absl::StrCat("has a ", name, " that is not an integer"));
  // Between 1970 and 9999: the lifetime and leeway sums can then never overflow.
  constexpr int64_t kLatest = 253402300799;  // 9999-12-31T23:59:59Z
  if (it->is_number_unsigned() ? it->get<uint64_t>() > static_cast<uint64_t>(kLatest)
                               : (it->get<int64_t>() < 0 || it->get<int64_t>() > kLatest)) {
    return Refused(absl::StrCat("has a ", name, " outside the years 1970 to 9999"));
  }
  return &*it;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const PlayerTokens>> PlayerTokens::Open(
    PlayerTokenOptions options) {
  if (options.jwks_file.empty() || options.issuer.empty() || options.audience.empty()) {
    return absl::InvalidArgumentError(
        "player tokens need a JWKS file, an issuer and an audience (--jwks_file, "
        "--jwt_issuer, --jwt_audience)");
  }
  if (options.max_lifetime <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--jwt_max_lifetime must be positive");
  }
  std::shared_ptr<PlayerTokens> tokens(new PlayerTokens(std::move(options)));
  const bool hs256 = tokens->options_.allow_hs256;
  auto keys = ReloadingFile<std::vector<PlayerTokenKey>>::Open(
      tokens->options_.jwks_file,
      [hs256](const std::string& json) { return ParseJwks(json, hs256); },
      tokens->options_.recheck);
  if (!keys.ok()) return keys.status();
  tokens->keys_ = *std::move(keys);
  return tokens;
}

absl::StatusOr<std::string> PlayerTokens::PlayerOf(absl::string_view token,
                                                   absl::Time now) const {
  std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty()) {
    return Refused("is not a signed JWT (header.payload.signature)");
  }
  const nlohmann::json header = JsonSegment(parts[0]);
  if (header.is_discarded()) return Refused("has a malformed header");
  const std::string kid = StringClaim(header, "kid");
  const std::string alg = StringClaim(header, "alg");
  std::shared_ptr<const std::vector<PlayerTokenKey>> keys = keys_->Get(now);
  auto key = std::find_if(keys->begin(), keys->end(),
                          [&](const PlayerTokenKey& k) { return k.kid == kid; });
  if (kid.empty()) return Refused("names no key (kid)");
  if (key == keys->end()) return Refused(absl::StrCat("names an unknown key \"", kid, "\""));
  if (alg != key->alg) {
    return Refused(absl::StrCat("says alg \"", alg, "\" but its key is ", key->alg));
  }
  const bool verified =
      alg == "EdDSA"
          ? EdDsaVerifies(key->material, token.substr(0, parts[0].size() + 1 + parts[1].size()),
                          parts[2])
          : LibjwtVerifies(*key, std::string(token));
  if (!verified) return Refused("has a wrong signature");
  return CheckClaims(JsonSegment(parts[1]), now);
}

absl::StatusOr<std::string> PlayerTokens::CheckClaims(const nlohmann::json& claims,
                                                      absl::Time now) const {
  if (claims.is_discarded()) return Refused("has a malformed payload");
  absl::StatusOr<const nlohmann::json*> exp = TimeClaim(claims, "exp", true);
  absl::StatusOr<const nlohmann::json*> iat = TimeClaim(claims, "iat", true);
  absl::StatusOr<const nlohmann::json*> nbf = TimeClaim(claims, "nbf", false);
  for (const auto* claim : {&exp, &iat, &nbf}) {
    if (!claim->ok()) return claim->status();
  }
  const int64_t t = absl::ToUnixSeconds(now);
  const int64_t leeway = absl::ToInt64Seconds(options_.leeway);
  const int64_t expires = (*exp)->get<int64_t>();
  const int64_t issued = (*iat)->get<int64_t>();
  if (t > expires + leeway) return Refused("expired");
  if (issued > t + leeway) return Refused("was issued in the future (iat)");
  if (*nbf != nullptr && (*nbf)->get<int64_t>() > t + leeway) return Refused("is not valid yet");
  if (expires - issued > absl::ToInt64Seconds(options_.max_lifetime)) {
    return Refused("lives longer than the longest lifetime allowed (exp - iat)");
  }
  if (StringClaim(claims, "iss") != options_.issuer) return Refused("is from another issuer");
  if (!AudienceHolds(claims, options_.audience)) return Refused("is for another audience");
  const std::string sub = StringClaim(claims, "sub");
  if (sub.empty() || sub.size() > 128) return Refused("names no player (sub, 1-128 bytes)");
  return sub;
}

}  // namespace trix::service
