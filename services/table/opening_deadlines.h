// INTERNAL to the gRPC wiring: the time a Play stream has to say who it is. A
// Play call costs memory from the moment it opens, before its first message
// (subscribe: the table and the seat token) arrives; a stream that has not sent
// it within the limit is ended DEADLINE_EXCEEDED, and past a number of such
// streams waiting at once a new one is ended RESOURCE_EXHAUSTED, so that idle
// calls opened by anyone, over any number of connections, cannot pile up.
//
// One DeadlineTimer thread serves every stream; a deadline met (Said) is left in
// the timer and fires for nothing.
//
//   OpeningDeadlines deadlines(absl::Seconds(5));
//   uint64_t id = deadlines.Start(sink);      // when the call opens
//   if (!deadlines.Said(id)) return;          // its first message: too late?
#ifndef TRIX_SERVICES_TABLE_OPENING_DEADLINES_H_
#define TRIX_SERVICES_TABLE_OPENING_DEADLINES_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/table/deadline_timer.h"
#include "services/table/update_stream.h"

namespace trix::table {

class OpeningDeadlines {
 public:
  // `within` zero or less: no deadline. At most `max_waiting` streams (0: no
  // limit) wait for their first message at once, whatever their connections.
  OpeningDeadlines(absl::Duration within, size_t max_waiting);

  // Ends `sink` DEADLINE_EXCEEDED unless Said(the answer) comes within the limit;
  // ends it RESOURCE_EXHAUSTED at once (and answers 0) when max_waiting streams
  // wait already.
  uint64_t Start(const std::shared_ptr<StreamSink>& sink);
  // The stream's first message came: true when in time (its deadline is off),
  // false when the stream was already ended for being late.
  bool Said(uint64_t id);
  // Streams still waiting for their first message.
  size_t waiting() const;

 private:
  void Fire(const std::string& key);

  const absl::Duration within_;
  const size_t max_waiting_;
  mutable absl::Mutex mu_;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<uint64_t, std::weak_ptr<StreamSink>> waiting_ ABSL_GUARDED_BY(mu_);
  DeadlineTimer timer_;  // last: its thread stops before the rest goes
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_OPENING_DEADLINES_H_
