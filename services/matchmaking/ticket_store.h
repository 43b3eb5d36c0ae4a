// Matchmaking's shared state in PostgreSQL (migrations 0008, 0012): tickets, the
// assignments made from them, parties and bot accounts. Every replica reads and
// writes the same rows, so whatever one replica knows survives its death.
//
// The calls take batches: the service's admission and cancellation writers gather
// the requests of a few milliseconds into one transaction each, which is how the
// queue keeps up with thousands of tickets a second on one database.
//
//   TicketStore store(url, 4, SeatTokens(key));
//   auto outcomes = store.Admit(rows);        // supersedes, inserts or resumes
//   auto cancelled = store.Cancel({ticket_id});
#ifndef TRIX_SERVICES_MATCHMAKING_TICKET_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_TICKET_STORE_H_

#include <cstdint>
#include <optional>
#include <pqxx/row>
#include <pqxx/transaction_base>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/matchmaking/seat_tokens.h"
#include "services/storage/connection_pool.h"
#include "services/storage/pg_array.h"

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

class TicketStore : public BotSeatStore {
 public:
  // `seat_tokens` gives the assignments read their seats' tokens.
  TicketStore(std::string url, int connections, SeatTokens seat_tokens);

  // Queues `rows` (ticket_id set by the caller). A player's older live ticket is
  // superseded unless it has the same request_id, in which case it is resumed; a
  // ticket being placed is resumed whatever its request. A player who holds a live
  // assignment gets it back instead of a ticket: the check and the insert are one
  // transaction that holds the player's live tickets locked, and the matcher's
  // commit of assignments locks those tickets too, so a player never holds both.
  // Rows of the same player within one batch: the last one wins, the others are
  // reported superseded.
  absl::StatusOr<Admitted> Admit(const std::vector<TicketRow>& rows);
  // Cancels the tickets still waiting; returns those it cancelled (with holds).
  absl::StatusOr<std::vector<TicketRow>> Cancel(const std::vector<std::string>& ids);
  // The tickets' rows (any status).
  absl::StatusOr<std::vector<TicketRow>> Tickets(const std::vector<std::string>& ids);
  // The waiting ticket, staked at `stake`, carries `hold_id` instead of its own
  // hold (which is over); false when no such ticket waits.
  absl::StatusOr<bool> CarryHold(const std::string& ticket_id, const std::string& hold_id,
                                 int64_t stake);
  // Supersedes the ticket if it still waits (not yet being placed); whether it did.
  absl::StatusOr<bool> SupersedeWaiting(const std::string& ticket_id);
  // The live (waiting or placing) tickets of these players that carry a stake hold.
  absl::StatusOr<std::vector<TicketRow>> HeldTicketsOf(
      const std::vector<std::string>& player_ids);

  // The live (unfinished) assignments of a player or bot account, newest first.
  absl::StatusOr<std::vector<AssignmentRow>> LiveAssignments(
      const std::string& player_id);
  // The live assignments of these players, any order.
  absl::StatusOr<std::vector<AssignmentRow>> LiveAssignmentsOf(
      const std::vector<std::string>& player_ids);
  absl::StatusOr<std::vector<AssignmentRow>> LiveAssignmentsOfStreams(
      const std::vector<std::string>& stream_ids) override;
  // Every staked person's seat at a game not known to be over.
  absl::StatusOr<std::vector<AssignmentRow>> LiveStakedAssignments();
  absl::StatusOr<std::vector<AssignmentRow>> AssignmentsOfTickets(
      const std::vector<std::string>& ticket_ids);
  absl::Status MarkFinished(const std::string& table_id) override;
  // Deletes, at most `limit` of each, the tickets that ended (matched, cancelled,
  // superseded), the assignments of finished games and the parties past their
  // expiry, when `keep` has passed since; and any assignment made over a day ago
  // (migration 0024). Returns how many rows went.
  absl::StatusOr<int64_t> SweepEnded(absl::Duration keep, int limit);

  // A player is a member of one live (unexpired) party at most: creating or
  // joining another is FAILED_PRECONDITION naming the one they are in.
  absl::Status CreateParty(const PartyRow& party);
  // FAILED_PRECONDITION when full or expired, NOT_FOUND for an unknown code.
  absl::StatusOr<PartyRow> JoinParty(const std::string& code, const std::string& player_id);
  absl::StatusOr<PartyRow> Party(const std::string& party_id);
  // NOT_FOUND for an unknown party, PERMISSION_DENIED for one the player is not in.
  absl::Status LeaveParty(const std::string& party_id, const std::string& player_id);

  // ALREADY_EXISTS for a taken name.
  absl::Status RegisterBot(const BotAccount& bot, const std::string& key_hash);
  // NOT_FOUND for an unknown or revoked bot.
  absl::Status SetBotKey(const std::string& bot_id, const std::string& key_hash);
  absl::Status RevokeBot(const std::string& bot_id);
  // NOT_FOUND unless the hash names a live account.
  absl::StatusOr<BotAccount> BotByKeyHash(const std::string& key_hash);

  storage::ConnectionPool& pool() { return pool_; }
  const SeatTokens& seat_tokens() const { return seat_tokens_; }

 private:
  // An assignment from a row that selected kAssignmentColumns.
  AssignmentRow ReadAssignment(const pqxx::row& r) const;
  // The live tickets and live seats (the newest wins) of `players`, read in `tx`.
  void ReadLiveOf(pqxx::transaction_base& tx, const std::vector<std::string>& players,
                  absl::flat_hash_map<std::string, std::string>* live,
                  absl::flat_hash_map<std::string, AssignmentRow>* seat) const;

  storage::ConnectionPool pool_;
  const SeatTokens seat_tokens_;
};

// The columns ReadTicket reads, in its order: select them to read tickets (the
// ticket store and the match store both do).
inline constexpr char kTicketColumns[] =
    "ticket_id, request_id, player_id, display_name, pool, team, format, stake, "
    "rating, provisional, coalesce(party_id, ''), coalesce(hold_id, ''), status, "
    "extract(epoch from queued)::float8, seq";
inline constexpr char kAssignmentColumns[] =
    "table_id, seat, player_id, coalesce(ticket_id, ''), bot, address, seat_token, "
    "team, format, stake, extract(epoch from possible)::float8, "
    "extract(epoch from matched)::float8, coalesce(bot_stream, ''), "
    "coalesce(placement_id, '')";


// A ticket from a row that selected kTicketColumns.
TicketRow ReadTicket(const pqxx::row& r);
// `values` as a text[] parameter (bound with `$n::text[]`).
storage::PgArray TextArray(const std::vector<std::string>& values);

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TICKET_STORE_H_
