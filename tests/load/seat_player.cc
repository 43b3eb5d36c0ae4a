#include "tests/load/seat_player.h"

#include <atomic>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tests/load/load_table.h"

namespace trix::load {
namespace {

constexpr int kMaxRejections = 3;  // per seat: deciding again after a refusal

// Codes that say the server could not take the action now, not that it was wrong.
bool Transient(int code) {
  const auto c = static_cast<grpc::StatusCode>(code);
  return c == grpc::StatusCode::UNAVAILABLE ||
         c == grpc::StatusCode::RESOURCE_EXHAUSTED ||
         c == grpc::StatusCode::DEADLINE_EXCEEDED || c == grpc::StatusCode::ABORTED;
}

// The first few refusals are printed whole; the rest only counted.
void Report(const std::string& table_id, int seat, const v1::ActResult& result) {
  static std::atomic<int> printed{0};
  if (printed.fetch_add(1) >= 10) return;
  std::fprintf(stderr, "table-load: action %s on table %s seat %d: %d %s\n",
               result.request_id().c_str(), table_id.c_str(), seat, result.code(),
               result.message().c_str());
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

SeatPlayer::SeatPlayer(LoadContext* context, SeatHost* table,
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
  v1::PlayRequest subscribe;
  subscribe.mutable_subscribe()->set_table_id(table_id_);
  subscribe.mutable_subscribe()->set_seat_token(token_);
  stub_->async()->Play(&stream_context_, this);
  // Actions are written from the pacer's thread, outside the reactions: the hold
  // keeps the stream until writes are closed (ReleaseHold).
  AddHold();
  const v1::PlayRequest* first;
  {
    absl::MutexLock lock(&mu_);
    bool open;
    first = QueueWrite(std::move(subscribe), &open);
  }
  StartWrite(first);
  StartRead(&update_);
  StartCall();
}

void SeatPlayer::Cancel() { stream_context_.TryCancel(); }

std::vector<SeatPlayer::SentAction> SeatPlayer::sent() const {
  absl::MutexLock lock(&mu_);
  return sent_;
}

const v1::PlayRequest* SeatPlayer::QueueWrite(v1::PlayRequest request, bool* open) {
  *open = !writes_closed_;
  if (writes_closed_) return nullptr;
  writes_.push_back(std::move(request));
  // A deque keeps the front in place while others queue behind it.
  return writes_.size() == 1 ? &writes_.front() : nullptr;
}

bool SeatPlayer::ReleaseHold() {
  if (!held_ || !writes_closed_ || !writes_.empty()) return false;
  held_ = false;
  return true;
}

void SeatPlayer::OnWriteDone(bool ok) {
  const v1::PlayRequest* next = nullptr;
  bool release;
  {
    absl::MutexLock lock(&mu_);
    writes_.pop_front();
    if (!ok) {
      // The stream is broken: OnReadDone(false) and OnDone follow.
      writes_closed_ = true;
      writes_.clear();
    }
    if (!writes_.empty()) next = &writes_.front();
    release = ReleaseHold();
  }
  if (next != nullptr) StartWrite(next);
  if (release) RemoveHold();
}

void SeatPlayer::OnReadDone(bool ok) {
  if (!ok) {
    // The stream ended (OnDone follows): nothing more is written; a write in
    // flight completes first.
    bool release;
    {
      absl::MutexLock lock(&mu_);
      writes_closed_ = true;
      while (writes_.size() > 1) writes_.pop_back();
      release = ReleaseHold();
    }
    if (release) RemoveHold();
    return;
  }
  const Clock::time_point now = Clock::now();
  std::optional<size_t> paced, again;
  bool game_ended = false;
  {
    absl::MutexLock lock(&mu_);
    Counters& counters = context_->counters;
    if (update_.has_snapshot()) {
      counters.snapshots.fetch_add(1, std::memory_order_relaxed);
      last_seq_ = update_.snapshot().seq();
      hand_ = CardsOf(update_.snapshot().hand());
    }
    // Event by event: the action we await is matched by its own event wherever
    // it sits in the update (all of them arrived at `now`).
    counters.updates.fetch_add(1, std::memory_order_relaxed);
    counters.events.fetch_add(update_.events_size(), std::memory_order_relaxed);
    for (const v1::Event& event : update_.events()) {
      HandleEvent(event, now);
      game_ended = game_ended || event.has_game_ended();
    }
    for (const v1::ActResult& result : update_.results()) {
      if (std::optional<size_t> next = HandleResult(result, now)) again = next;
    }
    if (update_.has_prompt()) {
      counters.prompts.fetch_add(1, std::memory_order_relaxed);
      if (awaiting_ || pending_) {
        // Made before our answer to it was applied: that decision is taken.
        counters.stale_prompts.fetch_add(1, std::memory_order_relaxed);
      } else {
        prompt_ = update_.prompt();
        paced = Decide();
      }
    }
  }
  StartRead(&update_);
  if (again) Launch(*again);  // deciding again after a refusal is not paced
  if (paced) table_->Pace([this, index = *paced] { Launch(index); });
  if (game_ended) table_->OnGameEnded();
}

void SeatPlayer::OnDone(const grpc::Status& status) {
  {
    absl::MutexLock lock(&mu_);
    writes_closed_ = true;
    if (pending_) {
      // Its answer is lost with the stream (counted as a stream error too).
      context_->counters.act_failed.fetch_add(1, std::memory_order_relaxed);
      DropPending();
    }
    awaiting_.reset();
  }
  table_->OnStreamDone(seat_, status);
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

std::optional<size_t> SeatPlayer::HandleResult(const v1::ActResult& result,
                                               Clock::time_point now) {
  if (!pending_ || sent_[pending_->index].request_id != result.request_id()) {
    return std::nullopt;  // not ours to wait for (cannot happen: one at a time)
  }
  Counters& counters = context_->counters;
  if (result.code() == 0) {
    if (context_->InWindow(pending_->sent)) {
      context_->ack_latency.Add(absl::FromChrono(now - pending_->sent));
    }
    counters.acks.fetch_add(1, std::memory_order_relaxed);
    sent_[pending_->index].acked = true;
    DropPending();
    return std::nullopt;
  }
  Report(table_id_, seat_, result);
  (Transient(result.code()) ? counters.act_failed : counters.act_rejected)
      .fetch_add(1, std::memory_order_relaxed);
  DropPending();
  // Refused: its event will never come. Decide again, a few times at most.
  awaiting_.reset();
  if (++rejections_ > kMaxRejections) return std::nullopt;
  return Decide();
}

std::optional<size_t> SeatPlayer::Decide() {
  if (context_->stopping.load() || !prompt_) return std::nullopt;
  Expected expected;
  absl::StatusOr<v1::ActRequest> act = DecideAction(*prompt_, hand_, rng_, &expected);
  if (!act.ok()) {
    std::fprintf(stderr, "table-load: table %s seat %d: %s\n", table_id_.c_str(), seat_,
                 act.status().ToString().c_str());
    return std::nullopt;
  }
  // Table id and token left empty: the stream's.
  Pending pending{sent_.size(), {}, Clock::now()};
  *pending.request.mutable_act() = *std::move(act);
  pending.request.mutable_act()->set_request_id(
      absl::StrCat("load-", seat_, "-", sent_.size()));
  sent_.push_back({expected, pending.request.act().request_id(), false});
  awaiting_ = Awaiting{expected, pending.sent};
  pending_ = std::move(pending);
  context_->counters.acts_sent.fetch_add(1, std::memory_order_relaxed);
  context_->acts_in_flight.fetch_add(1);
  return pending_->index;
}

void SeatPlayer::Launch(size_t index) {
  const v1::PlayRequest* write = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!pending_ || pending_->index != index) return;  // the stream ended meanwhile
    if (context_->stopping.load()) {
      // The run ended while the seat was thinking: the action is never sent.
      awaiting_.reset();
      return DropPending();
    }
    // Latency counts from here, not from the prompt: thinking is the client's time.
    const Clock::time_point now = Clock::now();
    pending_->sent = now;
    if (awaiting_) awaiting_->sent = now;
    bool open;
    write = QueueWrite(std::move(pending_->request), &open);
    if (!open) {
      awaiting_.reset();
      return DropPending();
    }
  }
  if (write != nullptr) StartWrite(write);
}

void SeatPlayer::DropPending() {
  if (!pending_) return;
  pending_.reset();
  context_->acts_in_flight.fetch_sub(1);
}

}  // namespace trix::load
