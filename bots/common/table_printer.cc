#include "bots/common/table_printer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "engine/points.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

const char* const kPlaces[] = {"1st", "2nd", "3rd", "4th"};

// The cards of a taken trick that cost something under `contract` (engine/points.h).
engine::CardSet PenaltyCards(v1::Contract contract, engine::CardSet cards) {
  absl::StatusOr<engine::Contract> c = wire::ContractOrNoneFromProto(contract);
  if (!c.ok() || *c == engine::kNoContract) return 0;
  return cards & engine::PenaltyCards(*c);
}

// Whether `contract` has a doubling phase under the default options.
bool HasDoubling(v1::Contract contract) {
  absl::StatusOr<engine::Contract> c = wire::ContractOrNoneFromProto(contract);
  return c.ok() && *c != engine::kNoContract && engine::DoublableCards(*c, engine::Options{});
}

std::string Signed(int v) { return v > 0 ? absl::StrCat("+", v) : absl::StrCat(v); }

engine::CardSet Cards(const wire::CardNames& names) {
  absl::StatusOr<engine::CardSet> set = wire::CardSetFromProto(names);
  return set.ok() ? *set : 0;
}

}  // namespace

std::string TablePrinter::ContractTitle(v1::Contract contract) {
  switch (contract) {
    case v1::CONTRACT_KING_OF_HEARTS:
      return "King of Hearts";
    case v1::CONTRACT_QUEENS:
      return "Queens";
    case v1::CONTRACT_DIAMONDS:
      return "Diamonds";
    case v1::CONTRACT_TRICKS:
      return "Tricks";
    case v1::CONTRACT_TRIX:
      return "Trix";
    case v1::CONTRACT_COMPLEX:
      return "Complex";
    default:
      return "?";
  }
}

std::string TablePrinter::LayoutText(engine::CardSet layout) {
  static const char kRanks[] = "23456789TJQKA";
  static const char kSuits[] = "CDHS";
  std::vector<std::string> rows;
  for (int s = 0; s < 4; ++s) {
    const engine::CardSet row = layout & engine::SuitCards(static_cast<engine::Suit>(s));
    std::string text(1, kSuits[s]);
    if (!row) {
      absl::StrAppend(&text, " -  ");
    } else {
      const int low = engine::RankOf(engine::Lowest(row));
      const int high = engine::RankOf(engine::Highest(row));
      absl::StrAppend(
          &text, " ", std::string(1, kRanks[low]),
          low == high ? "  " : absl::StrCat("-", std::string(1, kRanks[high])));
    }
    rows.push_back(text);
  }
  return absl::StrJoin(rows, "  ");
}

std::string TablePrinter::Name(int seat) const {
  return seat >= 0 && seat < 4 ? names_[seat] : absl::StrCat("seat ", seat);
}

std::string TablePrinter::DealHeader(int deal, int kingdom, int owner) const {
  return absl::StrCat("── deal ", deal + 1, "/", deals_per_game_, " · kingdom ",
                      kingdom + 1, " of ", Name(owner), " ", std::string(40, '-'));
}

std::string TablePrinter::ScoresText(const std::array<int, 4>& scores) const {
  std::vector<std::string> parts;
  for (int s = 0; s < 4; ++s)
    parts.push_back(absl::StrCat(Name(s), " ", Signed(scores[s])));
  std::string text = absl::StrJoin(parts, " · ");
  if (partner_) {
    absl::StrAppend(&text, "   (teams ", Signed(scores[0] + scores[2]), " / ",
                    Signed(scores[1] + scores[3]), ")");
  }
  return text;
}

