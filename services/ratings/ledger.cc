#include "services/ratings/ledger.h"

#include <algorithm>
#include <map>
#include <optional>
#include <pqxx/pqxx>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/result.h"
#include "services/common/auth.h"
#include "services/common/logging.h"

namespace trix::ratings {
namespace {

// The world accounts a player's credits and debits move through (migration 0028).
constexpr uint64_t kWorldShards = 16;

// Amounts per account; an account moved twice in one entry gets one line.
using Lines = std::map<std::string, int64_t>;

int64_t PostEntry(pqxx::work& tx, EntryKind kind, const std::string& request_id,
                  const std::string& game_id, const std::string& reason, const Lines& lines) {
  const int64_t entry_id =
      tx.exec_params1(
            "INSERT INTO ratings.entries (kind, request_id, game_id, reason) "
            "VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), $4) RETURNING entry_id",
            static_cast<int>(kind), request_id, game_id, reason)[0]
          .as<int64_t>();
  for (const auto& [account, amount] : lines) {
    if (amount == 0) continue;
    tx.exec_params0(
        "WITH a AS (UPDATE ratings.accounts SET balance = balance + $3 WHERE account_id = $2 "
        "RETURNING balance) "
        "INSERT INTO ratings.lines (entry_id, account_id, amount, balance_after) "
        "SELECT $1, $2, $3, balance FROM a",
        entry_id, account, amount);
  }
  return entry_id;
}

// A stable choice (FNV-1a of the player id): a player's statement of outside money
// always names the same world account.
std::string WorldAccount(const std::string& player_id) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : player_id) h = (h ^ c) * 1099511628211ull;
  return absl::StrCat("world:", h % kWorldShards);
}

// Locks the account's row; false when it does not exist.
bool LockBalance(pqxx::work& tx, const std::string& player_id, BalanceInfo& out) {
  const pqxx::result r = tx.exec_params(
      "SELECT balance, held FROM ratings.accounts WHERE account_id = $1 FOR UPDATE",
      PlayerAccount(player_id));
  if (r.empty()) return false;
  out.player_id = player_id;
  out.balance = r[0][0].as<int64_t>();
  out.held = r[0][1].as<int64_t>();
  return true;
}

HoldInfo HoldFromRow(const pqxx::row& r) {
  HoldInfo h;
  h.hold_id = r["hold_id"].as<std::string>();
  h.player_id = r["player_id"].as<std::string>();
  h.amount = r["amount"].as<int64_t>();
  h.state = static_cast<HoldState>(r["state"].as<int>());
  h.table_id = r["table_id"].is_null() ? "" : r["table_id"].as<std::string>();
  h.seat = r["seat"].is_null() ? 0 : r["seat"].as<int>();
  return h;
}

constexpr char kHoldColumns[] = "hold_id, player_id, amount, state, table_id, seat";
// An open hold past its TTL; $1 and $2 are the HELD and ATTACHED TTLs in seconds.
constexpr char kPastTtl[] =
    "((state = 1 AND updated < now() - $1 * interval '1 second') OR "
    "(state = 2 AND updated < now() - $2 * interval '1 second'))";
// An open hold the sweep may release: past its TTL, and not attached to a table
// whose settlement is set aside to be tried again (migrations/0035).
constexpr char kSweepable[] =
    "((state = 1 AND updated < now() - $1 * interval '1 second') OR "
    "(state = 2 AND updated < now() - $2 * interval '1 second' AND NOT EXISTS "
    "(SELECT 1 FROM ratings.set_aside_settlements x "
    "WHERE x.game_id = holds.table_id AND x.resolved IS NULL)))";

// Serializes calls that share an idempotency key, so a retry racing its original
// waits for it and then sees its answer.
void LockRequest(pqxx::work& tx, const std::string& request_id) {
  tx.exec_params("SELECT pg_advisory_xact_lock(hashtextextended($1, 7))", request_id);
}

