// The end of a load run: the tables it created and left unfinished are voided
// (VoidTable, with the service token), so that no instance keeps hosting them,
// renewing their leases, long after the run. A refusal that names the instance
// hosting a table (UNAVAILABLE with its location) is followed. The instances are
// dialled with the tool's channel credentials (its --tls flags), as its other
// channels are.
//
//   VoidCounts counts =
//       VoidTables({{table_id, "127.0.0.1:50051"}}, credentials, token, "load run");
//   std::printf("%s\n", counts.Text().c_str());
#ifndef TRIX_TESTS_LOAD_VOID_TABLES_H_
#define TRIX_TESTS_LOAD_VOID_TABLES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "grpcpp/security/credentials.h"

namespace trix::load {

struct VoidCounts {
  int64_t voided = 0;    // voided now
  int64_t already = 0;   // voided before
  int64_t finished = 0;  // their games had ended: nothing to void
  int64_t failed = 0;    // any other answer
  std::string Text() const;
};

// `tables`: each table id with the host:port of an instance to ask first.
VoidCounts VoidTables(const std::vector<std::pair<std::string, std::string>>& tables,
                      std::shared_ptr<grpc::ChannelCredentials> credentials,
                      const std::string& service_token, const std::string& reason);

// Ends a load tool's process once it has voided its tables: flushes stdout and
// stderr and exits without running the exit handlers. OpenSSL's (OPENSSL_cleanup)
// would free the TLS state that gRPC's threads still use (the void step's
// channels still closing, the streams a run leaves to gRPC) and crash the tool
// ("stack smashing detected" in CRYPTO_free_ex_data) after its work is done.
[[noreturn]] void EndLoadTool(int exit_code);

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_VOID_TABLES_H_
