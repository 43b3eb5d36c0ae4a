#include "tests/fault/game_case.h"

#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "engine/autopilot.h"
#include "engine/deal.h"
#include "engine/game.h"
#include "engine/random.h"
#include "engine/replay/case_runner.h"
#include "engine/result.h"
#include "gtest/gtest.h"
#include "proto/wire/wire.h"
#include "services/table/codec.h"
#include "trix/v1/log.pb.h"

namespace trix::fault {
namespace {

using nlohmann::json;

constexpr engine::Stakes kStakes = {100, 0, 300, 0};

// A whole game played by the autopilot, logged as the table service logs it: one
// record per action, seat 1 doubling whatever it can, and a seat leaving midway.
struct LoggedGame {
  table::StoredGame stored;
  engine::GameResult result;
};

LoggedGame PlayAndLog(engine::Variant variant, int kingdoms, uint64_t seed) {
  const engine::Rules rules{variant, {.kingdoms = kingdoms}};
  engine::Game game(rules);
  LoggedGame out;
  v1::internal::TableSettings settings;
  *settings.mutable_mode() = wire::ModeToProto(variant);
  settings.mutable_rules()->set_kingdoms(kingdoms);
  settings.set_seed(seed);
  out.stored.game.game_id = "g-1";
  out.stored.game.config = settings.SerializeAsString();
  for (int s = 0; s < 4; ++s) out.stored.game.seats[s].stake = kStakes[s];
  auto log = [&](const v1::internal::LogRecord& record) {
    table::LogEntry entry;
    entry.index = static_cast<int64_t>(out.stored.entries.size());
    entry.payload = record.SerializeAsString();
    out.stored.entries.push_back(entry);
  };
  while (game.phase() != engine::Phase::kGameOver) {
    engine::Action action = engine::Action::Ready(0);
    if (game.phase() == engine::Phase::kDealing) {
      action = engine::Action::Deal(engine::ShuffledHands(seed, game.deals_started()));
    } else {
      int seat = game.ToAct();
      for (int s = 0; seat < 0 && s < 4; ++s) {
        if (game.CanAct(s)) seat = s;
      }
      action = engine::AutopilotAction(game, seat);
      if (game.phase() == engine::Phase::kDoubling && seat == 1 &&
          game.doubles_selected(1) == 0 && game.DoublableFor(1) != 0) {
        action = engine::Action::SelectDoubles(1, game.DoublableFor(1));
      }
    }
    if (absl::Status s = game.Apply(action); !s.ok()) {
      ADD_FAILURE() << s;
      break;
    }
    v1::internal::LogRecord record;
    *record.add_actions() = table::ActionToLog(action);
    log(record);
    if (out.stored.entries.size() == 50) {
      v1::internal::LogRecord leave;
      leave.set_leave(true);
      log(leave);
    }
  }
  out.result = engine::ResultOf(variant, game.totals(), kStakes);
  return out;
}

// The outbox record the table service writes for `result`.
std::string Outbox(const std::string& game_id, engine::Variant variant,
                   const engine::GameResult& result) {
  std::array<table::SeatRecord, 4> seats;
  for (int s = 0; s < 4; ++s) {
    seats[s].player_id = absl::StrCat("p", s);
    seats[s].stake = kStakes[s];
  }
  return table::GameEndedOutboxJson(game_id, variant, result, seats, 1700000000000);
}

TEST(GameCaseTest, ReplaysToTheResultOfTheGamePlayed) {
  for (engine::Variant variant :
       {engine::Variant{engine::Team::kSolo, engine::Format::kComplex},
        engine::Variant{engine::Team::kPartner, engine::Format::kClassic}}) {
    const LoggedGame g = PlayAndLog(variant, 2, 11);
    absl::StatusOr<json> c = GameCase(g.stored);
    ASSERT_TRUE(c.ok()) << c.status();
    int doubled = 0;
    for (const json& deal : (*c)["deals"]) doubled += !deal["doubles"].empty();
    EXPECT_GT(doubled, 0);  // the doubles are part of what is replayed
    const json replayed = engine::RunCase(*c);
    ASSERT_EQ(replayed["ok"], true) << replayed.dump();
    absl::StatusOr<json> want = RecordedResult("g-1", Outbox("g-1", variant, g.result));
    ASSERT_TRUE(want.ok()) << want.status();
    for (auto it = want->begin(); it != want->end(); ++it) {
      EXPECT_EQ(replayed[it.key()], it.value()) << it.key();
    }
    EXPECT_EQ(replayed["totals"], json(g.result.totals));
    EXPECT_EQ(replayed["payouts_paid"], json(g.result.payouts));
  }
}

TEST(GameCaseTest, ALostEntryNoLongerReplays) {
  LoggedGame g = PlayAndLog({engine::Team::kSolo, engine::Format::kClassic}, 1, 5);
  g.stored.entries.pop_back();  // the last card
  absl::StatusOr<json> c = GameCase(g.stored);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(engine::RunCase(*c)["ok"], false);
}

TEST(GameCaseTest, UnreadableLogIsDataLoss) {
  LoggedGame g = PlayAndLog({engine::Team::kSolo, engine::Format::kClassic}, 1, 5);
  g.stored.entries[3].payload = "\xff\xff\xff";
  EXPECT_EQ(GameCase(g.stored).status().code(), absl::StatusCode::kDataLoss);
  g.stored.game.config = "\xff";
  EXPECT_EQ(GameCase(g.stored).status().code(), absl::StatusCode::kDataLoss);
}

TEST(GameCaseTest, RecordedResultOfADrawHasNoWinner) {
  const engine::Variant partner{engine::Team::kPartner, engine::Format::kComplex};
  const engine::GameResult draw = engine::ResultOf(partner, {10, -10, -10, 10}, kStakes);
  absl::StatusOr<json> want = RecordedResult("g-2", Outbox("g-2", partner, draw));
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE((*want)["winner_team"].is_null());
  EXPECT_FALSE(want->contains("places"));
}

TEST(GameCaseTest, RecordedResultRefusesAnotherGamesOrAnInconsistentRecord) {
  const engine::Variant solo{engine::Team::kSolo, engine::Format::kClassic};
  const engine::GameResult r = engine::ResultOf(solo, {30, 10, -20, -20}, kStakes);
  EXPECT_EQ(RecordedResult("g-3", Outbox("g-4", solo, r)).status().code(),
            absl::StatusCode::kDataLoss);
  json p = json::parse(Outbox("g-3", solo, r));
  p["seats"][2]["total"] = 99;
  EXPECT_EQ(RecordedResult("g-3", p.dump()).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(RecordedResult("g-3", "not json").status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace trix::fault
