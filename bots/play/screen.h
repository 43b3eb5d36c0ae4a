// The trix-play screen: one seat's view of its table (SeatState) drawn as text
// lines for a terminal: the deal, contract and owner; every seat with its cards
// left, tricks, deal score and total, and whose clock runs with the seconds left;
// the trick on the table or the Trix layout row by row; the person's hand sorted
// by suit with the options of the open decision highlighted ([QS], the cursor as
// >QS<, doubles selected as *QS*); the contract menu; the last things that
// happened; and at the end the game's result.
//
// The markers are plain text so that the screen reads the same without colour
// (and in `tmux capture-pane`); with colour, options are bold, the cursor is in
// reverse video and the rest of the hand is dim (plain ANSI escape codes).
//
//   std::vector<std::string> lines = ScreenLines(state, chooser, info, absl::Now());
//   std::cout << Frame(lines) << std::flush;
#ifndef TRIX_BOTS_PLAY_SCREEN_H_
#define TRIX_BOTS_PLAY_SCREEN_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "bots/play/keys.h"
#include "bots/sdk/seat_state.h"

namespace trix::bots {

struct ScreenInfo {
  std::string where;             // "table ID at HOST:PORT"
  std::vector<std::string> log;  // what happened lately, oldest first
  std::string status;            // a line of news: leaving, errors, ...
  bool color = true;
};

std::vector<std::string> ScreenLines(const SeatState& state, const Chooser& chooser,
                                     const ScreenInfo& info, absl::Time now);
// The lines as one redraw of the whole terminal (cursor home, each line cleared to
// its end, the rest of the screen cleared).
std::string Frame(const std::vector<std::string>& lines);
// `text` without ANSI escape sequences.
std::string StripAnsi(const std::string& text);
// "Player 2", or the player id, or "seat 2".
std::string SeatName(const SeatState& state, int seat);

}  // namespace trix::bots

#endif  // TRIX_BOTS_PLAY_SCREEN_H_
