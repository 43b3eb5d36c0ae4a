// The trix-play screen of a private room (rooms.proto), drawn from the room's
// RoomState as text lines in the style of screen.h: the invite code, the members
// (owner, seat, ready), the four seats, the current or last game and who plays
// each of its seats, the series (each game's totals, wins per seat or per team,
// the running totals) and the keys that act on the room.
//
//   std::vector<std::string> lines = RoomScreenLines(state, view);
//   std::cout << Frame(lines) << std::flush;
#ifndef TRIX_BOTS_PLAY_ROOM_SCREEN_H_
#define TRIX_BOTS_PLAY_ROOM_SCREEN_H_

#include <string>
#include <vector>

#include "trix/v1/rooms.pb.h"

namespace trix::bots {

struct RoomView {
  std::string me;      // the person's player id
  std::string status;  // a line of news: a refused call, the stream's trouble
  bool color = true;
};

// The keys of the room's screen, as --help and the screen show them.
extern const char kRoomKeysHelp[];

std::vector<std::string> RoomScreenLines(const v1::RoomState& room, const RoomView& view);
// The lines of the series: one per game played, the wins and the running totals.
std::vector<std::string> SeriesLines(const v1::RoomState& room);
// "game 2 playing", "game 1 over", "no game yet".
std::string RoomGameText(const v1::RoomState& room);
// Whether the room's last game is over, so that a Rematch may start the next.
bool RoomGameOver(const v1::RoomState& room);

}  // namespace trix::bots

#endif  // TRIX_BOTS_PLAY_ROOM_SCREEN_H_
