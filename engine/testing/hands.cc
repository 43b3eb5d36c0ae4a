#include "engine/testing/hands.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trix::engine {
namespace {

[[noreturn]] void BadTestData(const absl::Status& status) {
  std::fprintf(stderr, "bad test data: %s\n", std::string(status.message()).c_str());
  std::abort();
}

template <typename Target>
absl::Status PlayListed(Target& target, absl::string_view plays,
                        absl::Status (*play)(Target&, Card)) {
  int index = 0;
  for (absl::string_view name : absl::StrSplit(plays, ' ', absl::SkipEmpty())) {
    absl::StatusOr<Card> card = ParseCard(name);
    absl::Status status = card.ok() ? play(target, *card) : card.status();
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("play ", index, ": ", status.message()));
    }
    ++index;
  }
  return absl::OkStatus();
}

}  // namespace

Card CardOf(absl::string_view name) {
  absl::StatusOr<Card> card = ParseCard(name);
  if (!card.ok()) BadTestData(card.status());
  return *card;
}

CardSet Cards(absl::string_view names) {
  absl::StatusOr<CardSet> cards = ParseCards(names);
  if (!cards.ok()) BadTestData(cards.status());
  return *cards;
}

Hands MakeHands(absl::string_view seat0, absl::string_view seat1, absl::string_view seat2,
                absl::string_view seat3) {
  const Hands hands = {Cards(seat0), Cards(seat1), Cards(seat2), Cards(seat3)};
  if (absl::Status status = ValidateHands(hands); !status.ok()) BadTestData(status);
  return hands;
}

Hands SuitHands() {
  return {SuitCards(kClubs), SuitCards(kDiamonds), SuitCards(kHearts),
          SuitCards(kSpades)};
}

Hands StripedHands() {
  Hands hands{};
  for (CardSet all = kAllCards; all;) {
    const Card card = PopLowest(all);
    hands[(RankOf(card) + SuitOf(card)) % kNumSeats] |= Bit(card);
  }
  return hands;
}

Hands QueenOfDiamondsHands() {
  return MakeHands(
      "QD 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS", "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD",
      "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH AH", "KH AS 2D 3D 4D 5D 6D 7D 8D 9D TD JD KD");
}

Hands KingOfHeartsHands() {
  return MakeHands(
      "2H 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", "KH 2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC",
      "3H 4H 5H 6H 7H 8H 9H TH JH QH AH KC AC", "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD");
}

Rules MakeRules(Team team, Format format, const Options& options) {
  return Rules{Variant{team, format}, options};
}

Hands Swapped(const Hands& hands, Card card, int to, Card back) {
  Hands out = hands;
  const int from = HolderOf(hands, card);
  out[from] = (out[from] & ~Bit(card)) | Bit(back);
  out[to] = (out[to] & ~Bit(back)) | Bit(card);
  if (absl::Status status = ValidateHands(out); !status.ok()) BadTestData(status);
  return out;
}

absl::Status PlayCards(Deal& deal, absl::string_view plays) {
  return PlayListed<Deal>(deal, plays, [](Deal& d, Card c) { return d.TryPlay(c); });
}

absl::Status PlayCards(Game& game, absl::string_view plays) {
  return PlayListed<Game>(game, plays, [](Game& g, Card c) {
    return g.Apply(Action::PlayCard(g.ToAct(), c));
  });
}

int HolderOf(const Hands& hands, Card card) {
  for (int s = 0; s < kNumSeats; ++s) {
    if (hands[s] & Bit(card)) return s;
  }
  return -1;
}

}  // namespace trix::engine
