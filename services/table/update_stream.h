// INTERNAL to the gRPC wiring: the server streams of TableUpdates. UpdateStream is
// a Subscribe or Watch stream (a ServerWriteReactor); PlayStream is a seat's Play
// stream (a ServerBidiReactor), which also reads the seat's actions. Both write
// through one StreamSink.
//
// Two objects per stream, because two owners with different lifetimes touch it:
// gRPC owns the reactor until OnDone, while the table host keeps the sink until it
// next tries to send. The sink holds the queue and the reactor (as a StreamWriter);
// it calls the reactor only while the stream is not yet finished, and never while
// holding its lock (a reaction may run on another thread at once).
//
// Only one write is in flight at a time (gRPC's rule); the rest queue. More than
// the live limit queued means the client is not reading: the queue is dropped and
// the stream finishes RESOURCE_EXHAUSTED.
//
// A Play stream's action results are staged in the sink (Stage) and ride in the
// next update it sends, which for an accepted action is the update of the step
// that applied it; Flush sends what is staged in an update of its own.
#ifndef TRIX_SERVICES_TABLE_UPDATE_STREAM_H_
#define TRIX_SERVICES_TABLE_UPDATE_STREAM_H_

#include <cstddef>
#include <list>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "services/table/host_metrics.h"
#include "services/table/table_host.h"
#include "trix/v1/table.pb.h"

namespace trix::table {

class OpeningDeadlines;

// What a StreamSink drives: its reactor's writes and finish.
class StreamWriter {
 public:
  virtual void Write(const v1::TableUpdate* update) = 0;  // StartWrite
  virtual void End(const grpc::Status& status) = 0;       // Finish
 protected:
  ~StreamWriter() = default;
};

class StreamSink final : public UpdateSink {
 public:
  // `writer` must stay valid until the sink calls its End.
  StreamSink(StreamWriter* writer, size_t capacity);

  bool Send(v1::TableUpdate update, bool catch_up) override;
  void Close(const absl::Status& status) override;
  void Flush() override;
  bool Ended() const override;

  // Holds an action's result for the next update sent (or Flush).
  void Stage(v1::ActResult result);
  // The host started the stream (UpdateSink::Opened): runs the held action.
  void Opened() override;
  // Runs `work` (a Play stream's action) once the stream has opened: at once if it
  // has, later if it is opening, never if it closed first.
  void WhenOpened(std::function<void()> work);

  // From the reactor. WriteDone is true when the update just delivered carried
  // action results.
  bool WriteDone(bool ok);
  void Cancelled();

 private:
  // What to do with the writer once the lock is released.
  struct Op {
    const v1::TableUpdate* write = nullptr;
    std::optional<grpc::Status> finish;
  };
  // Starts the next write or the finish, if due; under the lock.
  Op Next() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues `update` with the staged results, or closes the stream when the client
  // is too far behind; false when the stream is (now) closing.
  bool Queue(v1::TableUpdate update, bool catch_up) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Run(const Op& op);

  mutable absl::Mutex mu_;
  StreamWriter* const writer_;                              // usable until finished_
  // Front: in flight. A list keeps it in place while others queue, and holds
  // nothing while empty (a deque holds a block of its own from the start).
  std::list<v1::TableUpdate> queue_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::ActResult> staged_ ABSL_GUARDED_BY(mu_);
  bool opened_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> held_ ABSL_GUARDED_BY(mu_);
  size_t limit_ ABSL_GUARDED_BY(mu_);
  const size_t capacity_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;   // finish once the queue is sent
  bool finished_ ABSL_GUARDED_BY(mu_) = false;  // End was called
  grpc::Status final_status_ ABSL_GUARDED_BY(mu_);
};

class UpdateStream final : public grpc::ServerWriteReactor<v1::TableUpdate>,
                           private StreamWriter {
 public:
  // `on_done` (if set) runs when gRPC is done with the stream.
  UpdateStream(grpc::CallbackServerContext* context, size_t capacity,
               HostMetrics* metrics, std::function<void()> on_done = nullptr);
  std::shared_ptr<StreamSink> sink() const { return sink_; }

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  void Write(const v1::TableUpdate* update) override { StartWrite(update); }
  void End(const grpc::Status& status) override;  // with the location metadata

  grpc::CallbackServerContext* const context_;
  std::shared_ptr<StreamSink> sink_;
  HostMetrics* const metrics_;
  std::function<void()> on_done_;
};

// A seat's Play stream. It reads the first message (subscribe) and opens the
// seat's stream through the host, then one action at a time: the next message is
// read only once the previous action's result was written (a reaction, so the
// reactor is alive), which bounds what a flooding client can make us hold. A
// stream whose first message does not come in time is ended by `opening`
// (opening_deadlines.h).
class PlayStream final : public grpc::ServerBidiReactor<v1::PlayRequest, v1::TableUpdate>,
                         private StreamWriter {
 public:
  // The service's per-call rate check: RESOURCE_EXHAUSTED when the caller (the
  // seat, once its token is verified at `table_id`; else its address) is over
  // its rate.
  using RateCheck = std::function<absl::Status(const std::string& table_id,
                                               const std::string& seat_token)>;

  // `host`, `metrics` and `opening` must outlive the stream.
  PlayStream(grpc::CallbackServerContext* context, TableHost* host, size_t capacity,
             HostMetrics* metrics, RateCheck check_rate, OpeningDeadlines* opening);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  void Write(const v1::TableUpdate* update) override { StartWrite(update); }
  void End(const grpc::Status& status) override;  // with the location metadata

  void Open(const v1::SubscribeRequest& subscribe);
  void Act(v1::ActRequest act);

  grpc::CallbackServerContext* const context_;
  TableHost* const host_;
  HostMetrics* const metrics_;
  RateCheck check_rate_;  // reactions only: it may remember the verified seat
  std::shared_ptr<StreamSink> sink_;
  OpeningDeadlines* const opening_;
  const uint64_t opening_id_;
  v1::PlayRequest request_;  // the read in flight
  // Reactions only (one at a time).
  bool opened_ = false;
  std::string table_id_;
  std::string seat_token_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_UPDATE_STREAM_H_
