#include "bots/play/screen.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bots/common/table_printer.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

constexpr char kBold[] = "\x1b[1m";
constexpr char kDim[] = "\x1b[2m";
constexpr char kReverse[] = "\x1b[7m";
constexpr char kReset[] = "\x1b[0m";
const char* const kSuitNames[] = {"Clubs", "Diamonds", "Hearts", "Spades"};

std::string Styled(const ScreenInfo& info, const char* style, const std::string& text) {
  return info.color ? absl::StrCat(style, text, kReset) : text;
}

std::string PhaseText(engine::Phase phase) {
  switch (phase) {
    case engine::Phase::kDealing: return "dealing";
    case engine::Phase::kChoosingContract: return "choosing the contract";
    case engine::Phase::kDoubling: return "doubling";
    case engine::Phase::kPlaying: return "playing";
    case engine::Phase::kGameOver: return "game over";
  }
  return "";
}

std::string Title(engine::Contract contract) {
  return TablePrinter::ContractTitle(wire::ContractToProto(contract));
}

// Whole seconds left on a clock, never negative.
int SecondsLeft(absl::Time deadline, absl::Time now) {
  if (deadline == absl::InfiniteFuture()) return -1;
  return std::max<int>(0, static_cast<int>(std::ceil(absl::ToDoubleSeconds(deadline - now))));
}

std::string Header(const SeatState& s, const ScreenInfo& info) {
  std::string line = absl::StrCat(
      "Mamlaka Trix · ", engine::ModeName(s.rules.variant), " · you are seat ", s.seat);
  if (s.deal >= 0 && !s.game_over) {
    absl::StrAppend(&line, " · deal ", s.deal + 1, "/", s.deals_per_game, " · kingdom ",
                    s.kingdom + 1, " of ", SeatName(s, s.owner));
  }
  return Styled(info, kBold, line);
}

std::vector<std::string> SeatLines(const SeatState& s, absl::Time now) {
  std::vector<std::string> lines = {
      absl::StrFormat("  %-4s %-22s %5s %6s %5s %6s", "seat", "player", "cards", "tricks",
                      "deal", "total")};
  const int left = SecondsLeft(s.deadline, now);
  for (int seat = 0; seat < engine::kNumSeats; ++seat) {
    const SeatInfo& info = s.seats[seat];
    std::string name = SeatName(s, seat);
    if (seat == s.seat) name = absl::StrCat(name, " (you)");
    if (info.bot) name = absl::StrCat(name, " [bot]");
    if (info.left) name = absl::StrCat(name, " [autopilot]");
    const int cards = seat == s.seat ? engine::Count(s.hand) : info.hand_size;
    std::string line = absl::StrFormat("  %-4d %-22s %5d %6d %+5d %+6d", seat, name, cards,
                                       info.tricks_won, info.deal_score, info.total);
    if (std::find(s.turn.begin(), s.turn.end(), seat) != s.turn.end()) {
      absl::StrAppend(&line, "   <- to act");
      if (left >= 0) absl::StrAppend(&line, " (", left, "s)");
    }
    lines.push_back(line);
  }
  if (s.partner_mode()) {
    lines.push_back(absl::StrFormat("  teams: seats 0+2 %+d · seats 1+3 %+d",
                                    s.seats[0].total + s.seats[2].total,
                                    s.seats[1].total + s.seats[3].total));
  }
  return lines;
}

