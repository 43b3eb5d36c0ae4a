// The double-entry ledger of staked play: player accounts with integer balances,
// the world accounts that money from and to outside moves through (world:0 ..
// world:15, a player's always the same one, so that concurrent credits and debits
// do not queue on one row; "world" holds what moved before they existed), one pot
// account per staked game, the journal (entries whose lines sum to zero, checked
// again by the database at commit), and stake holds.
//
// A player's balance is the sum of their account's lines; held is the sum of their
// open holds (held or attached); available = balance - held is what a debit or a
// new hold may take. No player balance, and no available balance, ever goes
// negative: every movement checks first, and the schema's CHECKs stand behind it.
// A credit or debit moves at most max_transfer, and a credit may not take a balance
// above max_balance (winnings may).
//
// A stake moves only through its hold. A hold is HELD (a queued ticket), ATTACHED
// (matched to a table and seat), then SETTLED by that table's result or RELEASED
// (cancelled, the table voided, or past its TTL: HELD 15 min, ATTACHED 6 h by
// default, released by ReleaseExpiredHolds). A HELD hold's TTL counts from the
// last KeepHold: matchmaking keeps the hold of a ticket for as long as it waits.
//
// Settlement of a finished staked game (from the outbox, in the consumer's
// transaction): a staked seat settles only against the hold attached to that table
// and seat, of the same player and the same amount. A seat without one is "unheld":
// it neither pays nor receives, and the pot is the held seats' stakes, split by the
// engine's rule (engine/result.h) as if the unheld seats had not staked; the game
// is recorded "unheld" with the seats and why. Every other hold attached to the
// table is released. When the result's payouts are unusable (not whole numbers, not
// summing to the pot, paid to a seat that did not stake) nothing moves: "unsettled",
// the holds stay attached until their TTL. Otherwise those holds leave `held`, one
// STAKE entry moves the held stakes into the pot (in that order, so that a stake of
// a whole balance keeps held <= balance), the holds become settled, and one PAYOUT
// entry empties the pot. A voided table moves nothing and releases every hold
// attached to it.
//
// The rules live here; the accounts, journal and holds in a LedgerStore
// (store/ledger_store.h: PostgreSQL, or in memory for tests).
//
//   PostgresLedgerStore store(&pool);
//   Ledger ledger(&store);
//   absl::StatusOr<Transfer> t = ledger.Move(EntryKind::kCredit, "req-1", "p1", 500, "");
//   absl::StatusOr<HoldInfo> h = ledger.HoldStake("ticket-9", "p1", 100);
#ifndef TRIX_SERVICES_RATINGS_LEDGER_H_
#define TRIX_SERVICES_RATINGS_LEDGER_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/ratings/game_result.h"

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

// What settling a game did: "unstaked", "settled", "unheld" (some staked seats had
// no hold; note names them), "unsettled" (nothing moved; note says why) or
// "voided" (note: the reason).
struct Settlement {
  std::string outcome;
  std::string note;
  int unheld_seats = 0;    // staked seats that settled nothing for want of a hold
  int released_holds = 0;  // holds attached to the table given back
  bool moved = false;      // a STAKE and a PAYOUT entry were written
};

// What settling a finished game moves, decided from the game and the holds
// attached to its table without the database: the settlement's outcome (its
// released_holds and moved are known once it is written), the stake each seat's
// hold backs (0: none), and the lines of the STAKE entry (the held stakes into the
// pot) and of the PAYOUT entry (the pot to the winners), account -> amount, each
// entry's lines summing to zero. A voided game plans no lines: every hold attached
// to its table is released.
struct SettlementPlan {
  Settlement settlement;
  std::array<int64_t, kSeats> held{};
  std::map<std::string, int64_t> stakes, payouts;
};

// The plan of `game` against `holds`, the holds attached to its table (see the file
// comment for the rules).
SettlementPlan PlanSettlement(const FinishedGame& game,
                              const std::vector<HoldInfo>& holds);
// The holds a staked game's settlement expects: each staked seat's own, of its
// player and its stake, attached to the game's table and seat (no hold ids).
std::vector<HoldInfo> ExpectedHolds(const FinishedGame& game);

