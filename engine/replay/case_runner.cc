#include "engine/replay/case_runner.h"

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "engine/deal.h"
#include "engine/game.h"
#include "engine/result.h"

namespace trix::engine {
namespace {

using nlohmann::json;

// A case that stops with `error` at play `index` (-1: a setup error).
struct CaseError {
  int index;
  std::string error;
};

absl::StatusOr<std::string> StringField(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat("'", key, "' must be a string"));
  }
  return it->get<std::string>();
}

absl::StatusOr<Rules> ParseRules(const json& c) {
  Rules rules;
  auto variant = c.find("variant");
  if (variant == c.end() || !variant->is_object()) {
    return absl::InvalidArgumentError("'variant' must be an object");
  }
  absl::StatusOr<std::string> team = StringField(*variant, "team");
  if (!team.ok()) return team.status();
  absl::StatusOr<Team> t = ParseTeam(*team);
  if (!t.ok()) return t.status();
  absl::StatusOr<std::string> format = StringField(*variant, "format");
  if (!format.ok()) return format.status();
  absl::StatusOr<Format> f = ParseFormat(*format);
  if (!f.ok()) return f.status();
  rules.variant = {*t, *f};

  auto opts = c.find("rules");
  if (opts == c.end() || opts->is_null()) return rules;
  if (!opts->is_object()) return absl::InvalidArgumentError("'rules' must be an object");
  for (auto it = opts->begin(); it != opts->end(); ++it) {
    const std::string& key = it.key();
    if (key == "doubling" && it->is_boolean()) {
      rules.options.doubling = it->get<bool>();
    } else if (key == "end_early" && it->is_boolean()) {
      rules.options.end_early = it->get<bool>();
    } else if (key == "kingdoms" && it->is_number_integer()) {
      // Range-check before narrowing: get<int>() would wrap 2^32 + 1 to 1.
      const int64_t kingdoms = it->get<int64_t>();
      if (kingdoms < 1 || kingdoms > 4) {
        return absl::InvalidArgumentError(
            absl::StrCat("kingdoms must be 1 to 4, not ", it->dump()));
      }
      rules.options.kingdoms = static_cast<int>(kingdoms);
    } else if (key == "kh_heart_lead" && it->is_string()) {
      absl::StatusOr<HeartLead> lead = ParseHeartLead(it->get<std::string>());
      if (!lead.ok()) return lead.status();
      rules.options.kh_heart_lead = *lead;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("bad rule option '", key, "'"));
    }
  }
  if (absl::Status s = ValidateOptions(rules.options); !s.ok()) return s;
  return rules;
}

absl::StatusOr<Hands> ParseHands(const json& obj) {
  auto it = obj.find("hands");
  if (it == obj.end() || !it->is_array() || it->size() != kNumSeats) {
    return absl::InvalidArgumentError("'hands' must list 4 hands");
  }
  Hands hands{};
  for (int s = 0; s < kNumSeats; ++s) {
    if (!(*it)[s].is_string()) return absl::InvalidArgumentError("a hand must be a string");
    absl::StatusOr<CardSet> cards = ParseCards((*it)[s].get<std::string>());
    if (!cards.ok()) return cards.status();
    hands[s] = *cards;
  }
  if (absl::Status s = ValidateHands(hands); !s.ok()) return s;
  return hands;
}

// The doubled cards of a case, by holder; each must be doublable in `contract`.
absl::StatusOr<Hands> ParseDoubles(const json& obj, const Hands& hands,
                                   Contract contract, const Options& options) {
  Hands by_seat{};
  auto it = obj.find("doubles");
  if (it == obj.end() || it->is_null()) return by_seat;
  if (!it->is_array()) return absl::InvalidArgumentError("'doubles' must be a list");
  for (const json& d : *it) {
    if (!d.is_string()) return absl::InvalidArgumentError("a double must be a card");
    absl::StatusOr<Card> card = ParseCard(d.get<std::string>());
    if (!card.ok()) return card.status();
    if (!(DoublableCards(contract, options) & Bit(*card))) {
      return absl::InvalidArgumentError(absl::StrCat("cannot double ", CardName(*card)));
    }
    if ((by_seat[0] | by_seat[1] | by_seat[2] | by_seat[3]) & Bit(*card)) {
      return absl::InvalidArgumentError(absl::StrCat(CardName(*card), " is doubled twice"));
    }
    for (int s = 0; s < kNumSeats; ++s) {
      if (hands[s] & Bit(*card)) by_seat[s] |= Bit(*card);
    }
  }
  return by_seat;
}

