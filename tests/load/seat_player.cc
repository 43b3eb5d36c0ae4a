#include "tests/load/seat_player.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/wire/table_location.h"
#include "tests/load/load_run.h"

namespace trix::load {
namespace {

constexpr int kMaxRejections = 3;  // per seat: deciding again after a refusal
// Per action: the same action again after a refusal that says it was not applied.
constexpr int kMaxTransientRetries = 100;
constexpr absl::Duration kBackoffInitial = absl::Milliseconds(50);
constexpr absl::Duration kBackoffMax = absl::Seconds(1);
// A seat that gets nothing for this long gives up (a stream error).
constexpr absl::Duration kGiveUp = absl::Seconds(30);

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

// One Play stream of the seat. Its writes are queued under the seat's mutex; the
// front is in flight. Actions come from the pacer's thread, outside any reaction,
// so the stream holds a hold (AddHold) until writes are closed.
class SeatPlayer::Stream final
    : public grpc::ClientBidiReactor<v1::PlayRequest, v1::TableUpdate> {
 public:
  explicit Stream(SeatPlayer* seat) : seat_(seat) {}

  // Starts the call; `first` is the queued subscribe.
  void Open(v1::TableService::Stub* stub, const v1::PlayRequest* first) {
    stub->async()->Play(&context_, this);
    AddHold();
    StartWrite(first);
    StartRead(&update_);
    StartCall();
  }
  void Cancel() { context_.TryCancel(); }

  // Queues a write; the message to start writing now (outside the seat's mutex: a
  // reaction may run at once), or nullptr. False in `*open` once the stream takes
  // no writes.
  const v1::PlayRequest* QueueWrite(v1::PlayRequest request, bool* open)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(seat_->mu_) {
    *open = !writes_closed_;
    if (writes_closed_) return nullptr;
    writes_.push_back(std::move(request));
    // A deque keeps the front in place while others queue behind it.
    return writes_.size() == 1 ? &writes_.front() : nullptr;
  }

  void OnWriteDone(bool ok) override {
    const v1::PlayRequest* next = nullptr;
    bool release;
    {
      absl::MutexLock lock(&seat_->mu_);
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

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The stream ended (OnDone follows): nothing more is written; a write in
      // flight completes first.
      bool release;
      {
        absl::MutexLock lock(&seat_->mu_);
        writes_closed_ = true;
        while (writes_.size() > 1) writes_.pop_back();
        release = ReleaseHold();
      }
      if (release) RemoveHold();
      return;
    }
    seat_->OnUpdate(update_);
    StartRead(&update_);
  }

  // The last reaction: the seat may open the next stream at once.
  void OnDone(const grpc::Status& status) override { seat_->OnStreamDone(status); }

 private:
  // Once nothing more will be written: lets the stream end (its hold).
  bool ReleaseHold() ABSL_EXCLUSIVE_LOCKS_REQUIRED(seat_->mu_) {
    if (!held_ || !writes_closed_ || !writes_.empty()) return false;
    held_ = false;
    return true;
  }

  SeatPlayer* const seat_;
  grpc::ClientContext context_;
  v1::TableUpdate update_;  // the read in flight
  std::deque<v1::PlayRequest> writes_ ABSL_GUARDED_BY(seat_->mu_);
  bool writes_closed_ ABSL_GUARDED_BY(seat_->mu_) = false;
  bool held_ ABSL_GUARDED_BY(seat_->mu_) = true;
};

SeatPlayer::SeatPlayer(LoadContext* context, SeatHost* table,
                       v1::TableService::Stub* stub, std::string table_id, int seat,
                       std::string token, uint64_t seed, std::string address)
    : context_(context),
      table_(table),
      stub_(stub),
      table_id_(std::move(table_id)),
      seat_(seat),
      token_(std::move(token)),
      address_(std::move(address)),
      backoff_(kBackoffInitial, kBackoffMax),
      rng_(seed) {
  const std::vector<std::string> targets = table_->Targets();
  auto it = std::find(targets.begin(), targets.end(), address_);
  if (it != targets.end()) target_ = static_cast<size_t>(it - targets.begin());
}

SeatPlayer::~SeatPlayer() = default;

void SeatPlayer::Start() {
  {
    absl::MutexLock lock(&mu_);
    last_progress_ = absl::Now();
  }
  Connect();
}

void SeatPlayer::Connect() {
  Stream* stream = nullptr;
  v1::TableService::Stub* stub = nullptr;
  const v1::PlayRequest* first = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!cancelled_) stub = streams_.empty() ? stub_ : table_->StubFor(address_);
    if (stub != nullptr) {
      v1::PlayRequest subscribe;
      subscribe.mutable_subscribe()->set_table_id(table_id_);
      subscribe.mutable_subscribe()->set_seat_token(token_);
      subscribe.mutable_subscribe()->set_after_seq(last_seq_);
      streams_.push_back(std::make_unique<Stream>(this));
      stream = streams_.back().get();
      // Queued before the stream is published: an action never precedes it.
      bool open;
      first = stream->QueueWrite(std::move(subscribe), &open);
      stream_ = stream;
      stream_opened_ = Clock::now();
      if (streams_.size() > 1) context_->counters.reconnects.fetch_add(1);
    }
  }
  if (stream == nullptr) {
    return Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the seat stopped"));
  }
  stream->Open(stub, first);
}

