// Hand-made seat states for strategy tests: a hand, a contract, the trick so far,
// and the options the server would offer (computed here from the simple default
// rules; the full rule book is the engine's, exercised by the whole-game tests).
//
//   SeatState s = PlayState(Contract::kQueens, "QS 4S 5H").Trick(1, {"KS"}).Build();
#ifndef TRIX_BOTS_STRATEGIES_STRATEGY_TESTING_H_
#define TRIX_BOTS_STRATEGIES_STRATEGY_TESTING_H_

#include <string>
#include <vector>

#include "bots/sdk/seat_state.h"
#include "engine/cards.h"
#include "engine/rules.h"

namespace trix::bots {

inline engine::CardSet Cards(const std::string& text) {
  return engine::ParseCards(text).value();
}
inline engine::Card C(const std::string& text) { return engine::ParseCard(text).value(); }

class PlayState {
 public:
  PlayState(engine::Contract contract, const std::string& hand, int seat = 0) {
    s_.seat = seat;
    s_.contract = contract;
    s_.phase = engine::Phase::kPlaying;
    s_.hand = Cards(hand);
    s_.rules.variant.format = contract == engine::Contract::kComplex
                                  ? engine::Format::kComplex
                                  : engine::Format::kClassic;
  }
  PlayState& Partner() {
    s_.rules.variant.team = engine::Team::kPartner;
    return *this;
  }
  // The trick so far: `leader` played cards[0], the next seat cards[1], ...
  PlayState& Trick(int leader, const std::vector<std::string>& cards) {
    s_.leader = leader;
    for (size_t i = 0; i < cards.size(); ++i) {
      const engine::Card c = C(cards[i]);
      s_.trick[(leader + i) % 4] = c;
      s_.played |= engine::Bit(c);
    }
    return *this;
  }
  // Cards gone in earlier tricks.
  PlayState& Played(const std::string& cards) {
    s_.played |= Cards(cards);
    return *this;
  }
  PlayState& Doubled(int seat, const std::string& cards) {
    s_.seats[seat].doubled = Cards(cards);
    return *this;
  }
  PlayState& Layout(const std::string& cards) {
    s_.layout = Cards(cards);
    s_.played |= s_.layout;
    return *this;
  }
  SeatState Build() const {
    SeatState s = s_;
    s.options.pending = true;
    s.options.phase = engine::Phase::kPlaying;
    if (s.contract == engine::Contract::kTrix) {
      s.options.legal = s.hand & ((engine::kJacks | (s.layout << 1) | (s.layout >> 1)) &
                                  ~s.layout & engine::kAllCards);
    } else {
      const engine::Card led = s.led_card();
      const engine::CardSet follow =
          led == engine::kNoCard ? 0 : s.hand & engine::SuitCards(engine::SuitOf(led));
      s.options.legal = follow ? follow : s.hand;
    }
    return s;
  }

 private:
  SeatState s_;
};

// The rules of a mode: solo or partner, classic or complex.
inline engine::Rules RulesFor(bool partner, bool complex) {
  engine::Rules rules;
  rules.variant.team = partner ? engine::Team::kPartner : engine::Team::kSolo;
  rules.variant.format = complex ? engine::Format::kComplex : engine::Format::kClassic;
  return rules;
}

// The four modes, for a test played in each, named after it (classic_solo, ...):
//
//   INSTANTIATE_TEST_SUITE_P(Modes, SearchGameTest, testing::ValuesIn(kModes),
//                            ModeTestName());
inline const std::vector<std::string> kModes = {"classic-solo", "classic-partner",
                                                "complex-solo", "complex-partner"};
struct ModeTestName {
  template <typename ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    std::string name = info.param;
    for (char& c : name) {
      if (c == '-') c = '_';
    }
    return name;
  }
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_STRATEGIES_STRATEGY_TESTING_H_
