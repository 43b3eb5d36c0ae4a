// ReadinessWatch: whether a service's database answers, asked every so often on a
// thread of its own, so that the service's gRPC health says NOT_SERVING while its
// database is away (load balancers and probes then send new callers elsewhere) and
// SERVING again by itself once it is back. The calls in flight meanwhile fail
// UNAVAILABLE on their own (connection_pool.h); this only tells the world.
//
//   ReadinessWatch watch(&pool, absl::Milliseconds(500),
//                        [&](bool ready) { SetServing(ready); });
//
// `on_change` runs on the watch's thread, only when the answer changes (the first
// answer counts as a change only when the database does not answer: the service
// is taken to be serving when the watch starts). Each change is logged once.
#ifndef TRIX_SERVICES_PG_READINESS_WATCH_H_
#define TRIX_SERVICES_PG_READINESS_WATCH_H_

#include <functional>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "services/pg/connection_pool.h"

namespace trix::pg {

class ReadinessWatch {
 public:
  ReadinessWatch(ConnectionPool* pool, absl::Duration every,
                 std::function<void(bool ready)> on_change);
  ReadinessWatch(const ReadinessWatch&) = delete;
  ReadinessWatch& operator=(const ReadinessWatch&) = delete;
  ~ReadinessWatch();  // stops the thread (within one check)

 private:
  void Loop();

  ConnectionPool* const pool_;
  const absl::Duration every_;
  const std::function<void(bool)> on_change_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace trix::pg

#endif  // TRIX_SERVICES_PG_READINESS_WATCH_H_
