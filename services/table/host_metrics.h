// The table host's Prometheus metrics, created once in the process registry.
//
//   trix_table_actions_total{result}      client actions: ok, rejected, duplicate, error
//   trix_table_autopilot_total            moves the server made for a seat
//   trix_table_append_seconds             action accepted -> durable (group commit)
//   trix_table_append_failures_total
//   trix_table_tables                     tables hosted
//   trix_table_capacity                   tables it takes at most (--max_tables)
//   trix_table_streams                    open event streams
//   trix_table_adoptions                  tables being looked up / adopted for calls
//   trix_table_recovered_total            tables rebuilt from their logs
//   trix_table_broken_total               tables quarantined (alert on any increase)
//   trix_table_leases_lost_total          hosted tables another instance took over
//   trix_table_voided_total               tables ended with no result (VoidTable)
//   trix_table_log_rewinds_total          tables whose stored log fell behind what
//                                         they acknowledged (an asynchronous
//                                         failover); each is rebuilt from the log
//   trix_table_acknowledged_entries_lost_total  the log entries those rewinds lost
#ifndef TRIX_SERVICES_TABLE_HOST_METRICS_H_
#define TRIX_SERVICES_TABLE_HOST_METRICS_H_

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace trix::table {

struct HostMetrics {
  explicit HostMetrics(prometheus::Registry& registry);

  prometheus::Counter& actions_ok;
  prometheus::Counter& actions_rejected;
  prometheus::Counter& actions_duplicate;
  prometheus::Counter& actions_failed;
  prometheus::Counter& autopilot;
  prometheus::Histogram& append_seconds;
  prometheus::Counter& append_failures;
  prometheus::Gauge& tables;
  prometheus::Gauge& capacity;  // --max_tables
  prometheus::Gauge& streams;
  prometheus::Gauge& adoptions;  // tables not hosted here being looked up for a call
  prometheus::Counter& recovered;
  prometheus::Counter& refused_busy;  // a table's or the io pool's queue was full
  prometheus::Counter& quarantined;
  prometheus::Counter& leases_lost;
  prometheus::Counter& voided;
  prometheus::Counter& log_rewinds;
  prometheus::Counter& entries_lost;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_HOST_METRICS_H_