// Locks the hold, its account first (every ledger call locks accounts before
// holds); the hold as locked, or nullopt when there is none.
std::optional<HoldInfo> LockHold(pqxx::work& tx, const std::string& hold_id) {
  const pqxx::result who =
      tx.exec_params("SELECT player_id FROM ratings.holds WHERE hold_id = $1", hold_id);
  if (who.empty()) return std::nullopt;
  BalanceInfo ignored;
  LockBalance(tx, who[0][0].as<std::string>(), ignored);
  return HoldFromRow(tx.exec_params1(
      absl::StrCat("SELECT ", kHoldColumns, " FROM ratings.holds WHERE hold_id = $1 FOR UPDATE"),
      hold_id));
}

// The holds attached to a table, locked (their accounts first, in account order).
std::vector<HoldInfo> LockTableHolds(pqxx::work& tx, const std::string& table_id) {
  tx.exec_params(
      "SELECT 1 FROM ratings.accounts WHERE account_id IN (SELECT 'player:' || player_id "
      "FROM ratings.holds WHERE table_id = $1 AND state = 2) ORDER BY account_id FOR UPDATE",
      table_id);
  std::vector<HoldInfo> holds;
  for (const pqxx::row& r : tx.exec_params(
           absl::StrCat("SELECT ", kHoldColumns, " FROM ratings.holds "
                        "WHERE table_id = $1 AND state = 2 ORDER BY seat FOR UPDATE"),
           table_id)) {
    holds.push_back(HoldFromRow(r));
  }
  return holds;
}

// Gives a locked open hold's money back to the available balance.
void ReleaseLocked(pqxx::work& tx, const HoldInfo& h) {
  tx.exec_params0("UPDATE ratings.accounts SET held = held - $2 WHERE account_id = $1",
                  PlayerAccount(h.player_id), h.amount);
  tx.exec_params0("UPDATE ratings.holds SET state = 3, updated = now() WHERE hold_id = $1",
                  h.hold_id);
}

// An id as the rest of the system takes it (a table seat's player_id, an Act's
// request_id): present and at most 128 bytes.
absl::Status CheckId(absl::string_view what, const std::string& id) {
  if (id.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " is required"));
  if (id.size() > 128) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is longer than 128 bytes"));
  }
  return absl::OkStatus();
}

// Whether an earlier entry under the same request_id is this very request: the
// same kind, reason, and amount on this player's account.
bool SameTransfer(const pqxx::row& seen, EntryKind kind, int64_t signed_amount,
                  const std::string& reason) {
  return seen["kind"].as<int>() == static_cast<int>(kind) &&
         seen["reason"].as<std::string>() == reason && !seen["amount"].is_null() &&
         seen["amount"].as<int64_t>() == signed_amount;
}

}  // namespace

std::string PlayerAccount(const std::string& player_id) {
  return absl::StrCat("player:", player_id);
}

absl::Status Ledger::CheckTransfer(const std::string& request_id, const std::string& player_id,
                                   int64_t amount, const std::string& reason) const {
  if (absl::Status s = CheckId("request_id", request_id); !s.ok()) return s;
  if (absl::Status s = CheckId("player_id", player_id); !s.ok()) return s;
  if (amount <= 0) return absl::InvalidArgumentError("amount must be positive");
  if (amount > options_.max_transfer) {
    return absl::InvalidArgumentError(absl::StrCat(
        "amount ", amount, " is above the largest transfer, ", options_.max_transfer));
  }
  if (reason.size() > 512) return absl::InvalidArgumentError("reason is longer than 512 bytes");
  return absl::OkStatus();
}

