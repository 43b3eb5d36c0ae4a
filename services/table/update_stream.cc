#include "services/table/update_stream.h"

#include <string>
#include <utility>

#include "services/table/grpc_status.h"
#include "services/table/opening_deadlines.h"
#include "services/table/refusals.h"

namespace trix::table {

StreamSink::StreamSink(StreamWriter* writer, size_t capacity)
    : writer_(writer), limit_(capacity), capacity_(capacity) {}

StreamSink::Op StreamSink::Next() {
  Op op;
  if (finished_ || writing_) return op;
  if (!queue_.empty()) {
    writing_ = true;
    op.write = &queue_.front();
  } else if (closing_) {
    finished_ = true;
    op.finish = final_status_;
  }
  return op;
}

void StreamSink::Run(const Op& op) {
  // After End the reactor may be deleted at any moment: End is the last call.
  if (op.write) writer_->Write(op.write);
  if (op.finish) writer_->End(*op.finish);
}

bool StreamSink::Queue(v1::TableUpdate update, bool catch_up) {
  if (closing_ || finished_) return false;
  for (v1::ActResult& result : staged_) update.mutable_results()->Add(std::move(result));
  staged_.clear();
  if (catch_up) {
    // The missed events a stream starts with may be many; only what queues
    // behind them counts against the limit.
    queue_.push_back(std::move(update));
    limit_ = queue_.size() + capacity_;
  } else if (queue_.size() >= limit_) {
    // Drop all but the write in flight, and tell the client why.
    while (queue_.size() > (writing_ ? 1u : 0u)) queue_.pop_back();
    closing_ = true;
    final_status_ = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                 "the stream fell too far behind; resume with after_seq");
  } else {
    queue_.push_back(std::move(update));
  }
  return !closing_;
}

bool StreamSink::Send(v1::TableUpdate update, bool catch_up) {
  Op op;
  bool open;
  {
    absl::MutexLock lock(&mu_);
    open = Queue(std::move(update), catch_up);
    op = Next();
  }
  Run(op);
  return open;
}

void StreamSink::Opened() {
  std::function<void()> held;
  {
    absl::MutexLock lock(&mu_);
    opened_ = true;
    held = std::move(held_);
    held_ = nullptr;
  }
  if (held) held();
}

void StreamSink::WhenOpened(std::function<void()> work) {
  {
    absl::MutexLock lock(&mu_);
    if (closing_ || finished_) return;  // the stream never opened: nothing to judge
    if (!opened_) {
      held_ = std::move(work);
      return;
    }
  }
  work();
}

void StreamSink::Stage(v1::ActResult result) {
  absl::MutexLock lock(&mu_);
  if (!closing_ && !finished_) staged_.push_back(std::move(result));
}

void StreamSink::Flush() {
  Op op;
  {
    absl::MutexLock lock(&mu_);
    if (staged_.empty()) return;
    Queue(v1::TableUpdate(), /*catch_up=*/false);
    op = Next();
  }
  Run(op);
}

bool StreamSink::Ended() const {
  absl::MutexLock lock(&mu_);
  return closing_ || finished_;
}

void StreamSink::Close(const absl::Status& status) {
  Op op;
  {
    absl::MutexLock lock(&mu_);
    if (closing_ || finished_) return;
    closing_ = true;
    held_ = nullptr;  // an action held for the opening is never judged
    final_status_ = ToGrpcStatus(status);
    op = Next();
  }
  Run(op);
}

bool StreamSink::WriteDone(bool ok) {
  Op op;
  bool answered = false;
  {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!queue_.empty()) {
      answered = queue_.front().results_size() > 0;
      queue_.pop_front();
    }
    if (!ok) {
      // The client is gone (or cancelled): nothing more can be delivered.
      queue_.clear();
      if (!closing_) {
        closing_ = true;
        final_status_ =
            grpc::Status(grpc::StatusCode::CANCELLED, "the stream was cancelled");
      }
    }
    // A closing stream takes no more actions.
    answered = answered && !closing_;
    op = Next();
  }
  Run(op);
  return answered;
}

void StreamSink::Cancelled() {
  Op op;
  {
    absl::MutexLock lock(&mu_);
    if (!writing_) queue_.clear();  // a write in flight completes (not ok) first
    held_ = nullptr;
    if (!closing_) {
      closing_ = true;
      final_status_ = grpc::Status::CANCELLED;
    }
    op = Next();
  }
  Run(op);
}

UpdateStream::UpdateStream(grpc::CallbackServerContext* context, size_t capacity,
                           HostMetrics* metrics, std::function<void()> on_done)
    : context_(context),
      sink_(std::make_shared<StreamSink>(static_cast<StreamWriter*>(this), capacity)),
      metrics_(metrics),
      on_done_(std::move(on_done)) {
  metrics_->streams.Increment();
}

void UpdateStream::OnWriteDone(bool ok) { sink_->WriteDone(ok); }

