// The writing side of a server stream on gRPC's callback API, safe to call from
// any thread: messages queue and go out one write at a time, and End() finishes
// the stream after what is queued. After the stream is done (the client left or
// it finished), calls are ignored. At most `max_queued` messages wait: a client
// that reads too slowly to take more has its stream ended RESOURCE_EXHAUSTED
// (and the reactor's `on_closed` runs, as when the client leaves).
//
//   auto outbox = std::make_shared<StreamOutbox<v1::MatchUpdate>>(256);
//   auto* reactor = new OutboxReactor<v1::MatchUpdate>(outbox, on_closed);
//   outbox->Push(update); outbox->End(grpc::Status::OK);
#ifndef TRIX_SERVICES_MATCHMAKING_STREAM_OUTBOX_H_
#define TRIX_SERVICES_MATCHMAKING_STREAM_OUTBOX_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"

namespace trix::matchmaking {

template <typename Message>
class StreamOutbox {
 public:
  explicit StreamOutbox(size_t max_queued = 1024) : max_queued_(max_queued) {}
  void Attach(grpc::ServerWriteReactor<Message>* reactor) {
    std::lock_guard<std::mutex> lock(mu_);
    reactor_ = reactor;
  }
  void Push(Message message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (reactor_ == nullptr || finish_) return;
    if (queue_.size() >= max_queued_) {
      // What is queued is dropped: the client resumes (FindTable with the same
      // request_id, ServeBot) and is sent its state again.
      queue_.resize(writing_ ? 1 : 0);
      overflowed_ = true;
      finish_ = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                             absl::StrCat("the client reads too slowly (", max_queued_,
                                          " messages waiting); reconnect"));
      if (!writing_) FinishLocked();
      return;
    }
    queue_.push_back(std::move(message));
    if (!writing_) StartLocked();
  }
  void End(grpc::Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (reactor_ == nullptr || finish_) return;
    finish_ = std::move(status);
    if (!writing_) FinishLocked();
  }
  void WriteDone(bool ok) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!queue_.empty()) queue_.pop_front();
    writing_ = false;
    if (reactor_ == nullptr) return;
    if (!ok) {
      queue_.clear();
      if (!finish_) finish_ = grpc::Status(grpc::StatusCode::CANCELLED, "stream broken");
    }
    if (!queue_.empty()) {
      StartLocked();
    } else if (finish_) {
      FinishLocked();
    }
  }
  void Done() {
    std::lock_guard<std::mutex> lock(mu_);
    reactor_ = nullptr;
  }
  // Whether the stream was ended because its client read too slowly.
  bool overflowed() {
    std::lock_guard<std::mutex> lock(mu_);
    return overflowed_;
  }

 private:
  void StartLocked() {
    writing_ = true;
    reactor_->StartWrite(&queue_.front());
  }
  void FinishLocked() {
    if (finished_) return;
    finished_ = true;
    reactor_->Finish(*finish_);
  }

  const size_t max_queued_;
  std::mutex mu_;
  grpc::ServerWriteReactor<Message>* reactor_ = nullptr;
  std::deque<Message> queue_;  // front is being written while writing_
  bool writing_ = false;
  std::optional<grpc::Status> finish_;
  bool finished_ = false;
  bool overflowed_ = false;
};

// `on_closed` runs once when the client leaves or reads too slowly (not when the
// server finishes the stream itself).
template <typename Message>
class OutboxReactor : public grpc::ServerWriteReactor<Message> {
 public:
  OutboxReactor(std::shared_ptr<StreamOutbox<Message>> outbox,
                std::function<void()> on_closed)
      : outbox_(std::move(outbox)), on_closed_(std::move(on_closed)) {
    outbox_->Attach(this);
  }
  void OnWriteDone(bool ok) override { outbox_->WriteDone(ok); }
  void OnCancel() override {
    Closed();
    outbox_->End(grpc::Status(grpc::StatusCode::CANCELLED, "the client left"));
  }
  void OnDone() override {
    if (outbox_->overflowed()) Closed();
    outbox_->Done();
    delete this;
  }

 private:
  void Closed() {
    if (on_closed_) std::exchange(on_closed_, nullptr)();
  }

  std::shared_ptr<StreamOutbox<Message>> outbox_;
  std::function<void()> on_closed_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STREAM_OUTBOX_H_
