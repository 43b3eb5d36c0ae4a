#include "services/table/store/testing/sample_games.h"

#include "absl/strings/str_cat.h"

namespace trix::table {

table::NewGame SampleGame(const std::string& game_id, const std::string& request_id,
                   const std::array<std::string, 4>& players) {
  table::NewGame game;
  game.game_id = game_id;
  game.request_id = request_id;
  game.mode = "complex-partner";
  game.config = absl::StrCat("config of ", game_id, std::string("\0\x01\xff", 3));
  for (int seat = 0; seat < 4; ++seat) {
    table::SeatRecord& record = game.seats[seat];
    record.player_id = players[seat];
    record.display_name = absl::StrCat("Player ", players[seat], " ☘");
    record.bot = seat == 3;
    record.stake = 100 * (seat + 1);
    record.token_hash = absl::StrCat("hash-", game_id, "-", seat);
  }
  return game;
}

table::LogEntry SampleEntry(const std::string& game_id, int64_t index) {
  table::LogEntry entry;
  entry.index = index;
  entry.seat = static_cast<int>(index % 4);
  entry.request_id = absl::StrCat(game_id, "-r", index);
  entry.payload = absl::StrCat("play ", game_id, "#", index, std::string("\0\xff", 2));
  entry.response = absl::StrCat("ok ", index);
  entry.time = absl::FromUnixMicros(int64_t{1704067200} * 1000000 + index * 1000 + 7);
  return entry;
}

table::AppendRequest SampleAppend(const std::string& game_id, int64_t first, int64_t count) {
  table::AppendRequest request;
  request.game_id = game_id;
  for (int64_t i = first; i < first + count; ++i) {
    request.entries.push_back(SampleEntry(game_id, i));
  }
  request.deadline = SampleEntry(game_id, first + count - 1).time + absl::Minutes(1);
  return request;
}

table::GameEnd SampleEnd(const std::string& game_id) {
  table::GameEnd end;
  end.result =
      absl::StrCat(R"({"game": ")", game_id, R"(", "totals": [10, 20, 30, 40]})");
  end.totals = {10, 20, 30, 40};
  end.places = {4, 3, 2, 1};
  end.outbox_payload =
      absl::StrCat(R"({"game_id": ")", game_id, R"(", "mode": "complex-partner"})");
  return end;
}

}  // namespace trix::table