struct LedgerOptions {
  int64_t max_transfer = 1'000'000'000'000;   // per credit or debit (10^12 units)
  int64_t max_balance = 10'000'000'000'000;   // a credit's ceiling (10^13 units)
  absl::Duration held_ttl = absl::Minutes(15);
  absl::Duration attached_ttl = absl::Hours(6);
};

// The open holds: the age of the oldest (since it was placed; 0 when none) and how
// many are past their TTL (the sweep releases them).
struct OpenHolds {
  double oldest_seconds = 0;
  int64_t past_ttl = 0;
};

std::string PlayerAccount(const std::string& player_id);
std::string PotAccount(const std::string& game_id);

class LedgerStore;
class LedgerTransaction;

class Ledger {
 public:
  // `store` outlives the ledger.
  explicit Ledger(LedgerStore* store, LedgerOptions options = {})
      : store_(store), options_(options) {}

  // A credit (money in) or debit (money out) of a player's account through the
  // world account, idempotent by request_id. A credit opens the account. A debit
  // beyond the available balance is FAILED_PRECONDITION; of an account never
  // credited NOT_FOUND. The same request_id with other arguments is ALREADY_EXISTS.
  // An amount above max_transfer is INVALID_ARGUMENT; a credit that would take the
  // balance above max_balance FAILED_PRECONDITION.
  absl::StatusOr<Transfer> Move(EntryKind kind, const std::string& request_id,
                                const std::string& player_id, int64_t amount,
                                const std::string& reason);
  absl::StatusOr<BalanceInfo> GetBalance(const std::string& player_id);
  // Newest first; page_size 1..500 (0: 50).
  absl::StatusOr<StatementPage> GetStatement(const std::string& player_id, int page_size,
                                             const std::string& page_token);

  // `replaces_hold_id` (optional): a held hold of the player's released in the
  // same transaction (HoldStakeRequest.replaces_hold_id).
  absl::StatusOr<HoldInfo> HoldStake(const std::string& request_id,
                                     const std::string& player_id, int64_t amount,
                                     const std::string& replaces_hold_id = "");
  // A HELD hold is released whatever table_id says; an ATTACHED one only when
  // table_id names its table (FAILED_PRECONDITION otherwise). Releasing a released
  // hold is a no-op; a settled one FAILED_PRECONDITION.
  absl::StatusOr<HoldInfo> ReleaseHold(const std::string& hold_id,
                                       const std::string& table_id = "");
  absl::StatusOr<HoldInfo> AttachHold(const std::string& hold_id, const std::string& table_id,
                                      int seat);
  // A HELD hold's TTL starts again (its ticket still waits); an ATTACHED one is
  // left as it is. A released or settled one is FAILED_PRECONDITION.
  absl::StatusOr<HoldInfo> KeepHold(const std::string& hold_id);

  // Releases up to `limit` open holds past their TTL; returns how many it released.
  // The holds of a table whose settlement is set aside (consumer.h) wait for it.
  // Safe to run in several replicas at once: each hold is released once.
  absl::StatusOr<int> ReleaseExpiredHolds(int limit);
  absl::StatusOr<OpenHolds> GetOpenHolds();

  // Settles a finished `game` as `planned` (PlanSettlement of the game with its
  // ExpectedHolds) when the holds attached to the table are the expected ones,
  // else as planned for the holds found there; a voided game's holds are all
  // released. Runs inside the caller's transaction (see the file comment); throws
  // what the storage throws.
  static Settlement Settle(LedgerTransaction& tx, const FinishedGame& game,
                           const SettlementPlan& planned);

 private:
  absl::Status CheckTransfer(const std::string& request_id, const std::string& player_id,
                             int64_t amount, const std::string& reason) const;
  // Whether the account has room for the transfer: a debit's available balance, a
  // credit's largest balance.
  absl::Status CheckRoom(EntryKind kind, const BalanceInfo& before, int64_t amount) const;

  LedgerStore* const store_;
  const LedgerOptions options_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_LEDGER_H_
