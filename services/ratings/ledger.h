// The double-entry ledger of staked play: player accounts with integer balances,
// the "world" account that money from and to outside moves through, one pot
// account per staked game, the journal (entries whose lines sum to zero, checked
// again by the database at commit), and stake holds.
//
// A player's balance is the sum of their account's lines; held is the sum of their
// open holds (held or attached); available = balance - held is what a debit or a
// new hold may take. No player balance, and no available balance, ever goes
// negative: every movement checks first, and the schema's CHECKs stand behind it.
//
// Settlement of a staked game (from the outbox, in the consumer's transaction) is
// all or nothing. Each staking seat's stake comes from the hold attached to that
// table and seat; when there is none (or it is smaller than the stake, or belongs
// to another player) the rest is taken from the player's available balance. If some
// staker cannot cover their stake that way, or the result's payouts are unusable
// (not whole numbers, not summing to the pot, paid to a seat that did not stake),
// nothing moves: the game is recorded as unsettled with the reason, its holds stay
// attached (the money stays reserved for an operator to resolve), and a metric and
// a log line say so. Otherwise one STAKE entry moves every stake into the pot, the
// holds become settled, and one PAYOUT entry empties the pot into the payouts.
//
//   Ledger ledger(&pool);
//   absl::StatusOr<Transfer> t = ledger.Move(EntryKind::kCredit, "req-1", "p1", 500, "");
//   absl::StatusOr<HoldInfo> h = ledger.HoldStake("ticket-9", "p1", 100);
#ifndef TRIX_SERVICES_RATINGS_LEDGER_H_
#define TRIX_SERVICES_RATINGS_LEDGER_H_

#include <cstdint>
#include <pqxx/transaction>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/ratings/game_result.h"
#include "services/storage/connection_pool.h"

namespace trix::ratings {

// The EntryKind and HoldState numbers of ratings.proto.
enum class EntryKind : int { kCredit = 1, kDebit = 2, kStake = 3, kPayout = 4 };
enum class HoldState : int { kHeld = 1, kAttached = 2, kReleased = 3, kSettled = 4 };

struct BalanceInfo {
  std::string player_id;
  int64_t balance = 0;
  int64_t held = 0;
  int64_t available() const { return balance - held; }
};

struct Transfer {
  int64_t entry_id = 0;
  BalanceInfo balance;
};

struct HoldInfo {
  std::string hold_id;
  std::string player_id;
  int64_t amount = 0;
  HoldState state = HoldState::kHeld;
  std::string table_id;
  int seat = 0;
};

struct StatementEntry {
  int64_t entry_id = 0;
  EntryKind kind = EntryKind::kCredit;
  int64_t amount = 0;
  int64_t balance_after = 0;
  std::string game_id;
  std::string reason;
  absl::Time time;
};

struct StatementPage {
  std::vector<StatementEntry> lines;
  std::string next_page_token;
};

// What settling a game did: "unstaked", "settled" or "unsettled" (note says why).
struct Settlement {
  std::string outcome;
  std::string note;
};

std::string PlayerAccount(const std::string& player_id);

class Ledger {
 public:
  explicit Ledger(storage::ConnectionPool* pool) : pool_(pool) {}

  // A credit (money in) or debit (money out) of a player's account through the
  // world account, idempotent by request_id. A credit opens the account. A debit
  // beyond the available balance is FAILED_PRECONDITION; of an account never
  // credited NOT_FOUND. The same request_id with other arguments is ALREADY_EXISTS.
  absl::StatusOr<Transfer> Move(EntryKind kind, const std::string& request_id,
                                const std::string& player_id, int64_t amount,
                                const std::string& reason);
  absl::StatusOr<BalanceInfo> GetBalance(const std::string& player_id);
  // Newest first; page_size 1..500 (0: 50).
  absl::StatusOr<StatementPage> GetStatement(const std::string& player_id, int page_size,
                                             const std::string& page_token);

  absl::StatusOr<HoldInfo> HoldStake(const std::string& request_id,
                                     const std::string& player_id, int64_t amount);
  absl::StatusOr<HoldInfo> ReleaseHold(const std::string& hold_id);
  absl::StatusOr<HoldInfo> AttachHold(const std::string& hold_id, const std::string& table_id,
                                      int seat);

  // Settles `game` inside the caller's transaction (see the file comment). Throws
  // what libpqxx throws.
  static Settlement Settle(pqxx::work& tx, const FinishedGame& game);

 private:
  storage::ConnectionPool* const pool_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_LEDGER_H_
