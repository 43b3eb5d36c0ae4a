// Tickets, seats, parties and bot accounts in memory (store/ticket_store.h), for
// the lobby's tests: admission as PostgresTicketStore does it (a player's last
// request wins, a live seat instead of a ticket, a ticket being placed resumed),
// cancellation, the holds tickets carry, parties and accounts. Seat and Claim
// do what the matcher's commit and claim do to the rows. A ticket that ends
// unplayed (cancelled, superseded) with a hold tells the hold releases
// (SetHoldEnded; MemoryHoldReleaseStore listens), as the trigger on mm_tickets
// does.
//
//   MemoryTicketStore tickets;
//   MemoryHoldReleaseStore releases(&tickets);
//   Lobby lobby(options, &tickets, ...);
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_TICKET_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_TICKET_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "services/matchmaking/store/ticket_store.h"

namespace trix::matchmaking {

class MemoryTicketStore : public TicketStore {
 public:
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

  // The matcher's claim: the waiting ticket is being placed.
  void Claim(const std::string& ticket_id);
  // The matcher's commit of a seat: the row inserted, its ticket (if any) matched.
  void Seat(const AssignmentRow& seat);
  // Called (under the store's lock) with the hold and the new status of each
  // ticket that ends unplayed carrying a hold.
  void SetHoldEnded(std::function<void(const std::string& hold_id, const std::string& status)>
                        hold_ended);
  // For the hold releases: every ticket with its last change; and the seats of
  // `table_id` finished, returning the holds of its staked seats' tickets.
  std::vector<std::pair<TicketRow, absl::Time>> AllTickets() const;
  std::vector<std::string> FinishSeats(const std::string& table_id);

 private:
  struct StoredTicket {
    TicketRow row;
    absl::Time changed;
  };
  struct StoredSeat {
    AssignmentRow row;
    bool finished = false;
  };
  struct StoredBot {
    BotAccount bot;
    std::string key_hash;
  };
  // The ticket's status changes (a hold's end reported).
  void SetStatus(StoredTicket& t, const std::string& status);
  bool LiveTicket(const std::string& player_id, std::string* ticket_id) const;
  const AssignmentRow* NewestSeat(const std::string& player_id) const;
  // The live party `player_id` is in, other than `except`: "" when none.
  std::string PartyOf(const std::string& player_id, const std::string& except) const;

  mutable std::mutex mu_;
  std::map<std::string, StoredTicket> tickets_;  // by ticket id
  std::vector<StoredSeat> seats_;
  std::map<std::string, PartyRow> parties_;  // by party id
  std::map<std::string, StoredBot> bots_;    // by bot id
  int64_t seq_ = 0;
  std::function<void(const std::string&, const std::string&)> hold_ended_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_TICKET_STORE_H_
