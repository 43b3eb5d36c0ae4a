#include "engine/cards.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trix::engine {
namespace {
constexpr char kRankChars[] = "23456789TJQKA";
constexpr char kSuitChars[] = "CDHS";
}  // namespace

std::string CardName(Card c) {
  if (c > 63 || RankOf(c) > kAce) return "??";
  return {kRankChars[RankOf(c)], kSuitChars[SuitOf(c)]};
}

absl::StatusOr<Card> ParseCard(absl::string_view text) {
  if (text.size() == 2) {
    absl::string_view ranks(kRankChars), suits(kSuitChars);
    size_t r = ranks.find(text[0]);
    size_t s = suits.find(text[1]);
    if (r != absl::string_view::npos && s != absl::string_view::npos) {
      return MakeCard(static_cast<Suit>(s), static_cast<Rank>(r));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("'", text, "' is not a card (rank 23456789TJQKA then suit CDHS)"));
}

std::string CardsText(CardSet s) {
  std::string out;
  while (s) {
    if (!out.empty()) out += ' ';
    out += CardName(PopLowest(s));
  }
  return out;
}

absl::StatusOr<CardSet> ParseCards(absl::string_view text) {
  CardSet set = 0;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    absl::StatusOr<Card> c = ParseCard(word);
    if (!c.ok()) return c.status();
    if (set & Bit(*c)) {
      return absl::InvalidArgumentError(absl::StrCat(word, " is listed twice"));
    }
    set |= Bit(*c);
  }
  return set;
}

}  // namespace trix::engine
