// What a caller sent in a call's metadata: one home for reading it, for every
// service's handlers.
//
//   const std::string authorization = service::ClientMetadata(*context, "authorization");
#ifndef TRIX_SERVICES_COMMON_GRPC_METADATA_H_
#define TRIX_SERVICES_COMMON_GRPC_METADATA_H_

#include <string>

#include "absl/strings/string_view.h"
#include "grpcpp/server_context.h"

namespace trix::service {

// The first value of `key` in the call's client metadata; "" when it is absent.
inline std::string ClientMetadata(const grpc::ServerContextBase& context, absl::string_view key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(grpc::string_ref(key.data(), key.size()));
  if (it == metadata.end()) return "";
  return std::string(it->second.data(), it->second.size());
}

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_GRPC_METADATA_H_
