#include "services/ratings/game_result.h"

#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "proto/wire/outbox_row.h"

namespace trix::ratings {
namespace {

namespace v1 = ::trix::v1;

using nlohmann::json;

absl::Status Bad(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("outbox payload: ", why));
}

// A row written while payouts were floating point may have one that is not a
// whole number: it reads with that payout at 0 and the money problem said, so the
// game is still rated and its money left alone.
absl::StatusOr<v1::internal::FinishedGame> ReadFractionalPayouts(absl::string_view payload,
                                                                std::string& money_problem) {
  json j = json::parse(payload.begin(), payload.end(), nullptr, false);
  if (!j.is_object() || !j.contains("seats") || !j["seats"].is_array()) {
    return absl::InvalidArgumentError("not an object with seats");
  }
  for (json& seat : j["seats"]) {
    if (!seat.is_object() || !seat.contains("payout") || !seat["payout"].is_number_float()) {
      continue;
    }
    const double payout = seat["payout"].get<double>();
    if (std::isfinite(payout) && payout == std::floor(payout)) continue;
    if (money_problem.empty()) {
      money_problem = absl::StrCat("seat ", seat.value("seat", 0), " payout ",
                                   seat["payout"].dump(), " is not a whole non-negative number");
    }
    seat["payout"] = 0;
  }
  return wire::OutboxRowFromJson(j.dump());
}

absl::Status ReadSeat(const v1::internal::FinishedSeat& s, FinishedGame& game) {
  const int n = s.seat();
  if (n < 0 || n >= kSeats) return Bad("a seat number out of range");
  FinishedSeat& seat = game.seats[n];
  if (!seat.player_id.empty()) return Bad("a seat given twice");
  seat.seat = n;
  if (s.player_id().empty()) return Bad("a seat without a player id");
  seat.player_id = s.player_id();
  seat.bot = s.bot();
  if (!s.has_place()) return Bad("a seat without a place");
  seat.place = s.place();
  if (seat.place < 1 || seat.place > kSeats) return Bad("a place out of range");
  seat.total = s.total();
  seat.stake = s.stake();
  if (seat.stake < 0) return Bad("a stake that is not a whole non-negative number");
  seat.payout = s.payout();
  if (seat.payout < 0) {
    if (game.money_problem.empty()) {
      game.money_problem = absl::StrCat("seat ", n, " payout ", seat.payout,
                                        " is not a whole non-negative number");
    }
    seat.payout = 0;
  }
  return absl::OkStatus();
}

// A voided table's row: when and why, nothing to rate or settle.
absl::StatusOr<FinishedGame> VoidedGame(const v1::internal::FinishedGame& row,
                                        FinishedGame game) {
  if (row.voided_unix_ms() == 0) return Bad("a voided table without its time");
  if (row.reason().empty()) return Bad("a voided table without a reason");
  game.voided = true;
  game.finished = absl::FromUnixMillis(row.voided_unix_ms());
  game.void_reason = row.reason();
  return game;
}

}  // namespace

const std::array<const char*, 4> kModeNames = {"classic-solo", "classic-partner",
                                               "complex-solo", "complex-partner"};

bool IsPartnerMode(absl::string_view mode) { return absl::EndsWith(mode, "-partner"); }
bool IsKnownMode(absl::string_view mode) {
  for (const char* m : kModeNames) {
    if (mode == m) return true;
  }
  return false;
}

bool FinishedGame::staked() const {
  for (const FinishedSeat& s : seats) {
    if (s.stake > 0 || s.payout > 0) return true;
  }
  return !money_problem.empty();
}

bool FinishedGame::rates() const { return !voided && !unrated; }

int64_t FinishedGame::pot() const {
  int64_t pot = 0;
  for (const FinishedSeat& s : seats) pot += s.stake;
  return pot;
}

absl::StatusOr<FinishedGame> ParseFinishedGame(int64_t outbox_id, absl::string_view payload) {
  FinishedGame game;
  game.outbox_id = outbox_id;
  absl::StatusOr<v1::internal::FinishedGame> row = wire::OutboxRowFromJson(payload);
  if (!row.ok()) row = ReadFractionalPayouts(payload, game.money_problem);
  if (!row.ok()) return Bad(row.status().message());
  if (row->game_id().empty()) return Bad("no game id");
  game.game_id = row->game_id();
  if (row->mode().empty()) return Bad("no mode");
  game.mode = row->mode();
  if (!IsKnownMode(game.mode)) return Bad(absl::StrCat("unknown mode ", game.mode));
  game.finished = absl::FromUnixMillis(row->finished_unix_ms());
  game.unrated = row->unrated();
  if (row->voided()) return VoidedGame(*row, std::move(game));
  if (row->seats_size() != kSeats) return Bad("not four seats");
  for (const v1::internal::FinishedSeat& s : row->seats()) {
    if (absl::Status st = ReadSeat(s, game); !st.ok()) return st;
  }
  int64_t stakes = 0, payouts = 0;
  for (const FinishedSeat& s : game.seats) {
    if (s.bot && s.stake > 0) return Bad("a bot staked");
    if (s.stake > std::numeric_limits<int64_t>::max() / 8 ||
        s.payout > std::numeric_limits<int64_t>::max() / 8) {
      return Bad("an amount out of range");
    }
    stakes += s.stake;
    payouts += s.payout;
  }
  if (game.money_problem.empty() && stakes != payouts) {
    game.money_problem = absl::StrCat("payouts sum to ", payouts, ", the pot is ", stakes);
  }
  return game;
}

engine::Variant VariantOf(absl::string_view mode) {
  return {IsPartnerMode(mode) ? engine::Team::kPartner : engine::Team::kSolo,
          absl::StartsWith(mode, "complex") ? engine::Format::kComplex : engine::Format::kClassic};
}

RatedGame RatedGameOf(const FinishedGame& game) {
  RatedGame g;
  if (IsPartnerMode(game.mode)) {
    g.teams = {{0, 2}, {1, 3}};
    g.ranks = {static_cast<double>(game.seats[0].place),
               static_cast<double>(game.seats[1].place)};
    return g;
  }
  for (int s = 0; s < kSeats; ++s) {
    g.teams.push_back({s});
    g.ranks.push_back(game.seats[s].place);
  }
  return g;
}

}  // namespace trix::ratings
