// Robustness: long random sequences of mostly illegal actions (random types,
// seats out of range, invalid card indices, card sets with non-card bits, broken
// hands) fed to Game::Apply. Nothing crashes, a rejected action changes nothing,
// and the game's invariants hold throughout.
#include <array>

#include "absl/status/status.h"
#include "engine/game.h"
#include "engine/random.h"
#include "engine/testing/hands.h"
#include "engine/testing/invariants.h"
#include "engine/testing/random_game.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

constexpr int kGames = 100;
constexpr int kMaxSteps = 20000;

template <typename T, size_t N>
T Pick(const std::array<T, N>& values, Rng& rng) {
  return values[rng.Below(N)];
}

Card RandomCard(Rng& rng) {
  constexpr std::array<int, 10> kOdd = {13, 14, 15, 31, 63, 64, 127, 200, 254, 255};
  if (rng.Below(2)) return NthCard(kAllCards, static_cast<int>(rng.Below(52)));
  return static_cast<Card>(Pick(kOdd, rng));
}

CardSet RandomCards(const Game& game, Rng& rng) {
  switch (rng.Below(6)) {
    case 0:
      return rng.Next();
    case 1:
      return rng.Next() & kAllCards;
    case 2:
      return rng.Next() & ~kAllCards;  // nothing but non-card bits
    case 3:
      return (rng.Next() & kQueens) | (rng.Below(2) ? Bit(kKingOfHearts) : 0);
    case 4:
      return game.deals_started() ? game.dealt()[rng.Below(4)] & kQueens : 0;
    default:
      return 0;
  }
}

Hands RandomHands(uint64_t seed, Rng& rng) {
  Hands hands = ShuffledHands(seed + rng.Below(3), static_cast<int>(rng.Below(30)));
  switch (rng.Below(6)) {
    case 0:
      break;  // valid
    case 1:  // seat 1 holds one of seat 0's cards too
      hands[1] = (hands[1] & (hands[1] - 1)) | Bit(Lowest(hands[0]));
      break;
    case 2:
      hands[rng.Below(4)] |= CardSet{1} << (13 + 16 * rng.Below(4));  // a non-card
      break;
    case 3: {  // a card lost
      CardSet& hand = hands[rng.Below(4)];
      hand &= hand - 1;
      break;
    }
    case 4:
      for (CardSet& h : hands) h = rng.Next();
      break;
    default:
      hands = {};
      break;
  }
  return hands;
}

// One legal action in six, so that games move through their phases; the rest
// are legal actions with their key field spoiled, or pure noise.
Action RandomAction(const Game& game, uint64_t seed, Rng& rng) {
  constexpr std::array<int, 10> kSeats = {-128, -2, -1, 0, 1, 2, 3, 4, 5, 127};
  const bool live = game.phase() != Phase::kGameOver;
  const int kind = static_cast<int>(rng.Below(6));
  if (kind == 0 && live) return RandomLegalAction(game, seed, rng);
  Action action;
  if (kind < 3 && live) {
    action = RandomLegalAction(game, seed, rng);
  } else {
    action.type = static_cast<ActionType>(rng.Below(7));  // two past the last type
    action.seat = static_cast<int8_t>(rng.Below(2) ? Pick(kSeats, rng) : rng.Next());
    action.contract = static_cast<Contract>(rng.Below(2) ? rng.Below(10) : rng.Next());
    action.card = RandomCard(rng);
    action.cards = RandomCards(game, rng);
  }
  const bool spoil_seat = rng.Below(3) == 0;
  if (spoil_seat) action.seat = static_cast<int8_t>(Pick(kSeats, rng));
  switch (action.type) {
    case ActionType::kDeal:
      action.hands = RandomHands(seed, rng);
      break;
    case ActionType::kChooseContract:
      if (!spoil_seat) {
        action.contract =
            rng.Below(4) ? static_cast<Contract>(rng.Below(10)) : kNoContract;
      }
      break;
    case ActionType::kSelectDoubles:
      if (!spoil_seat) action.cards = RandomCards(game, rng);
      break;
    case ActionType::kPlayCard:
      if (!spoil_seat) action.card = RandomCard(rng);
      break;
    default:
      break;
  }
  action.autopilot = rng.Below(2);
  return action;
}

struct Snapshot {
  explicit Snapshot(const Game& game)
      : phase(game.phase()),
        events(game.events().size()),
        log(game.log().size()),
        deals(game.deals_started()),
        totals(game.totals()),
        hands(CurrentHands(game)) {
    for (int s = 0; s < kNumSeats; ++s) {
      selected[s] = game.doubles_selected(s);
      ready[s] = game.ready(s);
    }
  }
  bool operator==(const Snapshot& o) const {
    return phase == o.phase && events == o.events && log == o.log && deals == o.deals &&
           totals == o.totals && hands == o.hands && selected == o.selected &&
           ready == o.ready;
  }

  Phase phase;
  size_t events;
  size_t log;
  int deals;
  Scores totals;
  Hands hands;
  Hands selected{};
  std::array<bool, kNumSeats> ready{};
};

TEST(FuzzTest, RandomActionsNeverBreakTheGame) {
  int accepted = 0;
  int rejected = 0;
  int finished = 0;
  for (uint64_t seed = 1; seed <= kGames; ++seed) {
    Rng rng(seed * 31337);
    Game game(RandomRules(rng));
    for (int step = 0; step < kMaxSteps && game.phase() != Phase::kGameOver; ++step) {
      const Action action = RandomAction(game, seed, rng);
      const Snapshot before(game);
      const absl::Status status = game.Apply(action);
      if (status.ok()) {
        ++accepted;
        ExpectCardsConserved(game);
        ExpectNoHiddenCardShown(game, before.events);
      } else {
        ++rejected;
        EXPECT_TRUE(status.code() == absl::StatusCode::kInvalidArgument ||
                    status.code() == absl::StatusCode::kFailedPrecondition)
            << status;
        EXPECT_FALSE(status.message().empty());
        EXPECT_TRUE(Snapshot(game) == before) << "rejected action changed the game";
      }
      if (HasFailure()) {
        ADD_FAILURE() << "seed " << seed << " step " << step << ": " << status;
        return;
      }
    }
    finished += game.phase() == Phase::kGameOver;
    ExpectScoresAddUp(game);
    absl::StatusOr<Game> replayed = Game::Replay(game.rules(), game.log());
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    ExpectSameGame(game, *replayed);
  }
  EXPECT_GT(rejected, 2 * accepted);  // mostly illegal
  EXPECT_GT(finished, 0);
}

}  // namespace
}  // namespace trix::engine
