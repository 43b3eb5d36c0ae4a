#include "services/common/server_limits.h"

#include <cstdint>

#include "grpcpp/grpcpp.h"
#include "grpcpp/resource_quota.h"

namespace trix::service {

void ApplyServerLimits(const ServerLimits& limits, const std::string& name,
                       grpc::ServerBuilder& builder) {
  if (limits.memory_quota_mib > 0) {
    grpc::ResourceQuota quota(name);
    quota.Resize(static_cast<size_t>(limits.memory_quota_mib) * 1024 * 1024);
    builder.SetResourceQuota(quota);
  }
  if (limits.max_streams_per_connection > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                               limits.max_streams_per_connection);
  }
  // Dead clients' streams are noticed and closed, not kept forever.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
}

}  // namespace trix::service
