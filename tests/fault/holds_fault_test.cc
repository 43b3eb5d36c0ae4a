// Fault tests of matchmaking's stake holds: the real table-service, ratings-service
// and matchmaking-service binaries as child processes on a fresh database of the
// test's own, and staked players' FindTable streams (each player credited 1000,
// queued at stake 100, then closing the stream as a lost connection would). A
// fault strikes around a hold step:
//
//   ratingsaway  a staked player is queued (100 held); the ratings service is
//                killed (SIGKILL); the player closes the stream (the ticket is
//                cancelled, its release fails); 5 s later the ratings service
//                is started again: the 100 must be back within 10 s of it serving
//                (services/matchmaking/README.md, "Stake holds");
//   holdkill9    matchmaking dies (failpoint lobby.after_hold) right after the
//                ratings service held the stake, before the ticket is queued;
//                it is started again (without the failpoint, the admission grace
//                5 s): the hold of the ticket that was never queued is released;
//   releasekill9 a staked player closes the stream; matchmaking dies (failpoint
//                holds.before_release) as it is about to release the hold and is
//                started again: the release is done after its lease (30 s).
//
// In the scenarios below four staked players are matched (bots never stake) at one
// table, whose seats nobody plays: each seat's 5 ms clock runs out and the table's
// autopilot acts, so that the game is played to its end in seconds:
//
//   attachkill9  matchmaking dies (failpoint lobby.after_attach) right after the
//                ratings service attached the hold to the table, and is started
//                again: the game is settled against that table;
//   settlekill9  the ratings service dies (failpoint consumer.before_commit) once
//                it has read the finished game's outbox row and settled it in its
//                transaction, before the commit: nothing moved; started again,
//                it settles the game once;
//   settledkill9 the same after the commit (failpoint consumer.after_commit): the
//                game is settled, and the restarted service settles nothing twice;
//   tablekill9   the table service is killed (SIGKILL) while the staked table
//                plays and started again: it adopts the table after its lease
//                (3 s) and the game goes on; the hold is settled against that
//                table, or released if the table was voided.
//
// Each scenario ends with the checks: no hold of the run's players is open in the
// ratings service, every release matchmaking recorded is done, each player's
// available balance is their credit again (or, after a settled game, their credit
// plus payout minus stake, all of it available), and the ledger sums to zero, every
// settled game having moved its stakes and payouts exactly once (LedgerOnce).
#include <signal.h>

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fault/fault_checks.h"
#include "tests/fault/fault_stack.h"

namespace trix::matchmaking {
namespace {

using fault::WaitFor;
using ::testing::AnyOf;
using ::testing::Eq;
using ::testing::IsEmpty;

constexpr int64_t kCredit = 1000;
constexpr int64_t kStake = 100;
// The player's table, empty before it is matched.
constexpr char kTableOf[] = "(SELECT table_id FROM mm_assignments WHERE player_id = $1)";

// One staked player's FindTable stream on the matchmaking of its start.
struct StakedClient {
  std::unique_ptr<v1::MatchmakingService::Stub> stub;
  std::unique_ptr<TicketClient> ticket;  // closed before its stub goes
};

class HoldsFaultTest : public FaultStackTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(FaultStackTest::SetUp());
    ASSERT_NO_FATAL_FAILURE(StartTable());
  }
  void TearDown() override {
    clients_.clear();
    FaultStackTest::TearDown();
  }
  // (Re)starts matchmaking with stake level 100 and an admission grace of 5 s;
  // `play`: the tables' clocks are 5 ms, so that a game nobody plays is played
  // out by the autopilot in seconds; `failpoint` kills it where it names.
  void StartMatchmaking(const std::string& failpoint = "", bool play = false) {
    std::vector<std::string> flags = {"--stake_levels=100", "--hold_admission_grace=5s"};
    if (play) flags.push_back("--card_ms=5");
    FaultStackTest::StartMatchmaking(failpoint, flags);
  }

