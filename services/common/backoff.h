// Backoff: how long to wait before trying again something that keeps failing (a
// database connection, a stream, a retried chore): `first` after the first failure,
// doubling after each further one up to `max`; a success starts over. Jittered()
// spreads a wait, so that many clients that failed together do not come back
// together.
//
//   service::Backoff backoff(absl::Milliseconds(100), absl::Seconds(5));
//   while (!Connect()) Sleep(service::Jittered(backoff.Failed()));
//   backoff.Reset();
#ifndef TRIX_SERVICES_COMMON_BACKOFF_H_
#define TRIX_SERVICES_COMMON_BACKOFF_H_

#include <algorithm>
#include <random>

#include "absl/time/time.h"

namespace trix::service {

class Backoff {
 public:
  Backoff(absl::Duration first, absl::Duration max) : first_(first), max_(max) {}

  // The wait after `failures` failures in a row (1: `first`).
  absl::Duration After(int failures) const {
    absl::Duration wait = first_;
    for (int i = 1; i < failures && wait < max_; ++i) wait *= 2;
    return std::min(wait, max_);
  }
  // The wait one more failure would give, without counting it.
  absl::Duration next() const { return After(failures_ + 1); }
  // Counts a failure; answers its wait.
  absl::Duration Failed() { return After(++failures_); }
  // A success: the next failure waits `first` again.
  void Reset() { failures_ = 0; }
  int failures() const { return failures_; }

 private:
  absl::Duration first_;
  absl::Duration max_;
  int failures_ = 0;
};

// `wait` times a factor drawn uniformly from [low, high).
inline absl::Duration Jittered(absl::Duration wait, double low = 0.5, double high = 1.5) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  return wait * std::uniform_real_distribution<double>(low, high)(random);
}

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_BACKOFF_H_