// The cards on the table: the trick in play order, or the Trix layout by suit.
std::vector<std::string> TableLines(const SeatState& s) {
  if (s.contract == engine::kNoContract) return {};
  std::vector<std::string> lines;
  if (s.contract == engine::Contract::kTrix) {
    lines.push_back(absl::StrCat("Layout: ", TablePrinter::LayoutText(s.layout)));
    for (int suit = 0; suit < 4; ++suit) {
      engine::CardSet row = s.layout & engine::SuitCards(static_cast<engine::Suit>(suit));
      std::vector<std::string> cards;
      while (row) cards.push_back(engine::CardName(engine::PopLowest(row)));
      lines.push_back(absl::StrFormat("  %-9s %s", kSuitNames[suit],
                                      cards.empty() ? "-" : absl::StrJoin(cards, " ")));
    }
    if (!s.out_order.empty()) {
      std::vector<std::string> out;
      for (int seat : s.out_order) out.push_back(SeatName(s, seat));
      lines.push_back(absl::StrCat("  out: ", absl::StrJoin(out, ", ")));
    }
    return lines;
  }
  std::vector<std::string> plays;
  if (s.leader >= 0) {
    for (int i = 0; i < engine::kNumSeats; ++i) {
      const int seat = (s.leader + i) % engine::kNumSeats;
      if (s.trick[seat] == engine::kNoCard) continue;
      plays.push_back(absl::StrCat(SeatName(s, seat), " ", engine::CardName(s.trick[seat])));
    }
  }
  lines.push_back(absl::StrCat("Trick: ", plays.empty() ? "-" : absl::StrJoin(plays, " · ")));
  if (s.doubled()) {
    lines.push_back(absl::StrCat("Doubled: ", engine::CardsText(s.doubled())));
  }
  return lines;
}

// One card of the hand with its marker: [QS] an option, >QS< the cursor, *QS* a
// card selected to double.
std::string CardCell(const SeatState& s, const Chooser& c, const ScreenInfo& info,
                     engine::Card card) {
  const std::string name = engine::CardName(card);
  const bool option =
      c.open() && std::find(c.cards().begin(), c.cards().end(), card) != c.cards().end();
  const bool selected = c.open() && c.phase() == engine::Phase::kDoubling &&
                        (c.selection() & engine::Bit(card));
  if (option && card == c.cursor_card()) {
    return Styled(info, kReverse, absl::StrCat(">", name, "<"));
  }
  if (selected) return Styled(info, kBold, absl::StrCat("*", name, "*"));
  if (option) return Styled(info, kBold, absl::StrCat("[", name, "]"));
  if (c.open()) return Styled(info, kDim, absl::StrCat(" ", name, " "));
  return absl::StrCat(" ", name, " ");
}

std::vector<std::string> HandLines(const SeatState& s, const Chooser& c,
                                   const ScreenInfo& info) {
  std::vector<std::string> lines = {"Your hand:"};
  for (int suit = 0; suit < 4; ++suit) {
    engine::CardSet cards = s.hand & engine::SuitCards(static_cast<engine::Suit>(suit));
    std::vector<std::string> cells;
    while (cards) cells.push_back(CardCell(s, c, info, engine::PopLowest(cards)));
    lines.push_back(absl::StrFormat("  %-9s %s", kSuitNames[suit],
                                    cells.empty() ? "-" : absl::StrJoin(cells, "")));
  }
  return lines;
}