  // The player credited and queued at stake 100; waits until the ticket is queued
  // (or, `may_die`, until matchmaking dies under it).
  void RunClient(const std::string& player, bool may_die = false) {
    ASSERT_NO_FATAL_FAILURE(Credit(player, kCredit));
    StakedClient& client = clients_[player];
    client.stub = v1::MatchmakingService::NewStub(grpc::CreateChannel(
        Address(matchmaking_port_), grpc::InsecureChannelCredentials()));
    v1::FindTableRequest request;
    request.set_request_id("staked-" + player);
    request.set_player_id(player);
    request.set_display_name(player);
    request.set_stake(kStake);
    client.ticket =
        std::make_unique<TicketClient>(client.stub.get(), request, kServiceBearer);
    TicketClient* ticket = client.ticket.get();
    ASSERT_TRUE(WaitFor(
        [&] {
          return !ticket->queued().empty() || (may_die && !matchmaking_->Running());
        },
        10, player + (may_die ? " is queued, or matchmaking died" : " is queued")))
        << ticket->status().error_message();
  }
  // The players close their streams (as a lost connection would).
  void CloseClients(const std::vector<std::string>& players) {
    for (const std::string& p : players) {
      auto it = clients_.find(p);
      if (it == clients_.end()) continue;
      it->second.ticket->Cancel();
      EXPECT_TRUE(it->second.ticket->WaitDone(absl::Seconds(10)))
          << p << "'s stream ends";
      clients_.erase(it);
    }
  }
  // The four staked players of a game (matchmaking started with `play`), queued
  // in turn; `may_die`: the last one's queueing may kill matchmaking.
  void QueueFour(bool may_die = false) {
    for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(RunClient(players_[i]));
    ASSERT_NO_FATAL_FAILURE(RunClient(players_[3], may_die));
  }
  void PlayGame() {
    ASSERT_NO_FATAL_FAILURE(QueueFour());
    EXPECT_TRUE(WaitFor([&] { return Playing(); }, 30, "the game is on"));
  }
  // After a fault: the game ends, is consumed by the ratings service and settled.
  void CheckSettled() {
    EXPECT_TRUE(WaitFor([&] { return Finished(); }, 90, "the game finished"));
    EXPECT_TRUE(
        WaitFor([&] { return Consumed(); }, 30, "the ratings service applied it"));
    EXPECT_EQ(Settlement(), "settled") << "it was settled against its table";
  }

