#include "bots/strategies/search_bot.h"

#include <limits>

#include "absl/time/clock.h"
#include "bots/strategies/card_points.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

using engine::Bit;
using engine::Card;
using engine::CardSet;
using engine::Contract;
using engine::Count;
using engine::Deal;
using engine::kNumSeats;
using engine::Scores;

double Millis(absl::Time start) {
  return absl::ToDoubleMilliseconds(absl::Now() - start);
}

int CardsLeft(const Deal& d) {
  return Count(d.hands()[0] | d.hands()[1] | d.hands()[2] | d.hands()[3]);
}

// The doubles the others are taken to make in a sampled deal: the heuristic's.
engine::Hands SampledDoubles(const engine::Rules& rules, Contract contract,
                             const engine::Hands& hands) {
  engine::Hands doubles{};
  const CardSet doublable = engine::DoublableCards(contract, rules.options);
  if (!doublable) return doubles;
  for (int s = 0; s < kNumSeats; ++s) {
    doubles[s] = heuristic::ChooseDoubles(hands[s], doublable);
  }
  return doubles;
}

// Of two cards of a suit with nothing still in play between them and the same
// cost, playing either comes to the same: keep the lower.
CardSet DistinctOptions(const SeatState& s, CardSet legal) {
  if (s.contract == Contract::kTrix) return legal;
  CardSet live = engine::kAllCards & ~s.played;
  for (Card c : s.trick) {
    if (c != engine::kNoCard) live |= Bit(c);
  }
  const CardSet doubled = s.doubled();
  CardSet out = 0;
  Card prev = engine::kNoCard;
  for (CardSet b = legal; b;) {
    const Card c = engine::PopLowest(b);
    const bool same =
        prev != engine::kNoCard && engine::SuitOf(prev) == engine::SuitOf(c) &&
        CardCost(prev, s.contract, doubled) == CardCost(c, s.contract, doubled) &&
        !((Bit(c) - 1) & ~((Bit(prev) << 1) - 1) & live);
    if (!same) out |= Bit(c);
    prev = c;
  }
  return out;
}

}  // namespace

SearchBot::SearchBot(uint64_t seed, const SearchOptions& options)
    : options_(options), rng_(seed) {}

void SearchBot::Restart(const SeatState& state) {
  history_.Reset();
  if (state.played != 0) history_.Lost();
  // The yardsticks of the contract choice, measured now rather than on a
  // decision's clock.
  for (Contract c : engine::ContractsOf(state.rules.variant.format)) {
    UsualValue(state.rules, c);
  }
}

void SearchBot::Observe(const v1::Event& event, const SeatState& state) {
  switch (event.kind_case()) {
    case v1::Event::kDealStarted:
      history_.Reset();
      break;
    case v1::Event::kCardPlayed: {
      absl::StatusOr<Card> card = wire::CardFromProto(event.card_played().card());
      if (!card.ok()) {
        history_.Lost();
        break;
      }
      history_.CardPlayed(event.card_played().seat(), *card, state);
      break;
    }
    case v1::Event::kPassed:
      history_.Passed(event.passed().seat(), state);
      break;
    default:
      break;
  }
}

Decision SearchBot::Decide(const SeatState& state) {
  const SeatOptions& o = state.options;
  const absl::Time start = absl::Now();
  switch (o.phase) {
    case engine::Phase::kChoosingContract: {
      if (!o.contracts) break;
      const Contract c = ChooseContract(state);
      timings_.contract.push_back(Millis(start));
      return Decision::ChooseContract(c);
    }
    case engine::Phase::kDoubling: {
      const CardSet d = ChooseDoubles(state);
      timings_.doubling.push_back(Millis(start));
      return Decision::SelectDoubles(d);
    }
    case engine::Phase::kPlaying: {
      if (!o.legal) break;
      const Card c = ChooseCard(state);
      (state.contract == Contract::kTrix ? timings_.trix_card : timings_.trick_card)
          .push_back(Millis(start));
      return Decision::PlayCard(c);
    }
    default:
      break;
  }
  return FirstOption(o);
}

engine::Hands SearchBot::RandomDeal(int seat, CardSet hand) {
  search::Belief b;
  b.viewer = seat;
  b.known = hand;
  b.unseen = engine::kAllCards & ~hand;
  for (int s = 0; s < kNumSeats; ++s) b.need[s] = s == seat ? 0 : engine::kHandSize;
  engine::Hands hands;
  search::SampleHands(b, rng_, &hands);
  return hands;
}

double SearchBot::UsualValue(const engine::Rules& rules, Contract contract) {
  const bool partner = rules.variant.team == engine::Team::kPartner;
  // Every rule that changes how a contract plays out.
  const int key =
      ((static_cast<int>(contract) * 2 + partner) * 2 + rules.options.doubling) * 8 +
      static_cast<int>(rules.options.kh_heart_lead) * 2 + rules.options.end_early;
  auto it = usual_.find(key);
  if (it != usual_.end()) return it->second;
  // Fixed seed: the same yardstick for every decision of every game.
  engine::Rng rng(0x7121C5);
  constexpr int kDeals = 1500;
  double sum = 0;
  for (int i = 0; i < kDeals; ++i) {
    const engine::Hands hands = engine::ShuffledHands(rng.Next(), 0);
    const Deal deal(rules, contract, 0, hands, SampledDoubles(rules, contract, hands));
    sum += search::SeatValue(search::Playout(deal, partner), 0, partner);
  }
  return usual_[key] = sum / kDeals;
}