// What the open decision asks, and its keys.
std::vector<std::string> PromptLines(const SeatState& s, const Chooser& c,
                                     const ScreenInfo& info, absl::Time now) {
  if (c.confirming_leave()) {
    return {Styled(info, kBold,
                   "Leave the table? The autopilot plays your seat to the end. (y/n)")};
  }
  if (!c.open()) {
    if (s.game_over) return {};
    std::vector<std::string> waiting;
    for (int seat : s.turn) waiting.push_back(SeatName(s, seat));
    return {absl::StrCat("Waiting", waiting.empty() ? "" : " for ",
                         absl::StrJoin(waiting, ", "), "...   (q leave)")};
  }
  const int left = SecondsLeft(s.options.deadline, now);
  const std::string clock = left >= 0 ? absl::StrCat("  [", left, "s left]") : "";
  std::vector<std::string> lines;
  switch (c.phase()) {
    case engine::Phase::kChoosingContract:
      lines.push_back(Styled(info, kBold, absl::StrCat("Your turn: choose a contract", clock)));
      for (size_t i = 0; i < c.contracts().size(); ++i) {
        const std::string item = absl::StrCat(i + 1, " ", Title(c.contracts()[i]));
        lines.push_back(static_cast<int>(i) == c.cursor()
                            ? absl::StrCat("  ", Styled(info, kReverse, absl::StrCat(">", item, "<")))
                            : absl::StrCat("  [", item, "]"));
      }
      lines.push_back("Keys: 1-9 choose · Left/Right (h/l) move · Enter choose · q leave");
      break;
    case engine::Phase::kDoubling:
      lines.push_back(Styled(
          info, kBold,
          absl::StrCat("Your turn: double (selected: ",
                       c.selection() ? engine::CardsText(c.selection()) : "none", ")",
                       clock)));
      lines.push_back(
          "Keys: Left/Right (h/l) move · Space add/remove · Enter commit (ready) · q leave");
      break;
    case engine::Phase::kPlaying:
      lines.push_back(Styled(info, kBold, absl::StrCat("Your turn: play a card", clock)));
      lines.push_back(
          "Keys: Left/Right (h/l) or 1-9 move · Enter play the card under > < · q leave");
      break;
    default:
      break;
  }
  return lines;
}

std::vector<std::string> ResultLines(const SeatState& s) {
  std::array<std::string, 4> names;
  for (int seat = 0; seat < 4; ++seat) names[seat] = SeatName(s, seat);
  std::vector<std::string> lines = {"GAME OVER · final scores:"};
  for (std::string& line : TablePrinter::ResultLines(s.result, names, s.partner_mode()))
    lines.push_back(std::move(line));
  if (s.seat >= 0 && s.seat < s.result.totals_size()) {
    lines.push_back(absl::StrFormat("You (seat %d) scored %+d.", s.seat,
                                    s.result.totals(s.seat)));
  }
  lines.push_back("Press any key to exit.");
  return lines;
}

}  // namespace

std::string SeatName(const SeatState& state, int seat) {
  if (seat < 0 || seat >= engine::kNumSeats) return "-";
  const SeatInfo& info = state.seats[seat];
  if (!info.display_name.empty()) return info.display_name;
  if (!info.player_id.empty()) return info.player_id;
  return absl::StrCat("seat ", seat);
}

std::vector<std::string> ScreenLines(const SeatState& s, const Chooser& c,
                                     const ScreenInfo& info, absl::Time now) {
  std::vector<std::string> lines = {Header(s, info)};
  if (!info.where.empty()) lines.push_back(info.where);
  std::string contract = absl::StrCat("Phase: ", PhaseText(s.phase));
  if (s.contract != engine::kNoContract) {
    absl::StrAppend(&contract, " · contract: ", Title(s.contract));
  }
  lines.push_back(contract);
  lines.push_back("");
  for (std::string& l : SeatLines(s, now)) lines.push_back(std::move(l));
  lines.push_back("");
  if (s.game_over) {
    for (std::string& l : ResultLines(s)) lines.push_back(std::move(l));
  } else {
    for (std::string& l : TableLines(s)) lines.push_back(std::move(l));
    lines.push_back("");
    for (std::string& l : HandLines(s, c, info)) lines.push_back(std::move(l));
    lines.push_back("");
    for (std::string& l : PromptLines(s, c, info, now)) lines.push_back(std::move(l));
  }
  if (!info.status.empty()) lines.push_back(Styled(info, kBold, info.status));
  if (!info.log.empty()) {
    lines.push_back("");
    lines.push_back("Lately:");
    for (const std::string& l : info.log) lines.push_back(l);
  }
  return lines;
}

std::string Frame(const std::vector<std::string>& lines) {
  std::string out = "\x1b[H";
  for (const std::string& line : lines) absl::StrAppend(&out, line, "\x1b[K\r\n");
  absl::StrAppend(&out, "\x1b[J");
  return out;
}

std::string StripAnsi(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace trix::bots
