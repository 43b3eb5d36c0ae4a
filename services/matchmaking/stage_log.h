// Where a table's time goes between "possible" and the players' streams: the
// matcher stamps each placed group at every step (seen by a tick, claimed, handed
// to a placer, created, committed, delivered) and, every `every`, logs the
// p50/p99/max of each step's share as one JSON line ("matcher stages"). Off unless
// --stage_log_every is set; for load runs (docs/benchmarks.md, "Matchmaking").
//
//   StageLog log(absl::Seconds(5));
//   log.Add("claim", claimed - seen);
//   log.MaybeLog();  // from any thread
#ifndef TRIX_SERVICES_MATCHMAKING_STAGE_LOG_H_
#define TRIX_SERVICES_MATCHMAKING_STAGE_LOG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace trix::matchmaking {

class StageLog {
 public:
  explicit StageLog(absl::Duration every) : every_(every) {}
  bool on() const { return every_ > absl::ZeroDuration(); }
  void Add(const std::string& stage, absl::Duration d);
  // A size (tables per batch, ...), logged like the durations.
  void Count(const std::string& what, double n);
  // Logs and clears what was gathered once `every` has passed since the last time.
  void MaybeLog();

 private:
  const absl::Duration every_;
  absl::Mutex mu_;
  absl::Time last_ ABSL_GUARDED_BY(mu_) = absl::Now();
  std::map<std::string, std::vector<double>> ms_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STAGE_LOG_H_
