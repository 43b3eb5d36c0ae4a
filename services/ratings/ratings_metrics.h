// The ratings service's Prometheus metrics, registered once and shared by the
// outbox consumer and the ledger's gRPC calls.
#ifndef TRIX_SERVICES_RATINGS_RATINGS_METRICS_H_
#define TRIX_SERVICES_RATINGS_RATINGS_METRICS_H_

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace trix::ratings {

struct RatingsMetrics {
  explicit RatingsMetrics(prometheus::Registry& registry);

  prometheus::Counter& games_rated;        // games applied and rated
  prometheus::Counter& games_quarantined;  // outbox rows that could not be read
  prometheus::Counter& games_settled;      // staked games whose money moved
  prometheus::Counter& games_unsettled;    // staked games whose money could not move
  prometheus::Counter& games_voided;       // voided tables applied
  prometheus::Counter& unheld_stakes;      // staked seats that settled nothing: no hold
  prometheus::Counter& settlements_set_aside;  // settlements refused, set aside to retry
  prometheus::Gauge& open_set_aside;           // set-aside settlements still waiting
  prometheus::Counter& holds_expired;      // holds the sweep released past their TTL
  prometheus::Gauge& oldest_open_hold_seconds;
  prometheus::Gauge& holds_past_ttl;       // open holds the sweep has yet to release
  prometheus::Family<prometheus::Counter>& ledger_entries;  // by kind
  prometheus::Family<prometheus::Counter>& rate_limited;    // by method and limit
  prometheus::Counter& batch_errors;
  prometheus::Gauge& lag_seconds;          // age of the oldest pending outbox row
  prometheus::Gauge& pending_games;        // outbox ids above the last applied one
  prometheus::Histogram& batch_seconds;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_RATINGS_METRICS_H_
