#include "bots/sdk/seat_state.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bots/sdk/bot.h"
#include "bots/sdk/testing/local_table.h"
#include "bots/strategies/random_bot.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

std::string Cards(engine::CardSet s) { return engine::CardsText(s); }
engine::CardSet Set(const wire::CardNames& names) {
  return wire::CardSetFromProto(names).value();
}

// Differences between the tracked state and the server's view, as text.
class Differences {
 public:
  template <typename Mine, typename Server>
  void Check(const std::string& what, const Mine& mine, const Server& server) {
    if (!(mine == server)) {
      diffs_.push_back(absl::StrCat(what, ": tracked ", mine, ", server ", server));
    }
  }
  std::string Text() const { return absl::StrJoin(diffs_, "; "); }

 private:
  std::vector<std::string> diffs_;
};

// The deal as a whole: phase, contract, the seat's own cards, turn and trick.
void CheckDeal(const SeatState& s, const v1::TableView& v, Differences& d) {
  d.Check("seq", s.seq, v.seq());
  d.Check("phase", static_cast<int>(s.phase),
          static_cast<int>(wire::PhaseFromProto(v.phase()).value()));
  d.Check("deal", s.deal, v.deal());
  d.Check("deals_per_game", s.deals_per_game, v.deals_per_game());
  d.Check("kingdom", s.kingdom, v.kingdom());
  d.Check("owner", s.owner, v.owner());
  d.Check("contract", static_cast<int>(wire::ContractToProto(s.contract)),
          static_cast<int>(v.contract()));
  d.Check("contracts_played", s.contracts_played,
          wire::ContractBitsFromProto(v.contracts_played()).value());
  d.Check("hand", Cards(s.hand), Cards(Set(v.hand())));
  d.Check("my_doubles", Cards(s.my_doubles), Cards(Set(v.my_doubles())));
  d.Check("my_ready", s.my_ready, v.my_ready());
  d.Check("layout", Cards(s.layout), Cards(Set(v.layout())));
  d.Check("out_order", absl::StrJoin(s.out_order, ","),
          absl::StrJoin(v.out_order(), ","));
  d.Check("turn", absl::StrJoin(s.turn, ","), absl::StrJoin(v.turn().seats(), ","));
  if (s.phase == engine::Phase::kPlaying) d.Check("leader", s.leader, v.leader());
  if (v.trick_size() == 4) {
    for (int i = 0; i < 4; ++i) {
      d.Check(
          absl::StrCat("trick[", i, "]"),
          s.trick[i] == engine::kNoCard ? std::string() : engine::CardName(s.trick[i]),
          v.trick(i));
    }
  } else {
    d.Check("trick size", s.trick_size(), 0);
  }
}

void CheckSeats(const SeatState& s, const v1::TableView& v, Differences& d) {
  for (int i = 0; i < 4; ++i) {
    const SeatInfo& mine = s.seats[i];
    const v1::SeatView& server = v.seats(i);
    const std::string seat = absl::StrCat("seat ", i, " ");
    d.Check(seat + "player_id", mine.player_id, server.player_id());
    d.Check(seat + "left", mine.left, server.left());
    d.Check(seat + "hand_size", mine.hand_size, server.hand_size());
    d.Check(seat + "doubled", Cards(mine.doubled), Cards(Set(server.doubled())));
    d.Check(seat + "twos_shown", Cards(mine.twos_shown), Cards(Set(server.twos_shown())));
    d.Check(seat + "taken", Cards(mine.taken), Cards(Set(server.taken())));
    d.Check(seat + "tricks_won", mine.tricks_won, server.tricks_won());
    d.Check(seat + "total", mine.total, server.total());
    d.Check(seat + "stake", mine.stake, server.stake());
    d.Check(seat + "deal_score", mine.deal_score, server.deal_score());
  }
}

// Everything played this deal is public, so the tracker's `played` must be the
// union of what the view shows.
void CheckPlayed(const SeatState& s, const v1::TableView& v, Differences& d) {
  engine::CardSet shown = Set(v.layout());
  for (const v1::SeatView& seat : v.seats()) shown |= Set(seat.taken());
  for (const std::string& c : v.trick()) {
    if (!c.empty()) shown |= engine::Bit(wire::CardFromProto(c).value());
  }
  d.Check("played", Cards(s.played), Cards(shown));
}

