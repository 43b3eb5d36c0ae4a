// The load tool's failover measurement (table-load --fleet_kill_pid): mid-window
// the tool itself sends a signal to a table-service instance (SIGKILL: the
// instance dies; SIGTERM: it drains), so that the failure instant is the tool's
// own clock reading, not a guess from outside. From then on it times, per table
// that was in play, the first update and the first accepted action on a stream
// opened after the failure (the table back in play, on whichever instance took
// it), and counts the refusals meanwhile by gRPC code.
//
//   FailoverOptions failover{.pid = 1234, .after = absl::Seconds(20)};
//   ... window opens ...
//   absl::Time at;
//   CauseFailure(failover, context, &at);        // at open + failover.after
//   FailoverFigures f = MeasureFailover(run.tables(), context, failover.bound, at);
//   f.late;  // tables not back within the bound: the run fails
#ifndef TRIX_TESTS_LOAD_FAILOVER_H_
#define TRIX_TESTS_LOAD_FAILOVER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tests/load/latency.h"
#include "tests/load/load_context.h"
#include "tests/load/load_table.h"

namespace trix::load {

struct FailoverOptions {
  int pid = 0;                                  // the instance to fail; 0: none
  absl::Duration after = absl::Seconds(20);     // into the measurement window
  std::string signal = "KILL";                  // KILL or TERM
  absl::Duration bound = absl::Seconds(20);     // every table back within this
};

// INVALID_ARGUMENT unless the signal is KILL or TERM and the window holds the
// failure and the bound after it.
absl::Status CheckFailover(const FailoverOptions& options, absl::Duration window);

// Marks the failure instant in `context` and sends the signal; `*at` is that
// instant on the wall clock (for matching with the database's timestamps).
absl::Status CauseFailure(const FailoverOptions& options, LoadContext& context,
                          absl::Time* at);

struct FailoverFigures {
  absl::Time at;          // the failure, on the wall clock
  int64_t tables = 0;     // in play at the failure (created before it, game not over)
  LatencySummary update;  // failure -> first update on a new stream
  LatencySummary back;    // failure -> first accepted action on a new stream
  int64_t late = 0;       // not back within the bound (never, or later)
  absl::Duration bound;
  std::vector<std::pair<int, int64_t>> refused;  // gRPC code, count (nonzero only)

  std::string Text() const;
  std::string Json() const;
  bool ok() const { return tables > 0 && late == 0; }
};

FailoverFigures MeasureFailover(const std::vector<const LoadTable*>& tables,
                                const LoadContext& context, absl::Duration bound,
                                absl::Time at);

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_FAILOVER_H_
