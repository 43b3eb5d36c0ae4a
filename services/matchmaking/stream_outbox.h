// The writing side of a server stream on gRPC's callback API, safe to call from
// any thread: messages queue and go out one write at a time, and End() finishes
// the stream after what is queued. After the stream is done (the client left or
// it finished), calls are ignored.
//
//   auto outbox = std::make_shared<StreamOutbox<v1::MatchUpdate>>();
//   auto* reactor = new OutboxReactor<v1::MatchUpdate>(outbox, on_cancel);
//   outbox->Push(update); outbox->End(grpc::Status::OK);
#ifndef TRIX_SERVICES_MATCHMAKING_STREAM_OUTBOX_H_
#define TRIX_SERVICES_MATCHMAKING_STREAM_OUTBOX_H_

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "grpcpp/grpcpp.h"

namespace trix::matchmaking {

template <typename Message>
class StreamOutbox {
 public:
  void Attach(grpc::ServerWriteReactor<Message>* reactor) {
    std::lock_guard<std::mutex> lock(mu_);
    reactor_ = reactor;
  }
  void Push(Message message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (reactor_ == nullptr || finish_) return;
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

  std::mutex mu_;
  grpc::ServerWriteReactor<Message>* reactor_ = nullptr;
  std::deque<Message> queue_;  // front is being written while writing_
  bool writing_ = false;
  std::optional<grpc::Status> finish_;
  bool finished_ = false;
};

template <typename Message>
class OutboxReactor : public grpc::ServerWriteReactor<Message> {
 public:
  OutboxReactor(std::shared_ptr<StreamOutbox<Message>> outbox,
                std::function<void()> on_cancel)
      : outbox_(std::move(outbox)), on_cancel_(std::move(on_cancel)) {
    outbox_->Attach(this);
  }
  void OnWriteDone(bool ok) override { outbox_->WriteDone(ok); }
  void OnCancel() override {
    if (on_cancel_) on_cancel_();
    outbox_->End(grpc::Status(grpc::StatusCode::CANCELLED, "the client left"));
  }
  void OnDone() override {
    outbox_->Done();
    delete this;
  }

 private:
  std::shared_ptr<StreamOutbox<Message>> outbox_;
  std::function<void()> on_cancel_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STREAM_OUTBOX_H_
