// The bot roster's storage in memory (store/bot_store.h), for its tests:
// MemoryBotDatabase is what every replica shares (bot accounts, bot streams,
// seats given to them), MemoryBotStreams one replica's view of its streams, with
// PostgresBotStreams' contract (store/bot_streams_contract_test.cc runs the same checks
// on both). A stream needs a registered account; a seat is lent from another
// replica's live stream with room, of a live account, the account given one
// least recently first.
//
//   MemoryBotDatabase db;
//   db.AddBot({.bot_id = "b1", .name = "B1"}, "hash");
//   MemoryBotStreams here(&db, "replica-a"), there(&db, "replica-b");
//   BotRoster roster(keep_alive, game_over, &db, &here);
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_BOT_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_BOT_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "services/matchmaking/store/bot_store.h"

namespace trix::matchmaking {

class MemoryBotDatabase : public BotSeatStore {
 public:
  void AddBot(const BotAccount& bot, const std::string& key_hash);
  void Revoke(const std::string& bot_id);
  void SetKey(const std::string& bot_id, const std::string& key_hash);
  // A seat given to a bot stream (its bot_stream), live until its table is
  // finished.
  void Seat(const AssignmentRow& seat);
  // Every stream's heartbeat made `age` older (their replicas fell silent).
  void Silence(absl::Duration age);

  absl::StatusOr<std::vector<AssignmentRow>> LiveAssignmentsOfStreams(
      const std::vector<std::string>& stream_ids) override;
  absl::Status MarkFinished(const std::string& table_id) override;

  // The streams of `replica`, with their room as last written.
  std::map<std::string, int> Rooms(const std::string& replica) const;
  std::set<std::string> finished() const;

 private:
  friend class MemoryBotStreams;
  struct Account {
    BotAccount bot;
    std::string key_hash;
  };
  struct StreamRow {
    std::string replica, bot_id;
    std::set<std::string> modes;
    int room = 0;
    absl::Time heartbeat;
    uint64_t given = 0;  // when last lent (a count of seats lent); 0: never
  };
  // The least recently lent account's stream, then the one with the most room,
  // among those `fits`; "" for none.
  std::string Lendable(const std::function<bool(const StreamRow&)>& fits);

  mutable std::mutex mu_;
  std::map<std::string, Account> accounts_;
  std::map<std::string, StreamRow> streams_;
  std::vector<AssignmentRow> seats_;
  std::set<std::string> finished_;
  uint64_t lent_ = 0;
};

class MemoryBotStreams : public SharedBotStreams {
 public:
  MemoryBotStreams(MemoryBotDatabase* db, std::string replica,
                   absl::Duration live_for = absl::Seconds(5));

  absl::Status Open(const std::string& stream_id, const BotAccount& bot,
                    const std::set<std::string>& modes, int room) override;
  absl::Status Close(const std::string& stream_id) override;
  absl::Status Heartbeat(const std::vector<std::pair<std::string, int>>& rooms) override;
  absl::StatusOr<std::optional<BotSeat>> ReserveElsewhere(
      const std::string& mode, const std::vector<std::string>& taken,
      const std::string& level) override;
  absl::StatusOr<std::map<std::string, std::string>> KeysInForce(
      const std::vector<std::string>& bot_ids) override;

 private:
  MemoryBotDatabase* const db_;
  const std::string replica_;
  const absl::Duration live_for_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_BOT_STORE_H_
