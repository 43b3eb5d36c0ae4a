#include "services/common/metrics.h"

#include <exception>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "prometheus/exposer.h"

namespace trix::service {
namespace {

// Each civetweb thread serves one connection at a time, and a connection that
// never finishes its request holds its thread until the timeout: a scrape is
// served beside a few stuck connections, and a stuck one is dropped soon.
constexpr int kServingThreads = 4;
constexpr int kRequestTimeoutMs = 5000;

}  // namespace

absl::StatusOr<std::pair<std::string, int>> ParseMetricsAddress(
    const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < -1 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the metrics address must be host:port (port -1 turns it off), not \"", address,
        "\""));
  }
  return std::make_pair(address.substr(0, colon), port);
}

absl::StatusOr<std::unique_ptr<Metrics>> Metrics::Start(const std::string& address,
                                                        int port) {
  std::unique_ptr<Metrics> metrics(new Metrics);
  metrics->registry_ = std::make_shared<prometheus::Registry>();
  if (port < 0) return metrics;
  // civetweb reports a port it cannot bind by throwing; it must not escape.
  try {
    metrics->exposer_ = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
        "listening_ports", absl::StrCat(address, ":", port),
        "num_threads", std::to_string(kServingThreads),
        "request_timeout_ms", std::to_string(kRequestTimeoutMs)});
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", address, ":", port, ": ", e.what()));
  }
  metrics->exposer_->RegisterCollectable(metrics->registry_);
  const std::vector<int> ports = metrics->exposer_->GetListeningPorts();
  metrics->port_ = ports.empty() ? port : ports.front();
  return metrics;
}

Metrics::~Metrics() = default;

void Metrics::Add(std::shared_ptr<prometheus::Collectable> collectable) {
  if (exposer_) exposer_->RegisterCollectable(collectable);
  collectables_.push_back(std::move(collectable));
}

std::vector<double> Metrics::LatencyBuckets() {
  std::vector<double> buckets;
  for (double b = 50e-6; b < 4; b *= 2) buckets.push_back(b);
  return buckets;
}

}  // namespace trix::service
