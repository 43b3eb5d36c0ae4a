#include "services/ratings/testing/outbox_games.h"

#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "proto/wire/outbox_row.h"
#include "services/pg/array.h"

namespace trix::ratings {

OutboxGame OutboxGame::Solo(std::string id, std::array<std::string, 4> players,
                            std::array<int, 4> places) {
  OutboxGame g;
  g.game_id = std::move(id);
  for (int s = 0; s < 4; ++s) {
    g.seats[s].player_id = players[s];
    g.seats[s].place = places[s];
    g.seats[s].total = (5 - places[s]) * 10;
  }
  return g;
}

OutboxGame OutboxGame::StakedSolo(std::string id) {
  OutboxGame g = Solo(std::move(id), {"a", "b", "c", "d"}, {1, 2, 3, 4});
  const int64_t payouts[] = {240, 120, 40, 0};
  for (int s = 0; s < 4; ++s) {
    g.seats[s].stake = 100;
    g.seats[s].payout = payouts[s];
  }
  return g;
}

absl::Status HoldStakes(Ledger& ledger, const OutboxGame& game, int64_t credit) {
  for (int s = 0; s < 4; ++s) {
    const OutboxSeat& seat = game.seats[s];
    if (seat.stake == 0) continue;
    const std::string key = absl::StrCat(game.game_id, "-", s);
    absl::StatusOr<Transfer> credited =
        ledger.Move(EntryKind::kCredit, key, seat.player_id, credit, "");
    if (!credited.ok()) return credited.status();
    absl::StatusOr<HoldInfo> held = ledger.HoldStake(key, seat.player_id, seat.stake);
    if (!held.ok()) return held.status();
    absl::StatusOr<HoldInfo> attached = ledger.AttachHold(held->hold_id, game.game_id, s);
    if (!attached.ok()) return attached.status();
  }
  return absl::OkStatus();
}

OutboxGame OutboxGame::Partner(std::string id, std::array<std::string, 4> players, int winner) {
  OutboxGame g;
  g.game_id = std::move(id);
  g.mode = "complex-partner";
  for (int s = 0; s < 4; ++s) {
    g.seats[s].player_id = players[s];
    g.seats[s].place = winner < 0 || s % 2 == winner ? 1 : 2;
    g.seats[s].total = s % 2 == winner ? 10 : 0;
  }
  return g;
}

namespace {

// The row as the table service wrote it while payouts were floating point, and
// its seats and result were written field by field.
std::string LegacyPayload(const OutboxGame& g) {
  nlohmann::json j;
  j["game_id"] = g.game_id;
  j["mode"] = g.mode;
  j["seats"] = nlohmann::json::array();
  if (!g.void_reason.empty()) {
    j["voided"] = true;
    j["reason"] = g.void_reason;
    j["voided_unix_ms"] = g.finished_unix_ms;
    for (int s = 0; s < 4; ++s) {
      j["seats"].push_back({{"seat", s},
                            {"player_id", g.seats[s].player_id},
                            {"bot", g.seats[s].bot},
                            {"team", s % 2},
                            {"stake", g.seats[s].stake}});
    }
    return j.dump();
  }
  j["finished_unix_ms"] = g.finished_unix_ms;
  for (int s = 0; s < 4; ++s) {
    const OutboxSeat& seat = g.seats[s];
    j["seats"].push_back({{"seat", s},
                          {"player_id", seat.player_id},
                          {"bot", seat.bot},
                          {"team", s % 2},
                          {"stake", seat.stake},
                          {"total", seat.total},
                          {"place", seat.place},
                          {"payout", seat.payout}});
  }
  j["result"] = nlohmann::json::object();
  return j.dump();
}

}  // namespace

std::string OutboxGame::Payload() const {
  for (const OutboxSeat& seat : seats) {
    if (!seat.payout.is_number_integer()) return LegacyPayload(*this);
  }
  v1::internal::FinishedGame row;
  row.set_game_id(game_id);
  row.set_mode(mode);
  row.set_unrated(unrated);
  for (int s = 0; s < 4; ++s) {
    v1::internal::FinishedSeat* seat = row.add_seats();
    seat->set_seat(s);
    seat->set_player_id(seats[s].player_id);
    seat->set_bot(seats[s].bot);
    seat->set_team(s % 2);
    seat->set_stake(seats[s].stake);
    if (void_reason.empty()) {
      seat->set_total(seats[s].total);
      seat->set_place(seats[s].place);
      seat->set_payout(seats[s].payout.get<int64_t>());
    }
  }
  if (!void_reason.empty()) {
    row.set_voided(true);
    row.set_reason(void_reason);
    row.set_voided_unix_ms(finished_unix_ms);
  } else {
    row.set_finished_unix_ms(finished_unix_ms);
    row.mutable_result();
  }
  return wire::OutboxRowJson(row);
}

void WriteOutboxGames(pqxx::connection& connection, const std::vector<OutboxGame>& games) {
  pg::PgArray ids(pg::PgType::kText), modes(pg::PgType::kText),
      payloads(pg::PgType::kText);
  for (const OutboxGame& g : games) {
    ids.AddString(g.game_id);
    modes.AddString(g.mode);
    payloads.AddString(g.Payload());
  }
  pqxx::work tx(connection);
  tx.exec_params0(
      "INSERT INTO games (id, mode, config, lease_owner, lease_until, finished, result) "
      "SELECT id, mode, '\\x00'::bytea, 'outbox-writer', now(), now(), '{}'::jsonb "
      "FROM unnest($1::text[], $2::text[]) AS g(id, mode)",
      ids.Finish(), modes.Finish());
  tx.exec_params0(
      "INSERT INTO game_results (game_id, payload) "
      "SELECT id, payload::jsonb FROM unnest($1::text[], $2::text[]) WITH ORDINALITY "
      "AS g(id, payload, n) ORDER BY n",
      ids.Finish(), payloads.Finish());
  tx.commit();
}

}  // namespace trix::ratings