  // The player's open holds (held or attached) in the ratings service.
  int64_t Held(const std::string& player) {
    return std::stoll(
        Query("SELECT coalesce(sum(amount), 0) FROM ratings.holds WHERE player_id = $1 "
              "AND state IN (1, 2)",
              player));
  }
  testing::AssertionResult Released(const std::string& player, int seconds,
                                    const std::string& what) {
    return WaitFor([&] { return Held(player) == 0; }, seconds, player + ": " + what);
  }
  int64_t ReleasesNotDone() {
    return Number("SELECT count(*) FROM mm_hold_releases WHERE done IS NULL");
  }
  std::string TicketStatus(const std::string& player) {
    return Query("SELECT status FROM mm_tickets WHERE player_id = $1", player);
  }
  testing::AssertionResult Cancelled(const std::string& player) {
    return WaitFor([&] { return TicketStatus(player) == "cancelled"; }, 10,
                   player + "'s ticket is cancelled");
  }
  // What the player's hold's state is (1 held, 2 attached, 3 released, 4 settled).
  std::string HoldState(const std::string& player) {
    return Query("SELECT coalesce(max(state), 0) FROM ratings.holds WHERE player_id = $1",
                 player);
  }
  // The holds of the test's players by state: "1:3 2:1" is three held, one attached.
  std::string HoldsByState() {
    return Query(
        "SELECT string_agg(state || ':' || n, ' ' ORDER BY state) FROM (SELECT "
        "state, count(*) n FROM ratings.holds WHERE player_id LIKE $1 || '%' "
        "GROUP BY state) s",
        players_[0]);
  }
  // The first player's game: 20 entries in, over, its outbox row consumed.
  bool Playing() {
    return Query(absl::StrCat("SELECT count(*) FROM games WHERE id = ", kTableOf,
                              " AND finished IS NULL AND log_length > 20"),
                 players_[0]) == "1";
  }
  bool Finished() {
    return Query(absl::StrCat("SELECT count(*) FROM games WHERE id = ", kTableOf,
                              " AND finished IS NOT NULL"),
                 players_[0]) == "1";
  }
  bool Consumed() {
    return Query(absl::StrCat("SELECT count(*) FROM game_results WHERE game_id = ",
                              kTableOf, " AND consumed_at IS NOT NULL"),
                 players_[0]) == "1";
  }
  std::string LogLength() {
    return Query(absl::StrCat("SELECT log_length FROM games WHERE id = ", kTableOf),
                 players_[0]);
  }
  // How the ratings service applied the player's game: settled, voided, unheld, ...
  std::string Settlement(const std::string& player = "") {
    return Query(
        absl::StrCat("SELECT settlement FROM ratings.applied_games WHERE game_id = ",
                     kTableOf),
        player.empty() ? players_[0] : player);
  }
  // The player's credit back, or, after a settled game, moved by payout - stake
  // (LedgerOnce checks that amount); nothing held.
  testing::AssertionResult CreditBack(const std::string& player) {
    std::string want = absl::StrCat(kCredit, " 0");
    if (Settlement(player) == "settled") {
      want =
          Query(absl::StrCat("SELECT (1000 + sum(l.amount)) || ' 0' FROM ratings.lines l "
                             "JOIN ratings.entries e USING (entry_id) WHERE e.game_id = ",
                             kTableOf, " AND l.account_id = 'player:' || $1"),
                player);
    }
    const std::string got = Query(
        "SELECT balance || ' ' || held FROM ratings.accounts "
        "WHERE account_id = 'player:' || $1",
        player);
    if (got == want) return testing::AssertionSuccess();
    return testing::AssertionFailure() << "balance and held " << got << ", not " << want;
  }
  // The checks every scenario ends with, once its players closed their streams.
  void EndChecks() {
    std::vector<std::string> players = players_;
    CloseClients(players);
    for (const std::string& p : players_) {
      EXPECT_EQ(Held(p), 0) << "no hold of " << p << " is open";
      EXPECT_EQ(ReleasesNotDone(), 0) << "every release matchmaking recorded is done";
      EXPECT_TRUE(CreditBack(p)) << p << "'s credit is available again (moved only by a "
                                 << "settled game)";
      EXPECT_THAT(fault::LedgerOnce(url_), IsEmpty())
          << "the ledger sums to zero, every balance its lines";
    }
  }
  // The test's players: "p-<scenario>", and for a game three more ("-1" ...).
  void Players(const std::string& scenario, int n) {
    players_ = {"p-" + scenario};
    for (int i = 1; i < n; ++i) players_.push_back(absl::StrCat("p-", scenario, "-", i));
  }
  void SettleKill(const std::string& failpoint, bool committed);

  std::vector<std::string> players_;
  std::map<std::string, StakedClient> clients_;
};

TEST_F(HoldsFaultTest, RatingsAway) {
  Players("ratingsaway", 1);
  const std::string player = players_[0];
  ASSERT_NO_FATAL_FAILURE(StartRatings());
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  ASSERT_NO_FATAL_FAILURE(RunClient(player));
  EXPECT_EQ(Held(player), kStake) << "the stake is held while the ticket waits";
  ratings_->process().Signal(SIGKILL);
  (void)ratings_->process().Wait(absl::Seconds(10));
  CloseClients({player});
  EXPECT_TRUE(Cancelled(player));
  absl::SleepFor(absl::Seconds(5));
  EXPECT_GE(ReleasesNotDone(), 1) << "the release is recorded, not done";
  ASSERT_NO_FATAL_FAILURE(StartRatings());
  EXPECT_TRUE(Released(player, 10,
                       "the hold is back within 10 s of the ratings service "
                       "serving"));
  EndChecks();
}

TEST_F(HoldsFaultTest, HoldKill9) {
  Players("holdkill9", 1);
  const std::string player = players_[0];
  ASSERT_NO_FATAL_FAILURE(StartRatings());
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking("lobby.after_hold"));
  ASSERT_NO_FATAL_FAILURE(RunClient(player, /*may_die=*/true));
  EXPECT_TRUE(matchmaking_->Wait().ok()) << "matchmaking died at lobby.after_hold";
  CloseClients({player});
  EXPECT_EQ(Held(player), kStake) << "the stake was held when matchmaking died";
  EXPECT_EQ(TicketStatus(player), "") << "no ticket was queued";
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  EXPECT_TRUE(Released(player, 20,
                       "the hold of the ticket never queued is released "
                       "(grace 5 s)"));
  EndChecks();
}

