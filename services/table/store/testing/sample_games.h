// Games, log entries and ends for storage tests: plausible values that differ per
// game and per entry, so a test can tell any two apart after a round trip.
//
//   ASSERT_OK(store->CreateGame(SampleGame("g1")));
//   ASSERT_OK(store->AppendSync(SampleAppend("g1", /*first=*/0, /*count=*/3)));
#ifndef TRIX_SERVICES_TABLE_STORE_TESTING_SAMPLE_GAMES_H_
#define TRIX_SERVICES_TABLE_STORE_TESTING_SAMPLE_GAMES_H_

#include <array>
#include <cstdint>
#include <string>

#include "services/table/store/game_store.h"

namespace trix::table {

// Seats p0..p3 of `game_id` unless `players` says otherwise; seat 3 is a bot.
table::NewGame SampleGame(const std::string& game_id, const std::string& request_id = "",
                   const std::array<std::string, 4>& players = {"p0", "p1", "p2", "p3"});

// The entry at `index`: seat index % 4, request id "<game>-r<index>", payload and
// response naming the game and the index (with a NUL and a 0xff byte, which
// bytea must keep), time 2024-01-01 plus `index` milliseconds plus 7 µs.
table::LogEntry SampleEntry(const std::string& game_id, int64_t index);

// `count` consecutive sample entries from `first`, deadline one minute after the
// last entry's time.
table::AppendRequest SampleAppend(const std::string& game_id, int64_t first, int64_t count);

// Totals 10, 20, 30, 40 → places 4, 3, 2, 1; JSON result and outbox payload.
table::GameEnd SampleEnd(const std::string& game_id);

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_STORE_TESTING_SAMPLE_GAMES_H_
