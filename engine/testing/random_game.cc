#include "engine/testing/random_game.h"

#include "absl/strings/str_cat.h"
#include "engine/autopilot.h"

namespace trix::engine {

Options RandomOptions(Rng& rng) {
  Options options;
  options.doubling = rng.Below(4) != 0;
  options.kh_heart_lead = static_cast<HeartLead>(rng.Below(3));
  options.end_early = rng.Below(2) == 0;
  options.kingdoms = 1 + static_cast<int>(rng.Below(4));
  return options;
}

Rules RandomRules(Rng& rng) {
  Rules rules;
  rules.variant.team = rng.Below(2) ? Team::kPartner : Team::kSolo;
  rules.variant.format = rng.Below(2) ? Format::kComplex : Format::kClassic;
  rules.options = RandomOptions(rng);
  return rules;
}

Hands RandomDoubles(const Hands& hands, Contract contract, const Options& options,
                    Rng& rng) {
  Hands doubled_by{};
  for (int s = 0; s < kNumSeats; ++s) {
    doubled_by[s] = hands[s] & DoublableCards(contract, options) & rng.Next();
  }
  return doubled_by;
}

std::vector<Card> PlayOutRandomly(Deal& deal, Rng& rng) {
  std::vector<Card> plays;
  while (!deal.over()) {
    const CardSet legal = deal.LegalCards();
    const Card card = NthCard(legal, static_cast<int>(rng.Below(Count(legal))));
    deal.Play(card);
    plays.push_back(card);
  }
  return plays;
}

Action RandomLegalAction(const Game& game, uint64_t seed, Rng& rng) {
  switch (game.phase()) {
    case Phase::kDealing:
      return Action::Deal(ShuffledHands(seed, game.deals_started()));
    case Phase::kChoosingContract: {
      uint32_t available = game.AvailableContracts();
      for (int skip = rng.Below(__builtin_popcount(available)); skip > 0; --skip) {
        available &= available - 1;
      }
      return Action::ChooseContract(game.owner(),
                                    static_cast<Contract>(__builtin_ctz(available)));
    }
    case Phase::kDoubling: {
      int seat = static_cast<int>(rng.Below(kNumSeats));
      while (!game.CanAct(seat)) seat = (seat + 1) % kNumSeats;
      if (rng.Below(2)) return Action::Ready(seat);
      return Action::SelectDoubles(seat, game.DoublableFor(seat) & rng.Next());
    }
    case Phase::kPlaying: {
      const int seat = game.ToAct();
      const CardSet legal = game.LegalCards(seat);
      return Action::PlayCard(seat,
                              NthCard(legal, static_cast<int>(rng.Below(Count(legal)))));
    }
    case Phase::kGameOver:
      break;
  }
  return Action::Ready(-1);  // no legal action: the caller's bug
}

absl::Status DealAndChoose(Game& game, const Hands& hands, Contract contract) {
  if (absl::Status s = game.Apply(Action::Deal(hands)); !s.ok()) return s;
  if (game.phase() != Phase::kChoosingContract) {
    if (game.contract() == contract) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat("the last contract is ", ContractName(game.contract())));
  }
  return game.Apply(Action::ChooseContract(game.owner(), contract));
}

absl::Status AllReady(Game& game) {
  for (int s = 0; s < kNumSeats; ++s) {
    if (game.phase() != Phase::kDoubling || game.ready(s)) continue;
    if (absl::Status st = game.Apply(Action::Ready(s)); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status FinishDealByAutopilot(Game& game) {
  while (game.phase() == Phase::kDoubling || game.phase() == Phase::kPlaying) {
    absl::Status status = game.phase() == Phase::kDoubling
                              ? AllReady(game)
                              : game.Apply(AutopilotAction(game, game.ToAct()));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace trix::engine
