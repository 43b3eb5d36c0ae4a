// GameStore's leases and a player's listings (see game_store.h).
#include <algorithm>
#include <pqxx/binarystring>
#include <pqxx/result>
#include <pqxx/transaction>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/table/store/game_store.h"
#include "services/table/store/game_store_impl.h"
#include "services/table/store/game_store_sql.h"
#include "services/pg/array.h"

namespace trix::table {
namespace {

// A page cursor: where the last page ended in ListFinished's order. Opaque to
// callers (web-safe base64) so the key can change without changing the API.
struct Cursor {
  int64_t finished_micros = 0;
  int seat = 0;
  std::string game_id;
};

std::string EncodeCursor(const Cursor& cursor) {
  return absl::WebSafeBase64Escape(
      absl::StrCat(cursor.finished_micros, ",", cursor.seat, ",", cursor.game_id));
}

absl::StatusOr<Cursor> DecodeCursor(const std::string& text) {
  std::string plain;
  Cursor cursor;
  if (absl::WebSafeBase64Unescape(text, &plain)) {
    std::vector<std::string> parts = absl::StrSplit(plain, absl::MaxSplits(',', 2));
    if (parts.size() == 3 && absl::SimpleAtoi(parts[0], &cursor.finished_micros) &&
        absl::SimpleAtoi(parts[1], &cursor.seat) && cursor.seat >= 0 &&
        cursor.seat <= 3) {
      cursor.game_id = std::move(parts[2]);
      return cursor;
    }
  }
  return absl::InvalidArgumentError("bad page cursor");
}

// Keeps a listing page's size sane whatever the client asked for.
constexpr int kMaxPage = 500;

// Leases checked (RenewHosted after a lapse) or released (ReleaseLeases) per
// transaction. Measured at 1,000 tables and 3,000 actions/s
// (docs/experiments/2026-12-01-hot-lease-renewals.md): one transaction for all of them held
// every game's row lock for the whole renewal, and each append of the instance
// waited for it.
constexpr size_t kLeaseChunk = 100;

// The games that `claim` took: a claim statement (kClaimOrphans, kClaimPreviousRuns)
// answers their ids as its one column. It commits on its own.
template <typename... Args>
absl::StatusOr<std::vector<std::string>> ClaimGames(pg::ConnectionPool& pool,
                                                    absl::string_view context,
                                                    const char* claim,
                                                    const Args&... args) {
  std::vector<std::string> claimed;
  absl::Status status = pool.Run(context, [&](pqxx::connection& c) {
    pqxx::work tx(c);
    const pqxx::result rows = tx.exec_params(claim, args...);
    tx.commit();
    for (const pqxx::row& row : rows) claimed.push_back(row[0].as<std::string>());
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return claimed;
}

}  // namespace

absl::StatusOr<bool> GameStore::Impl::RenewLease(absl::Duration ttl) {
  if (ttl <= absl::ZeroDuration())
    return absl::InvalidArgumentError("ttl must be positive");
  bool held = false;
  absl::Status status = pool.Run("renewing the lease", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    held = tx.exec_params1(sql::kRenewInstanceLease, options.instance_id,
                           absl::ToInt64Microseconds(ttl))[0]
               .as<bool>();
    tx.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return held;
}

absl::Status GameStore::RenewLeases(absl::Duration ttl) {
  return impl_->RenewLease(ttl).status();
}

absl::StatusOr<std::vector<std::string>> GameStore::ClaimOrphans(absl::Duration ttl,
                                                                 int limit) {
  if (ttl <= absl::ZeroDuration())
    return absl::InvalidArgumentError("ttl must be positive");
  if (limit < 1) return absl::InvalidArgumentError("limit must be at least 1");
  return ClaimGames(impl_->pool, "claiming orphaned games", sql::kClaimOrphans,
                    impl_->options.instance_id, absl::ToInt64Microseconds(ttl), limit);
}

absl::Status GameStore::ReleaseLease(const std::string& game_id) {
  return impl_->pool.Run("releasing a lease", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    if (!tx.exec_params(sql::kReleaseLease, game_id, impl_->options.instance_id)
             .empty()) {
      tx.commit();
      return absl::OkStatus();
    }
    const pqxx::result owner =
        tx.exec_params("SELECT lease_owner FROM games WHERE id = $1", game_id);
    if (owner.empty())
      return absl::NotFoundError(absl::StrCat("game ", game_id, " not found"));
    return absl::FailedPreconditionError(absl::StrCat("game ", game_id, " is leased to ",
                                                      owner[0][0].as<std::string>(),
                                                      ", not to us"));
  });
}

absl::Status GameStore::ReleaseLeases(const std::vector<std::string>& game_ids) {
  return impl_->pool.Run("releasing leases", [&](pqxx::connection& c) {
    for (size_t begin = 0; begin < game_ids.size(); begin += kLeaseChunk) {
      const size_t end = std::min(game_ids.size(), begin + kLeaseChunk);
      pg::PgArray ids(pg::PgType::kText);
      for (size_t i = begin; i < end; ++i) ids.AddString(game_ids[i]);
      pqxx::work tx(c);
      tx.exec_params0(sql::kReleaseLeases, impl_->options.instance_id, ids.Finish());
      tx.commit();
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> GameStore::LogLengths(
    const std::vector<std::string>& game_ids) {
  absl::flat_hash_map<std::string, int64_t> lengths;
  absl::Status status = impl_->pool.Run("reading log lengths", [&](pqxx::connection& c) {
    pg::PgArray ids(pg::PgType::kText);
    for (const std::string& id : game_ids) ids.AddString(id);
    pqxx::read_transaction tx(c);
    for (const pqxx::row& row : tx.exec_params(sql::kLogLengths, ids.Finish())) {
      lengths[row[0].as<std::string>()] = row[1].as<int64_t>();
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return lengths;
}

absl::StatusOr<std::vector<std::string>> GameStore::RenewHosted(
    absl::Duration ttl, const std::vector<std::string>& hosted) {
  absl::StatusOr<bool> held = impl_->RenewLease(ttl);
  if (!held.ok()) return held.status();
  if (*held) return hosted;
  // The lease lapsed (a pause, a database away): each hosted game is checked, as
  // the per-game renewal did. A transaction per chunk: an append waits for at most
  // one chunk's share locks.
  std::vector<std::string> ours;
  absl::Status status = impl_->pool.Run("checking leases", [&](pqxx::connection& c) {
    for (size_t begin = 0; begin < hosted.size(); begin += kLeaseChunk) {
      const size_t end = std::min(hosted.size(), begin + kLeaseChunk);
      pg::PgArray ids(pg::PgType::kText);
      for (size_t i = begin; i < end; ++i) ids.AddString(hosted[i]);
      pqxx::work tx(c);
      const pqxx::result rows =
          tx.exec_params(sql::kStillOurs, impl_->options.instance_id, ids.Finish());
      tx.commit();
      for (const pqxx::row& row : rows) ours.push_back(row[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return ours;
}

absl::StatusOr<bool> GameStore::ClaimTable(const std::string& game_id,
                                           absl::Duration ttl) {
  if (ttl <= absl::ZeroDuration())
    return absl::InvalidArgumentError("ttl must be positive");
  bool claimed = false;
  absl::Status status = impl_->pool.Run("claiming a game", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    claimed = !tx.exec_params(sql::kClaimTable, game_id, impl_->options.instance_id,
                              absl::ToInt64Microseconds(ttl))
                   .empty();
    tx.commit();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return claimed;
}

absl::StatusOr<std::vector<std::string>> GameStore::ClaimPreviousRuns(
    const std::string& name, absl::Duration ttl) {
  if (ttl <= absl::ZeroDuration())
    return absl::InvalidArgumentError("ttl must be positive");
  return ClaimGames(impl_->pool, "claiming a previous run's games",
                    sql::kClaimPreviousRuns, impl_->options.instance_id,
                    absl::ToInt64Microseconds(ttl), name);
}

absl::Status GameStore::MarkBroken(const std::string& game_id,
                                   const std::string& reason) {
  return impl_->pool.Run("quarantining a game", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    if (tx.exec_params(sql::kMarkBroken, game_id, reason).empty()) {
      return absl::NotFoundError(absl::StrCat("game ", game_id, " not found"));
    }
    tx.commit();
    return absl::OkStatus();
  });
}

absl::Status GameStore::VoidQuarantined(const table::AppendRequest& request) {
  if (request.entries.size() != 1 || !request.end.has_value()) {
    return absl::InvalidArgumentError("a void is one entry with the game's end");
  }
  const table::LogEntry& entry = request.entries[0];
  return impl_->pool.Run("voiding a quarantined game", [&](pqxx::connection& c) {
    pqxx::work tx(c);
    const pqxx::result written = tx.exec_params(
        sql::kVoidQuarantined, request.game_id, entry.index,
        pqxx::binarystring(entry.payload.data(), entry.payload.size()),
        absl::ToUnixMicros(entry.time), request.end->result,
        request.end->outbox_payload);
    if (written.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "game ", request.game_id,
          " is not a quarantined running game whose log has ", entry.index, " entries"));
    }
    tx.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<table::GameListing>> GameStore::ListActive(
    const std::string& player_id) {
  std::vector<table::GameListing> listings;
  absl::Status status = impl_->pool.Run("listing active games", [&](pqxx::connection& c) {
    pqxx::read_transaction tx(c);
    for (const pqxx::row& row : tx.exec_params(sql::kListActive, player_id)) {
      table::GameListing listing;
      listing.game_id = row[0].as<std::string>();
      listing.mode = row[1].as<std::string>();
      listing.seat = row[2].as<int>();
      listing.created = absl::FromUnixMicros(row[3].as<int64_t>());
      listings.push_back(std::move(listing));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return listings;
}

absl::StatusOr<std::vector<table::GameListing>> GameStore::ListFinished(
    const std::string& player_id, int limit, const std::string& before) {
  if (limit < 1) return absl::InvalidArgumentError("limit must be at least 1");
  limit = std::min(limit, kMaxPage);
  std::optional<Cursor> cursor;
  if (!before.empty()) {
    absl::StatusOr<Cursor> decoded = DecodeCursor(before);
    if (!decoded.ok()) return decoded.status();
    cursor = *std::move(decoded);
  }
  std::vector<table::GameListing> listings;
  absl::Status status =
      impl_->pool.Run("listing finished games", [&](pqxx::connection& c) {
        pqxx::read_transaction tx(c);
        const pqxx::result rows =
            cursor.has_value()
                ? tx.exec_params(sql::kListFinished, player_id, cursor->finished_micros,
                                 cursor->game_id, cursor->seat, limit)
                : tx.exec_params(sql::kListFinished, player_id, nullptr, nullptr, nullptr,
                                 limit);
        for (const pqxx::row& row : rows) {
          table::GameListing listing;
          listing.game_id = row[0].as<std::string>();
          listing.mode = row[1].as<std::string>();
          listing.seat = row[2].as<int>();
          listing.total = row[3].as<int32_t>();
          listing.place = row[4].as<int32_t>();
          listing.result = row[5].as<std::string>();
          listing.created = absl::FromUnixMicros(row[6].as<int64_t>());
          const int64_t finished = row[7].as<int64_t>();
          listing.finished = absl::FromUnixMicros(finished);
          listing.cursor = EncodeCursor({finished, listing.seat, listing.game_id});
          listings.push_back(std::move(listing));
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return listings;
}

}  // namespace trix::table
