// Seat: plays one seat of a table for a Bot over the table service's gRPC API, so
// that a bot developer writes only the Bot (bot.h).
//
// The loop: open the seat's Play stream (subscribe with the seat token first) and
// keep the seat's view (SeatTracker); tell the bot every event; when a Prompt says
// the seat must act, ask the bot and send its answer as an `act` on the same
// stream with a fresh request id. One action is in flight at a time: the stream
// answers it with an ActResult (in the update that carries the action's own event
// when accepted, alone when refused), and only then is the next one sent.
// Failures are expected and handled:
//   - a result UNAVAILABLE / DEADLINE_EXCEEDED / RESOURCE_EXHAUSTED / ABORTED: the
//     action is sent again with the same request id (the server applies it once),
//     with backoff, while its decision's clock runs;
//   - a result FAILED_PRECONDITION / INVALID_ARGUMENT: the game moved on without
//     us (a clock ran out and the autopilot acted); the stream has already shown
//     how, so the seat answers whatever decision it now faces; if the refused
//     decision is still open, with the first legal option instead of asking the
//     bot again;
//   - the stream breaks (server restart, drain, overflow): a new Play stream with
//     after_seq = the last event seen, with jittered exponential backoff, so that
//     no event is missed or applied twice; an action left unanswered is sent again
//     with the same request id if its decision is still open;
//   - the table lives on another instance (its stream ended UNAVAILABLE with a
//     TableLocation in the error's details: a failover, a drain, a lost lease):
//     the seat follows it there at once and resumes the same way; when that
//     instance is gone too, it goes back to the address it was given, where any
//     instance either hosts the table, adopts it, or names its instance;
//   - a gap in the numbering or a malformed update: a fresh snapshot.
// Play() returns the game's result after GameEnded, or an error when the token is
// refused, when Stop() was called, or after `give_up_after` without progress.
//
//   RandomBot bot(seed);
//   Seat seat(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
//             {.table_id = id, .seat_token = token}, &bot);
//   absl::StatusOr<v1::GameResult> result = seat.Play();
#ifndef TRIX_BOTS_SDK_SEAT_H_
#define TRIX_BOTS_SDK_SEAT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "bots/sdk/bot.h"
#include "bots/sdk/seat_state.h"
#include "services/common/backoff.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/security/credentials.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::bots {

enum class LogLevel { kDebug, kInfo, kWarn, kError };
using LogSink = std::function<void(LogLevel, absl::string_view)>;

struct SeatConfig {
  std::string table_id;
  std::string seat_token;
  // Between reconnects; capped at a second so that a seat is back within about a
  // second of its table after a failover, when every seat of thousands retries.
  absl::Duration backoff_initial = absl::Milliseconds(100);
  absl::Duration backoff_max = absl::Seconds(1);
  // Play() fails after this long without receiving anything or acting.
  absl::Duration give_up_after = absl::Minutes(2);
  // A pause before each decision, so that people can follow a demo table.
  absl::Duration think = absl::ZeroDuration();
  // Warnings and errors go to stderr when unset.
  LogSink log;
  // For the channel to another instance when the table moves (TableChannel):
  // TLS credentials when the table service serves TLS; null: plaintext.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
};

struct SeatStats {
  int64_t actions = 0;       // accepted
  int64_t act_retries = 0;   // same request id sent again (after a transient
                             // result or on a new stream)
  int64_t rejected = 0;      // FAILED_PRECONDITION / INVALID_ARGUMENT
  int64_t replaced = 0;      // the bot's answer was not an option
  int64_t resubscribes = 0;  // streams opened after the first
  int64_t snapshots = 0;
  int64_t moves = 0;  // the table was followed to another instance
};

class Seat {
 public:
  // `bot` must outlive the Seat.
  Seat(std::shared_ptr<grpc::ChannelInterface> channel, SeatConfig config, Bot* bot);
  Seat(const Seat&) = delete;
  Seat& operator=(const Seat&) = delete;

  absl::StatusOr<v1::GameResult> Play();
  // Makes Play() return CANCELLED soon; callable from any thread.
  void Stop();

  // Valid once Play() has returned.
  const SeatState& state() const { return tracker_.state(); }
  SeatStats stats() const;

