#include "services/common/credentials.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"

namespace trix::service {
namespace {

std::array<unsigned char, 32> Sha256(absl::string_view token) {
  std::array<unsigned char, 32> digest;
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest.data());
  return digest;
}

bool HasScope(const std::vector<std::string>& scopes, absl::string_view scope) {
  return std::find(scopes.begin(), scopes.end(), scope) != scopes.end();
}

absl::StatusOr<ServiceCredential> ParseEntry(const nlohmann::json& entry, size_t index) {
  const std::string where = absl::StrCat("credentials[", index, "]");
  if (!entry.is_object()) return absl::InvalidArgumentError(where + " is not an object");
  ServiceCredential c;
  auto name = entry.find("name");
  if (name == entry.end() || !name->is_string() || name->get<std::string>().empty() ||
      name->get<std::string>().size() > 64) {
    return absl::InvalidArgumentError(where + " needs a name (1-64 characters)");
  }
  c.name = name->get<std::string>();
  auto hash = entry.find("sha256");
  std::string hex = hash != entry.end() && hash->is_string() ? hash->get<std::string>() : "";
  const bool is_hex = hex.size() == 64 && std::all_of(hex.begin(), hex.end(), [](char ch) {
                        return absl::ascii_isxdigit(static_cast<unsigned char>(ch));
                      });
  if (!is_hex) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " (", c.name, "): sha256 must be 64 hex digits"));
  }
  const std::string bytes = absl::HexStringToBytes(hex);
  std::copy(bytes.begin(), bytes.end(), c.token_sha256.begin());
  auto scopes = entry.find("scopes");
  if (scopes == entry.end() || !scopes->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " (", c.name, "): scopes must be a list"));
  }
  for (const nlohmann::json& s : *scopes) {
    if (!s.is_string() || !HasScope(AllScopes(), s.get<std::string>())) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " (", c.name, "): unknown scope ", s.dump()));
    }
    c.scopes.push_back(s.get<std::string>());
  }
  if (auto cert = entry.find("client_cert"); cert != entry.end()) {
    if (!cert->is_string() || cert->get<std::string>().empty() ||
        cert->get<std::string>().size() > 253) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " (", c.name, "): client_cert must be a certificate's name (1-253 characters)"));
    }
    c.client_cert = cert->get<std::string>();
  }
  if (auto consent = entry.find("holds_need_consent"); consent != entry.end()) {
    if (!consent->is_boolean()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " (", c.name, "): holds_need_consent must be true or false"));
    }
    c.holds_need_consent = consent->get<bool>();
  }
  return c;
}

}  // namespace

const std::vector<std::string>& AllScopes() {
  static const std::vector<std::string> kAll = {
      kTablesCreate, kTablesVoid, kTablesRead,  kTablesWatch,     kLedgerWrite,
      kLedgerHold,   kLedgerRead, kRatingsRead, kBotsAdmin, kMatchmakingPlay};
  return kAll;
}

bool ServiceCredential::Holds(absl::string_view scope) const { return HasScope(scopes, scope); }
bool ServiceCaller::Holds(absl::string_view scope) const { return HasScope(scopes, scope); }

absl::Status ServiceCaller::Allows(absl::string_view scope) const {
  if (Holds(scope)) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("the credential \"", name, "\" lacks the scope ", scope));
}

ServiceCredential CredentialFor(std::string name, absl::string_view token,
                                std::vector<std::string> scopes, std::string client_cert) {
  return {.name = std::move(name),
          .token_sha256 = Sha256(token),
          .scopes = std::move(scopes),
          .client_cert = std::move(client_cert)};
}

absl::StatusOr<std::vector<ServiceCredential>> ParseCredentials(absl::string_view json) {
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("credentials") ||
      !doc["credentials"].is_array()) {
    return absl::InvalidArgumentError("not a JSON object with a \"credentials\" list");
  }
  std::vector<ServiceCredential> out;
  for (size_t i = 0; i < doc["credentials"].size(); ++i) {
    absl::StatusOr<ServiceCredential> c = ParseEntry(doc["credentials"][i], i);
    if (!c.ok()) return c.status();
    out.push_back(*std::move(c));
  }
  return out;
}

absl::StatusOr<std::shared_ptr<const ServiceCredentials>> ServiceCredentials::Load(
    CredentialSources sources) {
  std::shared_ptr<ServiceCredentials> c(new ServiceCredentials(std::move(sources)));
  if (!c->sources_.file.empty()) {
    absl::StatusOr<std::unique_ptr<ReloadingFile<std::vector<ServiceCredential>>>> file =
        ReloadingFile<std::vector<ServiceCredential>>::Open(
            c->sources_.file, ParseCredentials, c->sources_.recheck);
    if (!file.ok()) return file.status();
    c->file_ = *std::move(file);
  }
  return c;
}

absl::StatusOr<ServiceCaller> ServiceCredentials::Authenticate(
    absl::string_view authorization, const std::vector<std::string>& certificate_names) const {
  absl::string_view token = authorization;
  if (authorization.empty()) {
    return absl::UnauthenticatedError("missing \"authorization: Bearer <token>\"");
  }
  if (!absl::ConsumePrefix(&token, "Bearer ") || token.empty()) {
    return absl::UnauthenticatedError("authorization is not \"Bearer <token>\"");
  }
  const std::array<unsigned char, 32> presented = Sha256(token);
  std::shared_ptr<const std::vector<ServiceCredential>> from_file =
      file_ ? file_->Get() : nullptr;
  const ServiceCredential* match = nullptr;
  // Every entry is compared, whichever matches: the time says nothing about which.
  auto compare = [&](const std::vector<ServiceCredential>& list) {
    for (const ServiceCredential& c : list) {
      if (CRYPTO_memcmp(presented.data(), c.token_sha256.data(), presented.size()) == 0) {
        match = &c;
      }
    }
  };
  compare(sources_.fixed);
  if (from_file) compare(*from_file);
  if (match == nullptr) {
    return absl::UnauthenticatedError("the token is not a known service credential");
  }
  if (!match->client_cert.empty() &&
      std::find(certificate_names.begin(), certificate_names.end(), match->client_cert) ==
          certificate_names.end()) {
    return absl::UnauthenticatedError(absl::StrCat(
        "the credential \"", match->name, "\" is bound to the client certificate \"",
        match->client_cert, "\", and this call ",
        certificate_names.empty() ? "presented no verified certificate"
                                  : "presented another"));
  }
  return ServiceCaller{.name = match->name,
                       .scopes = match->scopes,
                       .holds_need_consent = match->holds_need_consent};
}

absl::StatusOr<ServiceCaller> ServiceCredentials::Require(
    absl::string_view authorization, absl::string_view scope,
    const std::vector<std::string>& certificate_names) const {
  absl::StatusOr<ServiceCaller> caller = Authenticate(authorization, certificate_names);
  if (!caller.ok()) return caller.status();
  if (absl::Status s = caller->Allows(scope); !s.ok()) return s;
  return caller;
}

absl::StatusOr<std::string> ReadCredentialToken(const std::string& path) {
  absl::StatusOr<std::string> contents = ReadWholeFile(path);
  if (!contents.ok()) return contents.status();
  std::string token(absl::StripTrailingAsciiWhitespace(*contents));
  if (token.empty() || token.find_first_of(" \t\r\n") != std::string::npos) {
    return absl::InvalidArgumentError(path + " does not hold one token");
  }
  return token;
}

}  // namespace trix::service
