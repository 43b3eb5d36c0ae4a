// Real seat states for trix-play's tests: one game played in-process on the table
// service's own logic (LocalTable), keeping a copy of the first state in which some
// seat faced each kind of decision, and the final state.
#ifndef TRIX_BOTS_PLAY_PLAY_TESTING_H_
#define TRIX_BOTS_PLAY_PLAY_TESTING_H_

#include <array>
#include <functional>
#include <optional>

#include "bots/sdk/bot.h"
#include "bots/sdk/seat_state.h"
#include "bots/sdk/testing/local_table.h"
#include "gtest/gtest.h"

namespace trix::bots {

struct RecordedStates {
  std::optional<SeatState> choosing, doubling, playing_trick, playing_trix;
  // A trick decision with cards already on the table.
  std::optional<SeatState> following;
  SeatState final_state;  // seat 0's, after the game
};

// Answers with the first option, noting states as it goes.
class RecordingBot : public Bot {
 public:
  explicit RecordingBot(RecordedStates* states) : states_(states) {}
  Decision Decide(const SeatState& s) override {
    switch (s.options.phase) {
      case engine::Phase::kChoosingContract:
        if (!states_->choosing) states_->choosing = s;
        break;
      case engine::Phase::kDoubling:
        if (!states_->doubling && engine::Count(s.options.doublable) > 1)
          states_->doubling = s;
        break;
      case engine::Phase::kPlaying:
        if (s.contract == engine::Contract::kTrix) {
          if (!states_->playing_trix && s.layout) states_->playing_trix = s;
        } else if (!states_->playing_trick && engine::Count(s.options.legal) > 1) {
          states_->playing_trick = s;
        }
        if (!states_->following && s.trick_size() > 0 &&
            s.contract != engine::Contract::kTrix) {
          states_->following = s;
        }
        break;
      default:
        break;
    }
    return FirstOption(s.options);
  }

 private:
  RecordedStates* states_;
};

inline RecordedStates PlayRecordedGame() {
  RecordedStates states;
  LocalTableOptions options;
  options.mode = "complex-solo";
  options.kingdoms = 1;
  options.seed = 12;
  LocalTable table(options);
  std::array<RecordingBot, 4> bots = {RecordingBot(&states), RecordingBot(&states),
                                      RecordingBot(&states), RecordingBot(&states)};
  const absl::Status played =
      table.PlayToEnd({&bots[0], &bots[1], &bots[2], &bots[3]});
  EXPECT_TRUE(played.ok()) << played;
  states.final_state = table.tracker(0).state();
  return states;
}

}  // namespace trix::bots

#endif  // TRIX_BOTS_PLAY_PLAY_TESTING_H_
