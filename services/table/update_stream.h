// INTERNAL to the gRPC wiring: one server stream of TableUpdates.
//
// Two objects, because two owners with different lifetimes touch the stream: gRPC
// owns the reactor (UpdateStream) until OnDone, while the table host keeps the
// sink (StreamSink) until it next tries to send. The sink holds the queue and the
// reactor pointer; it calls the reactor only while the stream is not yet finished,
// and never while holding its lock (a reaction may run on another thread at once).
//
// Only one write is in flight at a time (gRPC's rule); the rest queue. More than
// the live limit queued means the client is not reading: the queue is dropped and
// the stream finishes RESOURCE_EXHAUSTED.
#ifndef TRIX_SERVICES_TABLE_UPDATE_STREAM_H_
#define TRIX_SERVICES_TABLE_UPDATE_STREAM_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "services/table/host_metrics.h"
#include "services/table/table_host.h"
#include "trix/v1/table.pb.h"

namespace trix::table {

class UpdateStream;

class StreamSink final : public UpdateSink {
 public:
  StreamSink(UpdateStream* reactor, size_t capacity);

  bool Send(v1::TableUpdate update, bool catch_up) override;
  void Close(const absl::Status& status) override;

  // From the reactor.
  void WriteDone(bool ok);
  void Cancelled();

 private:
  // What to do with the reactor once the lock is released.
  struct Op {
    const v1::TableUpdate* write = nullptr;
    std::optional<grpc::Status> finish;
  };
  // Starts the next write or the finish, if due; under the lock.
  Op Next() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Run(const Op& op);

  absl::Mutex mu_;
  UpdateStream* const reactor_;                             // usable until finished_
  std::deque<v1::TableUpdate> queue_ ABSL_GUARDED_BY(mu_);  // front: in flight
  size_t limit_ ABSL_GUARDED_BY(mu_);
  const size_t capacity_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;   // finish once the queue is sent
  bool finished_ ABSL_GUARDED_BY(mu_) = false;  // Finish was called
  grpc::Status final_status_ ABSL_GUARDED_BY(mu_);
};

class UpdateStream final : public grpc::ServerWriteReactor<v1::TableUpdate> {
 public:
  UpdateStream(size_t capacity, HostMetrics* metrics);
  std::shared_ptr<StreamSink> sink() const { return sink_; }

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  std::shared_ptr<StreamSink> sink_;
  HostMetrics* const metrics_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_UPDATE_STREAM_H_
