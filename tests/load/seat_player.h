// One seat of a load-tool table, on gRPC's callback API: the seat's Play stream is
// a ClientBidiReactor (SeatPlayer::Stream) that reads the seat's updates and writes
// its actions, so thousands of seats share gRPC's few threads and no thread waits
// on any one seat.
//
// The seat answers every prompt with seat_policy's action under a fresh request id
// (at once, or at its table's next turn when the run is paced: pacer.h) and times
// it from when it is written, twice: until its ActResult (ack_latency) and until
// the action's own event shows on the stream (event_latency); an accepted action's
// result rides in the update with its event, so the two coincide. It acts again
// only once that event has been seen, so at most one of its decisions is open at a
// time; a prompt that arrives before it is stale (made before the action was
// applied) and ignored. A refused action is counted and the seat decides again on
// the last prompt (a few times at most).
//
// A stream that breaks (its instance died, drained, or lost the table's lease) is
// followed as the bot SDK follows it: to the address in the refusal's
// TableLocation (wire::LocationFromStatus) at once, else to the run's next target
// after a backoff, resuming with after_seq = the last event seen. An action whose
// answer was lost with the stream is resent under the same request id when the new
// stream's prompt shows its decision still open, and dropped (it was applied) when
// the new stream replays its event (its SeatHost names the addresses and their
// stubs; a host that names none is not followed: a broken stream ends the seat).
// The seat gives up after kGiveUp without a single update (a stream error).
//
// Every action sent is kept, in order, with whether it was acknowledged, so that
// the durability check can find each acknowledged one in the game's record.
//
//   SeatPlayer seat(&context, &table, stub, id, 2, token, seed, address);
//   seat.Start();       // opens Play; plays until GameEnded or Cancel()
#ifndef TRIX_TESTS_LOAD_SEAT_PLAYER_H_
#define TRIX_TESTS_LOAD_SEAT_PLAYER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/cards.h"
#include "engine/random.h"
#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"
#include "services/common/backoff.h"
#include "tests/load/load_context.h"
#include "tests/load/seat_policy.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::load {

// What a seat reports to and paces its actions by: its table (LoadTable, or the
// soak tool's table of matchmade players).
class SeatHost {
 public:
  virtual ~SeatHost() = default;
  // Runs `act` (sends the seat's action) now or at the table's next turn.
  virtual void Pace(std::function<void()> act) = 0;
  virtual void OnGameEnded() = 0;
  virtual void OnStreamDone(int seat, const grpc::Status& status) = 0;
  // A seat's stream opened after the fleet's failure brought an update; one of its
  // actions was accepted there.
  virtual void OnUpdate(Clock::time_point now) {}
  virtual void OnAccepted(Clock::time_point now) {}
  // To follow a table that moved: the instances to try in turn when no refusal
  // names one (none: the seat does not follow), and a stub for an address
  // (nullptr: not one to go to).
  virtual std::vector<std::string> Targets() const { return {}; }
  virtual v1::TableService::Stub* StubFor(const std::string& address) { return nullptr; }
};

class SeatPlayer final {
 public:
  struct SentAction {
    Expected expected;
    std::string request_id;
    bool acked = false;
  };

  // `context`, `table` and `stub` must outlive the seat. `address` is where `stub`
  // goes (the instance the table was created on), for following the table.
  SeatPlayer(LoadContext* context, SeatHost* table, v1::TableService::Stub* stub,
             std::string table_id, int seat, std::string token, uint64_t seed,
             std::string address = "");
  ~SeatPlayer();

  void Start();
  void Cancel();

  int seat() const { return seat_; }
  const std::string& token() const { return token_; }
  std::vector<SentAction> sent() const;

 private:
  class Stream;
  // Where the decided action stands: waiting for its paced time, written on the
  // open stream, or to be resent on the next one (its answer was lost).
  enum class Sending { kPaced, kWritten, kResend };
  // The decided action whose ActResult has not come yet (at most one).
  struct Pending {
    size_t index;  // in sent_
    v1::PlayRequest request;
    Clock::time_point sent;
    Sending state = Sending::kPaced;
  };

  // Opens a stream to address_ (resuming after last_seq_).
  void Connect();
  // From the open stream.
  void OnUpdate(const v1::TableUpdate& update);
  void OnStreamDone(const grpc::Status& status);
  // Where to reconnect after `status`, and how long to wait first; false: give up.
  bool NextAddress(const grpc::Status& status, absl::Duration* wait)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Once the seat will open no more streams.
  void Finish(const grpc::Status& status);

  void HandleEvent(const v1::Event& event, Clock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The index of the action decided again after a refusal, if any.
  std::optional<size_t> HandleResult(const v1::ActResult& result, Clock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The action decided for `prompt`, to pace, if any; the pending action to write
  // again at once (a new stream, its answer lost) goes to `resend`.
  std::optional<size_t> HandlePrompt(const v1::Prompt& prompt,
                                     const v1::PlayRequest** resend)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Builds the action for the last prompt as pending_; its index, or nullopt when
  // there is nothing to send.
  std::optional<size_t> Decide() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes the pending action `index` (at its paced time, pacer.h).
  void Launch(size_t index);
  // Queues pending_ on the open stream; the message to start writing now, if any.
  const v1::PlayRequest* WritePending() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the pending action without a result.
  void DropPending() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  LoadContext* const context_;
  SeatHost* const table_;
  v1::TableService::Stub* const stub_;  // the first stream's
  const std::string table_id_;
  const int seat_;
  const std::string token_;

  mutable absl::Mutex mu_;
  std::string address_ ABSL_GUARDED_BY(mu_);  // of the open (or next) stream
  size_t target_ ABSL_GUARDED_BY(mu_) = 0;    // the last of Targets() tried
  Stream* stream_ ABSL_GUARDED_BY(mu_) = nullptr;  // the open one, if any
  // When the open stream was opened: what it brings counts as the table back in
  // play after a failure (LoadContext::MarkFailure) only if opened after it.
  Clock::time_point stream_opened_ ABSL_GUARDED_BY(mu_);
  // Every stream opened, kept until the seat goes (gRPC may still hold the last).
  std::vector<std::unique_ptr<Stream>> streams_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<grpc::Alarm> pause_ ABSL_GUARDED_BY(mu_);  // before reconnecting
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool game_over_ ABSL_GUARDED_BY(mu_) = false;
  service::Backoff backoff_ ABSL_GUARDED_BY(mu_);
  absl::Time last_progress_ ABSL_GUARDED_BY(mu_);

  engine::Rng rng_ ABSL_GUARDED_BY(mu_);
  engine::CardSet hand_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t last_seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<v1::Prompt> prompt_ ABSL_GUARDED_BY(mu_);  // the last one received
  std::optional<Pending> pending_ ABSL_GUARDED_BY(mu_);
  // The action whose event has not come back yet.
  struct Awaiting {
    Expected expected;
    Clock::time_point sent;
  };
  std::optional<Awaiting> awaiting_ ABSL_GUARDED_BY(mu_);
  std::vector<SentAction> sent_ ABSL_GUARDED_BY(mu_);
  int rejections_ ABSL_GUARDED_BY(mu_) = 0;
  // Refusals of the pending action that say it was not applied (sent again).
  int transient_retries_ ABSL_GUARDED_BY(mu_) = 0;
  bool pace_again_ ABSL_GUARDED_BY(mu_) = false;  // HandleResult: resend it paced
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_SEAT_PLAYER_H_
