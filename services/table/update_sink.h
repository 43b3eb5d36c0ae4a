// What the table host feeds a viewer's stream through (table_host.h): the
// gRPC streams (update_stream.h) and tests implement it.
#ifndef TRIX_SERVICES_TABLE_UPDATE_SINK_H_
#define TRIX_SERVICES_TABLE_UPDATE_SINK_H_

#include "absl/status/status.h"
#include "trix/v1/table.pb.h"

namespace trix::table {

// A stream of TableUpdates to one viewer, as the host sees it. Implementations
// must not block: they queue, and bound their queue.
class UpdateSink {
 public:
  virtual ~UpdateSink() = default;
  // Queues an update; taken by value so that it is moved, never copied, into the
  // queue. `catch_up` marks the missed events and snapshot sent when a stream
  // starts, which may exceed the live bound. False when the sink is closed (the
  // client left, or fell too far behind and was told RESOURCE_EXHAUSTED); the host
  // then forgets it.
  virtual bool Send(v1::TableUpdate update, bool catch_up) = 0;
  // Ends the stream with `status` once what is queued has been delivered.
  virtual void Close(const absl::Status& status) = 0;
  // Called once the stream has started (its snapshot or missed events are queued):
  // a Play stream judges no action before.
  virtual void Opened() {}
  // Called after each broadcast step's updates (Send), for every live subscriber:
  // a sink that holds something for this step (a Play stream's staged action
  // result) and got no update to carry it sends it now.
  virtual void Flush() {}
  // Whether the stream has ended (closed, or the client left): the host forgets
  // it before counting a table's spectators.
  virtual bool Ended() const { return false; }
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_UPDATE_SINK_H_
