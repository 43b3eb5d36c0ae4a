// What the lobby and the gRPC service need from durable storage for tickets,
// the seats made from them, parties and bot accounts, as an interface, so that
// the lobby can be tested without PostgreSQL (testing/memory_ticket_store.h)
// and run in production on PostgreSQL (postgres_ticket_store.h). Both keep the
// same contract, which store/ticket_store_contract_test.cc checks against each.
// Every replica reads and writes the same rows, so whatever one replica knows
// survives its death.
//
// The calls take batches: the lobby's admission and cancellation gather the
// requests of a few milliseconds into one call each, which is how the queue
// keeps up with thousands of tickets a second on one database.
//
//   absl::StatusOr<Admitted> admitted = store->Admit(rows);  // supersedes, inserts or resumes
//   absl::StatusOr<std::vector<TicketRow>> cancelled = store->Cancel({ticket_id});
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_TICKET_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_TICKET_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/matchmaking/ticket_store.h"

namespace trix::matchmaking {

class TicketStore : public BotSeatStore {
 public:
  // Queues `rows` (ticket_id set by the caller). A player's older live ticket is
  // superseded unless it has the same request_id, in which case it is resumed; a
  // ticket being placed is resumed whatever its request. A player who holds a live
  // assignment gets it back instead of a ticket: the check and the insert are one
  // transaction that holds the player's live tickets locked, and the matcher's
  // commit of assignments locks those tickets too, so a player never holds both.
  // Rows of the same player within one batch: the last one wins, the others are
  // reported superseded.
  virtual absl::StatusOr<Admitted> Admit(const std::vector<TicketRow>& rows) = 0;
  // Cancels the tickets still waiting; returns those it cancelled (with holds).
  // A cancelled ticket's hold is recorded for release (HoldReleaseStore), as a
  // superseded one's is.
  virtual absl::StatusOr<std::vector<TicketRow>> Cancel(const std::vector<std::string>& ids) = 0;
  // The tickets' rows (any status).
  virtual absl::StatusOr<std::vector<TicketRow>> Tickets(const std::vector<std::string>& ids) = 0;
  // The waiting ticket, staked at `stake`, carries `hold_id` instead of its own
  // hold (which is over); false when no such ticket waits.
  virtual absl::StatusOr<bool> CarryHold(const std::string& ticket_id,
                                         const std::string& hold_id, int64_t stake) = 0;
  // Supersedes the ticket if it still waits (not yet being placed); whether it did.
  virtual absl::StatusOr<bool> SupersedeWaiting(const std::string& ticket_id) = 0;
  // The live (waiting or placing) tickets of these players that carry a stake hold.
  virtual absl::StatusOr<std::vector<TicketRow>> HeldTicketsOf(
      const std::vector<std::string>& player_ids) = 0;

  // The live (unfinished) assignments of a player or bot account, newest first.
  virtual absl::StatusOr<std::vector<AssignmentRow>> LiveAssignments(
      const std::string& player_id) = 0;
  // The live assignments of these players, any order.
  virtual absl::StatusOr<std::vector<AssignmentRow>> LiveAssignmentsOf(
      const std::vector<std::string>& player_ids) = 0;
  // Every staked person's seat at a game not known to be over.
  virtual absl::StatusOr<std::vector<AssignmentRow>> LiveStakedAssignments() = 0;
  virtual absl::StatusOr<std::vector<AssignmentRow>> AssignmentsOfTickets(
      const std::vector<std::string>& ticket_ids) = 0;
  // Deletes, at most `limit` of each, the tickets that ended (matched, cancelled,
  // superseded), the assignments of finished games and the parties past their
  // expiry, when `keep` has passed since; and any assignment made over a day ago
  // (migration 0024). Returns how many rows went.
  virtual absl::StatusOr<int64_t> SweepEnded(absl::Duration keep, int limit) = 0;

  // A player is a member of one live (unexpired) party at most: creating or
  // joining another is FAILED_PRECONDITION naming the one they are in.
  virtual absl::Status CreateParty(const PartyRow& party) = 0;
  // FAILED_PRECONDITION when full or expired, NOT_FOUND for an unknown code.
  virtual absl::StatusOr<PartyRow> JoinParty(const std::string& code,
                                             const std::string& player_id) = 0;
  // NOT_FOUND for an unknown party, FAILED_PRECONDITION for an expired one.
  virtual absl::StatusOr<PartyRow> Party(const std::string& party_id) = 0;
  // NOT_FOUND for an unknown party, PERMISSION_DENIED for one the player is not in.
  virtual absl::Status LeaveParty(const std::string& party_id,
                                  const std::string& player_id) = 0;

  // ALREADY_EXISTS for a taken name.
  virtual absl::Status RegisterBot(const BotAccount& bot, const std::string& key_hash) = 0;
  // The account with its new key; NOT_FOUND for an unknown or revoked bot.
  virtual absl::StatusOr<BotAccount> SetBotKey(const std::string& bot_id,
                                               const std::string& key_hash) = 0;
  // NOT_FOUND for an unknown bot.
  virtual absl::Status RevokeBot(const std::string& bot_id) = 0;
  // NOT_FOUND unless the hash names a live account.
  virtual absl::StatusOr<BotAccount> BotByKeyHash(const std::string& key_hash) = 0;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_TICKET_STORE_H_
