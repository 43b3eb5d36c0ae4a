// LocalTable: a table played in-process on the table service's own logic
// (services/table Table), handing each seat the updates its stream would carry,
// built by the server's own code (Table::StreamStart): a snapshot, then its
// events, with a prompt whenever it must act. It lets the SDK's tests check
// SeatTracker against the server's TableView after every update, and play whole
// games with strategies, with no network and no database.
//
//   LocalTable table({.mode = "complex-partner", .seed = 7});
//   RandomBot a(1), b(2), c(3), d(4);  // bots/strategies/random_bot.h
//   absl::Status played = table.PlayToEnd({&a, &b, &c, &d},
//                                         [&](int seat, const SeatTracker& t) {
//     if (t.state().seq == table.last_seq(seat)) {
//       EXPECT_EQ(t.state().hand, wire::CardSetFromProto(table.View(seat).hand()).value());
//     }
//   });
#ifndef TRIX_BOTS_SDK_TESTING_LOCAL_TABLE_H_
#define TRIX_BOTS_SDK_TESTING_LOCAL_TABLE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bots/sdk/bot.h"
#include "bots/sdk/seat_state.h"
#include "services/table/table.h"
#include "trix/v1/table.pb.h"

namespace trix::bots {

struct LocalTableOptions {
  std::string mode = "complex-partner";
  uint64_t seed = 1;
  int kingdoms = 4;
  std::array<int64_t, 4> stakes{};
  bool doubling = true;
};

class LocalTable {
 public:
  explicit LocalTable(const LocalTableOptions& options);

  // The updates the seat's stream carries since the last call: on the first call
  // the snapshot; then, when there are new events, what a stream resumed after the
  // last call's would carry: one update with all of them (more past
  // table::kMaxEventsPerUpdate) and the seat's prompt if it must act.
  std::vector<v1::TableUpdate> Updates(int seat);
  // The seat's action; the table's time moves on a millisecond, so that no clock
  // ever runs out.
  absl::StatusOr<v1::ActResponse> Act(int seat, const Decision& decision);
  // A client's request, answered as the server does: a request id already
  // accepted gets its first answer again, without acting twice.
  absl::StatusOr<v1::ActResponse> Act(int seat, const v1::ActRequest& request);
  // Answers every prompt of the seats other than `seat` with its first option
  // until only `seat` may act (or the game is over); false when none acted.
  bool PlayOthers(int seat);
  // Runs the clock out: the autopilot acts for whoever must act.
  void ExpireClock();

  // A stream's raw material, for fake servers.
  absl::StatusOr<std::vector<v1::Event>> EventsAfter(int seat, uint64_t seq) const {
    return table_->EventsAfter(seat, seq);
  }
  std::optional<v1::Prompt> PromptFor(int seat) const { return table_->PromptFor(seat); }
  uint64_t last_seq(int seat) const { return table_->last_seq(seat); }

  v1::TableView View(int seat) const { return table_->View(seat); }
  bool over() const { return table_->over(); }
  const table::Table& table() const { return *table_; }

  // Plays until the game ends: each seat's tracker takes its updates (telling that
  // seat's bot of every event), `check` runs after every update, and each fresh
  // prompt is answered by that seat's bot. An answer the server refuses is an
  // error.
  using Check = std::function<void(int seat, const SeatTracker& tracker)>;
  absl::Status PlayToEnd(const std::array<Bot*, 4>& bots, const Check& check = nullptr);
  const SeatTracker& tracker(int seat) const { return trackers_[seat]; }

 private:
  std::unique_ptr<table::Table> table_;
  absl::Time now_;
  std::array<uint64_t, 4> seen_{};
  std::array<bool, 4> subscribed_{};
  std::array<SeatTracker, 4> trackers_;
  int requests_ = 0;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_SDK_TESTING_LOCAL_TABLE_H_
