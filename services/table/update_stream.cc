#include "services/table/update_stream.h"

#include <utility>

#include "services/table/grpc_service.h"

namespace trix::table {

StreamSink::StreamSink(UpdateStream* reactor, size_t capacity)
    : reactor_(reactor), limit_(capacity), capacity_(capacity) {}

StreamSink::Op StreamSink::Next() {
  Op op;
  if (finished_ || writing_) return op;
  if (!queue_.empty()) {
    writing_ = true;
    op.write = &queue_.front();  // a deque keeps it in place while others queue
  } else if (closing_) {
    finished_ = true;
    op.finish = final_status_;
  }
  return op;
}

void StreamSink::Run(const Op& op) {
  // After Finish the reactor may be deleted at any moment: Finish is the last call.
  if (op.write) reactor_->StartWrite(op.write);
  if (op.finish) reactor_->Finish(*op.finish);
}

bool StreamSink::Send(v1::TableUpdate update, bool catch_up) {
  Op op;
  bool open;
  {
    absl::MutexLock lock(&mu_);
    if (closing_ || finished_) return false;
    if (catch_up) {
      // The missed events a stream starts with may be many; only what queues
      // behind them counts against the limit.
      queue_.push_back(std::move(update));
      limit_ = queue_.size() + capacity_;
    } else if (queue_.size() >= limit_) {
      // Drop all but the write in flight, and tell the client why.
      while (queue_.size() > (writing_ ? 1u : 0u)) queue_.pop_back();
      closing_ = true;
      final_status_ =
          grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                       "the stream fell too far behind; resume with after_seq");
    } else {
      queue_.push_back(std::move(update));
    }
    open = !closing_;
    op = Next();
  }
  Run(op);
  return open;
}

void StreamSink::Close(const absl::Status& status) {
  Op op;
  {
    absl::MutexLock lock(&mu_);
    if (closing_ || finished_) return;
    closing_ = true;
    final_status_ = ToGrpcStatus(status);
    op = Next();
  }
  Run(op);
}

void StreamSink::WriteDone(bool ok) {
  Op op;
  {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!queue_.empty()) queue_.pop_front();
    if (!ok) {
      // The client is gone (or cancelled): nothing more can be delivered.
      queue_.clear();
      if (!closing_) {
        closing_ = true;
        final_status_ =
            grpc::Status(grpc::StatusCode::CANCELLED, "the stream was cancelled");
      }
    }
    op = Next();
  }
  Run(op);
}

void StreamSink::Cancelled() {
  Op op;
  {
    absl::MutexLock lock(&mu_);
    if (!writing_) queue_.clear();  // a write in flight completes (not ok) first
    if (!closing_) {
      closing_ = true;
      final_status_ = grpc::Status::CANCELLED;
    }
    op = Next();
  }
  Run(op);
}

UpdateStream::UpdateStream(size_t capacity, HostMetrics* metrics)
    : sink_(std::make_shared<StreamSink>(this, capacity)), metrics_(metrics) {
  metrics_->streams.Increment();
}

void UpdateStream::OnWriteDone(bool ok) { sink_->WriteDone(ok); }

void UpdateStream::OnCancel() { sink_->Cancelled(); }

void UpdateStream::OnDone() {
  metrics_->streams.Decrement();
  delete this;
}

}  // namespace trix::table
