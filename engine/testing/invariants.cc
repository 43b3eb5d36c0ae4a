#include "engine/testing/invariants.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "engine/observation.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

CardSet CardBit(Card card) { return card <= 63 ? Bit(card) & kAllCards : 0; }

bool HandsAsDealt(const Game& game) {
  return game.phase() == Phase::kChoosingContract || game.phase() == Phase::kDoubling;
}

// Every card an observation names.
CardSet ExposedBy(const Observation& o) {
  CardSet cards = o.hand | o.my_doubles | o.layout | o.doublable | o.legal;
  for (int s = 0; s < kNumSeats; ++s) {
    cards |= o.doubled[s] | o.twos_shown[s] | o.taken[s] | CardBit(o.trick[s]);
  }
  return cards;
}

}  // namespace

int32_t FixedTotal(Contract contract) {
  switch (contract) {
    case Contract::kKingOfHearts:
      return -75;
    case Contract::kQueens:
      return -100;
    case Contract::kDiamonds:
      return -130;
    case Contract::kTricks:
      return -195;
    case Contract::kTrix:
      return 500;
    case Contract::kComplex:
      return -500;
  }
  return 0;
}

int32_t Sum(const Scores& scores) {
  return scores[0] + scores[1] + scores[2] + scores[3];
}

Hands CurrentHands(const Game& game) {
  if (game.deals_started() == 0) return {};
  return HandsAsDealt(game) ? game.dealt() : game.deal().hands();
}

CardSet PublicHandCards(const Game& game) {
  if (game.deals_started() == 0 || HandsAsDealt(game)) return 0;
  const Deal& deal = game.deal();
  CardSet shown = deal.doubled();
  if (TwosShown(game.rules().variant, deal.contract(), game.dealt())) shown |= kTwos;
  return shown;
}

void ExpectCardsConserved(const Game& game) {
  if (game.deals_started() == 0) return;
  const Hands& dealt = game.dealt();
  EXPECT_TRUE(ValidateHands(dealt).ok()) << ValidateHands(dealt);
  if (HandsAsDealt(game)) return;
  const Deal& deal = game.deal();
  CardSet seen = deal.layout();  // every card played, in any contract
  EXPECT_EQ(Count(seen), deal.cards_played());
  for (int s = 0; s < kNumSeats; ++s) {
    const CardSet hand = deal.hands()[s];
    EXPECT_EQ(hand & ~dealt[s], 0u) << "seat " << s << " holds cards it was not dealt";
    EXPECT_EQ(seen & hand, 0u) << "seat " << s << " holds a played card";
    seen |= hand;
  }
  EXPECT_EQ(seen, kAllCards) << "cards lost: " << CardsText(kAllCards & ~seen);
}

void ExpectNoHiddenCardShown(const Game& game, size_t first_event) {
  const Hands hands = CurrentHands(game);
  const CardSet shown = PublicHandCards(game);
  const std::vector<Event>& events = game.events();
  for (int viewer = kSpectator; viewer < kNumSeats; ++viewer) {
    CardSet hidden = 0;
    for (int s = 0; s < kNumSeats; ++s) {
      if (s != viewer) hidden |= hands[s];
    }
    hidden &= ~shown;
    const bool hand_shown =
        game.deals_started() > 0 &&
        (game.phase() != Phase::kChoosingContract || viewer == game.owner());
    // While the owner chooses, the other seats may not see even their own hands.
    if (viewer != kSpectator && !hand_shown) hidden |= hands[viewer];
    for (size_t i = first_event; i < events.size(); ++i) {
      const Event& e = events[i];
      if (!VisibleTo(e, viewer)) continue;
      const CardSet leaked = (e.cards | CardBit(e.card)) & hidden;
      EXPECT_EQ(leaked, 0u) << "viewer " << viewer << " sees " << CardsText(leaked)
                            << " in event " << i << ": " << DescribeEvent(e);
    }
    const Observation o = Observe(game, viewer);
    const CardSet leaked = ExposedBy(o) & hidden;
    EXPECT_EQ(leaked, 0u) << "Observe(" << viewer << ") shows " << CardsText(leaked);
    if (viewer == kSpectator) {
      EXPECT_EQ(o.hand | o.my_doubles | o.legal | o.doublable, 0u);
      continue;
    }
    EXPECT_EQ(o.hand, hand_shown ? hands[viewer] : 0)
        << "seat " << viewer << " during phase " << static_cast<int>(game.phase());
  }
}