absl::StatusOr<std::vector<std::string>> ParsePlays(const json& obj) {
  auto it = obj.find("plays");
  if (it == obj.end() || !it->is_array()) {
    return absl::InvalidArgumentError("'plays' must be a list");
  }
  std::vector<std::string> plays;
  for (const json& p : *it) {
    if (!p.is_string()) return absl::InvalidArgumentError("a play must be a card");
    plays.push_back(p.get<std::string>());
  }
  return plays;
}

absl::StatusOr<Contract> ParseCaseContract(const json& obj, Format format) {
  absl::StatusOr<std::string> name = StringField(obj, "contract");
  if (!name.ok()) return name.status();
  absl::StatusOr<Contract> contract = ParseContract(*name);
  if (!contract.ok()) return contract.status();
  if (!InFormat(*contract, format)) {
    return absl::InvalidArgumentError(absl::StrCat(*name, " is not a ",
                                                    FormatName(format), " contract"));
  }
  return *contract;
}

json TeamScores(const Scores& s) { return json::array({s[0] + s[2], s[1] + s[3]}); }

json ErrorResult(const json& id, const CaseError& e) {
  return {{"id", id}, {"ok", false}, {"error_index", e.index}, {"error", e.error}};
}

json RunDeal(const json& c, const json& id) {
  auto setup = [&](const absl::Status& s) {
    return ErrorResult(id, {-1, std::string(s.message())});
  };
  absl::StatusOr<Rules> rules = ParseRules(c);
  if (!rules.ok()) return setup(rules.status());
  auto owner = c.find("owner");
  // get<int64_t>, not get<int>: an owner of 2^32 must not wrap to seat 0.
  if (owner == c.end() || !owner->is_number_integer() || owner->get<int64_t>() < 0 ||
      owner->get<int64_t>() >= kNumSeats) {
    return setup(absl::InvalidArgumentError("'owner' must be a seat 0-3"));
  }
  absl::StatusOr<Contract> contract = ParseCaseContract(c, rules->variant.format);
  if (!contract.ok()) return setup(contract.status());
  absl::StatusOr<Hands> hands = ParseHands(c);
  if (!hands.ok()) return setup(hands.status());
  absl::StatusOr<Hands> doubles = ParseDoubles(c, *hands, *contract, rules->options);
  if (!doubles.ok()) return setup(doubles.status());
  absl::StatusOr<std::vector<std::string>> plays = ParsePlays(c);
  if (!plays.ok()) return setup(plays.status());

  Deal deal(*rules, *contract, owner->get<int>(), *hands, *doubles);
  for (size_t i = 0; i < plays->size(); ++i) {
    absl::StatusOr<Card> card = ParseCard((*plays)[i]);
    absl::Status status = card.ok() ? deal.TryPlay(*card) : card.status();
    if (deal.over() && !card.ok()) status = absl::FailedPreconditionError("deal already over");
    if (!status.ok()) {
      return ErrorResult(id, {static_cast<int>(i), std::string(status.message())});
    }
  }
  if (!deal.over()) {
    return ErrorResult(id, {static_cast<int>(plays->size()), "deal not finished"});
  }

  json out = {{"id", id},
              {"ok", true},
              {"scores", deal.scores()},
              {"cards_played", deal.cards_played()}};
  if (*contract == Contract::kTrix) {
    out["out_order"] = deal.out_order();
    out["passes"] = deal.passes();
  } else {
    out["tricks"] = deal.tricks_played();
  }
  if (rules->variant.team == Team::kPartner) out["team_scores"] = TeamScores(deal.scores());
  return out;
}