Contract SearchBot::ChooseContract(const SeatState& s) {
  const bool partner = s.partner_mode();
  const uint32_t available = s.options.contracts;
  if ((available & (available - 1)) == 0) {
    return static_cast<Contract>(__builtin_ctz(available));
  }
  std::array<double, engine::kNumContracts> sum{};
  const absl::Time deadline = absl::Now() + options_.budget;
  int n = 0;
  for (; n < options_.contract_samples; ++n) {
    if (n >= options_.min_samples && absl::Now() > deadline) break;
    const engine::Hands hands = RandomDeal(s.seat, s.hand);
    for (int c = 0; c < engine::kNumContracts; ++c) {
      if (!(available & (1u << c))) continue;
      const auto contract = static_cast<Contract>(c);
      const Deal deal(s.rules, contract, s.seat, hands,
                      SampledDoubles(s.rules, contract, hands));
      sum[c] += search::SeatValue(search::Playout(deal, partner), s.seat, partner);
    }
  }
  Contract best = engine::kNoContract;
  double best_value = -std::numeric_limits<double>::infinity();
  for (int c = 0; c < engine::kNumContracts; ++c) {
    if (!(available & (1u << c))) continue;
    const auto contract = static_cast<Contract>(c);
    const double value = sum[c] / n - UsualValue(s.rules, contract);
    if (value > best_value) {
      best_value = value;
      best = contract;
    }
  }
  return best;
}

CardSet SearchBot::ChooseDoubles(const SeatState& s) {
  const CardSet mine = s.options.doublable & s.hand;
  if (!mine) return 0;
  const bool partner = s.partner_mode();
  std::array<Card, 8> cards{};
  int k = 0;
  for (CardSet b = mine; b && k < 5;) cards[k++] = engine::PopLowest(b);
  const int subsets = 1 << k;
  std::array<double, 32> sum{};
  const absl::Time deadline = absl::Now() + options_.budget;
  int n = 0;
  for (; n < options_.double_samples; ++n) {
    if (n >= options_.min_samples && absl::Now() > deadline) break;
    const engine::Hands hands = RandomDeal(s.seat, s.hand);
    engine::Hands doubles = SampledDoubles(s.rules, s.contract, hands);
    for (int m = 0; m < subsets; ++m) {
      doubles[s.seat] = 0;
      for (int i = 0; i < k; ++i) {
        if (m >> i & 1) doubles[s.seat] |= Bit(cards[i]);
      }
      const Deal deal(s.rules, s.contract, s.owner, hands, doubles);
      sum[m] += search::SeatValue(search::Playout(deal, partner), s.seat, partner);
    }
  }
  // A double must pay for itself clearly: sampling noise alone should not expose
  // a card.
  constexpr double kMarginPerDouble = 3.0;
  int best = 0;
  double best_value = -std::numeric_limits<double>::infinity();
  for (int m = 0; m < subsets; ++m) {
    const double value = sum[m] / n - kMarginPerDouble * __builtin_popcount(m);
    if (value > best_value) {
      best_value = value;
      best = m;
    }
  }
  CardSet out = 0;
  for (int i = 0; i < k; ++i) {
    if (best >> i & 1) out |= Bit(cards[i]);
  }
  return out;
}

Scores SearchBot::Evaluate(const Deal& deal, bool partner) {
  if (deal.over()) return deal.scores();
  Scores rest;
  const int left = CardsLeft(deal);
  if (deal.contract() == Contract::kTrix) {
    rest = left <= options_.exact_trix_cards
               ? trix_.Solve(deal, partner, options_.trix_nodes)
               : search::Playout(deal, partner);
  } else {
    rest = left <= options_.exact_trick_cards ? search::SolveTricks(deal, partner)
                                              : search::Playout(deal, partner);
  }
  Scores out = deal.scores();
  for (int i = 0; i < kNumSeats; ++i) out[i] += rest[i];
  return out;
}

Card SearchBot::ChooseCard(const SeatState& s) {
  const CardSet legal = s.options.legal;
  if ((legal & (legal - 1)) == 0) return engine::Lowest(legal);
  const Card fallback = fallback_.Decide(s).card;
  // Without every card of the deal seen in order (joined mid-deal, or driven
  // without Observe), no deal can be rebuilt.
  if (!history_.complete() || history_.plays() != Count(s.played)) return fallback;
  const bool partner = s.partner_mode();
  const CardSet options = DistinctOptions(s, legal);
  if ((options & (options - 1)) == 0) return engine::Lowest(options);
  const search::Belief belief = history_.BeliefFor(s);
  std::array<double, 64> sum{};
  const absl::Time deadline = absl::Now() + options_.budget;
  int n = 0, failures = 0;
  while (n < options_.samples && failures < 64) {
    if (n >= options_.min_samples && absl::Now() > deadline) break;
    engine::Hands hands;
    Deal deal;
    if (!search::SampleHands(belief, rng_, &hands)) break;
    if (!history_.Rebuild(s, hands, &deal) || deal.to_play() != s.seat ||
        deal.LegalCards() != legal) {
      ++failures;
      continue;
    }
    trix_.NewHands();
    for (CardSet b = options; b;) {
      const Card c = engine::PopLowest(b);
      Deal next = deal;
      next.Play(c);
      sum[c] += search::SeatValue(Evaluate(next, partner), s.seat, partner);
    }
    ++n;
  }
  if (n == 0) return fallback;
  // Ties go to the heuristic's card.
  Card best = fallback;
  double best_value = (options & Bit(fallback))
                          ? sum[fallback]
                          : -std::numeric_limits<double>::infinity();
  for (CardSet b = options; b;) {
    const Card c = engine::PopLowest(b);
    if (sum[c] > best_value) {
      best_value = sum[c];
      best = c;
    }
  }
  return best;
}

}  // namespace trix::bots
