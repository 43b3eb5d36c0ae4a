// Prometheus metrics: one registry per process, served as text on
// http://<address>:<port>/metrics for the cluster's Prometheus to scrape.
//
// Services create their counters, gauges and histograms in registry() when they
// start and keep the references (prometheus-cpp metrics are thread-safe and live as
// long as the registry). Tests pass port -1: the metrics count but nobody serves
// them; port 0 serves on a free port (see port()).
//
//   auto metrics = Metrics::Start("0.0.0.0", 9464);
//   auto& actions = prometheus::BuildCounter().Name("trix_table_actions_total")
//                       .Help("...").Register((*metrics)->registry());
//   actions.Add({{"result", "ok"}}).Increment();
#ifndef TRIX_SERVICES_COMMON_METRICS_H_
#define TRIX_SERVICES_COMMON_METRICS_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/registry.h"

namespace prometheus {
class Collectable;
class Exposer;
}

namespace trix::service {

// "host:port" (the form of every listener setting) -> host and port; port -1
// means "do not serve". INVALID_ARGUMENT when it is not of that form.
absl::StatusOr<std::pair<std::string, int>> ParseMetricsAddress(
    const std::string& address);

class Metrics {
 public:
  // `port` < 0: do not serve. Fails when the port cannot be bound.
  static absl::StatusOr<std::unique_ptr<Metrics>> Start(const std::string& address,
                                                        int port);
  ~Metrics();

  prometheus::Registry& registry() { return *registry_; }
  // Serves `collectable` beside the registry (metrics computed at each scrape,
  // such as HeapMetrics()); kept as long as this object.
  void Add(std::shared_ptr<prometheus::Collectable> collectable);
  // The port /metrics is served on, or -1.
  int port() const { return port_; }

  // Exponential latency buckets from 50 microseconds to about 3 seconds, in
  // seconds, for RPC and database timings.
  static std::vector<double> LatencyBuckets();

 private:
  Metrics() = default;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  int port_ = -1;
};

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_METRICS_H_