void SeatPlayer::Cancel() {
  Stream* stream;
  grpc::Alarm* pause;
  {
    absl::MutexLock lock(&mu_);
    cancelled_ = true;
    stream = stream_;
    pause = pause_.get();
  }
  if (stream != nullptr) stream->Cancel();
  if (pause != nullptr) pause->Cancel();  // its callback then finishes the seat
}

std::vector<SeatPlayer::SentAction> SeatPlayer::sent() const {
  absl::MutexLock lock(&mu_);
  return sent_;
}

void SeatPlayer::OnUpdate(const v1::TableUpdate& update) {
  const Clock::time_point now = Clock::now();
  std::optional<size_t> paced, again;
  const v1::PlayRequest* resend = nullptr;
  Stream* stream;
  bool game_ended = false;
  bool pace_again = false;
  bool after_failure;
  {
    absl::MutexLock lock(&mu_);
    stream = stream_;
    after_failure = context_->AfterFailure(stream_opened_);
    last_progress_ = absl::Now();
    backoff_.Reset();
    Counters& counters = context_->counters;
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
    for (const v1::ActResult& result : update.results()) {
      if (std::optional<size_t> next = HandleResult(result, now)) again = next;
    }
    pace_again = std::exchange(pace_again_, false);
    if (update.has_prompt()) paced = HandlePrompt(update.prompt(), &resend);
    game_over_ = game_over_ || game_ended;
  }
  if (after_failure) table_->OnUpdate(now);
  if (resend != nullptr) stream->StartWrite(resend);
  if (again && pace_again) {
    paced = again;  // the same action again: after a pause
  } else if (again) {
    Launch(*again);  // deciding again after a refusal is not paced
  }
  if (paced) table_->Pace([this, index = *paced] { Launch(index); });
  if (game_ended) table_->OnGameEnded();
}

std::optional<size_t> SeatPlayer::HandlePrompt(const v1::Prompt& prompt,
                                               const v1::PlayRequest** resend) {
  Counters& counters = context_->counters;
  counters.prompts.fetch_add(1, std::memory_order_relaxed);
  if (pending_ && pending_->state == Sending::kResend && awaiting_) {
    // A new stream, and the decision whose answer was lost is still open: the
    // same action under the same request id (the server applies it once).
    prompt_ = prompt;
    if (context_->stopping.load()) {
      awaiting_.reset();
      DropPending();
    } else {
      counters.resent.fetch_add(1, std::memory_order_relaxed);
      *resend = WritePending();
    }
  } else if (awaiting_ || pending_) {
    // Made before our answer to it was applied: that decision is taken.
    counters.stale_prompts.fetch_add(1, std::memory_order_relaxed);
  } else {
    prompt_ = prompt;
    return Decide();
  }
  return std::nullopt;
}

void SeatPlayer::OnStreamDone(const grpc::Status& status) {
  absl::Duration wait = absl::ZeroDuration();
  bool follow;
  {
    absl::MutexLock lock(&mu_);
    stream_ = nullptr;
    if (!cancelled_) context_->CountRefused(status.error_code(), Clock::now());
    // Its answer is lost with the stream: sent again if its decision is still open.
    if (pending_ && pending_->state == Sending::kWritten) pending_->state = Sending::kResend;
    follow = !cancelled_ && !game_over_ && !status.ok() && NextAddress(status, &wait);
    if (!cancelled_ && !game_over_ && status.error_code() == grpc::StatusCode::OUT_OF_RANGE &&
        last_seq_ > 0) {
      // Resumed beyond the stream's end (a failover lost the log's tail): start
      // over from a snapshot.
      last_seq_ = 0;
      follow = true;
    }
    if (!follow) {
      if (pending_) {
        context_->counters.act_failed.fetch_add(1, std::memory_order_relaxed);
        DropPending();
      }
      awaiting_.reset();
    } else if (wait > absl::ZeroDuration()) {
      pause_ = std::make_unique<grpc::Alarm>();
      pause_->Set(std::chrono::system_clock::now() + absl::ToChronoNanoseconds(wait),
                  [this](bool ok) {
                    if (ok) return Connect();
                    Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the seat stopped"));
                  });
    }
  }
  if (!follow) return Finish(status);
  if (wait == absl::ZeroDuration()) Connect();
}

