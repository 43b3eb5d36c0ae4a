#include "bots/strategies/random_bot.h"

namespace trix::bots {

Decision RandomBot::Decide(const SeatState& state) {
  const SeatOptions& o = state.options;
  // The tracker never passes on a prompt without options; this keeps a hand-made
  // state from reaching an undefined bit scan.
  if ((o.phase == engine::Phase::kChoosingContract && !o.contracts) ||
      (o.phase == engine::Phase::kPlaying && !o.legal)) {
    return FirstOption(o);
  }
  switch (o.phase) {
    case engine::Phase::kChoosingContract: {
      uint32_t bits = o.contracts;
      int n = static_cast<int>(rng_.Below(__builtin_popcount(bits)));
      while (n-- > 0) bits &= bits - 1;
      return Decision::ChooseContract(static_cast<engine::Contract>(__builtin_ctz(bits)));
    }
    case engine::Phase::kDoubling: {
      engine::CardSet pick = 0;
      for (engine::CardSet b = o.doublable; b;) {
        const engine::Card c = engine::PopLowest(b);
        if (rng_.Below(2)) pick |= engine::Bit(c);
      }
      return Decision::SelectDoubles(pick);
    }
    default:
      return Decision::PlayCard(
          engine::NthCard(o.legal, static_cast<int>(rng_.Below(engine::Count(o.legal)))));
  }
}

}  // namespace trix::bots
