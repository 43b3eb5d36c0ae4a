// TLS for every gRPC hop: the credentials of the servers (table, matchmaking,
// ratings) and of every client (matchmaking's table and ratings channels, bots,
// trix-play, trix-demo, the load tools), from PEM files.
//
// Every file is re-read every `refresh` (gRPC's FileWatcherCertificateProvider):
// a renewed certificate, key or CA bundle (cert-manager rewrites its Secret's
// files in place) is used for new connections without a restart. A file that
// cannot be read at start is an error; a renewal that fails to read keeps the
// last good one.
//
//   ServerTls tls{.cert_file = "tls.crt", .key_file = "tls.key",
//                 .client_ca_file = "ca.crt"};  // mutual TLS: clients must present
//   auto credentials = ServerCredentials(tls);   // a certificate signed by ca.crt
//
//   ChannelTls tls{.enabled = true, .ca_file = "ca.crt"};  // no ca_file: system roots
//   auto channel = grpc::CreateChannel(address, *ChannelCredentials(tls));
#ifndef TRIX_SERVICES_COMMON_TLS_H_
#define TRIX_SERVICES_COMMON_TLS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace grpc {
class AuthContext;
class ChannelCredentials;
class ServerCredentials;
}  // namespace grpc

namespace trix::service {

// A server's side (--tls_cert, --tls_key, --tls_client_ca, --tls_refresh).
struct ServerTls {
  // The certificate chain and its private key; both empty: plaintext.
  std::string cert_file;
  std::string key_file;
  // CA bundle for client certificates: when set, every client must present a
  // certificate it signed (mutual TLS); when empty, none is asked for.
  std::string client_ca_file;
  absl::Duration refresh = absl::Seconds(10);
  // Refuse to start without a certificate (--require_tls) rather than serve
  // plaintext.
  bool require = false;
  // host:port of a plaintext listener for health checks only (health_port.h),
  // for probes that cannot speak TLS (Kubernetes'); empty: none.
  std::string health_address;
};

// A client's side (--tls, --tls_ca, --tls_client_cert, --tls_client_key).
struct ChannelTls {
  bool enabled = false;  // also on when any file below is set
  // CA bundle the server's certificate must chain to; empty: the system's roots.
  std::string ca_file;
  // A certificate to present (for servers that require one), with its key.
  std::string client_cert_file;
  std::string client_key_file;
  absl::Duration refresh = absl::Seconds(10);

  bool on() const {
    return enabled || !ca_file.empty() || !client_cert_file.empty() ||
           !client_key_file.empty();
  }
};

// Insecure credentials when `tls` sets no certificate (INVALID_ARGUMENT instead
// when it requires TLS); INVALID_ARGUMENT when a certificate comes without its key
// (or the other way round), a client CA without a certificate, or a file cannot be
// read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const ServerTls& tls);

// Insecure credentials when TLS is off; INVALID_ARGUMENT as above.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const ChannelTls& tls);

// The names a verified client certificate gives its caller (its subject's common
// name and subject alternative names), which a credential may be bound to
// (credentials.h); none when the call came without a verified certificate.
std::vector<std::string> PeerCertificateNames(const grpc::AuthContext* context);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_TLS_H_
