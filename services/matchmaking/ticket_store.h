// Matchmaking's shared state as rows: tickets, the assignments made from them,
// parties and bot accounts. The store that keeps them is store/ticket_store.h
// (TicketStore; on PostgreSQL, store/postgres_ticket_store.h).
#ifndef TRIX_SERVICES_MATCHMAKING_TICKET_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_TICKET_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/matchmaking/seat_tokens.h"

namespace trix::matchmaking {

struct TicketRow {
  std::string ticket_id;
  std::string request_id;
  std::string player_id;
  std::string display_name;
  std::string pool;
  int team = 0;
  int format = 0;
  int64_t stake = 0;
  int rating = 0;
  bool provisional = false;
  std::string party_id;  // "" when alone
  std::string hold_id;   // "" when free
  std::string status;
  absl::Time queued;
  int64_t seq = 0;
};

struct AssignmentRow {
  std::string table_id;
  int seat = 0;
  std::string player_id;
  std::string ticket_id;  // "" for a bot's seat
  bool bot = false;
  std::string address;
  std::string seat_token;  // derived on reading (seat_tokens.h), never stored
  // The placement the token is derived from; "" for a row of a release that
  // stored its token (kept as it is; migration 0032).
  std::string placement_id;
  int team = 0;
  int format = 0;
  int64_t stake = 0;
  absl::Time possible;
  absl::Time matched;
  std::string bot_stream;  // the bot stream the seat was given to; "" for people
};

struct AdmitOutcome {
  std::string ticket_id;  // the new ticket, or the live one a retry resumed
  bool resumed = false;
  // The player's live seat (newest) when they hold one: no ticket was queued.
  std::optional<AssignmentRow> assigned;
};

struct Admitted {
  std::vector<AdmitOutcome> outcomes;  // one per row given, in order
  std::vector<TicketRow> superseded;   // older live tickets these replaced
};

struct BotAccount {
  std::string bot_id;
  std::string name;
  std::string owner;
  std::vector<std::string> modes;  // mode names
  std::string level;               // "beginner" ... "expert", "" when not given
  bool revoked = false;
};

struct PartyRow {
  std::string party_id;
  std::string code;
  std::vector<std::string> members;
  absl::Time expires;
};

// The seats given to bot streams, as the bot roster reads and finishes them
// (an interface for its tests: store/bot_store.h).
class BotSeatStore {
 public:
  virtual ~BotSeatStore() = default;

  // The live assignments given to these bot streams.
  virtual absl::StatusOr<std::vector<AssignmentRow>> LiveAssignmentsOfStreams(
      const std::vector<std::string>& stream_ids) = 0;
  // The table's game is over: its assignments are no longer live.
  virtual absl::Status MarkFinished(const std::string& table_id) = 0;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TICKET_STORE_H_
