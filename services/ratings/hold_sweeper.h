// The periodic sweep that leaves no hold stranded: every `interval` it releases the
// open holds past their TTL (Ledger::ReleaseExpiredHolds, in rounds of up to 500)
// and sets the gauges of the oldest open hold and of the holds past their TTL.
// Every replica runs one; a hold is released once whichever gets it first.
//
//   HoldSweeper sweeper(&ledger, &metrics, absl::Seconds(30));
//   sweeper.Start();  ...  sweeper.Stop();
#ifndef TRIX_SERVICES_RATINGS_HOLD_SWEEPER_H_
#define TRIX_SERVICES_RATINGS_HOLD_SWEEPER_H_

#include <condition_variable>
#include <mutex>
#include <thread>

#include "absl/time/time.h"
#include "services/ratings/ledger.h"
#include "services/ratings/ratings_metrics.h"

namespace trix::ratings {

class HoldSweeper {
 public:
  HoldSweeper(Ledger* ledger, RatingsMetrics* metrics, absl::Duration interval)
      : ledger_(ledger), metrics_(metrics), interval_(interval) {}
  ~HoldSweeper() { Stop(); }

  void Start();
  void Stop();
  // One sweep: releases what is past its TTL, then measures. Returns the holds it
  // released.
  int SweepOnce();

 private:
  void Loop();

  Ledger* const ledger_;
  RatingsMetrics* const metrics_;
  const absl::Duration interval_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_HOLD_SWEEPER_H_
