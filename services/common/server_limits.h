// What every Mamlaka gRPC server bounds whoever calls it, set in one place for the
// table, matchmaking and ratings services: the memory gRPC may take for its
// connections and calls (a grpc::ResourceQuota), the streams one connection may
// hold open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS: a client's further
// calls wait in the client until one ends) and keepalive, so that a dead client's
// streams are noticed and closed rather than kept forever.
//
//   grpc::ServerBuilder builder;
//   service::ApplyServerLimits(options.limits, builder);
#ifndef TRIX_SERVICES_COMMON_SERVER_LIMITS_H_
#define TRIX_SERVICES_COMMON_SERVER_LIMITS_H_

#include <string>


namespace grpc {
class ServerBuilder;
}  // namespace grpc

namespace trix::service {

struct ServerLimits {
  // gRPC's memory for this server's connections and calls, in MiB (0: no quota).
  int memory_quota_mib = 1024;
  // Calls one connection may have open at once (0: gRPC's default, no limit).
  int max_streams_per_connection = 1024;
};

// Sets the quota, the stream cap and keepalive on `builder`; `name` names the
// quota (the service's name).
void ApplyServerLimits(const ServerLimits& limits, const std::string& name,
                       grpc::ServerBuilder& builder);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_SERVER_LIMITS_H_
