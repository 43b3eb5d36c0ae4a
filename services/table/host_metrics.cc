#include "services/table/host_metrics.h"

#include "services/common/metrics.h"

namespace trix::table {
namespace {

prometheus::Family<prometheus::Counter>& Actions(prometheus::Registry& r) {
  return prometheus::BuildCounter()
      .Name("trix_table_actions_total")
      .Help("Client actions by outcome")
      .Register(r);
}

}  // namespace

// Long on purpose: one entry per metric, read as the list of the host's metrics.
HostMetrics::HostMetrics(prometheus::Registry& r)
    : actions_ok(Actions(r).Add({{"result", "ok"}})),
      actions_rejected(Actions(r).Add({{"result", "rejected"}})),
      actions_duplicate(Actions(r).Add({{"result", "duplicate"}})),
      actions_failed(Actions(r).Add({{"result", "error"}})),
      autopilot(prometheus::BuildCounter()
                    .Name("trix_table_autopilot_total")
                    .Help("Moves the server made for a seat (clock ran out, seat left)")
                    .Register(r)
                    .Add({})),
      append_seconds(prometheus::BuildHistogram()
                         .Name("trix_table_append_seconds")
                         .Help("From a step's append to its durability")
                         .Register(r)
                         .Add({}, service::Metrics::LatencyBuckets())),
      append_failures(prometheus::BuildCounter()
                          .Name("trix_table_append_failures_total")
                          .Help("Appends the store rejected")
                          .Register(r)
                          .Add({})),
      tables(prometheus::BuildGauge()
                 .Name("trix_table_tables")
                 .Help("Tables hosted by this instance")
                 .Register(r)
                 .Add({})),
      capacity(prometheus::BuildGauge()
                   .Name("trix_table_capacity")
                   .Help("Tables this instance takes at most (--max_tables): "
                         "trix_table_tables against it is how full it is")
                   .Register(r)
                   .Add({})),
      streams(prometheus::BuildGauge()
                  .Name("trix_table_streams")
                  .Help("Open event streams")
                  .Register(r)
                  .Add({})),
      adoptions(prometheus::BuildGauge()
                    .Name("trix_table_adoptions")
                    .Help("Tables not hosted here being looked up or adopted for a "
                          "call (at most max_adoptions)")
                    .Register(r)
                    .Add({})),
      recovered(prometheus::BuildCounter()
                    .Name("trix_table_recovered_total")
                    .Help("Tables rebuilt from their logs (claimed or reloaded)")
                    .Register(r)
                    .Add({})),
      refused_busy(prometheus::BuildCounter()
                       .Name("trix_table_refused_busy_total")
                       .Help("Requests refused because a queue was full (a table's "
                             "commands, or database reads)")
                       .Register(r)
                       .Add({})),
      quarantined(prometheus::BuildCounter()
                      .Name("trix_table_broken_total")
                      .Help("Tables quarantined for a broken invariant or an "
                            "unreplayable log (alert on any increase)")
                      .Register(r)
                      .Add({})),
      leases_lost(prometheus::BuildCounter()
                      .Name("trix_table_leases_lost_total")
                      .Help("Hosted tables whose lease another instance took")
                      .Register(r)
                      .Add({})),
      voided(prometheus::BuildCounter()
                 .Name("trix_table_voided_total")
                 .Help("Tables ended with no result by VoidTable")
                 .Register(r)
                 .Add({})),
      log_rewinds(prometheus::BuildCounter()
                      .Name("trix_table_log_rewinds_total")
                      .Help("Tables rebuilt because their stored log was shorter than "
                            "what they had acknowledged (a failover lost commits)")
                      .Register(r)
                      .Add({})),
      entries_lost(prometheus::BuildCounter()
                       .Name("trix_table_acknowledged_entries_lost_total")
                       .Help("Acknowledged log entries (seat actions and server moves) "
                             "that a rewound log no longer holds")
                       .Register(r)
                       .Add({})) {}

}  // namespace trix::table
