#include "services/ratings/game_result.h"

#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace trix::ratings {
namespace {

using nlohmann::json;

absl::Status Bad(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("outbox payload: ", why));
}

// A JSON number that must be a whole number fitting int64.
bool WholeNumber(const json& j, int64_t& out) {
  if (j.is_number_integer()) {
    out = j.get<int64_t>();
    return !j.is_number_unsigned() || j.get<uint64_t>() <= uint64_t{INT64_MAX};
  }
  if (!j.is_number_float()) return false;
  const double d = j.get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15) return false;
  out = static_cast<int64_t>(d);
  return true;
}

absl::Status ReadSeat(const json& s, FinishedGame& game) {
  if (!s.is_object() || !s.contains("seat") || !s["seat"].is_number_integer()) {
    return Bad("a seat without its number");
  }
  const int n = s["seat"].get<int>();
  if (n < 0 || n >= kSeats) return Bad("a seat number out of range");
  FinishedSeat& seat = game.seats[n];
  if (!seat.player_id.empty()) return Bad("a seat given twice");
  seat.seat = n;
  if (!s.contains("player_id") || !s["player_id"].is_string() ||
      s["player_id"].get<std::string>().empty()) {
    return Bad("a seat without a player id");
  }
  seat.player_id = s["player_id"].get<std::string>();
  seat.bot = s.value("bot", false);
  if (!s.contains("place") || !s["place"].is_number_integer()) return Bad("a seat without a place");
  seat.place = s["place"].get<int>();
  if (seat.place < 1 || seat.place > kSeats) return Bad("a place out of range");
  if (s.contains("total") && !WholeNumber(s["total"], seat.total)) return Bad("a bad total");
  if (s.contains("stake") && (!WholeNumber(s["stake"], seat.stake) || seat.stake < 0)) {
    return Bad("a stake that is not a whole non-negative number");
  }
  if (s.contains("payout") && (!WholeNumber(s["payout"], seat.payout) || seat.payout < 0)) {
    if (game.money_problem.empty()) game.money_problem = absl::StrCat("seat ", n, " payout ", s["payout"].dump(), " is not a whole non-negative number");
    seat.payout = 0;
  }
  return absl::OkStatus();
}

// A voided table's row: when and why, nothing to rate or settle.
absl::StatusOr<FinishedGame> VoidedGame(const json& j, FinishedGame game) {
  int64_t ms = 0;
  if (!j.contains("voided_unix_ms") || !WholeNumber(j["voided_unix_ms"], ms)) {
    return Bad("a voided table without its time");
  }
  if (!j.contains("reason") || !j["reason"].is_string()) {
    return Bad("a voided table without a reason");
  }
  game.voided = true;
  game.finished = absl::FromUnixMillis(ms);
  game.void_reason = j["reason"].get<std::string>();
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

int64_t FinishedGame::pot() const {
  int64_t pot = 0;
  for (const FinishedSeat& s : seats) pot += s.stake;
  return pot;
}

absl::StatusOr<FinishedGame> ParseFinishedGame(int64_t outbox_id, absl::string_view payload) {
  const json j = json::parse(payload.begin(), payload.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Bad("not a JSON object");
  FinishedGame game;
  game.outbox_id = outbox_id;
  if (!j.contains("game_id") || !j["game_id"].is_string()) return Bad("no game id");
  game.game_id = j["game_id"].get<std::string>();
  if (!j.contains("mode") || !j["mode"].is_string()) return Bad("no mode");
  game.mode = j["mode"].get<std::string>();
  if (!IsKnownMode(game.mode)) return Bad(absl::StrCat("unknown mode ", game.mode));
  int64_t ms = 0;
  if (j.contains("finished_unix_ms") && !WholeNumber(j["finished_unix_ms"], ms)) {
    return Bad("a bad finish time");
  }
  game.finished = absl::FromUnixMillis(ms);
  if (j.value("voided", false)) return VoidedGame(j, std::move(game));
  if (!j.contains("seats") || !j["seats"].is_array() || j["seats"].size() != kSeats) {
    return Bad("not four seats");
  }
  for (const json& s : j["seats"]) {
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
