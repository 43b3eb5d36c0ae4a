// Structured logs: one JSON object per line on stderr, so that a log collector
// (Kubernetes, Loki, Elasticsearch) indexes every field without parsing prose.
//
// Each line carries the time (UTC), the level, the service name and the message,
// then the caller's fields:
//   {"time":"2024-05-01T12:00:00.123Z","level":"info","service":"table-service",
//    "msg":"table created","table":"9f0c...","mode":"complex-partner"}
//
//   InitLogging("table-service", "info");
//   LogInfo("table created", {{"table", id}, {"mode", "complex-partner"}});
//   LogWarn("append failed", {{"table", id}, {"error", status.ToString()}});
//
// Secrets (tokens, database passwords) must never be passed as fields.
#ifndef TRIX_SERVICES_COMMON_LOGGING_H_
#define TRIX_SERVICES_COMMON_LOGGING_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace trix::service {

using LogFields = std::vector<std::pair<std::string, nlohmann::json>>;

// `level`: "debug", "info", "warn", "error" or "off". Safe to call again (tests).
void InitLogging(const std::string& service, const std::string& level);

void LogDebug(absl::string_view message, const LogFields& fields = {});
void LogInfo(absl::string_view message, const LogFields& fields = {});
void LogWarn(absl::string_view message, const LogFields& fields = {});
void LogError(absl::string_view message, const LogFields& fields = {});

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_LOGGING_H_
