// How trix-play gets a seat through matchmaking: one FindTable call, whose stream
// tells how the ticket waits (queued, the rating window widening) and ends with
// the seat's assignment (table, address, seat, token).
//
//   TableFinder finder({.address = "127.0.0.1:50053", .player = "p1", ...});
//   absl::StatusOr<v1::Assignment> seat = finder.Find(
//       [](const std::string& news) { Show(news); });
//   // another thread may call finder.Cancel() (the ticket is then cancelled)
#ifndef TRIX_BOTS_PLAY_MATCHMAKING_CLIENT_H_
#define TRIX_BOTS_PLAY_MATCHMAKING_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/client_context.h"
#include "grpcpp/security/credentials.h"
#include "trix/v1/matchmaking.grpc.pb.h"

namespace trix::bots {

struct MatchRequest {
  std::string address;  // the matchmaking service, host:port
  std::string player;   // player id (with a service token; a JWT names it itself)
  std::string display_name;
  std::string mode;     // "complex-partner", ...; empty: Quick Play
  int64_t stake = 0;
  std::string bearer;   // a player token or the service token; may be empty
  std::string request_id;  // empty: a fresh one
  std::shared_ptr<grpc::ChannelCredentials> credentials;  // null: plaintext
};

// "queued: 3 waiting · about 5s · rating window ±100 · waited 2s".
std::string QueuedText(const v1::Queued& queued);

class TableFinder {
 public:
  explicit TableFinder(MatchRequest request);

  // Blocks until the assignment (or an error: INVALID_ARGUMENT for an unknown mode,
  // CANCELLED after Cancel(), what the service answered otherwise; UNAVAILABLE is
  // retried for a minute with the same request id). `news` gets a line for every
  // update of the ticket.
  absl::StatusOr<v1::Assignment> Find(const std::function<void(const std::string&)>& news);
  // Ends Find() soon with CANCELLED; callable from any thread.
  void Cancel();

 private:
  absl::StatusOr<v1::Assignment> FindOnce(
      const std::function<void(const std::string&)>& news);

  MatchRequest request_;
  absl::Mutex mu_;
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_PLAY_MATCHMAKING_CLIENT_H_
