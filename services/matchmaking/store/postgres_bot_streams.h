// The bot streams of every matchmaking replica, as PostgreSQL holds them
// (mm_bot_streams, migration 0023): what lets a pool's matcher, on whichever
// replica leases the pool, seat a bot that is connected to another replica.
//
// The roster (bot_roster.h) of each replica writes its own streams here: one row per
// open stream, and every second each stream's room with a heartbeat. When none of
// the replica's own streams has room for a seat, ReserveElsewhere takes a seat from
// another replica's live stream with room, lowering its room in the same statement,
// so that two matchers never take the last seat of a stream together. The stream's
// own replica learns of the seat from the committed assignment.
//
//   PostgresBotStreams streams(&db, replica_id);
//   streams.Open(stream_id, bot, {"complex-partner"}, 2);
//   streams.Heartbeat({{stream_id, 1}});
//   auto seat = streams.ReserveElsewhere("complex-partner", {"bot-already-seated"});
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_BOT_STREAMS_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_BOT_STREAMS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/matchmaking/matcher.h"
#include "services/matchmaking/store/bot_store.h"
#include "services/matchmaking/ticket_store.h"
#include "services/pg/connection_pool.h"

namespace trix::matchmaking {

class PostgresBotStreams : public SharedBotStreams {
 public:
  // `live_for`: how long after its last heartbeat a stream still counts.
  PostgresBotStreams(pg::ConnectionPool* db, std::string replica,
             absl::Duration live_for = absl::Seconds(5));

  const std::string& replica() const { return replica_; }

  absl::Status Open(const std::string& stream_id, const BotAccount& bot,
                    const std::set<std::string>& modes, int room) override;
  absl::Status Close(const std::string& stream_id) override;
  absl::Status Heartbeat(const std::vector<std::pair<std::string, int>>& rooms) override;
  absl::StatusOr<std::optional<BotSeat>> ReserveElsewhere(
      const std::string& mode, const std::vector<std::string>& taken,
      const std::string& level) override;
  // From mm_bots.
  absl::StatusOr<std::map<std::string, std::string>> KeysInForce(
      const std::vector<std::string>& bot_ids) override;

 private:
  pg::ConnectionPool* db_;
  const std::string replica_;
  const absl::Duration live_for_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_BOT_STREAMS_H_
