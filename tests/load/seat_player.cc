#include "tests/load/seat_player.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/alarm.h"
#include "tests/load/load_table.h"

namespace trix::load {
namespace {

constexpr int kMaxAttempts = 5;
constexpr int kMaxRejections = 3;  // per seat: deciding again after a refusal
constexpr auto kRetryPause = std::chrono::milliseconds(50);

bool Retryable(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE ||
         code == grpc::StatusCode::RESOURCE_EXHAUSTED ||
         code == grpc::StatusCode::DEADLINE_EXCEEDED || code == grpc::StatusCode::ABORTED;
}

// The first few errors are printed whole; the rest only counted.
void Report(const std::string& table_id, int seat, const grpc::Status& status) {
  static std::atomic<int> printed{0};
  if (printed.fetch_add(1) >= 10) return;
  std::fprintf(stderr, "table-load: Act on table %s seat %d: %d %s\n", table_id.c_str(),
               seat, static_cast<int>(status.error_code()),
               status.error_message().c_str());
}

engine::CardSet CardsOf(const google::protobuf::RepeatedPtrField<std::string>& names) {
  engine::CardSet cards = 0;
  for (const std::string& name : names) {
    if (absl::StatusOr<engine::Card> c = engine::ParseCard(name); c.ok()) {
      cards |= engine::Bit(*c);
    }
  }
  return cards;
}

}  // namespace

struct SeatPlayer::ActCall {
  std::unique_ptr<grpc::ClientContext> context;  // one per attempt
  v1::ActRequest request;
  v1::ActResponse response;
  size_t index = 0;  // in sent_
  Clock::time_point first_sent;
  int attempt = 0;
  std::unique_ptr<grpc::Alarm> pause;
};

SeatPlayer::SeatPlayer(LoadContext* context, LoadTable* table,
                       v1::TableService::Stub* stub, std::string table_id, int seat,
                       std::string token, uint64_t seed)
    : context_(context),
      table_(table),
      stub_(stub),
      table_id_(std::move(table_id)),
      seat_(seat),
      token_(std::move(token)),
      rng_(seed) {}

SeatPlayer::~SeatPlayer() = default;

void SeatPlayer::Start() {
  subscribe_.set_table_id(table_id_);
  subscribe_.set_seat_token(token_);
  stub_->async()->Subscribe(&stream_context_, &subscribe_, this);
  StartRead(&update_);
  StartCall();
}

void SeatPlayer::Cancel() { stream_context_.TryCancel(); }

std::vector<SeatPlayer::SentAction> SeatPlayer::sent() const {
  absl::MutexLock lock(&mu_);
  return sent_;
}

void SeatPlayer::OnReadDone(bool ok) {
  if (!ok) return;  // the stream ended: OnDone follows
  HandleUpdate(update_, Clock::now());
  StartRead(&update_);
}

void SeatPlayer::OnDone(const grpc::Status& status) {
  table_->OnStreamDone(seat_, status);
}

void SeatPlayer::HandleUpdate(const v1::TableUpdate& update, Clock::time_point now) {
  Counters& counters = context_->counters;
  ActCall* call = nullptr;
  bool game_ended = false;
  {
    absl::MutexLock lock(&mu_);
    if (update.has_snapshot()) {
      counters.snapshots.fetch_add(1, std::memory_order_relaxed);
      last_seq_ = update.snapshot().seq();
      hand_ = CardsOf(update.snapshot().hand());
    }
    // Event by event: the action we await is matched by its own event wherever
    // it sits in the update (all of them arrived at `now`).
    counters.updates.fetch_add(1, std::memory_order_relaxed);
    counters.events.fetch_add(update.events_size(), std::memory_order_relaxed);
    for (const v1::Event& event : update.events()) {
      HandleEvent(event, now);
      game_ended = game_ended || event.has_game_ended();
    }
    if (update.has_prompt()) {
      counters.prompts.fetch_add(1, std::memory_order_relaxed);
      if (awaiting_) {
        // Made before our answer to it was applied: that decision is taken.
        counters.stale_prompts.fetch_add(1, std::memory_order_relaxed);
      } else {
        prompt_ = update.prompt();
        call = Decide();
      }
    }
  }
  if (call != nullptr) table_->Pace([this, call] { Launch(call); });
  if (game_ended) table_->OnGameEnded();
}

void SeatPlayer::HandleEvent(const v1::Event& event, Clock::time_point now) {
  if (event.seq() != last_seq_ + 1) {
    context_->counters.seq_gaps.fetch_add(1, std::memory_order_relaxed);
  }
  last_seq_ = event.seq();
  if (event.has_hand_shown() && event.hand_shown().seat() == seat_) {
    hand_ = CardsOf(event.hand_shown().cards());
  }
  if (awaiting_ && awaiting_->expected.Matches(event, seat_)) {
    context_->counters.matched.fetch_add(1, std::memory_order_relaxed);
    if (context_->InWindow(awaiting_->sent)) {
      context_->event_latency.Add(absl::FromChrono(now - awaiting_->sent));
    }
    awaiting_.reset();
  }
}

SeatPlayer::ActCall* SeatPlayer::Decide() {
  if (context_->stopping.load() || !prompt_) return nullptr;
  Expected expected;
  absl::StatusOr<v1::ActRequest> request = DecideAction(*prompt_, hand_, rng_, &expected);
  if (!request.ok()) {
    std::fprintf(stderr, "table-load: table %s seat %d: %s\n", table_id_.c_str(), seat_,
                 request.status().ToString().c_str());
    return nullptr;
  }
  auto* call = new ActCall;
  call->request = *std::move(request);
  call->request.set_table_id(table_id_);
  call->request.set_seat_token(token_);
  call->request.set_request_id(absl::StrCat("load-", seat_, "-", sent_.size()));
  call->index = sent_.size();
  call->first_sent = Clock::now();
  sent_.push_back({expected, call->request.request_id(), false});
  awaiting_ = Awaiting{expected, call->first_sent};
  context_->counters.acts_sent.fetch_add(1, std::memory_order_relaxed);
  context_->acts_in_flight.fetch_add(1);
  return call;
}

void SeatPlayer::Launch(ActCall* call) {
  if (context_->stopping.load()) {
    // The run ended while the seat was thinking: the action is never sent.
    {
      absl::MutexLock lock(&mu_);
      awaiting_.reset();
    }
    return Finish(call);
  }
  // Latency counts from here, not from the prompt: thinking is the client's time.
  const Clock::time_point now = Clock::now();
  call->first_sent = now;
  {
    absl::MutexLock lock(&mu_);
    if (awaiting_) awaiting_->sent = now;
  }
  Send(call);
}

void SeatPlayer::Send(ActCall* call) {
  call->context = std::make_unique<grpc::ClientContext>();
  call->context->set_deadline(std::chrono::system_clock::now() +
                              absl::ToChronoMilliseconds(context_->options.act_timeout));
  stub_->async()->Act(call->context.get(), &call->request, &call->response,
                      [this, call](grpc::Status status) { OnActDone(call, status); });
}

void SeatPlayer::OnActDone(ActCall* call, const grpc::Status& status) {
  Counters& counters = context_->counters;
  if (status.ok()) {
    if (context_->InWindow(call->first_sent)) {
      context_->ack_latency.Add(absl::FromChrono(Clock::now() - call->first_sent));
    }
    counters.acks.fetch_add(1, std::memory_order_relaxed);
    {
      absl::MutexLock lock(&mu_);
      sent_[call->index].acked = true;
    }
    return Finish(call);
  }
  if (Retryable(status.error_code()) && ++call->attempt < kMaxAttempts) {
    // The same request id: the server applies it at most once.
    counters.act_retries.fetch_add(1, std::memory_order_relaxed);
    call->pause = std::make_unique<grpc::Alarm>();
    call->pause->Set(std::chrono::system_clock::now() + kRetryPause,
                     [this, call](bool) { Send(call); });
    return;
  }
  Report(table_id_, seat_, status);
  (Retryable(status.error_code()) ? counters.act_failed : counters.act_rejected)
      .fetch_add(1, std::memory_order_relaxed);
  ActCall* next = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (awaiting_ && call->index + 1 == sent_.size()) {
      // Refused: its event will never come. Decide again, a few times at most.
      awaiting_.reset();
      if (++rejections_ <= kMaxRejections) next = Decide();
    }
  }
  Finish(call);
  if (next != nullptr) Send(next);
}

void SeatPlayer::Finish(ActCall* call) {
  delete call;
  context_->acts_in_flight.fetch_sub(1);
}

}  // namespace trix::load