absl::StatusOr<Transfer> Ledger::Move(EntryKind kind, const std::string& request_id,
                                      const std::string& player_id, int64_t amount,
                                      const std::string& reason) {
  if (absl::Status s = CheckTransfer(request_id, player_id, amount, reason); !s.ok()) {
    return s;
  }
  const int64_t signed_amount = kind == EntryKind::kCredit ? amount : -amount;
  Transfer out;
  absl::Status s = pool_->Run("moving money", [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    LockRequest(tx, request_id);
    const pqxx::result seen = tx.exec_params(
        "SELECT e.entry_id, e.kind, e.reason, l.amount FROM ratings.entries e "
        "LEFT JOIN ratings.lines l ON l.entry_id = e.entry_id AND l.account_id = $2 "
        "WHERE e.request_id = $1",
        request_id, PlayerAccount(player_id));
    if (!seen.empty()) {
      if (!SameTransfer(seen[0], kind, signed_amount, reason)) {
        return absl::AlreadyExistsError("request_id was used with other arguments");
      }
      out.entry_id = seen[0]["entry_id"].as<int64_t>();
      LockBalance(tx, player_id, out.balance);
      return absl::OkStatus();
    }
    if (kind == EntryKind::kCredit) {
      tx.exec_params0(
          "INSERT INTO ratings.accounts (account_id, kind) VALUES ($1, 'player') "
          "ON CONFLICT DO NOTHING",
          PlayerAccount(player_id));
    }
    BalanceInfo before;
    if (!LockBalance(tx, player_id, before)) {
      return absl::NotFoundError("no account for this player");
    }
    if (absl::Status s = CheckRoom(kind, before, amount); !s.ok()) return s;
    out.entry_id = PostEntry(tx, kind, request_id, "", reason,
                             {{PlayerAccount(player_id), signed_amount},
                              {WorldAccount(player_id), -signed_amount}});
    out.balance = before;
    out.balance.balance += signed_amount;
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::Status Ledger::CheckRoom(EntryKind kind, const BalanceInfo& before, int64_t amount) const {
  if (kind == EntryKind::kDebit && before.available() < amount) {
    return absl::FailedPreconditionError(absl::StrCat(
        "insufficient balance: ", before.available(), " available, ", amount, " asked"));
  }
  if (kind == EntryKind::kCredit && before.balance > options_.max_balance - amount) {
    return absl::FailedPreconditionError(
        absl::StrCat("a credit of ", amount, " would take the balance of ", before.balance,
                     " above the largest balance, ", options_.max_balance));
  }
  return absl::OkStatus();
}

absl::StatusOr<BalanceInfo> Ledger::GetBalance(const std::string& player_id) {
  if (player_id.empty()) return absl::InvalidArgumentError("player_id is required");
  BalanceInfo out;
  absl::Status s = pool_->Run("reading a balance", [&](pqxx::connection& c) -> absl::Status {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        "SELECT balance, held FROM ratings.accounts WHERE account_id = $1",
        PlayerAccount(player_id));
    if (r.empty()) return absl::NotFoundError("no account for this player");
    out.player_id = player_id;
    out.balance = r[0][0].as<int64_t>();
    out.held = r[0][1].as<int64_t>();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<StatementPage> Ledger::GetStatement(const std::string& player_id, int page_size,
                                                   const std::string& page_token) {
  if (player_id.empty()) return absl::InvalidArgumentError("player_id is required");
  if (page_size < 0 || page_size > 500) {
    return absl::InvalidArgumentError("page_size must be 0 to 500");
  }
  if (page_size == 0) page_size = 50;
  int64_t before = INT64_MAX;
  if (!page_token.empty() && (!absl::SimpleAtoi(page_token, &before) || before <= 0)) {
    return absl::InvalidArgumentError("bad page_token");
  }
  StatementPage page;
  absl::Status s = history_->Run("reading a statement", [&](pqxx::connection& c) -> absl::Status {
    pqxx::read_transaction tx(c);
    if (tx.exec_params("SELECT 1 FROM ratings.accounts WHERE account_id = $1",
                       PlayerAccount(player_id))
            .empty()) {
      return absl::NotFoundError("no account for this player");
    }
    const pqxx::result r = tx.exec_params(
        "SELECT l.entry_id, e.kind, l.amount, l.balance_after, COALESCE(e.game_id, ''), "
        "e.reason, extract(epoch FROM e.created)::float8 "
        "FROM ratings.lines l JOIN ratings.entries e USING (entry_id) "
        "WHERE l.account_id = $1 AND l.entry_id < $2 ORDER BY l.entry_id DESC LIMIT $3",
        PlayerAccount(player_id), before, page_size + 1);
    for (int i = 0; i < static_cast<int>(r.size()) && i < page_size; ++i) {
      StatementEntry e;
      e.entry_id = r[i][0].as<int64_t>();
      e.kind = static_cast<EntryKind>(r[i][1].as<int>());
      e.amount = r[i][2].as<int64_t>();
      e.balance_after = r[i][3].as<int64_t>();
      e.game_id = r[i][4].as<std::string>();
      e.reason = r[i][5].as<std::string>();
      e.time = absl::FromUnixMicros(static_cast<int64_t>(r[i][6].as<double>() * 1e6));
      page.lines.push_back(e);
    }
    if (static_cast<int>(r.size()) > page_size) {
      page.next_page_token = absl::StrCat(page.lines.back().entry_id);
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return page;
}

namespace {

// HoldStake's replaced hold, locked: released when held, passed over when
// released already, refused otherwise.
absl::Status ReleaseReplaced(pqxx::work& tx, const std::string& hold_id,
                             const std::string& player_id) {
  std::optional<HoldInfo> old = LockHold(tx, hold_id);
  if (!old) return absl::NotFoundError("no such hold to replace");
  if (old->player_id != player_id) {
    return absl::InvalidArgumentError("the hold to replace is another player's");
  }
  if (old->state == HoldState::kReleased) return absl::OkStatus();
  if (old->state != HoldState::kHeld) {
    return absl::FailedPreconditionError(
        "the hold to replace is attached to a table or settled");
  }
  ReleaseLocked(tx, *old);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HoldInfo> Ledger::HoldStake(const std::string& request_id,
                                           const std::string& player_id, int64_t amount,
                                           const std::string& replaces_hold_id) {
  if (absl::Status s = CheckId("request_id", request_id); !s.ok()) return s;
  if (absl::Status s = CheckId("player_id", player_id); !s.ok()) return s;
  if (amount <= 0) return absl::InvalidArgumentError("amount must be positive");
  HoldInfo out;
  absl::Status s = pool_->Run("holding a stake", [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    LockRequest(tx, request_id);
    const pqxx::result seen = tx.exec_params(
        absl::StrCat("SELECT ", kHoldColumns, " FROM ratings.holds WHERE request_id = $1"),
        request_id);
    if (!seen.empty()) {
      out = HoldFromRow(seen[0]);
      if (out.player_id != player_id || out.amount != amount) {
        return absl::AlreadyExistsError("request_id was used with other arguments");
      }
      return absl::OkStatus();
    }
    if (!replaces_hold_id.empty()) {
      if (absl::Status r = ReleaseReplaced(tx, replaces_hold_id, player_id); !r.ok()) return r;
    }
    BalanceInfo balance;
    if (!LockBalance(tx, player_id, balance)) {
      return absl::NotFoundError("no account for this player");
    }
    if (balance.available() < amount) {
      return absl::FailedPreconditionError(absl::StrCat(
          "insufficient balance: ", balance.available(), " available, ", amount, " asked"));
    }
    tx.exec_params0("UPDATE ratings.accounts SET held = held + $2 WHERE account_id = $1",
                    PlayerAccount(player_id), amount);
    out = HoldFromRow(tx.exec_params1(
        absl::StrCat("INSERT INTO ratings.holds (hold_id, request_id, player_id, amount, state) "
                     "VALUES ($1, $2, $3, $4, 1) RETURNING ",
                     kHoldColumns),
        service::NewUuid(), request_id, player_id, amount));
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<HoldInfo> Ledger::ReleaseHold(const std::string& hold_id,
                                             const std::string& table_id) {
  if (hold_id.empty()) return absl::InvalidArgumentError("hold_id is required");
  HoldInfo out;
  absl::Status s = pool_->Run("releasing a hold", [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    std::optional<HoldInfo> hold = LockHold(tx, hold_id);
    if (!hold) return absl::NotFoundError("no such hold");
    out = *hold;
    if (out.state == HoldState::kReleased) return absl::OkStatus();
    if (out.state == HoldState::kSettled) {
      return absl::FailedPreconditionError("the hold was settled by its table's result");
    }
    if (out.state == HoldState::kAttached && table_id != out.table_id) {
      return absl::FailedPreconditionError(
          table_id.empty() ? "the hold is attached to a table: name it (table_id) to release it"
                           : "the hold is attached to another table");
    }
    ReleaseLocked(tx, out);
    out.state = HoldState::kReleased;
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<HoldInfo> Ledger::AttachHold(const std::string& hold_id,
                                            const std::string& table_id, int seat) {
  if (hold_id.empty()) return absl::InvalidArgumentError("hold_id is required");
  if (absl::Status s = CheckId("table_id", table_id); !s.ok()) return s;
  if (seat < 0 || seat >= kSeats) return absl::InvalidArgumentError("seat must be 0 to 3");
  HoldInfo out;
  absl::Status s = pool_->Run("attaching a hold", [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    std::optional<HoldInfo> hold = LockHold(tx, hold_id);
    if (!hold) return absl::NotFoundError("no such hold");
    out = *hold;
    if (out.state == HoldState::kAttached) {
      if (out.table_id == table_id && out.seat == seat) return absl::OkStatus();
      return absl::FailedPreconditionError("the hold is attached to another table or seat");
    }
    if (out.state != HoldState::kHeld) {
      return absl::FailedPreconditionError("the hold was released or settled");
    }
    // Attaches to one table seat queue here, so two of them cannot both pass the
    // check below.
    LockRequest(tx, absl::StrCat("seat ", seat, " of ", table_id));
    const pqxx::result taken = tx.exec_params(
        "SELECT 1 FROM ratings.holds WHERE table_id = $1 AND seat = $2 AND state = 2",
        table_id, seat);
    if (!taken.empty()) {
      return absl::FailedPreconditionError("another hold is attached to that table and seat");
    }
    tx.exec_params0(
        "UPDATE ratings.holds SET state = 2, table_id = $2, seat = $3, updated = now() "
        "WHERE hold_id = $1",
        hold_id, table_id, seat);
    out.state = HoldState::kAttached;
    out.table_id = table_id;
    out.seat = seat;
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<HoldInfo> Ledger::KeepHold(const std::string& hold_id) {
  if (hold_id.empty()) return absl::InvalidArgumentError("hold_id is required");
  HoldInfo out;
  absl::Status s = pool_->Run("keeping a hold", [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    std::optional<HoldInfo> hold = LockHold(tx, hold_id);
    if (!hold) return absl::NotFoundError("no such hold");
    out = *hold;
    if (out.state == HoldState::kAttached) return absl::OkStatus();
    if (out.state != HoldState::kHeld) {
      return absl::FailedPreconditionError("the hold was released or settled");
    }
    tx.exec_params0("UPDATE ratings.holds SET updated = now() WHERE hold_id = $1", hold_id);
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<int> Ledger::ReleaseExpiredHolds(int limit) {
  const double held = absl::ToDoubleSeconds(options_.held_ttl);
  const double attached = absl::ToDoubleSeconds(options_.attached_ttl);
  std::vector<std::string> expired;
  absl::Status s = pool_->Run("finding expired holds", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             absl::StrCat("SELECT hold_id FROM ratings.holds WHERE state IN (1, 2) AND ",
                          kSweepable, " ORDER BY updated LIMIT $3"),
             held, attached, limit)) {
      expired.push_back(r[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  int released = 0;
  for (const std::string& hold_id : expired) {
    s = pool_->Run("releasing an expired hold", [&](pqxx::connection& c) {
      pqxx::work tx(c);
      std::optional<HoldInfo> hold = LockHold(tx, hold_id);
      // Still open and past its TTL: another replica may have been first.
      if (!hold || tx.exec_params(absl::StrCat("SELECT 1 FROM ratings.holds WHERE hold_id = $3 "
                                               "AND state IN (1, 2) AND ", kSweepable),
                                  held, attached, hold_id)
                       .empty()) {
        return absl::OkStatus();
      }
      ReleaseLocked(tx, *hold);
      tx.commit();
      ++released;
      service::LogInfo("hold past its TTL released",
                       {{"hold", hold_id}, {"player", hold->player_id},
                        {"state", hold->state == HoldState::kHeld ? "held" : "attached"},
                        {"table", hold->table_id}});
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
  }
  return released;
}

absl::StatusOr<OpenHolds> Ledger::GetOpenHolds() {
  OpenHolds out;
  absl::Status s = pool_->Run("measuring open holds", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::row r = tx.exec_params1(
        absl::StrCat("SELECT COALESCE(extract(epoch FROM now() - min(created)), 0)::float8, "
                     "count(*) FILTER (WHERE ", kPastTtl, ") "
                     "FROM ratings.holds WHERE state IN (1, 2)"),
        absl::ToDoubleSeconds(options_.held_ttl), absl::ToDoubleSeconds(options_.attached_ttl));
    out.oldest_seconds = std::max(0.0, r[0].as<double>());
    out.past_ttl = r[1].as<int64_t>();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

namespace {

// Why seat `s`'s stake has no hold to settle against; "" when it has one.
std::string UnheldReason(const FinishedSeat& s, const std::vector<HoldInfo>& holds) {
  for (const HoldInfo& h : holds) {
    if (h.seat != s.seat) continue;
    if (h.player_id != s.player_id) return "the hold attached to it is another player's";
    if (h.amount != s.stake) {
      return absl::StrCat("the hold attached to it is ", h.amount, ", the stake ", s.stake);
    }
    return "";
  }
  return "no hold attached to it";
}

// The payouts of the held stakes: the result's own when every stake is held, else
// the engine's split of the held stakes alone (the unheld seats as non-stakers).
engine::Payouts PayoutsOf(const FinishedGame& game, const engine::Stakes& held, bool all_held) {
  engine::Payouts payouts{};
  if (all_held) {
    for (const FinishedSeat& s : game.seats) payouts[s.seat] = s.payout;
    return payouts;
  }
  engine::Scores totals{};
  for (const FinishedSeat& s : game.seats) totals[s.seat] = static_cast<int32_t>(s.total);
  return engine::ResultOf(VariantOf(game.mode), totals, held).payouts;
}

// Settles the plan's held stakes against the table's locked holds: the holds of
// held seats leave `held`, every other hold is released, one STAKE entry moves the
// held stakes into the pot and one PAYOUT entry empties it, and the holds that
// backed the stakes become settled. A settled hold leaves `held` before its stake
// leaves `balance`: the other order breaks the account's held <= balance in
// between whenever the stake is more than half the balance.
Settlement ApplySettlement(pqxx::work& tx, const FinishedGame& game,
                           const std::vector<HoldInfo>& holds,
                           const SettlementPlan& plan) {
  Settlement out = plan.settlement;
  std::vector<std::string> settled;
  for (const HoldInfo& h : holds) {
    if (plan.held[h.seat] == 0) {  // not the hold of its seat's stake
      ReleaseLocked(tx, h);
      ++out.released_holds;
      continue;
    }
    tx.exec_params0("UPDATE ratings.accounts SET held = held - $2 WHERE account_id = $1",
                    PlayerAccount(h.player_id), h.amount);
    settled.push_back(h.hold_id);
  }
  if (plan.stakes.empty()) return out;
  const std::string pot = PotAccount(game.game_id);
  tx.exec_params0(
      "INSERT INTO ratings.accounts (account_id, kind) VALUES ($1, 'pot') "
      "ON CONFLICT DO NOTHING",
      pot);
  const int64_t stake_entry =
      PostEntry(tx, EntryKind::kStake, "", game.game_id, "stake", plan.stakes);
  PostEntry(tx, EntryKind::kPayout, "", game.game_id, "payout", plan.payouts);
  out.moved = true;
  for (const std::string& hold_id : settled) {
    tx.exec_params0(
        "UPDATE ratings.holds SET state = 4, entry_id = $2, updated = now() WHERE hold_id = $1",
        hold_id, stake_entry);
  }
  return out;
}

// Whether every staked seat of `game` has its own hold among `holds`.
bool EveryStakeHeld(const FinishedGame& game, const std::vector<HoldInfo>& holds) {
  for (const FinishedSeat& s : game.seats) {
    if (s.stake > 0 && !UnheldReason(s, holds).empty()) return false;
  }
  return true;
}

// The pot's STAKE and PAYOUT lines for the stakes in `held`.
void PlanLines(const FinishedGame& game, SettlementPlan& plan) {
  const engine::Payouts payouts =
      PayoutsOf(game, plan.held, plan.settlement.unheld_seats == 0);
  const std::string pot = PotAccount(game.game_id);
  for (const FinishedSeat& s : game.seats) {
    if (plan.held[s.seat] > 0) {
      plan.stakes[PlayerAccount(s.player_id)] -= plan.held[s.seat];
      plan.stakes[pot] += plan.held[s.seat];
    }
    if (payouts[s.seat] > 0) {
      plan.payouts[PlayerAccount(s.player_id)] += payouts[s.seat];
      plan.payouts[pot] -= payouts[s.seat];
    }
  }
}

}  // namespace

std::string PotAccount(const std::string& game_id) {
  return absl::StrCat("pot:", game_id);
}

std::vector<HoldInfo> ExpectedHolds(const FinishedGame& game) {
  std::vector<HoldInfo> holds;
  for (const FinishedSeat& s : game.seats) {
    if (s.stake == 0) continue;
    HoldInfo h;
    h.player_id = s.player_id;
    h.amount = s.stake;
    h.state = HoldState::kAttached;
    h.table_id = game.game_id;
    h.seat = s.seat;
    holds.push_back(h);
  }
  return holds;
}

SettlementPlan PlanSettlement(const FinishedGame& game,
                              const std::vector<HoldInfo>& holds) {
  SettlementPlan plan;
  if (game.voided) return {{"voided", game.void_reason}};
  if (!game.staked()) return {{"unstaked", ""}};
  if (!game.money_problem.empty()) return {{"unsettled", game.money_problem}};
  for (const FinishedSeat& s : game.seats) {
    if (s.payout > 0 && s.stake == 0) {
      return {{"unsettled", absl::StrCat("seat ", s.seat, " is paid but did not stake")}};
    }
  }
  plan.settlement = {"settled", ""};
  std::vector<std::string> unheld;
  for (const FinishedSeat& s : game.seats) {
    if (s.stake == 0) continue;
    const std::string why = UnheldReason(s, holds);
    if (why.empty()) {
      plan.held[s.seat] = s.stake;
    } else {
      unheld.push_back(absl::StrCat("seat ", s.seat, " (", s.player_id, ") settled nothing: ", why));
    }
  }
  plan.settlement.unheld_seats = static_cast<int>(unheld.size());
  if (!unheld.empty()) {
    plan.settlement.outcome = "unheld";
    plan.settlement.note = absl::StrJoin(unheld, "; ");
  }
  PlanLines(game, plan);
  return plan;
}

Settlement Ledger::Settle(pqxx::work& tx, const FinishedGame& game) {
  return Settle(tx, game, PlanSettlement(game, ExpectedHolds(game)));
}

Settlement Ledger::Settle(pqxx::work& tx, const FinishedGame& game,
                          const SettlementPlan& planned) {
  const std::string& outcome = planned.settlement.outcome;
  if (outcome == "unstaked" || outcome == "unsettled") return planned.settlement;
  const std::vector<HoldInfo> holds = LockTableHolds(tx, game.game_id);
  if (outcome == "voided" || EveryStakeHeld(game, holds)) {
    return ApplySettlement(tx, game, holds, planned);
  }
  return ApplySettlement(tx, game, holds, PlanSettlement(game, holds));
}

Settlement Ledger::Void(pqxx::work& tx, const FinishedGame& game) {
  SettlementPlan release_all;
  release_all.settlement = {"voided", game.void_reason};
  return ApplySettlement(tx, game, LockTableHolds(tx, game.game_id), release_all);
}

}  // namespace trix::ratings