// Plays one deal of a game case; `played` counts plays across the whole game.
std::optional<CaseError> RunGameDeal(Game& game, const json& d, int& played) {
  auto setup = [](const absl::Status& s) {
    return CaseError{-1, std::string(s.message())};
  };
  if (!d.is_object()) return setup(absl::InvalidArgumentError("a deal must be an object"));
  absl::StatusOr<Hands> hands = ParseHands(d);
  if (!hands.ok()) return setup(hands.status());
  if (absl::Status s = game.Apply(Action::Deal(*hands)); !s.ok()) return setup(s);
  absl::StatusOr<Contract> contract = ParseCaseContract(d, game.rules().variant.format);
  if (!contract.ok()) return setup(contract.status());
  if (game.phase() == Phase::kChoosingContract) {
    absl::Status s = game.Apply(Action::ChooseContract(game.owner(), *contract));
    if (!s.ok()) return setup(s);
  } else if (game.contract() != *contract) {
    return setup(absl::InvalidArgumentError(
        absl::StrCat(ContractName(*contract), " was already played in this kingdom")));
  }
  absl::StatusOr<Hands> doubles = ParseDoubles(d, *hands, *contract, game.rules().options);
  if (!doubles.ok()) return setup(doubles.status());
  if (game.phase() == Phase::kDoubling) {
    for (int s = 0; s < kNumSeats; ++s) {
      if ((*doubles)[s]) {
        absl::Status st = game.Apply(Action::SelectDoubles(s, (*doubles)[s]));
        if (!st.ok()) return setup(st);
      }
    }
    for (int s = 0; s < kNumSeats; ++s) {
      absl::Status st = game.Apply(Action::Ready(s));
      if (!st.ok()) return setup(st);
    }
  }
  absl::StatusOr<std::vector<std::string>> plays = ParsePlays(d);
  if (!plays.ok()) return setup(plays.status());
  for (const std::string& p : *plays) {
    if (game.phase() != Phase::kPlaying) return CaseError{played, "deal already over"};
    absl::StatusOr<Card> card = ParseCard(p);
    absl::Status s = card.ok() ? game.Apply(Action::PlayCard(game.ToAct(), *card))
                               : card.status();
    if (!s.ok()) return CaseError{played, std::string(s.message())};
    ++played;
  }
  if (game.phase() == Phase::kPlaying) return CaseError{played, "deal not finished"};
  return std::nullopt;
}

json RunGame(const json& c, const json& id) {
  absl::StatusOr<Rules> rules = ParseRules(c);
  if (!rules.ok()) return ErrorResult(id, {-1, std::string(rules.status().message())});
  Stakes stakes{};
  if (auto it = c.find("stakes"); it != c.end() && !it->is_null()) {
    if (!it->is_array() || it->size() != kNumSeats) {
      return ErrorResult(id, {-1, "'stakes' must list 4 amounts"});
    }
    for (int s = 0; s < kNumSeats; ++s) {
      if (!(*it)[s].is_number_integer() || (*it)[s].get<int64_t>() < 0) {
        return ErrorResult(id, {-1, "a stake must be a whole amount, 0 or more"});
      }
      stakes[s] = (*it)[s].get<int64_t>();
    }
    if (absl::Status st = ValidateStakes(stakes); !st.ok()) {
      return ErrorResult(id, {-1, std::string(st.message())});
    }
  }
  auto deals = c.find("deals");
  if (deals == c.end() || !deals->is_array()) {
    return ErrorResult(id, {-1, "'deals' must be a list"});
  }
  if (static_cast<int>(deals->size()) != DealsPerGame(*rules)) {
    return ErrorResult(id, {-1, absl::StrCat("a game of these rules has ",
                                             DealsPerGame(*rules), " deals, not ",
                                             deals->size())});
  }
  Game game(*rules);
  int played = 0;
  for (const json& d : *deals) {
    if (std::optional<CaseError> e = RunGameDeal(game, d, played)) {
      return ErrorResult(id, *e);
    }
  }
  const GameResult result = ResultOf(rules->variant, game.totals(), stakes);
  // The cases compare the exact split of the rules (a fraction when it does not
  // divide evenly), not the whole units a table pays.
  json payouts = json::array();
  for (const PotShare& share : result.shares) payouts.push_back(share.value());
  json out = {{"id", id},
              {"ok", true},
              {"deal_scores", game.deal_scores()},
              {"totals", result.totals},
              {"payouts", payouts},
              // What a table pays: whole units, rounded as engine/result.h says.
              {"payouts_paid", result.payouts}};
  if (rules->variant.team == Team::kPartner) {
    out["team_totals"] = result.team_totals;
    out["winner_team"] = result.winner_team < 0 ? json(nullptr) : json(result.winner_team);
  } else {
    out["places"] = result.places;
  }
  return out;
}

}  // namespace

json RunCase(const json& c) {
  if (!c.is_object()) return ErrorResult(nullptr, {-1, "a case must be a JSON object"});
  const json id = c.contains("id") ? c["id"] : json(nullptr);
  absl::StatusOr<std::string> kind = StringField(c, "kind");
  if (!kind.ok()) return ErrorResult(id, {-1, std::string(kind.status().message())});
  if (*kind == "deal") return RunDeal(c, id);
  if (*kind == "game") return RunGame(c, id);
  return ErrorResult(id, {-1, absl::StrCat("unknown kind '", *kind, "'")});
}

std::string RunCaseLine(const std::string& line) {
  json c = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (c.is_discarded()) {
    return ErrorResult(nullptr, {-1, "not a JSON object"})
        .dump(-1, ' ', false, json::error_handler_t::replace);
  }
  return RunCase(c).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace trix::engine