void ExpectScoresAddUp(const Game& game) {
  const int per_kingdom =
      static_cast<int>(ContractsOf(game.rules().variant.format).size());
  std::map<int, int32_t> kingdom_sum;
  std::map<int, int> kingdom_deals;
  size_t ended = 0;
  for (const Event& e : game.events()) {
    if (e.type != EventType::kDealEnded) continue;
    EXPECT_EQ(Sum(e.values), FixedTotal(e.contract))
        << "deal " << int{e.deal} << " of " << ContractName(e.contract);
    kingdom_sum[e.kingdom] += Sum(e.values);
    ++kingdom_deals[e.kingdom];
    ASSERT_LT(ended, game.deal_scores().size());
    EXPECT_EQ(game.deal_scores()[ended], e.values);
    ++ended;
  }
  EXPECT_EQ(ended, game.deal_scores().size());
  for (const auto& [kingdom, sum] : kingdom_sum) {
    if (kingdom_deals[kingdom] == per_kingdom) {
      EXPECT_EQ(sum, 0) << "kingdom " << kingdom;
    }
  }
  Scores totals{};
  for (const Scores& d : game.deal_scores()) {
    for (int s = 0; s < kNumSeats; ++s) totals[s] += d[s];
  }
  EXPECT_EQ(game.totals(), totals);
}

void ExpectRejected(Game& game, const Action& action, absl::StatusCode code,
                    absl::string_view message) {
  const Game before = game;
  const absl::Status status = game.Apply(action);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(std::string(status.message()).find(std::string(message)), std::string::npos)
      << "'" << status.message() << "' does not say '" << message << "'";
  EXPECT_EQ(game.events().size(), before.events().size());
  EXPECT_EQ(game.log().size(), before.log().size());
  EXPECT_EQ(game.phase(), before.phase());
  EXPECT_EQ(game.totals(), before.totals());
  EXPECT_EQ(game.deals_started(), before.deals_started());
  for (int s = 0; s < kNumSeats; ++s) {
    EXPECT_EQ(game.doubles_selected(s), before.doubles_selected(s));
    EXPECT_EQ(game.ready(s), before.ready(s));
  }
  EXPECT_EQ(game.deal().hands(), before.deal().hands());
  EXPECT_EQ(game.deal().cards_played(), before.deal().cards_played());
}

void ExpectSameGame(const Game& expected, const Game& actual) {
  EXPECT_EQ(expected.phase(), actual.phase());
  EXPECT_EQ(expected.deals_started(), actual.deals_started());
  EXPECT_EQ(expected.owner(), actual.owner());
  EXPECT_EQ(expected.contract(), actual.contract());
  EXPECT_EQ(expected.totals(), actual.totals());
  EXPECT_EQ(expected.deal_scores(), actual.deal_scores());
  ASSERT_EQ(expected.log().size(), actual.log().size());
  ASSERT_EQ(expected.events().size(), actual.events().size());
  for (size_t i = 0; i < expected.events().size(); ++i) {
    ASSERT_EQ(DescribeEvent(expected.events()[i]), DescribeEvent(actual.events()[i]))
        << "event " << i;
  }
  EXPECT_EQ(expected.deal().hands(), actual.deal().hands());
  EXPECT_EQ(expected.deal().scores(), actual.deal().scores());
}

std::string DescribeEvent(const Event& e) {
  return absl::StrCat(
      "type=", static_cast<int>(e.type), " seat=", e.seat, " deal=", e.deal,
      " kingdom=", e.kingdom, " contract=", ContractName(e.contract),
      " card=", e.card == kNoCard ? "-" : CardName(e.card), " automatic=", e.automatic,
      " cards=[", CardsText(e.cards), "] values=", e.values[0], ",", e.values[1], ",",
      e.values[2], ",", e.values[3]);
}

}  // namespace trix::engine