bool SeatPlayer::NextAddress(const grpc::Status& status, absl::Duration* wait) {
  const grpc::StatusCode code = status.error_code();
  // CANCELLED that the seat did not ask for: a server ending its calls at shutdown
  // (the bot SDK resumes after it too).
  const bool followed = Transient(code) || code == grpc::StatusCode::CANCELLED;
  if (!followed || absl::Now() - last_progress_ > kGiveUp) return false;
  std::optional<v1::TableLocation> where = wire::LocationFromStatus(status);
  if (where && !where->address().empty() && where->address() != address_ &&
      !table_->Targets().empty() && CheckLoopback(where->address()).ok()) {
    address_ = where->address();
    context_->counters.moves.fetch_add(1, std::memory_order_relaxed);
    *wait = absl::ZeroDuration();
    return true;
  }
  // Nobody named another instance: the fleet's next one, which hosts the table,
  // adopts it, or names the instance that does.
  const std::vector<std::string> targets = table_->Targets();
  if (targets.empty()) return false;  // a host that does not follow
  target_ = (target_ + 1) % targets.size();
  if (targets[target_] == address_) target_ = (target_ + 1) % targets.size();
  address_ = targets[target_];
  // Jittered below the wait, never above it: a seat is back within kBackoffMax.
  *wait = service::Jittered(backoff_.Failed(), 0.5, 1.0);
  return true;
}

void SeatPlayer::Finish(const grpc::Status& status) {
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
    // Applied before its stream broke: its answer is lost, not to be sent again.
    if (pending_ && pending_->state == Sending::kResend) DropPending();
  }
}

std::optional<size_t> SeatPlayer::HandleResult(const v1::ActResult& result,
                                               Clock::time_point now) {
  if (!pending_ || sent_[pending_->index].request_id != result.request_id()) {
    return std::nullopt;  // not ours to wait for (cannot happen: one at a time)
  }
  Counters& counters = context_->counters;
  if (result.code() == 0) {
    transient_retries_ = 0;
    if (context_->InWindow(pending_->sent)) {
      context_->ack_latency.Add(absl::FromChrono(now - pending_->sent));
    }
    counters.acks.fetch_add(1, std::memory_order_relaxed);
    if (streams_.size() > 1) counters.followed_acks.fetch_add(1, std::memory_order_relaxed);
    sent_[pending_->index].acked = true;
    if (context_->AfterFailure(stream_opened_)) table_->OnAccepted(now);
    // A resent action the server had applied is answered as the first time; its
    // event may already be behind us (in a snapshot).
    if (awaiting_ && result.seq() <= last_seq_) awaiting_.reset();
    DropPending();
    return std::nullopt;
  }
  Report(table_id_, seat_, result);
  context_->CountRefused(result.code(), now);
  if (Transient(result.code()) && ++transient_retries_ <= kMaxTransientRetries) {
    // Not applied (the database was away, the table reloading): the same action
    // under the same request id after a pause, as table.proto asks of a client.
    counters.resent.fetch_add(1, std::memory_order_relaxed);
    pending_->state = Sending::kPaced;
    pace_again_ = true;
    return pending_->index;
  }
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
  Stream* stream;
  {
    absl::MutexLock lock(&mu_);
    if (!pending_ || pending_->index != index || pending_->state != Sending::kPaced) {
      return;  // the seat gave up meanwhile
    }
    if (context_->stopping.load()) {
      // The run ended while the seat was thinking: the action is never sent.
      awaiting_.reset();
      return DropPending();
    }
    // Latency counts from here, not from the prompt: thinking is the client's time.
    const Clock::time_point now = Clock::now();
    pending_->sent = now;
    if (awaiting_) awaiting_->sent = now;
    write = WritePending();
    stream = stream_;
  }
  if (write != nullptr) stream->StartWrite(write);
}

const v1::PlayRequest* SeatPlayer::WritePending() {
  bool open = false;
  const v1::PlayRequest* write =
      stream_ != nullptr ? stream_->QueueWrite(pending_->request, &open) : nullptr;
  // Between streams (or on one that is ending): sent on the next stream's prompt.
  pending_->state = open ? Sending::kWritten : Sending::kResend;
  return write;
}

void SeatPlayer::DropPending() {
  if (!pending_) return;
  pending_.reset();
  context_->acts_in_flight.fetch_sub(1);
}

}  // namespace trix::load
