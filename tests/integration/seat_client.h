// A client of one seat (or a spectator) over a real gRPC channel: it holds the
// seat's stream open on a thread of its own, records every update, and, when told
// to play, answers each prompt with a random legal action drawn from the prompt —
// the way a bot would, knowing no rules itself. The stream is Subscribe (actions
// then go by unary Act) or Watch, or with OpenPlay the seat's Play stream, which
// carries the actions and their results too.
//
//   SeatClient client(channel, table_id, token, /*seat=*/2);
//   client.Open(/*after_seq=*/0, /*play_seed=*/7);   // or OpenPlay(0, 7)
//   grpc::Status end = client.WaitDone(absl::Seconds(60));
#ifndef TRIX_TESTS_INTEGRATION_SEAT_CLIENT_H_
#define TRIX_TESTS_INTEGRATION_SEAT_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::table {

class SeatClient {
 public:
  // An acknowledged action: what was sent and what the server answered.
  struct Ack {
    v1::ActRequest request;
    v1::ActResponse response;
  };

  // `seat` -1 watches as a spectator.
  SeatClient(std::shared_ptr<grpc::Channel> channel, std::string table_id,
             std::string token, int seat);
  ~SeatClient();  // Close()

  // Opens the stream. With `play_seed`, answers every prompt with an action.
  void Open(uint64_t after_seq = 0, std::optional<uint64_t> play_seed = std::nullopt);
  // Opens the seat's Play stream (its subscribe message, then an act on the stream
  // for every prompt when `play_seed` is given).
  void OpenPlay(uint64_t after_seq = 0, std::optional<uint64_t> play_seed = std::nullopt);
  // Opens a Play stream whose first message is `first`, whatever it is.
  void OpenPlayWith(v1::PlayRequest first);
  // Writes on a Play stream that does not play by itself; false once it ended.
  bool Write(const v1::PlayRequest& request);
  // Half-closes a Play stream.
  void WritesDone();
  // Cancels the stream and waits for its thread.
  void Close();
  // Waits for the stream to end (OK after GameEnded); DEADLINE_EXCEEDED if not.
  grpc::Status WaitDone(absl::Duration timeout);
  bool WaitUntil(std::function<bool(const std::vector<v1::TableUpdate>&)> ready,
                 absl::Duration timeout);

  std::vector<v1::TableUpdate> updates() const;
  // Every event received, in order, out of all the updates.
  std::vector<v1::Event> events() const;
  uint64_t last_seq() const;  // the last event (or snapshot) seq received
  std::vector<Ack> acks() const;
  std::vector<grpc::Status> act_errors() const;
  // Play streams: every ActResult received, in order.
  std::vector<v1::ActResult> results() const;
  // Waits for the result of `request_id`.
  std::optional<v1::ActResult> WaitResult(const std::string& request_id,
                                          absl::Duration timeout);
  int seat() const { return seat_; }

 private:
  void Read(uint64_t after_seq, std::optional<uint64_t> play_seed);
  void Play(v1::PlayRequest first, std::optional<uint64_t> play_seed);
  // Records an update (and, when playing, what its results answered).
  void Record(const v1::TableUpdate& update);

  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<v1::TableService::Stub> stub_;
  const std::string table_id_;
  const std::string token_;
  const int seat_;
  const std::string id_prefix_;

  mutable absl::Mutex mu_;
  std::vector<v1::TableUpdate> updates_ ABSL_GUARDED_BY(mu_);
  std::vector<Ack> acks_ ABSL_GUARDED_BY(mu_);
  std::vector<grpc::Status> act_errors_ ABSL_GUARDED_BY(mu_);
  std::optional<grpc::Status> done_ ABSL_GUARDED_BY(mu_);
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::vector<v1::ActResult> results_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::ActRequest> sent_ ABSL_GUARDED_BY(mu_);  // Play: acts not yet answered
  // Play: the stream while writes may go on it; writes hold write_mu_ (one writer).
  absl::Mutex write_mu_;
  grpc::ClientReaderWriter<v1::PlayRequest, v1::TableUpdate>* play_
      ABSL_GUARDED_BY(write_mu_) = nullptr;
  std::thread thread_;
};

}  // namespace trix::table

#endif  // TRIX_TESTS_INTEGRATION_SEAT_CLIENT_H_