// Every difference between the tracked state and the server's own view of the
// seat, as text (empty when they agree).
std::string DifferencesOf(const SeatState& s, const v1::TableView& v) {
  Differences d;
  CheckDeal(s, v, d);
  CheckSeats(s, v, d);
  d.Check("game_over", s.game_over, v.phase() == v1::PHASE_GAME_OVER);
  if (s.phase == engine::Phase::kPlaying) CheckPlayed(s, v, d);
  return d.Text();
}

struct Case {
  std::string mode;
  uint64_t seed;
};

class TrackerAgreesWithServer : public ::testing::TestWithParam<Case> {};

// The tracker, fed a seat's stream, agrees with the server's view of that seat
// after every single update, through a whole game.
TEST_P(TrackerAgreesWithServer, AfterEveryUpdate) {
  LocalTable table(
      {.mode = GetParam().mode, .seed = GetParam().seed, .stakes = {100, 0, 50, 0}});
  RandomBot b0(1), b1(2), b2(3), b3(4);
  int checks = 0;
  absl::Status played =
      table.PlayToEnd({&b0, &b1, &b2, &b3}, [&](int seat, const SeatTracker& tracker) {
        const v1::TableView view = table.View(seat);
        // Mid-batch the tracker is behind the server by design.
        if (tracker.state().seq != view.seq()) return;
        ++checks;
        const std::string diffs = DifferencesOf(tracker.state(), view);
        ASSERT_EQ(diffs, "") << "seat " << seat << " at event " << tracker.state().seq;
        const SeatOptions& o = tracker.state().options;
        if (!o.pending) return;
        const v1::TableView& v = view;
        EXPECT_EQ(o.legal, Set(v.legal_cards()));
        EXPECT_EQ(o.doublable, Set(v.doublable()));
        EXPECT_EQ(o.contracts,
                  wire::ContractBitsFromProto(v.available_contracts()).value());
      });
  ASSERT_TRUE(played.ok()) << played;
  EXPECT_GT(checks, 400);
  for (int seat = 0; seat < 4; ++seat) {
    const SeatState& s = table.tracker(seat).state();
    EXPECT_TRUE(s.game_over);
    ASSERT_EQ(s.result.totals_size(), 4);
    int sum = 0;
    for (int t : s.result.totals()) sum += t;
    EXPECT_EQ(sum, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, TrackerAgreesWithServer,
                         ::testing::Values(Case{"complex-partner", 7},
                                           Case{"complex-solo", 8},
                                           Case{"classic-solo", 9},
                                           Case{"classic-partner", 10}),
                         [](const auto& info) {
                           std::string name = info.param.mode;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A seat that starts watching from a snapshot in the middle of a deal keeps up.
TEST(SeatTrackerTest, StartsFromAMidGameSnapshot) {
  LocalTable table({.mode = "classic-solo", .seed = 3});
  RandomBot b0(1), b1(2), b2(3), b3(4);
  std::array<Bot*, 4> bots = {&b0, &b1, &b2, &b3};
  std::array<SeatTracker, 4> trackers;
  // Play 60 decisions by hand, then start a fresh tracker for seat 2.
  int decisions = 0;
  while (decisions < 60) {
    for (int seat = 0; seat < 4; ++seat) {
      for (const v1::TableUpdate& u : table.Updates(seat)) {
        absl::StatusOr<bool> must_act = trackers[seat].Apply(u);
        ASSERT_TRUE(must_act.ok()) << must_act.status();
        if (!*must_act) continue;
        ASSERT_TRUE(table.Act(seat, bots[seat]->Decide(trackers[seat].state())).ok());
        ++decisions;
      }
    }
  }
  SeatTracker late;
  v1::TableUpdate snapshot;
  *snapshot.mutable_snapshot() = table.View(2);
  ASSERT_TRUE(late.Apply(snapshot).ok());
  EXPECT_EQ(DifferencesOf(late.state(), table.View(2)), "");
  // The seat that followed every event agrees with the late one.
  for (const v1::TableUpdate& u : table.Updates(2))
    ASSERT_TRUE(trackers[2].Apply(u).ok());
  EXPECT_EQ(late.state().seq, trackers[2].state().seq);
  EXPECT_EQ(late.state().hand, trackers[2].state().hand);
  EXPECT_EQ(late.state().played, trackers[2].state().played);
}

v1::Event CardPlayed(uint64_t seq, int seat, const std::string& card) {
  v1::Event e;
  e.set_seq(seq);
  e.mutable_card_played()->set_seat(seat);
  e.mutable_card_played()->set_card(card);
  return e;
}

class SeatTrackerInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalTable table({.mode = "complex-solo", .seed = 5});
    for (const v1::TableUpdate& u : table.Updates(1)) ASSERT_TRUE(tracker_.Apply(u).ok());
    seq_ = tracker_.state().seq;
  }
  SeatTracker tracker_;
  uint64_t seq_ = 0;
};

v1::Event TurnStarted(uint64_t seq, int seat) {
  v1::Event e;
  e.set_seq(seq);
  e.mutable_turn_started()->mutable_turn()->add_seats(seat);
  return e;
}

// Remembers what the tracker told it.
class ListeningBot : public Bot {
 public:
  void Restart(const SeatState& state) override { restarts.push_back(state.seq); }
  void Observe(const v1::Event& event, const SeatState& state) override {
    EXPECT_EQ(state.seq, event.seq());  // the state has taken the event in
    observed.push_back(event.seq());
  }
  Decision Decide(const SeatState& state) override { return FirstOption(state.options); }
  std::vector<uint64_t> restarts;
  std::vector<uint64_t> observed;
};

// A whole update: the snapshot, then every event in order (the bot hears of each),
// then the prompt.
TEST(SeatTrackerTest, AnUpdateIsTakenInPieceByPiece) {
  LocalTable table({.mode = "complex-solo", .seed = 6});
  SeatTracker tracker;
  ListeningBot bot;
  const int seat = (table.View(0).owner() + 1) % 4;  // not the first to act
  std::vector<v1::TableUpdate> start = table.Updates(seat);
  ASSERT_EQ(start.size(), 1u);
  absl::StatusOr<bool> must_act = tracker.Apply(start[0], &bot);
  ASSERT_TRUE(must_act.ok()) << must_act.status();
  EXPECT_EQ(*must_act, table.PromptFor(seat).has_value());
  const uint64_t first = tracker.state().seq;
  EXPECT_EQ(bot.restarts, std::vector<uint64_t>{first});
  EXPECT_TRUE(bot.observed.empty());

  while (!table.PromptFor(seat)) ASSERT_TRUE(table.PlayOthers(seat));
  std::vector<v1::TableUpdate> step = table.Updates(seat);
  ASSERT_EQ(step.size(), 1u);
  ASSERT_GT(step[0].events_size(), 1);
  ASSERT_TRUE(step[0].has_prompt());
  must_act = tracker.Apply(step[0], &bot);
  ASSERT_TRUE(must_act.ok()) << must_act.status();
  EXPECT_TRUE(*must_act);
  EXPECT_TRUE(tracker.state().options.pending);
  ASSERT_EQ(bot.observed.size(), static_cast<size_t>(step[0].events_size()));
  for (size_t i = 0; i < bot.observed.size(); ++i)
    EXPECT_EQ(bot.observed[i], first + 1 + i);
  EXPECT_EQ(tracker.state().seq, table.last_seq(seat));
  // The same update again (a repeat): nothing new for the bot.
  bot.observed.clear();
  must_act = tracker.Apply(step[0], &bot);
  ASSERT_TRUE(must_act.ok());
  EXPECT_TRUE(bot.observed.empty());
}

TEST_F(SeatTrackerInputTest, AGapInsideAnUpdateKeepsWhatCameBefore) {
  v1::TableUpdate update;
  *update.add_events() = TurnStarted(seq_ + 1, 0);
  *update.add_events() = TurnStarted(seq_ + 3, 0);
  EXPECT_EQ(tracker_.Apply(update).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(tracker_.state().seq, seq_ + 1);  // resume from here
}

TEST_F(SeatTrackerInputTest, AnEmptyUpdateIsAnError) {
  EXPECT_EQ(tracker_.Apply(v1::TableUpdate()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(SeatTrackerInputTest, AnUpdateWithAnActionResultOnlyChangesNothing) {
  // A Play stream's answer to a refused action comes alone.
  v1::TableUpdate update;
  update.add_results()->set_request_id("r1");
  const uint64_t seq = tracker_.state().seq;
  absl::StatusOr<bool> must_act = tracker_.Apply(update);
  ASSERT_TRUE(must_act.ok()) << must_act.status();
  EXPECT_FALSE(*must_act);
  EXPECT_EQ(tracker_.state().seq, seq);
}

TEST_F(SeatTrackerInputTest, AnUnknownCardIsAnErrorAndChangesNothing) {
  const SeatState before = tracker_.state();
  absl::StatusOr<SeatTracker::Applied> applied =
      tracker_.ApplyEvent(CardPlayed(seq_ + 1, 0, "1X"));
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(tracker_.state().seq, before.seq);
  EXPECT_EQ(tracker_.state().played, before.played);
}

// Each event is checked whole before anything is taken in (no copy of the state).
TEST_F(SeatTrackerInputTest, AHalfBadEventChangesNothing) {
  const SeatState before = tracker_.state();
  v1::Event turn = TurnStarted(seq_ + 1, 0);
  turn.mutable_turn_started()->mutable_turn()->add_seats(9);
  EXPECT_EQ(tracker_.ApplyEvent(turn).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(tracker_.state().turn, before.turn);
  EXPECT_EQ(tracker_.state().seq, before.seq);
  v1::Event trick;
  trick.set_seq(seq_ + 1);
  trick.mutable_trick_taken()->set_seat(1);
  trick.mutable_trick_taken()->add_cards("2C");
  trick.mutable_trick_taken()->add_cards("ZZ");
  EXPECT_EQ(tracker_.ApplyEvent(trick).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(tracker_.state().seats[1].tricks_won, before.seats[1].tricks_won);
  EXPECT_EQ(tracker_.state().seats[1].deal_score, before.seats[1].deal_score);
}

TEST_F(SeatTrackerInputTest, ASeatOutOfRangeIsAnError) {
  absl::StatusOr<SeatTracker::Applied> applied =
      tracker_.ApplyEvent(CardPlayed(seq_ + 1, 7, "2C"));
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SeatTrackerInputTest, AGapIsOutOfRange) {
  absl::StatusOr<SeatTracker::Applied> applied =
      tracker_.ApplyEvent(CardPlayed(seq_ + 2, 0, "2C"));
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kOutOfRange);
}

TEST_F(SeatTrackerInputTest, AnOldEventIsADuplicate) {
  absl::StatusOr<SeatTracker::Applied> applied =
      tracker_.ApplyEvent(CardPlayed(seq_, 0, "2C"));
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(*applied, SeatTracker::Applied::kDuplicate);
}

TEST_F(SeatTrackerInputTest, AnOldPromptIsStale) {
  v1::Prompt prompt;
  prompt.set_seq(seq_ - 1);
  prompt.set_phase(v1::PHASE_PLAYING);
  prompt.add_legal_cards("2C");
  const SeatOptions before = tracker_.state().options;
  absl::StatusOr<SeatTracker::Applied> applied = tracker_.ApplyPrompt(prompt);
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(*applied, SeatTracker::Applied::kStalePrompt);
  EXPECT_EQ(tracker_.state().options.pending, before.pending);
  EXPECT_EQ(tracker_.state().options.legal, before.legal);
}

TEST_F(SeatTrackerInputTest, APromptWithoutOptionsIsAnError) {
  v1::Prompt prompt;
  prompt.set_seq(seq_);
  prompt.set_phase(v1::PHASE_PLAYING);
  EXPECT_EQ(tracker_.ApplyPrompt(prompt).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SeatTrackerTest, AnEventBeforeAnySnapshotIsRefused) {
  SeatTracker tracker;
  EXPECT_EQ(tracker.ApplyEvent(CardPlayed(1, 0, "2C")).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(SeatTrackerTest, ASnapshotWithoutSeatsIsRefused) {
  SeatTracker tracker;
  v1::TableView view;
  view.mutable_mode()->set_team(v1::TEAM_SOLO);
  view.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
  view.set_phase(v1::PHASE_PLAYING);
  view.set_viewer(0);
  EXPECT_EQ(tracker.ApplySnapshot(view).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(tracker.started());
}

}  // namespace
}  // namespace trix::bots
