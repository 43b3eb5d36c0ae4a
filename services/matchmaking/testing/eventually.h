// For tests of matchmaking's threads: waits, polling, until a condition holds.
//
//   ASSERT_TRUE(Eventually([&] { return roster.connected() == 1; }));
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_EVENTUALLY_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_EVENTUALLY_H_

#include <functional>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace trix::matchmaking {

// Whether `done` held within `limit` (checked every 2 ms).
inline bool Eventually(const std::function<bool()>& done,
                       absl::Duration limit = absl::Seconds(10)) {
  const absl::Time deadline = absl::Now() + limit;
  while (!done()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(2));
  }
  return true;
}

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_EVENTUALLY_H_