 private:
  enum class StreamEnd { kGameOver, kReconnect, kResync, kFatal, kStopped };
  struct StreamOutcome {
    StreamEnd end = StreamEnd::kReconnect;
    absl::Status status;
    bool progressed = false;
    bool moved = false;  // the table lives elsewhere: reconnect there at once
  };
  using PlayStream = grpc::ClientReaderWriter<v1::PlayRequest, v1::TableUpdate>;
  // What became of an action's result or of sending an action.
  enum class Answered {
    kOk,         // the stream goes on
    kReconnect,  // the action could not be placed for a while: a new stream, later
    kResync,     // a new stream now
    kFatal,
  };
  // An action sent but not acknowledged: sent again as is (same request id) while
  // the same decision is open, so that the server applies it at most once.
  struct Unacknowledged {
    uint64_t prompt_seq = 0;
    v1::ActRequest request;
    absl::Time retry_until;  // transient failures are retried until then
  };

  // One Play stream, from subscribing until it ends or we leave it.
  StreamOutcome RunStream();
  // Opens a Play stream and subscribes from `after_seq` (0: a snapshot).
  std::unique_ptr<PlayStream> Subscribe(grpc::ClientContext& context,
                                        uint64_t after_seq);
  // Takes in one update: its events, the result of our action, the next decision.
  // An outcome when the seat must leave the stream; nullopt to read on.
  std::optional<StreamOutcome> TakeUpdate(const v1::TableUpdate& update,
                                          PlayStream* stream);
  // An update that did not apply: resume, start over from a snapshot, or give up.
  StreamOutcome Resync(const absl::Status& error);
  // Whether the seat faces a decision it has not answered yet.
  bool MustAnswer() const;
  // Asks the bot (or resends the unacknowledged action) and writes the act.
  void Answer(PlayStream* stream);
  // The bot's answer to the decision in `state`, made legal; nullopt when stopped.
  std::optional<Decision> Choose(const SeatState& state);
  void SendAct(PlayStream* stream);
  // Takes in the result of the action in flight.
  Answered TakeResult(const v1::ActResult& result, PlayStream* stream,
                      absl::Status* status);
  // A refused action (nothing changed): the seat answers what it faces now, and
  // leaves a decision refused three times to the autopilot.
  void TakeRefusal(const absl::Status& status);
  // A retryable failure: the same request again after a pause, or a new stream
  // once the decision's time for retries is spent.
  Answered RetryAct(const v1::ActResult& result, PlayStream* stream, absl::Status* status);
  // Switches to the instance a refusal names (true), or back to the first address
  // when the one followed to does not answer.
  bool Follow(const grpc::Status& status);
  // Classifies how a stream ended when the game is not over.
  StreamOutcome StreamClosed(const absl::Status& status, uint64_t after_seq,
                             bool progressed);
  // False when stopped while sleeping.
  bool Sleep(absl::Duration duration);
  std::string NextRequestId();
  void Log(LogLevel level, absl::string_view message) const;

  // The channel given, and the one in use (another instance's, once followed).
  const std::shared_ptr<grpc::ChannelInterface> home_;
  std::shared_ptr<grpc::ChannelInterface> channel_;
  std::unique_ptr<v1::TableService::Stub> stub_;
  std::string address_;  // of channel_ when it is not home_
  const SeatConfig config_;
  Bot* const bot_;
  SeatTracker tracker_;

  bool force_snapshot_ = false;
  int malformed_in_a_row_ = 0;
  uint64_t acked_seq_ = 0;     // the seq an accepted action's answer named
  uint64_t rejected_seq_ = 0;  // a decision whose answer the server refused
  int rejected_count_ = 0;     // refusals for rejected_seq_
  std::optional<Unacknowledged> unacknowledged_;
  bool in_flight_ = false;  // unacknowledged_ was sent on this stream, unanswered
  service::Backoff act_backoff_;  // between retries of one unanswered action
  std::string request_prefix_;
  uint64_t request_counter_ = 0;

  std::atomic<bool> stopped_{false};
  absl::Notification stop_;
  mutable absl::Mutex mu_;
  grpc::ClientContext* stream_context_ ABSL_GUARDED_BY(mu_) = nullptr;
  SeatStats stats_ ABSL_GUARDED_BY(mu_);
};

// A channel for `address` ("host:port") that reconnects quickly after a server
// restart; plaintext when `credentials` is null, else e.g. grpc::SslCredentials or
// services/common/tls.h's ChannelCredentials for a table service serving TLS.
std::shared_ptr<grpc::Channel> TableChannel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials = nullptr);
// `credentials`, or plaintext when null.
std::shared_ptr<grpc::ChannelCredentials> OrPlaintext(
    const std::shared_ptr<grpc::ChannelCredentials>& credentials);

}  // namespace trix::bots

#endif  // TRIX_BOTS_SDK_SEAT_H_
