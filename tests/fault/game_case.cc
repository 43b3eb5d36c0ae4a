#include "tests/fault/game_case.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/rules.h"
#include "proto/wire/outbox_row.h"
#include "proto/wire/wire.h"
#include "trix/v1/log.pb.h"

namespace trix::fault {
namespace {

using nlohmann::json;
namespace v1 = ::trix::v1;

// One deal as the log tells it.
struct LoggedDeal {
  std::vector<std::string> hands;
  std::optional<engine::Contract> contract;
  std::array<std::vector<std::string>, 4> doubles;  // each seat's last selection
  std::vector<std::string> plays;
};

json RulesJson(const engine::Rules& rules) {
  return {{"doubling", rules.options.doubling},
          {"kh_heart_lead", engine::HeartLeadName(rules.options.kh_heart_lead)},
          {"end_early", rules.options.end_early},
          {"kingdoms", rules.options.kingdoms}};
}

// Adds one logged action to the deals so far.
absl::Status AddAction(const v1::internal::LoggedAction& a, std::vector<LoggedDeal>& deals) {
  if (a.kind() == v1::internal::ACTION_KIND_DEAL) {
    if (a.hands_size() != 4) return absl::DataLossError("a deal without four hands");
    deals.emplace_back();
    deals.back().hands.assign(a.hands().begin(), a.hands().end());
    return absl::OkStatus();
  }
  if (deals.empty()) return absl::DataLossError("an action before the first deal");
  LoggedDeal& deal = deals.back();
  switch (a.kind()) {
    case v1::internal::ACTION_KIND_CHOOSE_CONTRACT: {
      absl::StatusOr<engine::Contract> c = wire::ContractFromProto(a.contract());
      if (!c.ok()) return absl::DataLossError(c.status().message());
      deal.contract = *c;
      return absl::OkStatus();
    }
    case v1::internal::ACTION_KIND_SELECT_DOUBLES:
      if (a.seat() < 0 || a.seat() > 3) return absl::DataLossError("a double by no seat");
      deal.doubles[a.seat()].assign(a.cards().begin(), a.cards().end());
      return absl::OkStatus();
    case v1::internal::ACTION_KIND_READY:
      return absl::OkStatus();
    case v1::internal::ACTION_KIND_PLAY_CARD:
      deal.plays.push_back(a.card());
      return absl::OkStatus();
    default:
      return absl::DataLossError(absl::StrCat("an action of kind ", a.kind()));
  }
}

// The case's deals; a kingdom's last contract is the one its owner has not played.
absl::StatusOr<json> DealsJson(const std::vector<LoggedDeal>& deals,
                               engine::Format format) {
  const std::vector<engine::Contract>& contracts = engine::ContractsOf(format);
  json out = json::array();
  uint32_t played = 0;
  for (size_t d = 0; d < deals.size(); ++d) {
    if (d % contracts.size() == 0) played = 0;
    std::optional<engine::Contract> contract = deals[d].contract;
    if (!contract) {
      for (engine::Contract c : contracts) {
        if (!(played & (1u << static_cast<int>(c)))) contract = c;
      }
    }
    if (!contract) return absl::DataLossError(absl::StrCat("deal ", d, " has no contract"));
    played |= 1u << static_cast<int>(*contract);
    json doubles = json::array();
    for (const std::vector<std::string>& cards : deals[d].doubles) {
      for (const std::string& card : cards) doubles.push_back(card);
    }
    out.push_back({{"hands", deals[d].hands},
                   {"contract", engine::ContractName(*contract)},
                   {"doubles", doubles},
                   {"plays", deals[d].plays}});
  }
  return out;
}

}  // namespace

absl::StatusOr<json> GameCase(const table::StoredGame& game) {
  v1::internal::TableSettings settings;
  if (!settings.ParseFromString(game.game.config)) {
    return absl::DataLossError(absl::StrCat("game ", game.game.game_id, ": unreadable config"));
  }
  absl::StatusOr<engine::Rules> rules = wire::RulesFromProto(settings.mode(), settings.rules());
  if (!rules.ok()) return absl::DataLossError(rules.status().message());

  std::vector<LoggedDeal> deals;
  for (const table::LogEntry& entry : game.entries) {
    v1::internal::LogRecord record;
    if (!record.ParseFromString(entry.payload)) {
      return absl::DataLossError(
          absl::StrCat("game ", game.game.game_id, ": unreadable log entry ", entry.index));
    }
    for (const v1::internal::LoggedAction& a : record.actions()) {
      if (absl::Status s = AddAction(a, deals); !s.ok()) {
        return absl::DataLossError(absl::StrCat("game ", game.game.game_id, " entry ",
                                                entry.index, ": ", s.message()));
      }
    }
  }
  absl::StatusOr<json> deals_json = DealsJson(deals, rules->variant.format);
  if (!deals_json.ok()) return deals_json.status();
  json stakes = json::array();
  for (const table::SeatRecord& seat : game.game.seats) stakes.push_back(seat.stake);
  return json{{"id", game.game.game_id},
              {"kind", "game"},
              {"variant",
               {{"team", engine::TeamName(rules->variant.team)},
                {"format", engine::FormatName(rules->variant.format)}}},
              {"rules", RulesJson(*rules)},
              {"stakes", stakes},
              {"deals", *deals_json}};
}

absl::StatusOr<json> RecordedResult(const std::string& game_id,
                                    const std::string& outbox_payload) {
  auto bad = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat("game ", game_id, "'s outbox record: ", why));
  };
  absl::StatusOr<v1::internal::FinishedGame> row = wire::OutboxRowFromJson(outbox_payload);
  if (!row.ok()) return bad(row.status().message());
  if (row->game_id() != game_id) return bad("not this game's");
  const v1::GameResult& r = row->result();
  if (!row->has_result() || row->seats_size() != 4) return bad("malformed");
  if (r.totals_size() != 4 || r.places_size() != 4 || r.payouts_size() != 4) {
    return bad("no totals, places or payouts");
  }
  // The per-seat lines the ratings service reads must say what the result says.
  for (int s = 0; s < 4; ++s) {
    const v1::internal::FinishedSeat& seat = row->seats(s);
    if (seat.seat() != s || seat.total() != r.totals(s) || seat.place() != r.places(s) ||
        seat.payout() != r.payouts(s)) {
      return bad(absl::StrCat("seat ", s, "'s line disagrees with the result"));
    }
  }
  json want = {{"id", game_id}, {"ok", true}};
  want["totals"] = std::vector<int32_t>(r.totals().begin(), r.totals().end());
  want["payouts_paid"] = std::vector<int64_t>(r.payouts().begin(), r.payouts().end());
  if (r.team_totals_size() > 0) {
    want["team_totals"] = std::vector<int32_t>(r.team_totals().begin(), r.team_totals().end());
    want["winner_team"] = r.winner_team() < 0 ? json() : json(r.winner_team());
  } else {
    want["places"] = std::vector<int32_t>(r.places().begin(), r.places().end());
  }
  return want;
}

}  // namespace trix::fault
