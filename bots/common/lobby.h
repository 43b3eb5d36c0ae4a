// Lobby: a game's backend, as the local demo and trix-service-match play it. It
// does what a game's own app servers do with a service token: registers bot
// accounts with matchmaking, credits players' accounts in the ratings service's
// ledger, forms parties, queues each player with FindTable until matchmaking seats
// them, and reads ratings and balances.
//
//   Lobby lobby(matchmaking_address, ratings_address, service_token);
//   absl::StatusOr<v1::Assignment> seat =
//       lobby.FindTable(request, [](const v1::Queued& q) { ... });
#ifndef TRIX_BOTS_COMMON_LOBBY_H_
#define TRIX_BOTS_COMMON_LOBBY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"
#include "trix/v1/matchmaking.grpc.pb.h"
#include "trix/v1/ratings.grpc.pb.h"

namespace trix::bots {

namespace v1 = ::trix::v1;

class Lobby {
 public:
  // Dials both with `credentials` (null: plaintext).
  Lobby(const std::string& matchmaking_address, const std::string& ratings_address,
        std::string service_token,
        const std::shared_ptr<grpc::ChannelCredentials>& credentials = nullptr);

  // Registers a bot account at `level` (retried while matchmaking starts); its key.
  absl::StatusOr<v1::RegisterBotResponse> RegisterBot(
      const std::string& name, const std::string& owner,
      v1::BotLevel level = v1::BOT_LEVEL_UNSPECIFIED);
  absl::Status Credit(const std::string& player_id, int64_t amount,
                      const std::string& request_id);
  // `host` creates a party and `guest` joins it; the party id.
  absl::StatusOr<std::string> FormParty(const std::string& host, const std::string& guest);
  // Queues a ticket and waits for its assignment, calling `queued` for every
  // progress update. Cancellable with Cancel() from another thread.
  absl::StatusOr<v1::Assignment> FindTable(const v1::FindTableRequest& request,
                                           const std::function<void(const v1::Queued&)>& queued,
                                           absl::Duration timeout);
  absl::StatusOr<v1::Rating> RatingOf(const std::string& player_id, const v1::Mode& mode);
  absl::StatusOr<v1::Balance> BalanceOf(const std::string& player_id);
  // Waits until the ratings service has rated `game_id` for `player_id`.
  absl::StatusOr<v1::RatingChange> WaitRated(const std::string& player_id,
                                             const v1::Mode& mode, const std::string& game_id,
                                             absl::Duration timeout);

 private:
  std::unique_ptr<grpc::ClientContext> Context(absl::Duration deadline) const;

  const std::unique_ptr<v1::MatchmakingService::Stub> matchmaking_;
  const std::unique_ptr<v1::RatingsService::Stub> ratings_;
  const std::string service_token_;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_COMMON_LOBBY_H_
