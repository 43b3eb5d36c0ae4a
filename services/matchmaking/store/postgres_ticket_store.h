// TicketStore on PostgreSQL (migrations 0008, 0012, 0024, 0033): mm_tickets,
// mm_assignments, mm_parties and mm_bots, batched. Its pool is the service's
// shared connections (the other PostgreSQL stores run on it too).
//
//   PostgresTicketStore store(url, 4, SeatTokens(key));
//   absl::StatusOr<Admitted> admitted = store.Admit(rows);
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_TICKET_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_TICKET_STORE_H_

#include <cstdint>
#include <pqxx/row>
#include <pqxx/transaction_base>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/matchmaking/seat_tokens.h"
#include "services/matchmaking/store/ticket_store.h"
#include "services/pg/connection_pool.h"
#include "services/pg/array.h"

namespace trix::matchmaking {

class PostgresTicketStore : public TicketStore {
 public:
  // `seat_tokens` gives the assignments read their seats' tokens.
  PostgresTicketStore(std::string url, int connections, SeatTokens seat_tokens);

  absl::StatusOr<Admitted> Admit(const std::vector<TicketRow>& rows) override;
  absl::StatusOr<std::vector<TicketRow>> Cancel(const std::vector<std::string>& ids) override;
  absl::StatusOr<std::vector<TicketRow>> Tickets(const std::vector<std::string>& ids) override;
  absl::StatusOr<bool> CarryHold(const std::string& ticket_id, const std::string& hold_id,
                                 int64_t stake) override;
  absl::StatusOr<bool> SupersedeWaiting(const std::string& ticket_id) override;
  absl::StatusOr<std::vector<TicketRow>> HeldTicketsOf(
      const std::vector<std::string>& player_ids) override;

  absl::StatusOr<std::vector<AssignmentRow>> LiveAssignments(
      const std::string& player_id) override;
  absl::StatusOr<std::vector<AssignmentRow>> LiveAssignmentsOf(
      const std::vector<std::string>& player_ids) override;
  absl::StatusOr<std::vector<AssignmentRow>> LiveAssignmentsOfStreams(
      const std::vector<std::string>& stream_ids) override;
  absl::StatusOr<std::vector<AssignmentRow>> LiveStakedAssignments() override;
  absl::StatusOr<std::vector<AssignmentRow>> AssignmentsOfTickets(
      const std::vector<std::string>& ticket_ids) override;
  absl::Status MarkFinished(const std::string& table_id) override;
  absl::StatusOr<int64_t> SweepEnded(absl::Duration keep, int limit) override;

  absl::Status CreateParty(const PartyRow& party) override;
  absl::StatusOr<PartyRow> JoinParty(const std::string& code,
                                     const std::string& player_id) override;
  absl::StatusOr<PartyRow> Party(const std::string& party_id) override;
  absl::Status LeaveParty(const std::string& party_id, const std::string& player_id) override;

  absl::Status RegisterBot(const BotAccount& bot, const std::string& key_hash) override;
  absl::StatusOr<BotAccount> SetBotKey(const std::string& bot_id,
                                       const std::string& key_hash) override;
  absl::Status RevokeBot(const std::string& bot_id) override;
  absl::StatusOr<BotAccount> BotByKeyHash(const std::string& key_hash) override;

  pg::ConnectionPool& pool() { return pool_; }
  const SeatTokens& seat_tokens() const { return seat_tokens_; }

 private:
  // An assignment from a row that selected kAssignmentColumns.
  AssignmentRow ReadAssignment(const pqxx::row& r) const;
  // The live tickets and live seats (the newest wins) of `players`, read in `tx`.
  void ReadLiveOf(pqxx::transaction_base& tx, const std::vector<std::string>& players,
                  absl::flat_hash_map<std::string, std::string>* live,
                  absl::flat_hash_map<std::string, AssignmentRow>* seat) const;

  pg::ConnectionPool pool_;
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
pg::PgArray TextArray(const std::vector<std::string>& values);

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_TICKET_STORE_H_
