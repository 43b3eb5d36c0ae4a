#include "services/common/jwks.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include <memory>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace trix::service {
namespace {

using Pkey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

absl::StatusOr<std::string> Base64Field(const nlohmann::json& jwk, const char* field) {
  auto it = jwk.find(field);
  std::string bytes;
  if (it == jwk.end() || !it->is_string() ||
      !absl::WebSafeBase64Unescape(it->get<std::string>(), &bytes) || bytes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", field, "\" is not base64url"));
  }
  return bytes;
}

std::string StringField(const nlohmann::json& jwk, const char* field) {
  auto it = jwk.find(field);
  return it != jwk.end() && it->is_string() ? it->get<std::string>() : "";
}

Pkey FromParams(const char* type, const OSSL_PARAM* params) {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  if (ctx != nullptr && EVP_PKEY_fromdata_init(ctx) == 1) {
    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, const_cast<OSSL_PARAM*>(params));
  }
  EVP_PKEY_CTX_free(ctx);
  return Pkey(key, EVP_PKEY_free);
}

absl::StatusOr<Pkey> RsaKey(const nlohmann::json& jwk) {
  absl::StatusOr<std::string> n = Base64Field(jwk, "n");
  absl::StatusOr<std::string> e = Base64Field(jwk, "e");
  if (!n.ok()) return n.status();
  if (!e.ok()) return e.status();
  auto bn = [](const std::string& b) {
    return BN_bin2bn(reinterpret_cast<const unsigned char*>(b.data()),
                     static_cast<int>(b.size()), nullptr);
  };
  BIGNUM* bn_n = bn(*n);
  BIGNUM* bn_e = bn(*e);
  OSSL_PARAM_BLD* build = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_N, bn_n);
  OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_E, bn_e);
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(build);
  Pkey key = FromParams("RSA", params);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(build);
  BN_free(bn_n);
  BN_free(bn_e);
  if (!key) return absl::InvalidArgumentError("not a valid RSA public key");
  if (EVP_PKEY_get_bits(key.get()) < 2048) {
    return absl::InvalidArgumentError("an RSA key needs at least 2048 bits");
  }
  return key;
}

absl::StatusOr<Pkey> EcKey(const nlohmann::json& jwk) {
  if (StringField(jwk, "crv") != "P-256") return absl::InvalidArgumentError("crv is not P-256");
  absl::StatusOr<std::string> x = Base64Field(jwk, "x");
  absl::StatusOr<std::string> y = Base64Field(jwk, "y");
  if (!x.ok()) return x.status();
  if (!y.ok()) return y.status();
  if (x->size() != 32 || y->size() != 32) {
    return absl::InvalidArgumentError("x and y of a P-256 key are 32 bytes each");
  }
  std::string point = "\x04" + *x + *y;
  char group[] = "P-256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()),
      OSSL_PARAM_construct_end()};
  Pkey key = FromParams("EC", params);
  EVP_PKEY_CTX* check = key ? EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr) : nullptr;
  const bool on_curve = check != nullptr && EVP_PKEY_public_check(check) == 1;
  EVP_PKEY_CTX_free(check);
  if (!on_curve) return absl::InvalidArgumentError("not a point of P-256");
  return key;
}

absl::StatusOr<Pkey> Ed25519Key(const nlohmann::json& jwk) {
  if (StringField(jwk, "crv") != "Ed25519") {
    return absl::InvalidArgumentError("crv is not Ed25519");
  }
  absl::StatusOr<std::string> x = Base64Field(jwk, "x");
  if (!x.ok()) return x.status();
  Pkey key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                       reinterpret_cast<const unsigned char*>(x->data()),
                                       x->size()),
           EVP_PKEY_free);
  if (!key) return absl::InvalidArgumentError("not an Ed25519 public key");
  return key;
}


// The key's algorithm (from its type) and material.
absl::StatusOr<PlayerTokenKey> ParseKey(const nlohmann::json& jwk, bool allow_hs256) {
  const std::string kty = StringField(jwk, "kty");
  PlayerTokenKey key{.kid = StringField(jwk, "kid")};
  absl::StatusOr<Pkey> pkey = absl::InvalidArgumentError("unknown kty \"" + kty + "\"");
  if (kty == "RSA") {
    key.alg = "RS256";
    pkey = RsaKey(jwk);
  } else if (kty == "EC") {
    key.alg = "ES256";
    pkey = EcKey(jwk);
  } else if (kty == "OKP") {
    key.alg = "EdDSA";
    pkey = Ed25519Key(jwk);
  } else if (kty == "oct") {
    if (!allow_hs256) {
      return absl::InvalidArgumentError("an HS256 (oct) key, and HS256 is not allowed");
    }
    absl::StatusOr<std::string> k = Base64Field(jwk, "k");
    if (!k.ok()) return k.status();
    if (k->size() < 32) return absl::InvalidArgumentError("an HS256 secret needs 32 bytes");
    key.alg = "HS256";
    key.material = *k;
    return key;
  }
  if (!pkey.ok()) return pkey.status();
  key.material = PublicKeyPem(pkey->get());
  return key;
}

}  // namespace

std::string PublicKeyPem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(bio, key);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(bio);
  return pem;
}

absl::StatusOr<std::vector<PlayerTokenKey>> ParseJwks(absl::string_view json,
                                                      bool allow_hs256) {
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("keys") ||
      !doc["keys"].is_array()) {
    return absl::InvalidArgumentError("not a JWKS (a JSON object with a \"keys\" list)");
  }
  std::vector<PlayerTokenKey> keys;
  std::set<std::string> kids;
  for (size_t i = 0; i < doc["keys"].size(); ++i) {
    const nlohmann::json& jwk = doc["keys"][i];
    const std::string where = absl::StrCat("keys[", i, "]");
    if (!jwk.is_object()) return absl::InvalidArgumentError(where + " is not an object");
    absl::StatusOr<PlayerTokenKey> key = ParseKey(jwk, allow_hs256);
    if (!key.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", key.status().message()));
    }
    if (key->kid.empty() || !kids.insert(key->kid).second) {
      return absl::InvalidArgumentError(where + " needs a kid of its own");
    }
    if (jwk.contains("alg") && jwk["alg"] != key->alg) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " (", key->kid, "): alg ", jwk["alg"].dump(), " is not ", key->alg));
    }
    keys.push_back(*std::move(key));
  }
  return keys;
}

}  // namespace trix::service
