#include "services/ratings/ratings_metrics.h"

#include "services/common/metrics.h"

namespace trix::ratings {
namespace {

prometheus::Counter& Counter(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r).Add({});
}
prometheus::Gauge& Gauge(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r).Add({});
}

}  // namespace

RatingsMetrics::RatingsMetrics(prometheus::Registry& r)
    : games_rated(Counter(r, "trix_ratings_games_rated_total",
                          "Finished games whose ratings were applied")),
      games_quarantined(Counter(r, "trix_ratings_games_quarantined_total",
                                "Outbox rows that could not be read as a finished game")),
      games_settled(Counter(r, "trix_ratings_games_settled_total",
                            "Staked games whose stakes and payouts were moved")),
      games_unsettled(Counter(r, "trix_ratings_games_unsettled_total",
                              "Staked games whose money could not be moved as the result says")),
      games_voided(Counter(r, "trix_ratings_games_voided_total",
                           "Voided tables applied: nothing rated or settled, their holds released")),
      unheld_stakes(Counter(r, "trix_ratings_unheld_stakes_total",
                            "Staked seats that settled nothing: no matching hold was attached")),
      settlements_set_aside(
          Counter(r, "trix_ratings_settlements_set_aside_total",
                  "Staked games whose settlement the database refused, set aside to be "
                  "tried again while the games after them went on")),
      open_set_aside(Gauge(r, "trix_ratings_set_aside_settlements",
                           "Set-aside settlements not applied yet (ratings.set_aside_settlements)")),
      holds_expired(Counter(r, "trix_ratings_holds_expired_total",
                            "Open holds released by the sweep once past their TTL")),
      oldest_open_hold_seconds(Gauge(r, "trix_ratings_oldest_open_hold_seconds",
                                     "Age of the oldest open (held or attached) hold; 0 when none")),
      holds_past_ttl(Gauge(r, "trix_ratings_holds_past_ttl",
                           "Open holds past their TTL that the sweep has not released yet")),
      ledger_entries(prometheus::BuildCounter()
                         .Name("trix_ratings_ledger_entries_total")
                         .Help("Journal entries written, by kind")
                         .Register(r)),
      rate_limited(prometheus::BuildCounter()
                       .Name("trix_ratings_rate_limited_total")
                       .Help("Calls refused over their identity's rate, by method and "
                             "limit (credential, player, address)")
                       .Register(r)),
      batch_errors(Counter(r, "trix_ratings_consumer_errors_total",
                           "Consumer batches that failed and were rolled back")),
      lag_seconds(Gauge(r, "trix_ratings_consumer_lag_seconds",
                        "Age of the oldest finished game not yet applied (0 when none)")),
      pending_games(Gauge(r, "trix_ratings_consumer_pending_games",
                          "Finished games waiting in the outbox")),
      batch_seconds(prometheus::BuildHistogram()
                        .Name("trix_ratings_consumer_batch_seconds")
                        .Help("Time to apply one batch of the outbox")
                        .Register(r)
                        .Add({}, prometheus::Histogram::BucketBoundaries(
                                     service::Metrics::LatencyBuckets()))) {}

}  // namespace trix::ratings
