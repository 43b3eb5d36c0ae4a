#include "services/ratings/store/postgres_ledger_store.h"

#include <algorithm>
#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "services/common/auth.h"

namespace trix::ratings {
namespace {

constexpr char kBalanceOf[] = "SELECT balance, held FROM ratings.accounts WHERE account_id = $1";
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

std::optional<BalanceInfo> BalanceFrom(const pqxx::result& r, const std::string& player_id) {
  if (r.empty()) return std::nullopt;
  BalanceInfo out;
  out.player_id = player_id;
  out.balance = r[0][0].as<int64_t>();
  out.held = r[0][1].as<int64_t>();
  return out;
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

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

StatementEntry StatementFromRow(const pqxx::row& r) {
  StatementEntry e;
  e.entry_id = r[0].as<int64_t>();
  e.kind = static_cast<EntryKind>(r[1].as<int>());
  e.amount = r[2].as<int64_t>();
  e.balance_after = r[3].as<int64_t>();
  e.game_id = r[4].as<std::string>();
  e.reason = r[5].as<std::string>();
  e.time = absl::FromUnixMicros(static_cast<int64_t>(r[6].as<double>() * 1e6));
  return e;
}

}  // namespace

void PostgresLedgerTransaction::LockKey(const std::string& key) {
  tx_.exec_params("SELECT pg_advisory_xact_lock(hashtextextended($1, 7))", key);
}

void PostgresLedgerTransaction::OpenAccount(const std::string& account_id,
                                            const std::string& kind) {
  tx_.exec_params0(
      "INSERT INTO ratings.accounts (account_id, kind) VALUES ($1, $2) ON CONFLICT DO NOTHING",
      account_id, kind);
}

std::optional<BalanceInfo> PostgresLedgerTransaction::LockBalance(const std::string& player_id) {
  return BalanceFrom(
      tx_.exec_params(absl::StrCat(kBalanceOf, " FOR UPDATE"), PlayerAccount(player_id)),
      player_id);
}

void PostgresLedgerTransaction::AddHeld(const std::string& player_id, int64_t amount) {
  tx_.exec_params0("UPDATE ratings.accounts SET held = held + $2 WHERE account_id = $1",
                   PlayerAccount(player_id), amount);
}

std::optional<PostedTransfer> PostgresLedgerTransaction::FindTransfer(
    const std::string& request_id, const std::string& account_id) {
  const pqxx::result seen = tx_.exec_params(
      "SELECT e.entry_id, e.kind, e.reason, l.amount FROM ratings.entries e "
      "LEFT JOIN ratings.lines l ON l.entry_id = e.entry_id AND l.account_id = $2 "
      "WHERE e.request_id = $1",
      request_id, account_id);
  if (seen.empty()) return std::nullopt;
  PostedTransfer out;
  out.entry_id = seen[0]["entry_id"].as<int64_t>();
  out.kind = static_cast<EntryKind>(seen[0]["kind"].as<int>());
  out.reason = seen[0]["reason"].as<std::string>();
  if (!seen[0]["amount"].is_null()) out.amount = seen[0]["amount"].as<int64_t>();
  return out;
}

int64_t PostgresLedgerTransaction::PostEntry(EntryKind kind, const std::string& request_id,
                                             const std::string& game_id,
                                             const std::string& reason,
                                             const LedgerLines& lines) {
  const int64_t entry_id =
      tx_.exec_params1(
             "INSERT INTO ratings.entries (kind, request_id, game_id, reason) "
             "VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), $4) RETURNING entry_id",
             static_cast<int>(kind), request_id, game_id, reason)[0]
          .as<int64_t>();
  for (const auto& [account, amount] : lines) {
    if (amount == 0) continue;
    tx_.exec_params0(
        "WITH a AS (UPDATE ratings.accounts SET balance = balance + $3 WHERE account_id = $2 "
        "RETURNING balance) "
        "INSERT INTO ratings.lines (entry_id, account_id, amount, balance_after) "
        "SELECT $1, $2, $3, balance FROM a",
        entry_id, account, amount);
  }
  return entry_id;
}

std::optional<HoldInfo> PostgresLedgerTransaction::FindHoldByRequest(
    const std::string& request_id) {
  const pqxx::result seen = tx_.exec_params(
      absl::StrCat("SELECT ", kHoldColumns, " FROM ratings.holds WHERE request_id = $1"),
      request_id);
  if (seen.empty()) return std::nullopt;
  return HoldFromRow(seen[0]);
}

std::optional<HoldInfo> PostgresLedgerTransaction::LockHold(const std::string& hold_id) {
  const pqxx::result who =
      tx_.exec_params("SELECT player_id FROM ratings.holds WHERE hold_id = $1", hold_id);
  if (who.empty()) return std::nullopt;
  LockBalance(who[0][0].as<std::string>());
  return HoldFromRow(tx_.exec_params1(
      absl::StrCat("SELECT ", kHoldColumns, " FROM ratings.holds WHERE hold_id = $1 FOR UPDATE"),
      hold_id));
}

std::vector<HoldInfo> PostgresLedgerTransaction::LockTableHolds(const std::string& table_id) {
  tx_.exec_params(
      "SELECT 1 FROM ratings.accounts WHERE account_id IN (SELECT 'player:' || player_id "
      "FROM ratings.holds WHERE table_id = $1 AND state = 2) ORDER BY account_id FOR UPDATE",
      table_id);
  std::vector<HoldInfo> holds;
  for (const pqxx::row& r : tx_.exec_params(
           absl::StrCat("SELECT ", kHoldColumns, " FROM ratings.holds "
                        "WHERE table_id = $1 AND state = 2 ORDER BY seat FOR UPDATE"),
           table_id)) {
    holds.push_back(HoldFromRow(r));
  }
  return holds;
}

HoldInfo PostgresLedgerTransaction::AddHold(const std::string& request_id,
                                            const std::string& player_id, int64_t amount) {
  return HoldFromRow(tx_.exec_params1(
      absl::StrCat("INSERT INTO ratings.holds (hold_id, request_id, player_id, amount, state) "
                   "VALUES ($1, $2, $3, $4, 1) RETURNING ",
                   kHoldColumns),
      service::NewUuid(), request_id, player_id, amount));
}

bool PostgresLedgerTransaction::SeatTaken(const std::string& table_id, int seat) {
  return !tx_.exec_params(
                 "SELECT 1 FROM ratings.holds WHERE table_id = $1 AND seat = $2 AND state = 2",
                 table_id, seat)
              .empty();
}

void PostgresLedgerTransaction::ReleaseHold(const HoldInfo& hold) {
  AddHeld(hold.player_id, -hold.amount);
  tx_.exec_params0("UPDATE ratings.holds SET state = 3, updated = now() WHERE hold_id = $1",
                   hold.hold_id);
}

void PostgresLedgerTransaction::AttachHold(const std::string& hold_id,
                                           const std::string& table_id, int seat) {
  tx_.exec_params0(
      "UPDATE ratings.holds SET state = 2, table_id = $2, seat = $3, updated = now() "
      "WHERE hold_id = $1",
      hold_id, table_id, seat);
}

void PostgresLedgerTransaction::KeepHold(const std::string& hold_id) {
  tx_.exec_params0("UPDATE ratings.holds SET updated = now() WHERE hold_id = $1", hold_id);
}

void PostgresLedgerTransaction::SettleHold(const std::string& hold_id, int64_t entry_id) {
  tx_.exec_params0(
      "UPDATE ratings.holds SET state = 4, entry_id = $2, updated = now() WHERE hold_id = $1",
      hold_id, entry_id);
}

bool PostgresLedgerTransaction::Sweepable(const std::string& hold_id, const HoldTtls& ttls) {
  return !tx_.exec_params(absl::StrCat("SELECT 1 FROM ratings.holds WHERE hold_id = $3 "
                                       "AND state IN (1, 2) AND ",
                                       kSweepable),
                          Seconds(ttls.held), Seconds(ttls.attached), hold_id)
              .empty();
}

absl::Status PostgresLedgerStore::Transact(
    absl::string_view context, absl::FunctionRef<absl::Status(LedgerTransaction&)> work) {
  return pool_->Run(context, [&](pqxx::connection& c) -> absl::Status {
    pqxx::work tx(c);
    PostgresLedgerTransaction ledger(tx);
    absl::Status s = work(ledger);
    if (s.ok()) tx.commit();
    return s;
  });
}

absl::StatusOr<std::optional<BalanceInfo>> PostgresLedgerStore::ReadBalance(
    const std::string& player_id) {
  std::optional<BalanceInfo> out;
  absl::Status s = pool_->Run("reading a balance", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    out = BalanceFrom(tx.exec_params(kBalanceOf, PlayerAccount(player_id)), player_id);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::optional<std::vector<StatementEntry>>> PostgresLedgerStore::ReadStatement(
    const std::string& player_id, int64_t before, int limit) {
  std::optional<std::vector<StatementEntry>> out;
  absl::Status s = history_->Run("reading a statement", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    if (tx.exec_params("SELECT 1 FROM ratings.accounts WHERE account_id = $1",
                       PlayerAccount(player_id))
            .empty()) {
      return absl::OkStatus();
    }
    out.emplace();
    for (const pqxx::row& r : tx.exec_params(
             "SELECT l.entry_id, e.kind, l.amount, l.balance_after, COALESCE(e.game_id, ''), "
             "e.reason, extract(epoch FROM e.created)::float8 "
             "FROM ratings.lines l JOIN ratings.entries e USING (entry_id) "
             "WHERE l.account_id = $1 AND l.entry_id < $2 ORDER BY l.entry_id DESC LIMIT $3",
             PlayerAccount(player_id), before, limit)) {
      out->push_back(StatementFromRow(r));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<std::string>> PostgresLedgerStore::FindSweepable(
    const HoldTtls& ttls, int limit) {
  std::vector<std::string> found;
  absl::Status s = pool_->Run("finding expired holds", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& r : tx.exec_params(
             absl::StrCat("SELECT hold_id FROM ratings.holds WHERE state IN (1, 2) AND ",
                          kSweepable, " ORDER BY updated LIMIT $3"),
             Seconds(ttls.held), Seconds(ttls.attached), limit)) {
      found.push_back(r[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return found;
}

absl::StatusOr<OpenHolds> PostgresLedgerStore::ReadOpenHolds(const HoldTtls& ttls) {
  OpenHolds out;
  absl::Status s = pool_->Run("measuring open holds", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    const pqxx::row r = tx.exec_params1(
        absl::StrCat("SELECT COALESCE(extract(epoch FROM now() - min(created)), 0)::float8, "
                     "count(*) FILTER (WHERE ", kPastTtl, ") "
                     "FROM ratings.holds WHERE state IN (1, 2)"),
        Seconds(ttls.held), Seconds(ttls.attached));
    out.oldest_seconds = std::max(0.0, r[0].as<double>());
    out.past_ttl = r[1].as<int64_t>();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace trix::ratings
