// One seat of a load-tool table, on gRPC's callback API: the seat's Play stream is
// a ClientBidiReactor that reads the seat's updates and writes its actions, so
// thousands of seats share gRPC's few threads and no thread waits on any one seat.
//
// The seat answers every prompt with seat_policy's action under a fresh request id
// (at once, or at its table's next turn when the run is paced: pacer.h) and times
// it from when it is written, twice: until its ActResult (ack_latency) and until
// the action's own event shows on the stream (event_latency); an accepted action's
// result rides in the update with its event, so the two coincide. It acts again
// only once that event has been seen, so at most one of its decisions is open at a
// time; a prompt that arrives before it is stale (made before the action was
// applied) and ignored. A refused action is counted and the seat decides again on
// the last prompt (a few times at most). There is no retry: a stream that breaks
// is a stream error (the tool runs against a healthy server).
//
// Every action sent is kept, in order, with whether it was acknowledged, so that
// the durability check can find each acknowledged one in the game's record.
//
//   SeatPlayer seat(&context, &table, stub, 2, token, seed);
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
#include "engine/cards.h"
#include "engine/random.h"
#include "grpcpp/grpcpp.h"
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
};

class SeatPlayer final
    : public grpc::ClientBidiReactor<v1::PlayRequest, v1::TableUpdate> {
 public:
  struct SentAction {
    Expected expected;
    std::string request_id;
    bool acked = false;
  };

  // `context`, `table` and `stub` must outlive the seat.
  SeatPlayer(LoadContext* context, SeatHost* table, v1::TableService::Stub* stub,
             std::string table_id, int seat, std::string token, uint64_t seed);
  ~SeatPlayer() override;

  void Start();
  void Cancel();

  int seat() const { return seat_; }
  const std::string& token() const { return token_; }
  std::vector<SentAction> sent() const;

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  // The decided action whose ActResult has not come yet (at most one).
  struct Pending {
    size_t index;  // in sent_
    v1::PlayRequest request;
    Clock::time_point sent;
  };

  void HandleEvent(const v1::Event& event, Clock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The index of the action decided again after a refusal, if any.
  std::optional<size_t> HandleResult(const v1::ActResult& result, Clock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Builds the action for the last prompt as pending_; its index, or nullopt when
  // there is nothing to send.
  std::optional<size_t> Decide() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes the pending action `index` (at its paced time, pacer.h).
  void Launch(size_t index);
  // Ends the pending action without a result.
  void DropPending() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues a write; the message to start writing now (outside mu_: a reaction may
  // run at once), or nullptr. False in `*open` once the stream takes no writes.
  const v1::PlayRequest* QueueWrite(v1::PlayRequest request, bool* open)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Once nothing more will be written: lets the stream end (its hold).
  bool ReleaseHold() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  LoadContext* const context_;
  SeatHost* const table_;
  v1::TableService::Stub* const stub_;
  const std::string table_id_;
  const int seat_;
  const std::string token_;

  grpc::ClientContext stream_context_;
  v1::TableUpdate update_;  // the read in flight

  mutable absl::Mutex mu_;
  // Writes: the front is in flight. Actions come from the pacer's thread, outside
  // any reaction, so the stream holds a hold (AddHold) until writes are closed.
  std::deque<v1::PlayRequest> writes_ ABSL_GUARDED_BY(mu_);
  bool writes_closed_ ABSL_GUARDED_BY(mu_) = false;
  bool held_ ABSL_GUARDED_BY(mu_) = true;

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
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_SEAT_PLAYER_H_