TEST_F(HoldsFaultTest, ReleaseKill9) {
  Players("releasekill9", 1);
  const std::string player = players_[0];
  ASSERT_NO_FATAL_FAILURE(StartRatings());
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking("holds.before_release"));
  ASSERT_NO_FATAL_FAILURE(RunClient(player));
  CloseClients({player});
  EXPECT_TRUE(MatchmakingDied(10, "matchmaking died about to release"));
  EXPECT_TRUE(Cancelled(player));
  EXPECT_EQ(Held(player), kStake) << "the stake is still held";
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking());
  EXPECT_TRUE(Released(player, 45, "the release is done after its lease (30 s)"));
  EndChecks();
}

TEST_F(HoldsFaultTest, AttachKill9) {
  Players("attachkill9", 4);
  ASSERT_NO_FATAL_FAILURE(StartRatings());
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking("lobby.after_attach", /*play=*/true));
  ASSERT_NO_FATAL_FAILURE(QueueFour(/*may_die=*/true));
  EXPECT_TRUE(MatchmakingDied(30, "matchmaking died after attaching the hold"));
  (void)matchmaking_->Wait();
  EXPECT_EQ(HoldsByState(), "1:3 2:1")
      << "one hold was attached when it died, three only held";
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking("", /*play=*/true));
  CheckSettled();
  EndChecks();
}

// The ratings service dies at `failpoint` as it settles the game: before its
// transaction's commit (nothing applied) or after it (`committed`).
void HoldsFaultTest::SettleKill(const std::string& failpoint, bool committed) {
  ASSERT_NO_FATAL_FAILURE(StartRatings(failpoint));
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking("", /*play=*/true));
  ASSERT_NO_FATAL_FAILURE(PlayGame());
  EXPECT_TRUE(WaitFor([&] { return !RatingsRunning(); }, 90,
                      "the ratings service died settling the game"));
  (void)ratings_->process().Wait(absl::Seconds(10));
  if (committed) {
    EXPECT_EQ(Settlement(), "settled") << "the game was settled before the kill";
  } else {
    EXPECT_EQ(Consumed() ? "consumed" : HoldState(players_[0]), "2")
        << "nothing was applied: the outbox row is pending, the hold attached";
  }
  ASSERT_NO_FATAL_FAILURE(StartRatings());
  CheckSettled();
}

TEST_F(HoldsFaultTest, SettleKill9) {
  Players("settlekill9", 4);
  SettleKill("consumer.before_commit", /*committed=*/false);
  EndChecks();
}

TEST_F(HoldsFaultTest, SettledKill9) {
  Players("settledkill9", 4);
  SettleKill("consumer.after_commit", /*committed=*/true);
  EndChecks();
}

TEST_F(HoldsFaultTest, TableKill9) {
  Players("tablekill9", 4);
  ASSERT_NO_FATAL_FAILURE(StartRatings());
  ASSERT_NO_FATAL_FAILURE(StartMatchmaking("", /*play=*/true));
  ASSERT_NO_FATAL_FAILURE(PlayGame());
  table_->Kill();
  EXPECT_EQ(Finished() ? "finished" : HoldState(players_[0]), "2")
      << "the table was killed mid-game, the hold attached";
  const std::string at_kill = LogLength();
  ASSERT_NO_FATAL_FAILURE(StartTable());
  EXPECT_TRUE(WaitFor([&] { return Finished(); }, 90, "the game finished"));
  std::cout << "  the table was " << Settlement() << ", its log " << at_kill
            << " entries at the kill, " << LogLength() << " at its end" << std::endl;
  EXPECT_TRUE(WaitFor([&] { return Consumed(); }, 30, "the ratings service applied it"));
  EXPECT_THAT(Settlement(), AnyOf(Eq("settled"), Eq("voided")))
      << "it was settled against its table, or its table voided";
  EndChecks();
}

}  // namespace
}  // namespace trix::matchmaking
