// One seat of a load-tool table, on gRPC's callback API: the seat's Subscribe stream
// is a ClientReadReactor and each Act a callback unary call, so thousands of seats
// share gRPC's few threads and no thread waits on any one seat.
//
// The seat answers every prompt with seat_policy's action under a fresh request id
// (at once, or at its table's next turn when the run is paced: pacer.h) and times
// it from when it is sent, twice: until the Act answer (ack_latency) and until the
// action's own event shows on this seat's stream (event_latency). It acts again only once
// that event has been seen, so at most one of its decisions is open at a time; a prompt
// that arrives before it is stale (made before the action was applied) and ignored.
// Retryable errors (UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, ABORTED)
// resend the same request id after a pause; others are counted and the seat
// decides again on the last prompt (a few times at most).
//
// Every action sent is kept, in order, with whether it was acknowledged, so that
// the durability check can find each acknowledged one in the game's record.
//
//   SeatPlayer seat(&context, &table, stub, 2, token, seed);
//   seat.Start();       // Subscribe; plays until GameEnded or Cancel()
#ifndef TRIX_TESTS_LOAD_SEAT_PLAYER_H_
#define TRIX_TESTS_LOAD_SEAT_PLAYER_H_

#include <cstdint>
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

class LoadTable;

class SeatPlayer final : public grpc::ClientReadReactor<v1::TableUpdate> {
 public:
  struct SentAction {
    Expected expected;
    std::string request_id;
    bool acked = false;
  };

  // `context`, `table` and `stub` must outlive the seat.
  SeatPlayer(LoadContext* context, LoadTable* table, v1::TableService::Stub* stub,
             std::string table_id, int seat, std::string token, uint64_t seed);
  ~SeatPlayer() override;

  void Start();
  void Cancel();

  int seat() const { return seat_; }
  const std::string& token() const { return token_; }
  std::vector<SentAction> sent() const;

  void OnReadDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  struct ActCall;

  void HandleUpdate(const v1::TableUpdate& update, Clock::time_point now);
  void HandleEvent(const v1::Event& event, Clock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Builds the action for the last prompt; nullptr when there is nothing to send.
  ActCall* Decide() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends a decided action's first attempt (at its paced time, pacer.h).
  void Launch(ActCall* call);
  void Send(ActCall* call);  // never under mu_: a reaction may run inline
  void OnActDone(ActCall* call, const grpc::Status& status);
  void Finish(ActCall* call);

  LoadContext* const context_;
  LoadTable* const table_;
  v1::TableService::Stub* const stub_;
  const std::string table_id_;
  const int seat_;
  const std::string token_;

  grpc::ClientContext stream_context_;
  v1::SubscribeRequest subscribe_;
  v1::TableUpdate update_;  // the read in flight

  mutable absl::Mutex mu_;
  engine::Rng rng_ ABSL_GUARDED_BY(mu_);
  engine::CardSet hand_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t last_seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<v1::Prompt> prompt_ ABSL_GUARDED_BY(mu_);  // the last one received
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