void UpdateStream::End(const grpc::Status& status) {
  AddLocationMetadata(context_, status);
  Finish(status);
}

void UpdateStream::OnCancel() { sink_->Cancelled(); }

void UpdateStream::OnDone() {
  metrics_->streams.Decrement();
  if (on_done_) on_done_();
  delete this;
}

namespace {

v1::ActResult ResultOf(std::string request_id,
                       const absl::StatusOr<v1::ActResponse>& answer) {
  v1::ActResult result;
  result.set_request_id(std::move(request_id));
  if (answer.ok()) {
    result.set_seq(answer->seq());
  } else {
    // absl and gRPC share the canonical code numbering.
    result.set_code(static_cast<int>(answer.status().code()));
    result.set_message(std::string(answer.status().message()));
    if (std::optional<v1::Prompt> prompt = PromptIn(answer.status())) {
      *result.mutable_prompt() = *std::move(prompt);
    }
  }
  return result;
}

}  // namespace

PlayStream::PlayStream(grpc::CallbackServerContext* context, TableHost* host,
                       size_t capacity, HostMetrics* metrics, RateCheck check_rate,
                       OpeningDeadlines* opening)
    : context_(context),
      host_(host),
      metrics_(metrics),
      check_rate_(std::move(check_rate)),
      sink_(std::make_shared<StreamSink>(static_cast<StreamWriter*>(this), capacity)),
      opening_(opening),
      opening_id_(opening->Start(sink_)) {
  metrics_->streams.Increment();
  StartRead(&request_);
}

void PlayStream::OnReadDone(bool ok) {
  if (!ok) {
    // The client half-closed (its updates go on until the game ends) or the call
    // ended.
    if (!opened_ && opening_->Said(opening_id_)) {
      sink_->Close(absl::InvalidArgumentError(
          "the Play stream ended before its first message (subscribe)"));
    }
    return;
  }
  if (!opened_) {
    if (!opening_->Said(opening_id_)) return;  // too late: already ended
    if (!request_.has_subscribe()) {
      return sink_->Close(absl::InvalidArgumentError(
          "the first message of a Play stream must be subscribe"));
    }
    opened_ = true;
    Open(request_.subscribe());
    StartRead(&request_);
    return;
  }
  if (request_.has_act()) return Act(std::move(*request_.mutable_act()));
  sink_->Close(absl::InvalidArgumentError(
      request_.has_subscribe()
          ? "subscribe may only be the first message of a Play stream"
          : "a Play stream message must be subscribe (first) or act"));
}

void PlayStream::Open(const v1::SubscribeRequest& subscribe) {
  table_id_ = subscribe.table_id();
  seat_token_ = subscribe.seat_token();
  if (absl::Status s = check_rate_(table_id_, seat_token_); !s.ok()) {
    return sink_->Close(s);
  }
  host_->Subscribe(table_id_, seat_token_, /*spectator=*/false, subscribe.after_seq(),
                   sink_);
}

void PlayStream::Act(v1::ActRequest act) {
  absl::Status refused;
  if (!act.table_id().empty() && act.table_id() != table_id_) {
    metrics_->actions_rejected.Increment();
    refused = absl::InvalidArgumentError(
        "table_id is not this stream's table (leave it empty on a Play stream)");
  } else if (!act.seat_token().empty() && act.seat_token() != seat_token_) {
    metrics_->actions_rejected.Increment();
    refused = absl::PermissionDeniedError(
        "seat_token is not this stream's seat (leave it empty on a Play stream)");
  } else {
    refused = check_rate_(table_id_, seat_token_);
  }
  if (!refused.ok()) {
    sink_->Stage(ResultOf(act.request_id(), refused));
    sink_->Flush();
    return;
  }
  act.set_table_id(table_id_);
  act.set_seat_token(seat_token_);
  // Judged only once the subscribe has succeeded. The answer goes to the sink,
  // never to this reactor, which may be gone by then.
  sink_->WhenOpened([host = host_, sink = sink_, act = std::move(act)]() mutable {
    std::string id = act.request_id();
    host->ActOnStream(std::move(act),
                      [sink, id = std::move(id)](absl::StatusOr<v1::ActResponse> answer,
                                                 bool broadcast_follows) {
                        sink->Stage(ResultOf(id, answer));
                        if (!broadcast_follows) sink->Flush();
                      });
  });
}

void PlayStream::OnWriteDone(bool ok) {
  // The previous action is answered: read the next one.
  if (sink_->WriteDone(ok)) StartRead(&request_);
}

void PlayStream::OnCancel() { sink_->Cancelled(); }

void PlayStream::End(const grpc::Status& status) {
  AddLocationMetadata(context_, status);
  Finish(status);
}

void PlayStream::OnDone() {
  metrics_->streams.Decrement();
  delete this;
}

}  // namespace trix::table
