#include "services/ratings/ledger.h"

#include <algorithm>
#include <pqxx/pqxx>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/logging.h"

namespace trix::ratings {
namespace {

constexpr char kWorld[] = "world";

// Amounts per account; an account moved twice in one entry gets one line.
using Lines = std::map<std::string, int64_t>;

int64_t PostEntry(pqxx::work& tx, EntryKind kind, const std::string& request_id,
                  const std::string& request, const std::string& game_id,
                  const std::string& reason, const Lines& lines) {
  const int64_t entry_id =
      tx.exec_params1(
            "INSERT INTO ratings.entries (kind, request_id, request, game_id, reason) "
            "VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), NULLIF($4, ''), $5) RETURNING entry_id",
            static_cast<int>(kind), request_id, request, game_id, reason)[0]
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

// Locks the account's row; nullopt-like false when it does not exist.
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

// Serializes calls that share an idempotency key, so a retry racing its original
// waits for it and then sees its answer.
void LockRequest(pqxx::work& tx, const std::string& request_id) {
  tx.exec_params("SELECT pg_advisory_xact_lock(hashtextextended($1, 7))", request_id);
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

}  // namespace

std::string PlayerAccount(const std::string& player_id) {
  return absl::StrCat("player:", player_id);
}

absl::StatusOr<Transfer> Ledger::Move(EntryKind kind, const std::string& request_id,
                                      const std::string& player_id, int64_t amount,
                                      const std::string& reason) {
  if (absl::Status s = CheckId("request_id", request_id); !s.ok()) return s;
  if (absl::Status s = CheckId("player_id", player_id); !s.ok()) return s;
  if (amount <= 0) return absl::InvalidArgumentError("amount must be positive");
  const std::string request =
      absl::StrCat(static_cast<int>(kind), "|", player_id, "|", amount, "|", reason);
  if (reason.size() > 512) return absl::InvalidArgumentError("reason is longer than 512 bytes");
  Transfer out;
  absl::Status s = pool_->Run("moving money", [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    LockRequest(tx, request_id);
    const pqxx::result seen = tx.exec_params(
        "SELECT entry_id, request FROM ratings.entries WHERE request_id = $1", request_id);
    if (!seen.empty()) {
      if (seen[0][1].as<std::string>() != request) {
        return absl::AlreadyExistsError("request_id was used with other arguments");
      }
      out.entry_id = seen[0][0].as<int64_t>();
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
    if (kind == EntryKind::kDebit && before.available() < amount) {
      return absl::FailedPreconditionError(absl::StrCat(
          "insufficient balance: ", before.available(), " available, ", amount, " asked"));
    }
    const int64_t signed_amount = kind == EntryKind::kCredit ? amount : -amount;
    out.entry_id = PostEntry(tx, kind, request_id, request, "", reason,
                             {{PlayerAccount(player_id), signed_amount}, {kWorld, -signed_amount}});
    out.balance = before;
    out.balance.balance += signed_amount;
    tx.commit();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
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
  absl::Status s = pool_->Run("reading a statement", [&](pqxx::connection& c) -> absl::Status {
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

absl::StatusOr<HoldInfo> Ledger::HoldStake(const std::string& request_id,
                                           const std::string& player_id, int64_t amount) {
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

absl::StatusOr<HoldInfo> Ledger::ReleaseHold(const std::string& hold_id) {
  if (hold_id.empty()) return absl::InvalidArgumentError("hold_id is required");
  HoldInfo out;
  absl::Status s = pool_->Run("releasing a hold", [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kHoldColumns, " FROM ratings.holds WHERE hold_id = $1 FOR UPDATE"),
        hold_id);
    if (r.empty()) return absl::NotFoundError("no such hold");
    out = HoldFromRow(r[0]);
    if (out.state == HoldState::kReleased) return absl::OkStatus();
    if (out.state != HoldState::kHeld) {
      return absl::FailedPreconditionError("the hold is attached or settled, not releasable");
    }
    BalanceInfo balance;
    LockBalance(tx, out.player_id, balance);
    tx.exec_params0("UPDATE ratings.accounts SET held = held - $2 WHERE account_id = $1",
                    PlayerAccount(out.player_id), out.amount);
    tx.exec_params0("UPDATE ratings.holds SET state = 3, updated = now() WHERE hold_id = $1",
                    hold_id);
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
  if (table_id.empty()) return absl::InvalidArgumentError("table_id is required");
  if (seat < 0 || seat >= kSeats) return absl::InvalidArgumentError("seat must be 0 to 3");
  HoldInfo out;
  absl::Status s = pool_->Run("attaching a hold", [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kHoldColumns, " FROM ratings.holds WHERE hold_id = $1 FOR UPDATE"),
        hold_id);
    if (r.empty()) return absl::NotFoundError("no such hold");
    out = HoldFromRow(r[0]);
    if (out.state == HoldState::kAttached) {
      if (out.table_id == table_id && out.seat == seat) return absl::OkStatus();
      return absl::FailedPreconditionError("the hold is attached to another table or seat");
    }
    if (out.state != HoldState::kHeld) {
      return absl::FailedPreconditionError("the hold was released or settled");
    }
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

Settlement Ledger::Settle(pqxx::work& tx, const FinishedGame& game) {
  if (!game.staked()) return {"unstaked", ""};
  if (!game.money_problem.empty()) return {"unsettled", game.money_problem};
  for (const FinishedSeat& s : game.seats) {
    if (s.payout > 0 && s.stake == 0) {
      return {"unsettled", absl::StrCat("seat ", s.seat, " is paid but did not stake")};
    }
  }
  // Lock the stakers' accounts in one order (by account id) so that concurrent
  // ledger calls cannot deadlock with the consumer.
  std::vector<std::string> players;
  for (const FinishedSeat& s : game.seats) {
    if (s.stake > 0) players.push_back(s.player_id);
  }
  std::sort(players.begin(), players.end());
  players.erase(std::unique(players.begin(), players.end()), players.end());
  std::map<std::string, BalanceInfo> balances;
  for (const std::string& p : players) {
    if (!LockBalance(tx, p, balances[p])) {
      return {"unsettled", absl::StrCat("player ", p, " staked but has no account")};
    }
  }
  // The attached holds of this table, and what each staker still needs beyond them.
  std::vector<std::string> settled_holds;
  std::map<std::string, int64_t> released;  // hold money given back per player
  for (const FinishedSeat& s : game.seats) {
    if (s.stake == 0) continue;
    const pqxx::result h = tx.exec_params(
        "SELECT hold_id, player_id, amount FROM ratings.holds "
        "WHERE table_id = $1 AND seat = $2 AND state = 2 FOR UPDATE",
        game.game_id, s.seat);
    int64_t hold_amount = 0;
    if (!h.empty() && h[0][1].as<std::string>() == s.player_id) {
      settled_holds.push_back(h[0][0].as<std::string>());
      hold_amount = h[0][2].as<int64_t>();
      released[s.player_id] += hold_amount;
    }
    // After settling, the player keeps balance - stake, of which their other open
    // holds must still be covered: available may not go below zero.
    BalanceInfo& b = balances[s.player_id];
    b.held -= hold_amount;
    b.balance -= s.stake;
    if (b.available() < 0) {
      return {"unsettled", absl::StrCat("player ", s.player_id, " cannot cover the stake of seat ",
                                        s.seat)};
    }
  }
  const std::string pot = absl::StrCat("pot:", game.game_id);
  tx.exec_params0(
      "INSERT INTO ratings.accounts (account_id, kind) VALUES ($1, 'pot') ON CONFLICT DO NOTHING",
      pot);
  for (const auto& [player, amount] : released) {
    tx.exec_params0("UPDATE ratings.accounts SET held = held - $2 WHERE account_id = $1",
                    PlayerAccount(player), amount);
  }
  Lines stakes, payouts;
  for (const FinishedSeat& s : game.seats) {
    if (s.stake > 0) {
      stakes[PlayerAccount(s.player_id)] -= s.stake;
      stakes[pot] += s.stake;
    }
    if (s.payout > 0) {
      payouts[PlayerAccount(s.player_id)] += s.payout;
      payouts[pot] -= s.payout;
    }
  }
  const int64_t stake_entry = PostEntry(tx, EntryKind::kStake, "", "", game.game_id, "stake", stakes);
  PostEntry(tx, EntryKind::kPayout, "", "", game.game_id, "payout", payouts);
  for (const std::string& hold_id : settled_holds) {
    tx.exec_params0(
        "UPDATE ratings.holds SET state = 4, entry_id = $2, updated = now() WHERE hold_id = $1",
        hold_id, stake_entry);
  }
  return {"settled", ""};
}

}  // namespace trix::ratings