std::vector<std::string> TablePrinter::Lines(const v1::TableUpdate& update) {
  std::vector<std::string> lines;
  if (update.has_snapshot()) lines = SnapshotLines(update.snapshot());
  for (const v1::Event& e : update.events()) {
    if (e.seq() <= seq_) continue;  // already printed (a stream resumed too early)
    seq_ = e.seq();
    over_ = over_ || e.has_game_ended();
    for (std::string& line : EventLines(e)) lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> TablePrinter::SnapshotLines(const v1::TableView& view) {
  seq_ = view.seq();
  over_ = view.phase() == v1::PHASE_GAME_OVER;
  partner_ = view.mode().team() == v1::TEAM_PARTNER;
  deals_per_game_ = view.deals_per_game();
  contract_ = view.contract();
  for (const v1::SeatView& seat : view.seats()) {
    if (seat.seat() >= 0 && seat.seat() < 4) {
      names_[seat.seat()] =
          seat.display_name().empty() ? seat.player_id() : seat.display_name();
      totals_[seat.seat()] = seat.total();
    }
  }
  layout_ = Cards(view.layout());
  std::vector<std::string> lines;
  lines.push_back(absl::StrCat("watching ", view.table_id(), "  ",
                               wire::ModeName(view.mode()), "  ", deals_per_game_,
                               " deals"));
  if (view.deal() > 0 || view.phase() == v1::PHASE_PLAYING) {
    lines.push_back(absl::StrCat("   (joined in the middle; totals so far ",
                                 ScoresText(totals_), ")"));
  }
  if (view.deal() >= 0 && view.phase() != v1::PHASE_GAME_OVER) {
    // The deal under way started before the stream did: its header comes from here.
    lines.push_back(DealHeader(view.deal(), view.kingdom(), view.owner()));
    if (contract_ != v1::CONTRACT_UNSPECIFIED) {
      lines.push_back(
          absl::StrCat("   ", Name(view.owner()), " picked ", ContractTitle(contract_)));
    }
  }
  return lines;
}

std::vector<std::string> TablePrinter::EventLines(const v1::Event& e) {
  switch (e.kind_case()) {
    case v1::Event::kDealStarted:
    case v1::Event::kContractChosen:
    case v1::Event::kDoublesRevealed:
    case v1::Event::kTwosShown:
    case v1::Event::kPlayStarted:
      return DealOpeningLines(e);
    case v1::Event::kCardPlayed:
      return CardPlayedLines(e);
    case v1::Event::kPassed:
      passes_.push_back(e.passed().seat());
      return {};
    case v1::Event::kTrickTaken:
      return {TrickLine(e.trick_taken())};
    case v1::Event::kSeatOut:
      return {SeatOutLine(e.seat_out())};
    case v1::Event::kDealEnded:
      return DealEndedLines(e.deal_ended());
    case v1::Event::kGameEnded:
      return GameOverLines(e.game_ended().result());
    case v1::Event::kSeatLeft:
      return {absl::StrCat("   ", Name(e.seat_left().seat()),
                           " left; the autopilot plays the seat")};
    default:
      // Hands, doubling selections and readiness are private; turns are noise here.
      return {};
  }
}

// From the deal to its first card: the owner's choice, the doubles, the twos.
std::vector<std::string> TablePrinter::DealOpeningLines(const v1::Event& e) {
  switch (e.kind_case()) {
    case v1::Event::kDealStarted:
      StartDeal();
      return {DealHeader(e.deal(), e.kingdom(), e.deal_started().owner())};
    case v1::Event::kContractChosen:
      contract_ = e.contract_chosen().contract();
      return {absl::StrCat("   ", Name(e.contract_chosen().owner()), " picks ",
                           ContractTitle(contract_),
                           e.automatic() ? " (the kingdom's last contract)" : "")};
    case v1::Event::kDoublesRevealed:
      doubles_shown_ = true;
      return {absl::StrCat("   ", Name(e.doubles_revealed().seat()), " doubled ",
                           absl::StrJoin(e.doubles_revealed().cards(), " "))};
    case v1::Event::kTwosShown:
      return {absl::StrCat("   ", Name(e.twos_shown().seat()), " shows ",
                           absl::StrJoin(e.twos_shown().cards(), " "))};
    case v1::Event::kPlayStarted:
      if (HasDoubling(contract_) && !doubles_shown_) return {"   no doubles"};
      return {};
    default:
      return {};
  }
}

void TablePrinter::StartDeal() {
  contract_ = v1::CONTRACT_UNSPECIFIED;
  tricks_ = 0;
  trick_.clear();
  layout_ = 0;
  passes_.clear();
  seats_out_ = 0;
  doubles_shown_ = false;
}

// A trick's card joins the trick's line (printed when it is taken); a Trix card
// is a line of its own with the layout and the passes before it.
std::vector<std::string> TablePrinter::CardPlayedLines(const v1::Event& e) {
  const int seat = e.card_played().seat();
  const std::string& card = e.card_played().card();
  if (contract_ != v1::CONTRACT_TRIX) {
    trick_.emplace_back(seat, absl::StrCat(card, e.automatic() ? "(auto)" : ""));
    return {};
  }
  absl::StatusOr<engine::Card> c = engine::ParseCard(card);
  if (c.ok()) layout_ |= engine::Bit(*c);
  std::string line = absl::StrFormat("   %-14s %-3s%s  | %s", Name(seat), card,
                                     e.automatic() ? " (auto)" : "", LayoutText(layout_));
  if (!passes_.empty()) {
    std::vector<std::string> who;
    for (int p : passes_) who.push_back(Name(p));
    absl::StrAppend(&line, "   (before: ", absl::StrJoin(who, ", "), " passed)");
    passes_.clear();
  }
  return {line};
}

std::string TablePrinter::TrickLine(const v1::TrickTaken& taken) {
  ++tricks_;
  std::vector<std::string> plays;
  for (const auto& [seat, card] : trick_) plays.push_back(absl::StrCat(Name(seat), " ", card));
  trick_.clear();
  std::string line = absl::StrFormat("   trick %2d  %s  → %s", tricks_,
                                     absl::StrJoin(plays, " · "), Name(taken.seat()));
  const engine::CardSet penalty = PenaltyCards(contract_, Cards(taken.cards()));
  if (penalty) absl::StrAppend(&line, " takes ", engine::CardsText(penalty));
  return line;
}

// A seat that went out in Trix, with its place (the first out is 1st).
std::string TablePrinter::SeatOutLine(const v1::SeatOut& out) {
  const int place = seats_out_ < 4 ? seats_out_ : 3;
  ++seats_out_;
  return absl::StrCat("   ", Name(out.seat()), " is out ", kPlaces[place], ": ",
                      Signed(out.points()));
}

std::vector<std::string> TablePrinter::DealEndedLines(const v1::DealEnded& ended) {
  std::array<int, 4> scores{};
  for (int s = 0; s < 4 && s < ended.scores_size(); ++s) {
    scores[s] = ended.scores(s);
    totals_[s] += scores[s];
  }
  return {absl::StrCat("   deal scores  ", ScoresText(scores)),
          absl::StrCat("   totals       ", ScoresText(totals_))};
}

std::vector<std::string> TablePrinter::GameOverLines(const v1::GameResult& result) const {
  std::vector<std::string> lines = {std::string(60, '='), "GAME OVER"};
  for (std::string& l : ResultLines(result, names_, partner_)) {
    lines.push_back(std::move(l));
  }
  return lines;
}

std::vector<std::string> TablePrinter::ResultLines(
    const v1::GameResult& result, const std::array<std::string, 4>& names, bool partner) {
  std::vector<std::string> lines;
  for (int s = 0; s < 4 && s < result.totals_size(); ++s) {
    std::string line =
        absl::StrFormat("  seat %d  %-30s %+6d", s, names[s], result.totals(s));
    if (s < result.places_size()) {
      if (!partner) {
        absl::StrAppend(&line, "   place ", result.places(s));
      } else if (result.winner_team() < 0) {
        absl::StrAppend(&line, "   draw");
      } else {
        absl::StrAppend(&line, result.places(s) == 1 ? "   won" : "   lost");
      }
    }
    if (s < result.payouts_size() && result.payouts(s) != 0) {
      absl::StrAppend(&line, absl::StrCat("   payout ", result.payouts(s)));
    }
    lines.push_back(line);
  }
  if (partner && result.team_totals_size() == 2) {
    lines.push_back(absl::StrFormat(
        "  teams: seats 0+2 %+d · seats 1+3 %+d → %s", result.team_totals(0),
        result.team_totals(1),
        result.winner_team() < 0
            ? std::string("a draw")
            : absl::StrCat("seats ", result.winner_team() == 0 ? "0+2" : "1+3", " win")));
  }
  return lines;
}

}  // namespace trix::bots
