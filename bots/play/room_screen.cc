#include "bots/play/room_screen.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

constexpr char kBold[] = "\x1b[1m";
constexpr char kReset[] = "\x1b[0m";
constexpr int kSeats = 4;

std::string Bold(const RoomView& view, const std::string& text) {
  return view.color ? absl::StrCat(kBold, text, kReset) : text;
}

bool Partner(const v1::RoomState& room) { return room.mode().team() == v1::TEAM_PARTNER; }

std::string EmptySeatsText(v1::EmptySeats empty) {
  switch (empty) {
    case v1::EMPTY_SEATS_AUTOPILOT: return "empty seats: the autopilot";
    case v1::EMPTY_SEATS_WAIT: return "empty seats: wait for four players";
    default: return "empty seats: bots";
  }
}

const v1::RoomMember* MemberAt(const v1::RoomState& room, int seat) {
  for (const v1::RoomMember& m : room.members())
    if (m.seat() == seat) return &m;
  return nullptr;
}

std::string MemberName(const v1::RoomMember& m, const RoomView& view,
                       const v1::RoomState& room) {
  std::string name = m.display_name().empty() ? m.player_id() : m.display_name();
  if (m.player_id() == view.me) absl::StrAppend(&name, " (you)");
  if (m.player_id() == room.owner()) absl::StrAppend(&name, " (owner)");
  return name;
}

std::vector<std::string> SeatLines(const v1::RoomState& room, const RoomView& view) {
  std::vector<std::string> lines = {"Seats:"};
  for (int seat = 0; seat < kSeats; ++seat) {
    const v1::RoomMember* m = MemberAt(room, seat);
    std::string who = m ? MemberName(*m, view, room) : "- empty -";
    std::string line = absl::StrFormat("  seat %d  %-32s %-9s", seat, who,
                                       m == nullptr ? "" : m->ready() ? "ready" : "not ready");
    if (Partner(room)) absl::StrAppend(&line, seat % 2 == 0 ? "  (team 0+2)" : "  (team 1+3)");
    lines.push_back(line);
  }
  std::vector<std::string> standing;
  for (const v1::RoomMember& m : room.members())
    if (m.seat() < 0) standing.push_back(MemberName(m, view, room));
  if (!standing.empty()) lines.push_back("  standing: " + absl::StrJoin(standing, ", "));
  return lines;
}

// Who plays each seat of the current or last game.
std::vector<std::string> GameLines(const v1::RoomState& room) {
  if (!room.has_game()) return {};
  std::vector<std::string> lines = {absl::StrCat("Now: ", RoomGameText(room))};
  std::vector<std::string> seats;
  for (const v1::RoomSeat& s : room.game().seats()) {
    const std::string& name = s.display_name().empty() ? s.player_id() : s.display_name();
    seats.push_back(absl::StrCat(s.seat(), " ", name.empty() ? "-" : name));
  }
  if (!seats.empty()) lines.push_back("  seats: " + absl::StrJoin(seats, " · "));
  if (!room.game().table_id().empty()) {
    lines.push_back(absl::StrCat("  table ", room.game().table_id(), " at ",
                                 room.game().address()));
  }
  return lines;
}

std::string SignedRow(const google::protobuf::RepeatedField<int64_t>& values) {
  std::vector<std::string> cells;
  for (int64_t v : values) cells.push_back(absl::StrFormat("%+6d", v));
  return absl::StrJoin(cells, " ");
}

std::string SeriesGameLine(const v1::SeriesGame& g) {
  if (g.voided() || !g.has_result()) return absl::StrFormat("  game %d  voided", g.number());
  std::vector<std::string> cells;
  for (int32_t total : g.result().totals()) cells.push_back(absl::StrFormat("%+6d", total));
  std::string line = absl::StrFormat("  game %d  %s", g.number(), absl::StrJoin(cells, " "));
  if (g.result().has_winner_team()) {
    const int w = g.result().winner_team();
    absl::StrAppend(&line, w < 0 ? "  draw" : w == 0 ? "  won by 0+2" : "  won by 1+3");
  }
  return line;
}

std::string KeysLine(const v1::RoomState& room) {
  if (room.has_game() && room.game().state() != v1::ROOM_GAME_OVER) {
    return "Keys: q leave the room (a seat being played plays on)";
  }
  if (RoomGameOver(room)) return "Keys: r Rematch · 0-3 take a seat · q leave the room";
  return "Keys: 0-3 take a seat · u stand up · r ready · g start the game · q leave";
}

}  // namespace

const char kRoomKeysHelp[] =
    "Room keys: 0-3 take that seat, u stand up, r ready (after a game: Rematch),\n"
    "g start the game once every seated member is ready, q leave the room.\n";

std::string RoomGameText(const v1::RoomState& room) {
  if (!room.has_game()) return "no game yet";
  switch (room.game().state()) {
    case v1::ROOM_GAME_STARTING: return absl::StrCat("game ", room.game().number(), " starting");
    case v1::ROOM_GAME_PLAYING: return absl::StrCat("game ", room.game().number(), " playing");
    case v1::ROOM_GAME_OVER: return absl::StrCat("game ", room.game().number(), " over");
    default: return absl::StrCat("game ", room.game().number());
  }
}

bool RoomGameOver(const v1::RoomState& room) {
  return room.has_game() && room.game().state() == v1::ROOM_GAME_OVER;
}

std::vector<std::string> SeriesLines(const v1::RoomState& room) {
  const v1::Series& s = room.series();
  if (s.games_size() == 0) return {};
  std::vector<std::string> lines = {
      absl::StrFormat("Series: %d game%s played", s.games_played(),
                      s.games_played() == 1 ? "" : "s")};
  lines.push_back(absl::StrFormat("  %-7s %6s %6s %6s %6s", "", "seat 0", "seat 1",
                                  "seat 2", "seat 3"));
  for (const v1::SeriesGame& g : s.games()) lines.push_back(SeriesGameLine(g));
  lines.push_back(absl::StrCat("  totals  ", SignedRow(s.totals())));
  std::vector<std::string> wins;
  for (int seat = 0; seat < s.seat_wins_size(); ++seat)
    wins.push_back(absl::StrCat("seat ", seat, ": ", s.seat_wins(seat)));
  lines.push_back("  wins: " + absl::StrJoin(wins, " · "));
  if (s.team_wins_size() == 2) {
    lines.push_back(absl::StrCat("  team wins: seats 0+2 ", s.team_wins(0), " · seats 1+3 ",
                                 s.team_wins(1)));
  }
  return lines;
}

std::vector<std::string> RoomScreenLines(const v1::RoomState& room, const RoomView& view) {
  std::vector<std::string> lines = {Bold(
      view, absl::StrCat("Mamlaka Trix · room ", room.code(), " · ", wire::ModeName(room.mode()),
                         " · ", RoomGameText(room)))};
  lines.push_back(absl::StrCat("Invite code: ", room.code(), "   (trix-play --room=",
                               room.code(), ")"));
  lines.push_back(EmptySeatsText(room.empty_seats()));
  lines.push_back("");
  for (std::string& l : SeatLines(room, view)) lines.push_back(std::move(l));
  lines.push_back("");
  for (std::string& l : GameLines(room)) lines.push_back(std::move(l));
  for (std::string& l : SeriesLines(room)) lines.push_back(std::move(l));
  lines.push_back("");
  lines.push_back(Bold(view, KeysLine(room)));
  if (!view.status.empty()) lines.push_back(Bold(view, view.status));
  return lines;
}

}  // namespace trix::bots
