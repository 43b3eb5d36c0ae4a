#include "services/common/tls.h"

#include <unistd.h>

#include <algorithm>
#include <initializer_list>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/auth_context.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_certificate_verifier.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace trix::service {
namespace {

using grpc::experimental::FileWatcherCertificateProvider;

absl::Status Readable(std::initializer_list<const std::string*> files) {
  for (const std::string* file : files) {
    if (!file->empty() && access(file->c_str(), R_OK) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("cannot read ", *file));
    }
  }
  return absl::OkStatus();
}

// A certificate and its key come together, or neither does.
absl::Status Paired(const std::string& cert, const std::string& key,
                    const char* flags) {
  if (cert.empty() != key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLS needs both a certificate file and a key file (", flags, ")"));
  }
  return absl::OkStatus();
}

// Watches the key and certificate (when given) and the CA bundle (when given);
// "" is a file not watched.
std::shared_ptr<FileWatcherCertificateProvider> Watch(const std::string& key,
                                                      const std::string& cert,
                                                      const std::string& ca,
                                                      absl::Duration refresh) {
  const auto seconds = static_cast<unsigned int>(
      std::max<int64_t>(1, absl::ToInt64Seconds(refresh)));
  return std::make_shared<FileWatcherCertificateProvider>(key, cert, ca, seconds);
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const ServerTls& tls) {
  if (tls.cert_file.empty() && tls.key_file.empty()) {
    if (!tls.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls_client_ca needs the server's own certificate (--tls_cert, --tls_key)");
    }
    if (tls.require) {
      return absl::InvalidArgumentError(
          "--require_tls is set but no certificate is given (--tls_cert, --tls_key)");
    }
    return grpc::InsecureServerCredentials();
  }
  absl::Status s = Paired(tls.cert_file, tls.key_file, "--tls_cert, --tls_key");
  if (s.ok()) s = Readable({&tls.cert_file, &tls.key_file, &tls.client_ca_file});
  if (!s.ok()) return s;
  grpc::experimental::TlsServerCredentialsOptions options(
      Watch(tls.key_file, tls.cert_file, tls.client_ca_file, tls.refresh));
  options.watch_identity_key_cert_pairs();
  if (tls.client_ca_file.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const ChannelTls& tls) {
  if (!tls.on()) return grpc::InsecureChannelCredentials();
  absl::Status s = Paired(tls.client_cert_file, tls.client_key_file,
                          "--tls_client_cert, --tls_client_key");
  if (s.ok()) s = Readable({&tls.ca_file, &tls.client_cert_file, &tls.client_key_file});
  if (!s.ok()) return s;
  grpc::experimental::TlsChannelCredentialsOptions options;
  // Without a provider watching a CA bundle, gRPC verifies against the system's
  // roots. The name dialled must be one the server's certificate names.
  options.set_certificate_verifier(
      std::make_shared<grpc::experimental::HostNameCertificateVerifier>());
  if (!tls.ca_file.empty() || !tls.client_cert_file.empty()) {
    options.set_certificate_provider(
        Watch(tls.client_key_file, tls.client_cert_file, tls.ca_file, tls.refresh));
  }
  if (!tls.ca_file.empty()) options.watch_root_certs();
  if (!tls.client_cert_file.empty()) options.watch_identity_key_cert_pairs();
  return grpc::experimental::TlsCredentials(options);
}

std::vector<std::string> PeerCertificateNames(const grpc::AuthContext* context) {
  std::vector<std::string> names;
  if (context == nullptr || !context->IsPeerAuthenticated()) return names;
  for (const char* property : {"x509_common_name", "x509_subject_alternative_name"}) {
    for (const grpc::string_ref& value : context->FindPropertyValues(property)) {
      names.emplace_back(value.data(), value.size());
    }
  }
  return names;
}

}  // namespace trix::service
