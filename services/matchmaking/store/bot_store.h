// What the bot roster (bot_roster.h) needs from durable storage, as interfaces,
// so that it can be tested without PostgreSQL (testing/memory_bot_store.h) and
// run in production on it: every replica's bot streams (SharedBotStreams;
// PostgresBotStreams in postgres_bot_streams.h, mm_bot_streams), and the seats given to its
// accounts (BotSeatStore in ticket_store.h; TicketStore, mm_assignments). The fake's streams keep
// the same contract, which store/bot_streams_contract_test.cc checks on both.
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_BOT_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_BOT_STORE_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/matchmaking/matcher.h"
#include "services/matchmaking/ticket_store.h"

namespace trix::matchmaking {

// One replica's view of every replica's bot streams.
class SharedBotStreams {
 public:
  virtual ~SharedBotStreams() = default;

  virtual absl::Status Open(const std::string& stream_id, const BotAccount& bot,
                            const std::set<std::string>& modes, int room) = 0;
  virtual absl::Status Close(const std::string& stream_id) = 0;
  // Writes the room of each of this replica's streams (stream id, room) and their
  // heartbeat; removes the rows of replicas silent for a minute.
  virtual absl::Status Heartbeat(const std::vector<std::pair<std::string, int>>& rooms) = 0;
  // A seat of `mode` on another replica's live stream with room, of a live
  // account not in `taken` and, unless `level` is "", of that level (the one
  // given a seat least recently, then the stream with the most room), its room
  // lowered by one; nullopt when there is none.
  virtual absl::StatusOr<std::optional<BotSeat>> ReserveElsewhere(
      const std::string& mode, const std::vector<std::string>& taken,
      const std::string& level = "") = 0;
  // The key hash in force of each of `bot_ids` that is not revoked: an account
  // missing from the answer was revoked, one with another hash had its key
  // rotated.
  virtual absl::StatusOr<std::map<std::string, std::string>> KeysInForce(
      const std::vector<std::string>& bot_ids) = 0;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_BOT_STORE_H_
