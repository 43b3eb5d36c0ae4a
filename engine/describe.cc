#include "engine/describe.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trix::engine {
namespace {

std::string SeatName(int seat) { return absl::StrCat("seat ", seat); }

std::string ScoresText(const Scores& scores) { return absl::StrJoin(scores, " "); }

}  // namespace

std::string DescribeEvent(const Event& e) {
  const std::string seat = SeatName(e.seat);
  const char* by = e.automatic ? " (auto)" : "";
  switch (e.type) {
    case EventType::kDealStarted:
      return absl::StrCat("deal ", e.deal + 1, ", kingdom ", e.kingdom + 1, " of ", seat);
    case EventType::kHandShown:
      return absl::StrCat(seat, " sees its hand: ", CardsText(e.cards));
    case EventType::kContractChosen:
      return absl::StrCat(seat, " picks ", ContractName(e.contract), by);
    case EventType::kDoublesSelected:
      return absl::StrCat(seat, " selects doubles: ", CardsText(e.cards), by);
    case EventType::kReady:
      return absl::StrCat(seat, " is ready", by);
    case EventType::kDoublesRevealed:
      return absl::StrCat(seat, " doubled ", CardsText(e.cards));
    case EventType::kTwosShown:
      return absl::StrCat(seat, " shows ", CardsText(e.cards));
    case EventType::kPlayStarted:
      return absl::StrCat("play starts with ", seat);
    case EventType::kCardPlayed:
      return absl::StrCat(seat, " plays ", CardName(e.card), by);
    case EventType::kPassed:
      return absl::StrCat(seat, " passes", by);
    case EventType::kTrickTaken:
      return absl::StrCat(seat, " takes ", CardsText(e.cards));
    case EventType::kSeatOut:
      return absl::StrCat(seat, " is out: +", e.values[e.seat]);
    case EventType::kDealEnded:
      return absl::StrCat("deal scores: ", ScoresText(e.values));
    case EventType::kGameEnded:
      return absl::StrCat("game over, totals: ", ScoresText(e.values));
  }
  return "?";
}

}  // namespace trix::engine
