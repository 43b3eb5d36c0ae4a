// TableHost over the in-memory store: creation, play, durability before answers,
// append failures, idempotency, clocks, leaving, streams, recovery and history.
#include "services/table/table_host.h"

#include <array>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "engine/random.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire/outbox_row.h"
#include "services/table/refusals.h"
#include "services/table/testing/memory_store.h"
#include "services/table/testing/table_client.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

v1::ActRequest Leave() {
  v1::ActRequest r;
  r.mutable_leave();
  return r;
}

HostOptions Options(const std::string& instance) {
  HostOptions o;
  o.instance_id = instance;
  o.lease_ttl = absl::Milliseconds(600);
  o.maintenance_every = absl::Milliseconds(100);
  o.finished_linger = absl::Seconds(30);
  o.max_stake = 1000;
  return o;
}

v1::CreateTableRequest CreateRequest(const std::string& request_id, v1::Team team,
                                     v1::Format format, uint64_t seed, int clock_ms = 0) {
  v1::CreateTableRequest r;
  r.set_request_id(request_id);
  r.mutable_mode()->set_team(team);
  r.mutable_mode()->set_format(format);
  r.set_seed(seed);
  r.mutable_clocks()->set_contract_ms(clock_ms);
  r.mutable_clocks()->set_doubling_ms(clock_ms);
  r.mutable_clocks()->set_card_ms(clock_ms);
  for (int s = 0; s < 4; ++s) {
    v1::SeatAssignment* seat = r.add_seats();
    seat->set_player_id("player-" + std::to_string(s));
    seat->set_display_name("P" + std::to_string(s));
  }
  return r;
}

class HostTest : public ::testing::Test {
 protected:
  HostTest() : db_(std::make_shared<MemoryDatabase>()) {}
  void SetUp() override { StartHost("table-a"); }

  void StartHost(const std::string& instance) {
    host_.reset();
    store_ = std::make_unique<MemoryStore>(db_, instance, absl::Seconds(1));
    host_ = std::make_unique<TableHost>(Options(instance), store_.get(), &registry_);
    ASSERT_TRUE(host_->Start().ok());
  }

  absl::StatusOr<v1::CreateTableResponse> Create(const v1::CreateTableRequest& r) {
    return Wait<v1::CreateTableResponse>(
        [&](auto reply) { host_->CreateTable(r, reply); });
  }
  absl::StatusOr<v1::ActResponse> Act(const v1::ActRequest& r) {
    return Wait<v1::ActResponse>([&](auto reply) { host_->Act(r, reply); });
  }
  // Returns once every command the table's strand had queued has run.
  void Barrier(const std::string& table_id) {
    v1::GetTableRequest request;
    request.set_table_id(table_id);
    ASSERT_TRUE(
        Wait<v1::TableView>([&](auto reply) { host_->GetTable(request, reply); }).ok());
  }
  std::shared_ptr<RecordingSink> Subscribe(const std::string& table,
                                           const std::string& token,
                                           uint64_t after_seq = 0, size_t capacity = 0) {
    auto sink = std::make_shared<RecordingSink>(capacity);
    host_->Subscribe(table, token, token.empty(), after_seq, sink);
    return sink;
  }
  v1::ActRequest ActFor(const v1::CreateTableResponse& table, int seat,
                        const std::string& request_id, v1::ActRequest action) {
    action.set_table_id(table.table_id());
    action.set_seat_token(table.seat_tokens(seat));
    action.set_request_id(request_id);
    return action;
  }
  // The outbox rows the table's game wrote.
  std::vector<std::string> Outbox(const std::string& id) {
    absl::MutexLock lock(&db_->mu);
    return db_->games[id].outbox;
  }
  // A one-kingdom table whose seats all leave: the autopilot plays it to the end.
  // Returns it and seat 2's stream, closed once the game ended.
  std::pair<v1::CreateTableResponse, std::shared_ptr<RecordingSink>> PlayedOut(
      const std::string& request_id, uint64_t seed, bool unrated = false) {
    v1::CreateTableRequest r =
        CreateRequest(request_id, v1::TEAM_SOLO, v1::FORMAT_COMPLEX, seed);
    r.mutable_rules()->set_kingdoms(1);
    r.set_unrated(unrated);
    v1::CreateTableResponse table = Create(r).value();
    v1::ActRequest leave;
    leave.mutable_leave();
    for (int s = 0; s < 4; ++s) EXPECT_TRUE(Act(ActFor(table, s, "bye", leave)).ok());
    auto live = Subscribe(table.table_id(), table.seat_tokens(2), 1);
    EXPECT_TRUE(
        live->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
    return {table, live};
  }

  // Plays until every stream has ended (or `max_actions`), acting on each seat's
  // latest prompt. Returns the number of actions sent.
  int Play(const v1::CreateTableResponse& table,
           std::array<std::shared_ptr<RecordingSink>, 4>& sinks, uint64_t seed,
           int max_actions = 100000) {
    engine::Rng rng(seed);
    std::array<size_t, 4> handled{};
    int actions = 0;
    for (int idle = 0; idle < 2000 && actions < max_actions;) {
      bool acted = false, all_closed = true;
      for (int s = 0; s < 4; ++s) {
        all_closed &= sinks[s]->closed();
        std::vector<v1::TableUpdate> updates = sinks[s]->updates();
        if (updates.size() <= handled[s] || !updates.back().has_prompt()) continue;
        handled[s] = updates.size();
        absl::StatusOr<v1::ActResponse> r =
            Act(ActFor(table, s, absl::StrCat("a", seed, "-", actions),
                       RandomAction(updates.back().prompt(), rng)));
        EXPECT_TRUE(r.ok()) << r.status();
        ++actions;
        acted = true;
      }
      if (all_closed) break;
      if (acted) {
        idle = 0;
      } else {
        ++idle;
        absl::SleepFor(absl::Milliseconds(1));
      }
    }
    // An answer comes just before its step's broadcast: let the last one land.
    if (!sinks[0]->closed()) Barrier(table.table_id());
    return actions;
  }

  prometheus::Registry registry_;
  prometheus::Registry other_registry_;
  std::shared_ptr<MemoryDatabase> db_;
  std::unique_ptr<MemoryStore> store_;
  std::unique_ptr<TableHost> host_;
};

// Seat events numbered 1, 2, 3, ... from the start of the stream.
void ExpectContiguous(const RecordingSink& sink, uint64_t first_seq) {
  uint64_t next = first_seq;
  for (const v1::TableUpdate& u : sink.updates()) {
    if (u.has_snapshot()) next = u.snapshot().seq() + 1;
    for (const v1::Event& e : u.events()) ASSERT_EQ(e.seq(), next++);
  }
}

TEST_F(HostTest, CreateTableChecksItsRequest) {
  auto code = [&](v1::CreateTableRequest r) { return Create(r).status().code(); };
  v1::CreateTableRequest r = CreateRequest("", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1);
  EXPECT_EQ(code(r), absl::StatusCode::kInvalidArgument);
  r = CreateRequest("x", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1);
  r.mutable_seats()->RemoveLast();
  EXPECT_EQ(code(r), absl::StatusCode::kInvalidArgument);
  r = CreateRequest("x", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1);
  r.mutable_seats(1)->set_bot(true);
  r.mutable_seats(1)->set_stake(5);
  EXPECT_EQ(code(r), absl::StatusCode::kInvalidArgument);
  r = CreateRequest("x", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1);
  r.mutable_seats(1)->set_player_id("player-0");
  EXPECT_EQ(code(r), absl::StatusCode::kInvalidArgument);
  r = CreateRequest("x", v1::TEAM_UNSPECIFIED, v1::FORMAT_COMPLEX, 1);
  EXPECT_EQ(code(r), absl::StatusCode::kInvalidArgument);
  r = CreateRequest("x", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1, -5);
  EXPECT_EQ(code(r), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(host_->table_count(), 0u);
}

TEST_F(HostTest, AutopilotSeatsNeverStakeAndLeaveOneSeatToAClient) {
  v1::CreateTableRequest r = CreateRequest("ap", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1);
  r.mutable_seats(2)->set_autopilot(true);
  r.mutable_seats(2)->set_stake(5);
  absl::Status staking = Create(r).status();
  EXPECT_EQ(staking.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(staking.message(),
            "seats[2]: an autopilot seat never stakes (nobody plays it to win or lose)");
  r.mutable_seats(2)->set_stake(0);
  for (int s = 0; s < 4; ++s) r.mutable_seats(s)->set_autopilot(true);
  absl::Status nobody = Create(r).status();
  EXPECT_EQ(nobody.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(nobody.message()), HasSubstr("every seat is autopilot"));
  EXPECT_EQ(host_->table_count(), 0u);

  // Three autopilot seats sharing one account: no token for them, one for seat 0,
  // and the table waits for nobody but seat 0.
  for (int s = 1; s < 4; ++s) r.mutable_seats(s)->set_player_id("autopilot");
  r.mutable_seats(0)->set_autopilot(false);
  v1::CreateTableResponse table = Create(r).value();
  EXPECT_FALSE(table.seat_tokens(0).empty());
  for (int s = 1; s < 4; ++s) {
    EXPECT_EQ(table.seat_tokens(s), "");
    EXPECT_TRUE(table.table().seats(s).left());
    EXPECT_TRUE(table.table().seats(s).bot());
  }
  EXPECT_FALSE(table.table().seats(0).left());
}

TEST_F(HostTest, CreateTableBoundsStakes) {
  v1::CreateTableRequest r = CreateRequest("s", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1);
  r.mutable_seats(2)->set_stake(-1);
  absl::Status negative = Create(r).status();
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.message(), "seats[2].stake must be 0 to 1000 units");
  r.mutable_seats(2)->set_stake(1001);
  EXPECT_EQ(Create(r).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(host_->table_count(), 0u);
  r.mutable_seats(2)->set_stake(1000);
  EXPECT_TRUE(Create(r).ok());
  EXPECT_EQ(host_->table_count(), 1u);
}

TEST_F(HostTest, CreateTableIsIdempotent) {
  v1::CreateTableRequest r =
      CreateRequest("once", v1::TEAM_PARTNER, v1::FORMAT_COMPLEX, 1);
  v1::CreateTableResponse first = Create(r).value();
  ASSERT_EQ(first.seat_tokens_size(), 4);
  EXPECT_EQ(first.table().phase(), v1::PHASE_CHOOSING_CONTRACT);
  EXPECT_EQ(first.table().clocks().card_ms(), 20000);  // the server default
  v1::CreateTableResponse again = Create(r).value();
  EXPECT_EQ(again.table_id(), first.table_id());
  EXPECT_EQ(again.seat_tokens(2), first.seat_tokens(2));
  EXPECT_EQ(host_->table_count(), 1u);

  // The same request_id with other seats is not a repeat: no tokens for it.
  v1::CreateTableRequest other = r;
  other.mutable_seats(1)->set_player_id("someone-else");
  const absl::Status refused = Create(other).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(refused.message()), HasSubstr("a repeat must be the same request"));
  EXPECT_EQ(host_->table_count(), 1u);
}

// A creator that chose the seat tokens gets its table back from any instance,
// after the one that created it forgot the answer; one wrong token is refused.
TEST_F(HostTest, ChosenSeatTokensGetTheSameTableBackAnywhere) {
  v1::CreateTableRequest r =
      CreateRequest("chosen", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 2);
  for (int s = 0; s < 4; ++s) {
    r.mutable_seats(s)->set_seat_token(absl::StrCat("chosen-token-of-seat-", s, "-",
                                                    std::string(20, 'x')));
  }
  const v1::CreateTableResponse first = Create(r).value();
  EXPECT_EQ(first.seat_tokens(1), r.seats(1).seat_token());

  StartHost("table-b");  // another instance, which never saw the first answer
  const v1::CreateTableResponse again = Create(r).value();
  EXPECT_EQ(again.table_id(), first.table_id());
  for (int s = 0; s < 4; ++s) EXPECT_EQ(again.seat_tokens(s), r.seats(s).seat_token());

  v1::CreateTableRequest wrong = r;
  wrong.mutable_seats(3)->set_seat_token(std::string(40, 'y'));
  EXPECT_EQ(Create(wrong).status().code(), absl::StatusCode::kAlreadyExists);
  v1::CreateTableRequest other_player = r;  // every token right, a seat another player's
  other_player.mutable_seats(2)->set_player_id("someone-else");
  const absl::Status differs = Create(other_player).status();
  EXPECT_EQ(differs.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(differs.message()), HasSubstr("a repeat must be the same request"));

  v1::CreateTableRequest short_token = CreateRequest("short", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 3);
  short_token.mutable_seats(0)->set_seat_token("too-short");
  absl::Status refused = Create(short_token).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(), "seats[0].seat_token must be 32 to 128 characters");
  v1::CreateTableRequest odd = CreateRequest("odd", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 4);
  odd.mutable_seats(2)->set_seat_token(std::string(32, '*'));
  EXPECT_EQ(Create(odd).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(HostTest, FourSeatsPlayAWholeGame) {
  v1::CreateTableResponse table =
      Create(CreateRequest("g", v1::TEAM_PARTNER, v1::FORMAT_COMPLEX, 3)).value();
  std::array<std::shared_ptr<RecordingSink>, 4> sinks;
  for (int s = 0; s < 4; ++s)
    sinks[s] = Subscribe(table.table_id(), table.seat_tokens(s));
  auto watcher = Subscribe(table.table_id(), "");
  const int actions = Play(table, sinks, 3);
  EXPECT_GT(actions, 50);
  for (int s = 0; s < 4; ++s) {
    ASSERT_TRUE(
        sinks[s]->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
    EXPECT_TRUE(sinks[s]->status().ok()) << sinks[s]->status();
    EXPECT_TRUE(sinks[s]->events().back().has_game_ended());
    ExpectContiguous(*sinks[s], 1);
  }
  ASSERT_TRUE(
      watcher->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  for (const v1::Event& e : watcher->events()) {
    EXPECT_FALSE(e.has_hand_shown() || e.has_doubles_selected() || e.has_ready());
  }
  // The record matches what the seat saw live.
  v1::GetGameRecordRequest rr;
  rr.set_game_id(table.table_id());
  rr.set_seat_token(table.seat_tokens(1));
  v1::GameRecord record =
      Wait<v1::GameRecord>([&](auto reply) { host_->GetGameRecord(rr, reply); }).value();
  // The stream began with a snapshot covering the first events.
  std::vector<v1::Event> live = sinks[1]->events();
  const int skipped = static_cast<int>(live.front().seq()) - 1;
  ASSERT_EQ(record.events_size(), skipped + static_cast<int>(live.size()));
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(record.events(skipped + i).SerializeAsString(),
              live[i].SerializeAsString());
  }
  EXPECT_EQ(record.result().totals_size(), 4);
  rr.set_seat_token("not-a-token");
  EXPECT_EQ(Wait<v1::GameRecord>([&](auto reply) { host_->GetGameRecord(rr, reply); })
                .status()
                .code(),
            absl::StatusCode::kPermissionDenied);
}

// The stream contract: each step reaches each viewer as one update (none when it
// sees nothing of it), never an empty one, its events numbered on from the last
// update's, and a prompt only beside something the seat saw.
TEST_F(HostTest, EachStepIsOneUpdatePerViewer) {
  v1::CreateTableResponse table =
      Create(CreateRequest("one", v1::TEAM_SOLO, v1::FORMAT_CLASSIC, 15)).value();
  const int owner = table.table().owner();
  std::array<std::shared_ptr<RecordingSink>, 5> sinks;  // the seats, a spectator
  for (int v = 0; v < 5; ++v) {
    sinks[v] = Subscribe(table.table_id(), v < 4 ? table.seat_tokens(v) : "");
  }
  for (auto& sink : sinks) {
    ASSERT_TRUE(
        sink->WaitUntil([](const RecordingSink& k) { return k.size_locked() > 0; }));
  }
  // Resuming with nothing missed: the seat that must act gets its prompt alone.
  const uint64_t owner_seq = sinks[owner]->updates()[0].snapshot().seq();
  auto resumed = Subscribe(table.table_id(), table.seat_tokens(owner), owner_seq);
  ASSERT_TRUE(
      resumed->WaitUntil([](const RecordingSink& k) { return k.size_locked() > 0; }));
  ASSERT_EQ(resumed->updates().size(), 1u);
  EXPECT_EQ(resumed->updates()[0].events_size(), 0);
  EXPECT_TRUE(resumed->updates()[0].has_prompt());
  // It replaced the owner's first stream (which ends on the host's strand, soon
  // after): the owner's stream from the start again.
  ASSERT_TRUE(
      sinks[owner]->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_EQ(sinks[owner]->status().code(), absl::StatusCode::kAborted);
  sinks[owner] = Subscribe(table.table_id(), table.seat_tokens(owner));
  ASSERT_TRUE(
      sinks[owner]->WaitUntil([](const RecordingSink& k) { return k.size_locked() > 0; }));

  engine::Rng rng(15);
  std::array<size_t, 4> handled{};
  int actions = 0, cards = 0;
  for (bool acted = true; acted;) {
    acted = false;
    for (int s = 0; s < 4; ++s) {
      const std::vector<v1::TableUpdate> mine = sinks[s]->updates();
      if (mine.size() <= handled[s] || !mine.back().has_prompt()) continue;
      handled[s] = mine.size();
      std::array<size_t, 5> before;
      for (int v = 0; v < 5; ++v) before[v] = sinks[v]->updates().size();
      const v1::ActRequest act = RandomAction(mine.back().prompt(), rng);
      ASSERT_TRUE(Act(ActFor(table, s, absl::StrCat("one-", actions++), act)).ok());
      // The answer comes just before the step's broadcast; a later strand command
      // runs after it, when its updates are all in.
      Barrier(table.table_id());
      cards += act.has_play_card();
      for (int v = 0; v < 5; ++v) {
        const size_t added = sinks[v]->updates().size() - before[v];
        EXPECT_LE(added, 1u) << "viewer " << v << " after " << act.ShortDebugString();
        // A card played is public: every viewer gets its step.
        if (act.has_play_card()) {
          EXPECT_EQ(added, 1u) << "viewer " << v;
        }
      }
      acted = true;
    }
  }
  EXPECT_GT(cards, 200);
  for (int v = 0; v < 5; ++v) {
    SCOPED_TRACE(testing::Message() << "viewer " << v);
    ASSERT_TRUE(
        sinks[v]->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
    EXPECT_TRUE(sinks[v]->status().ok());
    const std::vector<v1::TableUpdate> updates = sinks[v]->updates();
    ASSERT_TRUE(updates[0].has_snapshot());
    for (size_t i = 1; i < updates.size(); ++i) {
      EXPECT_FALSE(updates[i].has_snapshot());
      EXPECT_GT(updates[i].events_size(), 0) << "update " << i;
    }
    for (const v1::TableUpdate& u : updates) {
      EXPECT_FALSE(v == 4 && u.has_prompt());  // the spectator
    }
    EXPECT_LE(updates.size(), 1u + static_cast<size_t>(actions));
    ExpectContiguous(*sinks[v], 1);
    EXPECT_TRUE(sinks[v]->events().back().has_game_ended());
  }
}

// A sink that notes when the host flushes it, as a Play stream's sink is flushed.
class FlushNotingSink : public RecordingSink {
 public:
  void Flush() override { flushed_after_.push_back(updates().size()); }
  std::vector<size_t> flushed_after() const { return flushed_after_; }

 private:
  std::vector<size_t> flushed_after_;  // written on the strand, read after a barrier
};

TEST_F(HostTest, AnAcceptedActionIsAnsweredJustBeforeItsStepIsBroadcast) {
  v1::CreateTableResponse table =
      Create(CreateRequest("stream", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 16)).value();
  const int owner = table.table().owner();
  auto sink = std::make_shared<FlushNotingSink>();
  host_->Subscribe(table.table_id(), table.seat_tokens(owner), false, 0, sink);
  ASSERT_TRUE(
      sink->WaitUntil([](const RecordingSink& k) { return k.size_locked() > 0; }));

  struct Answer {
    absl::StatusOr<v1::ActResponse> answer;
    bool broadcast_follows;
    size_t updates_then;  // what the seat's stream had received when answered
  };
  auto act = [&](const v1::ActRequest& request) {
    std::promise<Answer> done;
    host_->ActOnStream(
        request, [&](absl::StatusOr<v1::ActResponse> answer, bool follows) {
          done.set_value({std::move(answer), follows, sink->updates().size()});
        });
    Answer a = done.get_future().get();
    Barrier(table.table_id());
    return a;
  };
  v1::ActRequest choose;
  choose.mutable_choose_contract()->set_contract(v1::CONTRACT_TRIX);
  const Answer accepted = act(ActFor(table, owner, "c", choose));
  ASSERT_TRUE(accepted.answer.ok());
  EXPECT_TRUE(accepted.broadcast_follows);
  EXPECT_EQ(accepted.updates_then, 1u);  // the snapshot only: the step comes after
  ASSERT_EQ(sink->updates().size(), 2u);
  EXPECT_EQ(sink->updates()[1].events(0).seq(), sink->updates()[0].snapshot().seq() + 1);
  // The host flushed the sink after the step's update, once per broadcast.
  EXPECT_THAT(sink->flushed_after(), ::testing::ElementsAre(2u));

  // A repeat and a refusal are answered with nothing broadcast after them.
  const Answer repeated = act(ActFor(table, owner, "c", choose));
  ASSERT_TRUE(repeated.answer.ok());
  EXPECT_EQ(repeated.answer->seq(), accepted.answer->seq());
  EXPECT_FALSE(repeated.broadcast_follows);
  const Answer refused = act(ActFor(table, owner, "again", choose));
  EXPECT_EQ(refused.answer.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(refused.broadcast_follows);
  v1::ActRequest unknown = ActFor(table, owner, "x", choose);
  unknown.set_table_id("00000000-0000-4000-8000-000000000000");  // well-formed, unknown
  const Answer missing = act(unknown);
  EXPECT_EQ(missing.answer.status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(missing.broadcast_follows);
  EXPECT_EQ(sink->updates().size(), 2u);
  EXPECT_THAT(sink->flushed_after(), ::testing::ElementsAre(2u));
}

TEST_F(HostTest, AppendsAnsweredBeforeTheyReturnKeepTheStrand) {
  store_->SetInlineAppends(true);
  v1::CreateTableResponse table =
      Create(CreateRequest("inline", v1::TEAM_SOLO, v1::FORMAT_CLASSIC, 4)).value();
  std::array<std::shared_ptr<RecordingSink>, 4> sinks;
  for (int s = 0; s < 4; ++s)
    sinks[s] = Subscribe(table.table_id(), table.seat_tokens(s));
  Play(table, sinks, 4);
  for (int s = 0; s < 4; ++s) {
    ASSERT_TRUE(
        sinks[s]->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
    EXPECT_TRUE(sinks[s]->events().back().has_game_ended());
    ExpectContiguous(*sinks[s], 1);
  }
}

TEST_F(HostTest, NothingIsAnsweredOrStreamedBeforeItIsDurable) {
  v1::CreateTableResponse table =
      Create(CreateRequest("d", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 5)).value();
  const int owner = table.table().owner();
  auto sink = Subscribe(table.table_id(), table.seat_tokens(owner));
  ASSERT_TRUE(
      sink->WaitUntil([](const RecordingSink& k) { return k.size_locked() >= 1; }));
  const size_t before = sink->updates().size();
  store_->HoldAppends(true);
  v1::ActRequest choose;
  choose.mutable_choose_contract()->set_contract(v1::CONTRACT_COMPLEX);
  auto promise = std::make_shared<std::promise<absl::StatusOr<v1::ActResponse>>>();
  host_->Act(ActFor(table, owner, "c", choose),
             [promise](absl::StatusOr<v1::ActResponse> r) { promise->set_value(r); });
  auto future = promise->get_future();
  EXPECT_EQ(future.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  EXPECT_EQ(sink->updates().size(), before);
  EXPECT_EQ(store_->held_appends(), 1u);
  store_->HoldAppends(false);
  ASSERT_EQ(future.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_TRUE(future.get().ok());
  EXPECT_TRUE(
      sink->WaitUntil([&](const RecordingSink& k) { return k.size_locked() > before; }));
}

TEST_F(HostTest, FailedAppendIsUnavailableAndTheTableReloads) {
  v1::CreateTableResponse table =
      Create(CreateRequest("f", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 6)).value();
  const int owner = table.table().owner();
  auto sink = Subscribe(table.table_id(), table.seat_tokens(owner));
  v1::ActRequest choose;
  choose.mutable_choose_contract()->set_contract(v1::CONTRACT_TRIX);
  store_->FailNextAppends(1, absl::UnavailableError("disk full"));
  absl::StatusOr<v1::ActResponse> failed = Act(ActFor(table, owner, "c", choose));
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(failed.status().message(), HasSubstr("disk full"));
  // Memory did not run ahead of the log: the retry is judged on the durable state
  // (still choosing) and succeeds once.
  absl::StatusOr<v1::ActResponse> retried = Act(ActFor(table, owner, "c", choose));
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(Act(ActFor(table, owner, "c", choose)).value().seq(), retried->seq());
  ExpectContiguous(*sink, 1);
  int chosen = 0;
  for (const v1::Event& e : sink->events()) chosen += e.has_contract_chosen();
  EXPECT_EQ(chosen, 1);
}

TEST_F(HostTest, TokensAndTablesAreChecked) {
  v1::CreateTableResponse table =
      Create(CreateRequest("t", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 7)).value();
  v1::CreateTableResponse other =
      Create(CreateRequest("u", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 8)).value();
  v1::ActRequest leave;
  leave.mutable_leave();
  v1::ActRequest r = ActFor(table, 0, "x", leave);
  r.clear_seat_token();
  EXPECT_EQ(Act(r).status().code(), absl::StatusCode::kUnauthenticated);
  r.set_seat_token(other.seat_tokens(0));  // another table's token
  EXPECT_EQ(Act(r).status().code(), absl::StatusCode::kPermissionDenied);
  r.set_table_id("00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(Act(r).status().code(), absl::StatusCode::kNotFound);
  auto sink = Subscribe(table.table_id(), other.seat_tokens(1));
  ASSERT_TRUE(sink->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_EQ(sink->status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(sink->updates().empty());
}

TEST_F(HostTest, ClocksRunOutAndTheAutopilotPlays) {
  v1::CreateTableResponse table =
      Create(CreateRequest("c", v1::TEAM_PARTNER, v1::FORMAT_COMPLEX, 9, 30)).value();
  auto watcher = Subscribe(table.table_id(), "");
  // Nobody acts: within a second the autopilot has chosen, doubled and played.
  ASSERT_TRUE(watcher->WaitUntil(
      [](const RecordingSink& k) { return k.size_locked() > 25; }, absl::Seconds(5)));
  int automatic_cards = 0;
  for (const v1::Event& e : watcher->events()) {
    if (e.has_card_played()) {
      EXPECT_TRUE(e.automatic());
      ++automatic_cards;
    }
  }
  EXPECT_GT(automatic_cards, 3);
  // One clock per table: firings do not multiply (a bug once made each firing
  // schedule itself again).
  EXPECT_LE(host_->pending_clocks(), 2u);
}

TEST_F(HostTest, LeavingSeatIsPlayedAtOnce) {
  v1::CreateTableResponse table =
      Create(CreateRequest("l", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 10)).value();
  std::array<std::shared_ptr<RecordingSink>, 4> sinks;
  for (int s = 0; s < 4; ++s)
    sinks[s] = Subscribe(table.table_id(), table.seat_tokens(s));
  v1::ActRequest leave;
  leave.mutable_leave();
  ASSERT_TRUE(Act(ActFor(table, 2, "bye", leave)).ok());
  ASSERT_TRUE(Act(ActFor(table, 3, "bye", leave)).ok());
  EXPECT_EQ(Act(ActFor(table, 3, "again", leave)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  Play(table, sinks, 10);
  for (int s = 0; s < 4; ++s) {
    ASSERT_TRUE(
        sinks[s]->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
    EXPECT_TRUE(sinks[s]->events().back().has_game_ended());
  }
}

TEST_F(HostTest, SlowStreamIsCutAndResumesExactly) {
  v1::CreateTableResponse table =
      Create(CreateRequest("s", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 11)).value();
  std::array<std::shared_ptr<RecordingSink>, 4> sinks;
  for (int s = 0; s < 4; ++s)
    sinks[s] = Subscribe(table.table_id(), table.seat_tokens(s));
  // Spectators: a seat has one stream (a second would replace the first).
  auto watcher = Subscribe(table.table_id(), "");
  auto slow = Subscribe(table.table_id(), "", 0, /*capacity=*/12);
  Play(table, sinks, 11, /*max_actions=*/30);
  ASSERT_TRUE(slow->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_EQ(slow->status().code(), absl::StatusCode::kResourceExhausted);
  const std::vector<v1::Event> got = slow->events();
  const uint64_t last =
      got.empty() ? slow->updates().front().snapshot().seq() : got.back().seq();
  auto resumed = Subscribe(table.table_id(), "", last);
  std::vector<v1::Event> full = watcher->events();
  ASSERT_TRUE(resumed->WaitUntil(
      [&](const RecordingSink& k) { return k.last_seq_locked() >= full.back().seq(); }));
  std::vector<v1::Event> tail = resumed->events();
  ASSERT_FALSE(tail.empty());
  EXPECT_EQ(tail.front().seq(), last + 1);
  for (const v1::Event& e : tail) {
    ASSERT_LE(e.seq(), full.size() + (full.front().seq() - 1));
  }
  auto beyond = Subscribe(table.table_id(), "", 1000000);
  ASSERT_TRUE(
      beyond->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  // Beyond the stream's end: told to start again from a snapshot.
  EXPECT_EQ(beyond->status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(beyond->status().message(), HasSubstr("resume from the snapshot"));
}

TEST_F(HostTest, AnotherInstanceResumesAfterShutdown) {
  v1::CreateTableResponse table =
      Create(CreateRequest("r", v1::TEAM_PARTNER, v1::FORMAT_CLASSIC, 12)).value();
  std::array<std::shared_ptr<RecordingSink>, 4> sinks;
  for (int s = 0; s < 4; ++s)
    sinks[s] = Subscribe(table.table_id(), table.seat_tokens(s));
  Play(table, sinks, 12, /*max_actions=*/25);
  host_->Shutdown();
  for (int s = 0; s < 4; ++s) {
    ASSERT_TRUE(
        sinks[s]->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
    EXPECT_EQ(sinks[s]->status().code(), absl::StatusCode::kUnavailable);
  }
  std::array<uint64_t, 4> last{};
  for (int s = 0; s < 4; ++s) last[s] = sinks[s]->events().back().seq();

  StartHost("table-b");  // claims the released lease at once
  ASSERT_EQ(host_->table_count(), 1u);
  std::array<std::shared_ptr<RecordingSink>, 4> resumed;
  for (int s = 0; s < 4; ++s) {
    resumed[s] = Subscribe(table.table_id(), table.seat_tokens(s), last[s]);
  }
  Play(table, resumed, 13);
  for (int s = 0; s < 4; ++s) {
    ASSERT_TRUE(
        resumed[s]->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
    EXPECT_TRUE(resumed[s]->status().ok());
    ExpectContiguous(*resumed[s], last[s] + 1);
    EXPECT_TRUE(resumed[s]->events().back().has_game_ended());
  }
}

TEST_F(HostTest, LostLeaseEvictsTheTable) {
  v1::CreateTableResponse table =
      Create(CreateRequest("lease", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 14)).value();
  auto sink = Subscribe(table.table_id(), table.seat_tokens(0));
  ASSERT_TRUE(
      sink->WaitUntil([](const RecordingSink& k) { return k.size_locked() > 0; }));
  {
    // Another instance took the table (as if our renewals had failed).
    absl::MutexLock lock(&db_->mu);
    db_->games[table.table_id()].lease_owner = "table-z";
  }
  const int owner = table.table().owner();
  v1::ActRequest choose;
  choose.mutable_choose_contract()->set_contract(v1::CONTRACT_TRIX);
  EXPECT_EQ(Act(ActFor(table, owner, "c", choose)).status().code(),
            absl::StatusCode::kUnavailable);
  ASSERT_TRUE(sink->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_EQ(sink->status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(host_->table_count(), 0u);
}

TEST_F(HostTest, HistoryAndListings) {
  std::vector<std::string> ids;
  for (int g = 0; g < 3; ++g) {
    v1::CreateTableRequest r =
        CreateRequest("h" + std::to_string(g), v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 20 + g);
    r.mutable_rules()->set_kingdoms(1);
    v1::CreateTableResponse table = Create(r).value();
    ids.push_back(table.table_id());
    v1::ActRequest leave;
    leave.mutable_leave();
    for (int s = 0; s < 4; ++s) ASSERT_TRUE(Act(ActFor(table, s, "bye", leave)).ok());
  }
  v1::CreateTableResponse active =
      Create(CreateRequest("active", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 30)).value();
  v1::ListPlayerTablesRequest tables;
  tables.set_player_id("player-1");
  v1::ListPlayerTablesResponse listed =
      Wait<v1::ListPlayerTablesResponse>([&](auto reply) {
        host_->ListPlayerTables(tables, reply);
      }).value();
  ASSERT_EQ(listed.tables_size(), 1);
  EXPECT_EQ(listed.tables(0).table_id(), active.table_id());
  EXPECT_EQ(listed.tables(0).seat(), 1);
  EXPECT_EQ(listed.tables(0).phase(), v1::PHASE_CHOOSING_CONTRACT);

  v1::ListPlayerGamesRequest games;
  games.set_player_id("player-2");
  games.set_page_size(2);
  auto page = [&]() {
    return Wait<v1::ListPlayerGamesResponse>(
               [&](auto reply) { host_->ListPlayerGames(games, reply); })
        .value();
  };
  v1::ListPlayerGamesResponse first = page();
  ASSERT_EQ(first.games_size(), 2);
  EXPECT_FALSE(first.next_page_token().empty());
  EXPECT_EQ(first.games(0).seat(), 2);
  EXPECT_EQ(first.games(0).result().totals_size(), 4);
  games.set_page_token(first.next_page_token());
  v1::ListPlayerGamesResponse second = page();
  ASSERT_EQ(second.games_size(), 1);
  EXPECT_TRUE(second.next_page_token().empty());

  // A public record holds no hand.
  v1::GetGameRecordRequest rr;
  rr.set_game_id(ids[0]);
  v1::GameRecord record =
      Wait<v1::GameRecord>([&](auto reply) { host_->GetGameRecord(rr, reply); }).value();
  EXPECT_EQ(record.viewer(), -1);
  ASSERT_GT(record.events_size(), 10);
  for (const v1::Event& e : record.events()) EXPECT_FALSE(e.has_hand_shown());
  rr.set_game_id("00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(Wait<v1::GameRecord>([&](auto reply) { host_->GetGameRecord(rr, reply); })
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  rr.set_game_id("missing");  // not of the form of a table id
  EXPECT_EQ(Wait<v1::GameRecord>([&](auto reply) { host_->GetGameRecord(rr, reply); })
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(HostTest, FinishedTablesLeaveMemoryAndAreServedFromTheLog) {
  HostOptions options = Options("linger");
  options.finished_linger = absl::ZeroDuration();
  host_ = std::make_unique<TableHost>(options, store_.get(), &registry_);
  ASSERT_TRUE(host_->Start().ok());
  auto [table, live] = PlayedOut("fin", 40);
  ASSERT_TRUE(live->closed());
  host_->RunMaintenance();
  EXPECT_EQ(host_->table_count(), 0u);
  auto stored = Subscribe(table.table_id(), table.seat_tokens(2), 1);
  ASSERT_TRUE(
      stored->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_TRUE(stored->status().ok()) << stored->status();
  ASSERT_EQ(stored->events().size(), live->events().size());
  for (size_t i = 0; i < live->events().size(); ++i) {
    EXPECT_EQ(stored->events()[i].SerializeAsString(),
              live->events()[i].SerializeAsString());
  }
  v1::GetTableRequest get;
  get.set_table_id(table.table_id());
  v1::TableView view =
      Wait<v1::TableView>([&](auto reply) { host_->GetTable(get, reply); }).value();
  EXPECT_EQ(view.phase(), v1::PHASE_GAME_OVER);
  EXPECT_EQ(view.result().totals_size(), 4);
  // Any instance answers an action on a finished table from its log.
  EXPECT_EQ(Act(ActFor(table, 0, "late", Leave())).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// The database lost the commits that ended a table (an asynchronous failover): it
// is running there, finished here. The instance's lease keeps it, so the instance
// releases it when the finished copy leaves memory, for whoever takes it up.
TEST_F(HostTest, AFinishedTableTheDatabaseHoldsAsRunningIsReleasedWithItsMemory) {
  HostOptions options = Options("linger");
  options.finished_linger = absl::ZeroDuration();
  options.maintenance_every = absl::Hours(1);  // rounds are run here
  host_ = std::make_unique<TableHost>(options, store_.get(), &registry_);
  ASSERT_TRUE(host_->Start().ok());
  const v1::CreateTableResponse table = PlayedOut("lost", 41).first;
  {
    absl::MutexLock lock(&db_->mu);
    MemoryDatabase::Game& game = db_->games[table.table_id()];
    ASSERT_TRUE(game.stored.finished);
    game.stored.finished = false;
    game.stored.result.clear();
    EXPECT_NE(game.lease_until, absl::InfinitePast());
  }
  host_->RunMaintenance();
  EXPECT_EQ(host_->table_count(), 0u);
  absl::MutexLock lock(&db_->mu);
  EXPECT_EQ(db_->games[table.table_id()].lease_until, absl::InfinitePast());
}

// The database lost the last commits of a table that appends nothing more (an
// asynchronous failover just after its game ended here). Once the database answers
// again, the host finds the log shorter than it acknowledged, rebuilds the table
// from it, counts the rewind, and the table plays to its end again.
TEST_F(HostTest, ATableRewoundBehindItsBackIsRebuiltOnceTheDatabaseIsBack) {
  HostOptions options = Options("rewound");
  options.maintenance_every = absl::Hours(1);  // rounds are run here
  host_ = std::make_unique<TableHost>(options, store_.get(), &registry_);
  ASSERT_TRUE(host_->Start().ok());
  const v1::CreateTableResponse table = PlayedOut("rewound", 42).first;
  size_t acknowledged = 0;
  {
    absl::MutexLock lock(&db_->mu);
    StoredGame& stored = db_->games[table.table_id()].stored;
    acknowledged = stored.entries.size();
    ASSERT_GT(acknowledged, 3u);
    stored.entries.resize(acknowledged - 3);
    stored.finished = false;
    stored.result.clear();
  }
  host_->RunMaintenance();  // nothing happened that puts the logs in doubt
  EXPECT_EQ(host_->metrics().log_rewinds.Value(), 0);

  store_->SetUnavailable(true);
  host_->RunMaintenance();
  store_->SetUnavailable(false);
  host_->RunMaintenance();  // the reload runs on the io pool
  bool finished = false;
  for (int i = 0; i < 500 && !finished; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
    absl::MutexLock lock(&db_->mu);
    finished = db_->games[table.table_id()].stored.finished;
  }
  EXPECT_TRUE(finished) << "the rebuilt table did not play to its end";
  EXPECT_EQ(host_->metrics().log_rewinds.Value(), 1);
  EXPECT_EQ(host_->metrics().entries_lost.Value(), 3);
  host_->RunMaintenance();  // checked once: no second rewind
  EXPECT_EQ(host_->metrics().log_rewinds.Value(), 1);
}

TEST_F(HostTest, UnavailableUntilStartedAndWhileDraining) {
  TableHost cold(Options("cold"), store_.get(), &registry_);
  EXPECT_EQ(Wait<v1::CreateTableResponse>([&](auto reply) {
              cold.CreateTable(CreateRequest("z", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1),
                               reply);
            })
                .status()
                .code(),
            absl::StatusCode::kUnavailable);
  host_->Shutdown();
  EXPECT_FALSE(host_->serving());
  EXPECT_EQ(
      Create(CreateRequest("z", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 1)).status().code(),
      absl::StatusCode::kUnavailable);
}


namespace trix::table {
namespace {

TEST(HostReadinessTest, ReportsTheDatabaseGoingAndComing) {
  prometheus::Registry registry;
  auto db = std::make_shared<MemoryDatabase>();
  MemoryStore store(db, "r");
  HostOptions options = Options("r");
  options.maintenance_every = absl::Milliseconds(20);
  TableHost host(options, &store, &registry);
  absl::Mutex mu;
  std::vector<bool> seen;
  host.SetReadinessListener([&](bool ready) {
    absl::MutexLock lock(&mu);
    seen.push_back(ready);
  });
  ASSERT_TRUE(host.Start().ok());
  store.SetUnavailable(true);
  auto wait_for = [&](size_t n) {
    absl::MutexLock lock(&mu);
    auto cond = [&]() { return seen.size() >= n; };
    return mu.AwaitWithTimeout(absl::Condition(&cond), absl::Seconds(5));
  };
  ASSERT_TRUE(wait_for(1));
  store.SetUnavailable(false);
  ASSERT_TRUE(wait_for(2));
  absl::MutexLock lock(&mu);
  EXPECT_EQ(seen, (std::vector<bool>{false, true}));
}

// --- A fleet of hosts over one store ----------------------------------------------

TEST_F(HostTest, ABrokenTableIsQuarantinedAndTheOthersPlayOn) {
  v1::CreateTableResponse broken =
      Create(CreateRequest("q1", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 5)).value();
  v1::CreateTableResponse sound =
      Create(CreateRequest("q2", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 6)).value();
  auto stream = Subscribe(broken.table_id(), broken.seat_tokens(1));
  host_->BreakTableForTesting(broken.table_id(), "the deal went wrong");
  const absl::Status refused = Act(ActFor(broken, 0, "x", Leave())).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("table quarantined: "));
  ASSERT_TRUE(
      stream->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_THAT(stream->status().message(), HasSubstr("table quarantined"));
  EXPECT_TRUE(Act(ActFor(sound, 0, "y", Leave())).ok());
  // Marked in the store, so no instance takes it, this one included.
  for (int i = 0; i < 100; ++i) {
    {
      absl::MutexLock lock(&db_->mu);
      if (!db_->games[broken.table_id()].broken.empty()) break;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  MemoryStore other_store(db_, "table-b");
  TableHost other(Options("table-b"), &other_store, &other_registry_);
  ASSERT_TRUE(other.Start().ok());
  other.RunMaintenance();
  absl::StatusOr<v1::ActResponse> elsewhere = Wait<v1::ActResponse>(
      [&](auto reply) { other.Act(ActFor(broken, 0, "z", Leave()), reply); });
  EXPECT_THAT(elsewhere.status().message(), HasSubstr("table quarantined"));
  EXPECT_EQ(host_->metrics().quarantined.Value(), 1);
}

TEST_F(HostTest, AnotherHostNamesTheOwnerAndAdoptsALapsedTableOnTheSpot) {
  host_->Advertise("a.example:1");
  host_->RunMaintenance();  // heartbeat with the address
  v1::CreateTableResponse table =
      Create(CreateRequest("f1", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 7)).value();
  MemoryStore other_store(db_, "table-b");
  TableHost other(Options("table-b"), &other_store, &other_registry_);
  ASSERT_TRUE(other.Start().ok());
  auto act_there = [&](const std::string& id) {
    return Wait<v1::ActResponse>(
        [&](auto reply) { other.Act(ActFor(table, 2, id, Leave()), reply); });
  };
  const absl::Status moved = act_there("m1").status();
  EXPECT_EQ(moved.code(), absl::StatusCode::kUnavailable) << moved;
  ASSERT_TRUE(LocationIn(moved).has_value()) << moved;
  EXPECT_EQ(LocationIn(moved)->address(), "a.example:1");
  host_->Shutdown();  // releases the lease
  EXPECT_TRUE(act_there("m2").ok());
  v1::LocateTableRequest locate;
  locate.set_table_id(table.table_id());
  EXPECT_EQ(Wait<v1::TableLocation>([&](auto reply) {
              other.LocateTable(locate, reply);
            })->instance_id(),
            "table-b");
  locate.set_table_id("00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(Wait<v1::TableLocation>([&](auto reply) { other.LocateTable(locate, reply); })
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST_F(HostTest, ARefusedActionCarriesTheSeatsPromptAgain) {
  v1::CreateTableResponse table =
      Create(CreateRequest("p1", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 8)).value();
  v1::TableView view = table.table();
  int owner = view.owner();
  v1::ActRequest wrong = ActFor(table, owner, "w", v1::ActRequest());
  wrong.mutable_play_card()->set_card("2C");  // contracts are chosen first
  const absl::Status refused = Act(wrong).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  ASSERT_TRUE(PromptIn(refused).has_value());
  EXPECT_FALSE(PromptIn(refused)->available_contracts().empty());
}

}  // namespace
}  // namespace trix::table

namespace trix::table {
namespace {

// A host of its own over a memory store, with small bounds.
struct BoundedHost {
  explicit BoundedHost(HostOptions options)
      : db(std::make_shared<MemoryDatabase>()), store(db, options.instance_id) {
    host = std::make_unique<TableHost>(options, &store, &registry);
    EXPECT_TRUE(host->Start().ok());
  }
  prometheus::Registry registry;
  std::shared_ptr<MemoryDatabase> db;
  MemoryStore store;
  std::unique_ptr<TableHost> host;
};

TEST(HostBoundsTest, AFloodedTableRefusesPastItsCommandBound) {
  HostOptions options = Options("b");
  options.max_table_commands = 4;
  BoundedHost b(options);
  v1::CreateTableResponse table =
      Wait<v1::CreateTableResponse>([&](auto reply) {
        b.host->CreateTable(CreateRequest("q", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 3),
                            reply);
      }).value();
  // The table's strand waits on a held append: everything else queues behind it.
  b.store.HoldAppends(true);
  v1::ActRequest choose;
  choose.set_table_id(table.table_id());
  choose.set_seat_token(table.seat_tokens(table.table().owner()));
  choose.set_request_id("c");
  choose.mutable_choose_contract()->set_contract(v1::CONTRACT_COMPLEX);
  auto acted = std::make_shared<std::promise<absl::StatusOr<v1::ActResponse>>>();
  b.host->Act(choose,
              [acted](absl::StatusOr<v1::ActResponse> r) { acted->set_value(r); });
  for (int i = 0; i < 1000 && b.store.held_appends() == 0; ++i)
    absl::SleepFor(absl::Milliseconds(5));
  ASSERT_EQ(b.store.held_appends(), 1u);
  absl::Mutex mu;
  std::vector<absl::Status> answers;
  v1::GetTableRequest get;
  get.set_table_id(table.table_id());
  for (int i = 0; i < 10; ++i) {
    b.host->GetTable(get, [&](absl::StatusOr<v1::TableView> view) {
      absl::MutexLock lock(&mu);
      answers.push_back(view.status());
    });
  }
  {
    // The six past the bound are answered at once, without the strand.
    absl::MutexLock lock(&mu);
    ASSERT_EQ(answers.size(), 6u);
    for (const absl::Status& s : answers) {
      EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
      EXPECT_THAT(s.message(), HasSubstr("retry"));
    }
  }
  b.store.HoldAppends(false);
  EXPECT_TRUE(acted->get_future().get().ok());
  absl::MutexLock lock(&mu);
  auto all = [&]() { return answers.size() == 10; };
  ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&all), absl::Seconds(5)));
  for (size_t i = 6; i < answers.size(); ++i) EXPECT_TRUE(answers[i].ok()) << answers[i];
}

TEST(HostBoundsTest, DatabaseReadsPastTheBoundAreRefusedAtOnce) {
  HostOptions options = Options("r");
  options.io_threads = 1;
  options.max_queued_reads = 2;
  BoundedHost b(options);
  absl::Mutex mu;
  std::vector<absl::Status> answers;
  v1::ListPlayerTablesRequest list;
  list.set_player_id("player-0");
  {
    // Holding the memory database's lock stalls the one io thread on the first
    // read; two more wait; the rest find the queue full.
    absl::MutexLock db_lock(&b.db->mu);
    for (int i = 0; i < 10; ++i) {
      b.host->ListPlayerTables(list, [&](absl::StatusOr<v1::ListPlayerTablesResponse> r) {
        absl::MutexLock lock(&mu);
        answers.push_back(r.status());
      });
    }
    absl::MutexLock lock(&mu);
    // 2 or 3 accepted: the io thread may not have taken the first one yet.
    EXPECT_GE(answers.size(), 7u);
    EXPECT_LE(answers.size(), 8u);
    for (const absl::Status& s : answers) {
      EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
      EXPECT_THAT(s.message(), HasSubstr("retry"));
    }
  }
  absl::MutexLock lock(&mu);
  auto all = [&]() { return answers.size() == 10; };
  ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&all), absl::Seconds(5)));
  EXPECT_TRUE(answers.back().ok()) << answers.back();
}

}  // namespace
}  // namespace trix::table

v1::VoidTableRequest VoidRequest(const std::string& table_id, const std::string& reason) {
  v1::VoidTableRequest r;
  r.set_table_id(table_id);
  r.set_reason(reason);
  return r;
}

class VoidTest : public HostTest {
 protected:
  absl::StatusOr<v1::VoidTableResponse> Void(TableHost& host, const std::string& id,
                                             const std::string& reason) {
    return Wait<v1::VoidTableResponse>([&](auto reply) {
      host.VoidTable(VoidRequest(id, reason), reply);
    });
  }
  absl::StatusOr<v1::VoidTableResponse> Void(const std::string& id,
                                             const std::string& reason) {
    return Void(*host_, id, reason);
  }
};

TEST_F(VoidTest, AVoidedTableTellsItsSeatsRefusesActionsAndShowsVoided) {
  v1::CreateTableRequest r = CreateRequest("v1", v1::TEAM_PARTNER, v1::FORMAT_COMPLEX, 3);
  r.mutable_seats(1)->set_stake(100);
  v1::CreateTableResponse table = Create(r).value();
  std::array<std::shared_ptr<RecordingSink>, 4> sinks;
  for (int s = 0; s < 4; ++s)
    sinks[s] = Subscribe(table.table_id(), table.seat_tokens(s));
  auto watcher = Subscribe(table.table_id(), "");
  Play(table, sinks, 3, /*max_actions=*/5);

  absl::StatusOr<v1::VoidTableResponse> voided = Void(table.table_id(), "abandoned");
  ASSERT_TRUE(voided.ok()) << voided.status();
  EXPECT_FALSE(voided->already_voided());
  EXPECT_GT(voided->voided().seconds(), 0);
  for (const auto& sink : {sinks[0], sinks[1], sinks[2], sinks[3], watcher}) {
    ASSERT_TRUE(sink->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
    EXPECT_TRUE(sink->status().ok()) << sink->status();
    ASSERT_TRUE(sink->events().back().has_table_voided());
    EXPECT_EQ(sink->events().back().table_voided().reason(), "abandoned");
  }
  const absl::Status refused = Act(ActFor(table, 0, "late", Leave())).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), "table voided: abandoned");

  v1::GetTableRequest get;
  get.set_table_id(table.table_id());
  v1::TableView view =
      Wait<v1::TableView>([&](auto reply) { host_->GetTable(get, reply); }).value();
  EXPECT_TRUE(view.voided());
  EXPECT_EQ(view.void_reason(), "abandoned");
  EXPECT_FALSE(view.has_turn());
  EXPECT_FALSE(view.has_result());

  const std::vector<std::string> outbox = Outbox(table.table_id());
  ASSERT_EQ(outbox.size(), 1u);
  const absl::StatusOr<v1::internal::FinishedGame> row = wire::OutboxRowFromJson(outbox[0]);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->game_id(), table.table_id());
  EXPECT_EQ(row->mode(), "complex-partner");
  EXPECT_TRUE(row->voided());
  EXPECT_EQ(row->reason(), "abandoned");
  EXPECT_GT(row->voided_unix_ms(), 0);
  ASSERT_EQ(row->seats_size(), 4);
  EXPECT_EQ(row->seats(1).stake(), 100);
  EXPECT_EQ(row->seats(1).player_id(), "player-1");
  EXPECT_EQ(row->seats(1).team(), 1);
  EXPECT_FALSE(row->has_result());
  EXPECT_FALSE(row->seats(1).has_total());
  EXPECT_EQ(host_->metrics().voided.Value(), 1);
}

TEST_F(VoidTest, VoidingTwiceAnswersAsTheFirstTimeAndWritesOnce) {
  v1::CreateTableResponse table =
      Create(CreateRequest("v2", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 4)).value();
  v1::VoidTableResponse first = Void(table.table_id(), "placement given up").value();
  v1::VoidTableResponse again = Void(table.table_id(), "another reason").value();
  EXPECT_TRUE(again.already_voided());
  EXPECT_EQ(again.voided().SerializeAsString(), first.voided().SerializeAsString());
  EXPECT_EQ(Outbox(table.table_id()).size(), 1u);
  // A late subscriber sees the void and the stream ends.
  auto late = Subscribe(table.table_id(), table.seat_tokens(0));
  ASSERT_TRUE(late->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_TRUE(late->status().ok());
  EXPECT_TRUE(late->updates().front().snapshot().voided());
}

TEST_F(VoidTest, AFinishedUnknownOrBadlyAskedVoidIsRefusedAndChangesNothing) {
  v1::CreateTableRequest r = CreateRequest("v3", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 5);
  r.mutable_rules()->set_kingdoms(1);
  v1::CreateTableResponse finished = Create(r).value();
  for (int s = 0; s < 4; ++s) ASSERT_TRUE(Act(ActFor(finished, s, "bye", Leave())).ok());
  EXPECT_EQ(Void(finished.table_id(), "too late").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Outbox(finished.table_id()).size(), 1u);  // its result's, only

  EXPECT_EQ(Void("00000000-0000-4000-8000-000000000000", "who?").status().code(),
            absl::StatusCode::kNotFound);
  v1::CreateTableResponse live =
      Create(CreateRequest("v4", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 6)).value();
  const absl::Status no_reason = Void(live.table_id(), "").status();
  EXPECT_EQ(no_reason.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_reason.message(), HasSubstr("reason is required"));
  const absl::Status long_reason = Void(live.table_id(), std::string(257, 'x')).status();
  EXPECT_EQ(long_reason.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(long_reason.message(), HasSubstr("at most 256"));
  EXPECT_EQ(Void("not-a-table", "x").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Outbox(live.table_id()).empty());
  EXPECT_TRUE(Act(ActFor(live, 0, "still", Leave())).ok());
  EXPECT_TRUE(Void(live.table_id(), std::string(256, 'x')).ok());
}

TEST_F(VoidTest, AVoidedTableIsNeverPlayedAgainAfterARestartOrElsewhere) {
  v1::CreateTableResponse table =
      Create(CreateRequest("v5", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 7, 50)).value();
  ASSERT_TRUE(Void(table.table_id(), "quarrel").ok());
  const size_t entries = [&] {
    absl::MutexLock lock(&db_->mu);
    return db_->games[table.table_id()].stored.entries.size();
  }();
  StartHost("table-b");
  absl::SleepFor(absl::Milliseconds(200));  // clocks of 50 ms would have run out
  host_->RunMaintenance();
  v1::VoidTableResponse again = Void(table.table_id(), "quarrel").value();
  EXPECT_TRUE(again.already_voided());
  const absl::Status refused = Act(ActFor(table, 0, "x", Leave())).status();
  EXPECT_EQ(refused.message(), "table voided: quarrel");
  absl::MutexLock lock(&db_->mu);
  EXPECT_EQ(db_->games[table.table_id()].stored.entries.size(), entries);
  EXPECT_EQ(db_->games[table.table_id()].outbox.size(), 1u);
}

TEST_F(VoidTest, AnotherInstanceVoidsALapsedTableOrNamesItsOwner) {
  host_->Advertise("a.example:1");
  host_->RunMaintenance();
  v1::CreateTableResponse table =
      Create(CreateRequest("v6", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 8)).value();
  MemoryStore other_store(db_, "table-b");
  TableHost other(Options("table-b"), &other_store, &other_registry_);
  ASSERT_TRUE(other.Start().ok());
  const absl::Status moved = Void(other, table.table_id(), "elsewhere").status();
  EXPECT_EQ(moved.code(), absl::StatusCode::kUnavailable) << moved;
  ASSERT_TRUE(LocationIn(moved).has_value());
  EXPECT_EQ(LocationIn(moved)->address(), "a.example:1");
  EXPECT_TRUE(Outbox(table.table_id()).empty());
  host_->Shutdown();
  absl::StatusOr<v1::VoidTableResponse> voided = Void(other, table.table_id(), "elsewhere");
  ASSERT_TRUE(voided.ok()) << voided.status();
  EXPECT_EQ(Outbox(table.table_id()).size(), 1u);
}

TEST_F(VoidTest, AVoidedGameIsListedVoidedAndNotLive) {
  v1::CreateTableResponse table =
      Create(CreateRequest("v7", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 9)).value();
  ASSERT_TRUE(Void(table.table_id(), "no show").ok());
  v1::ListPlayerTablesRequest tables;
  tables.set_player_id("player-1");
  EXPECT_EQ(Wait<v1::ListPlayerTablesResponse>([&](auto reply) {
              host_->ListPlayerTables(tables, reply);
            })->tables_size(),
            0);
  v1::ListPlayerGamesRequest games;
  games.set_player_id("player-1");
  v1::ListPlayerGamesResponse listed =
      Wait<v1::ListPlayerGamesResponse>([&](auto reply) {
        host_->ListPlayerGames(games, reply);
      }).value();
  ASSERT_EQ(listed.games_size(), 1);
  EXPECT_TRUE(listed.games(0).voided());
  EXPECT_EQ(listed.games(0).result().totals_size(), 0);
  v1::GetGameRecordRequest rr;
  rr.set_game_id(table.table_id());
  v1::GameRecord record =
      Wait<v1::GameRecord>([&](auto reply) { host_->GetGameRecord(rr, reply); }).value();
  EXPECT_TRUE(record.voided());
  EXPECT_EQ(record.void_reason(), "no show");
  EXPECT_TRUE(record.has_finished());
  EXPECT_FALSE(record.has_result());
  EXPECT_TRUE(record.events(record.events_size() - 1).has_table_voided());
}

TEST_F(HostTest, AnUnratedTableIsStoredAndReportedUnrated) {
  const v1::CreateTableResponse unrated = PlayedOut("unrated", 42, true).first;
  const v1::CreateTableResponse rated = PlayedOut("rated", 43).first;
  EXPECT_TRUE(unrated.table().unrated());
  EXPECT_FALSE(rated.table().unrated());
  StartHost("table-b");  // what was stored, not what one instance remembers
  v1::GetTableRequest get;
  get.set_table_id(unrated.table_id());
  const v1::TableView view =
      Wait<v1::TableView>([&](auto reply) { host_->GetTable(get, reply); }).value();
  EXPECT_TRUE(view.unrated());
  EXPECT_TRUE(view.has_result());
  v1::GetGameRecordRequest rr;
  rr.set_game_id(unrated.table_id());
  EXPECT_TRUE(Wait<v1::GameRecord>([&](auto reply) { host_->GetGameRecord(rr, reply); })
                  ->unrated());
  const absl::StatusOr<v1::internal::FinishedGame> row =
      wire::OutboxRowFromJson(Outbox(unrated.table_id()).at(0));
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_TRUE(row->unrated());
  EXPECT_GT(row->seats(0).place(), 0);  // a result all the same
  EXPECT_FALSE(wire::OutboxRowFromJson(Outbox(rated.table_id()).at(0))->unrated());

  v1::ListPlayerGamesRequest games;
  games.set_player_id("player-1");
  const v1::ListPlayerGamesResponse listed =
      Wait<v1::ListPlayerGamesResponse>([&](auto reply) {
        host_->ListPlayerGames(games, reply);
      }).value();
  ASSERT_EQ(listed.games_size(), 2);  // listed like any other
  for (const v1::GameSummary& game : listed.games()) {
    EXPECT_EQ(game.unrated(), game.game_id() == unrated.table_id()) << game.game_id();
    EXPECT_EQ(game.result().totals_size(), 4);
  }
}

TEST_F(HostTest, ASeatsNewStreamReplacesItsOldOne) {
  v1::CreateTableResponse table =
      Create(CreateRequest("re", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 11)).value();
  auto old_stream = Subscribe(table.table_id(), table.seat_tokens(1));
  auto other_seat = Subscribe(table.table_id(), table.seat_tokens(2));
  ASSERT_TRUE(old_stream->WaitUntil(
      [](const RecordingSink& k) { return k.size_locked() > 0; }));
  auto new_stream = Subscribe(table.table_id(), table.seat_tokens(1));
  ASSERT_TRUE(
      old_stream->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_EQ(old_stream->status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(old_stream->status().message(), HasSubstr("replaced by a newer stream"));
  const size_t old_updates = old_stream->updates().size();
  ASSERT_TRUE(Act(ActFor(table, 3, "bye", Leave())).ok());
  Barrier(table.table_id());  // after the step's broadcast
  ASSERT_FALSE(new_stream->events().empty());
  EXPECT_TRUE(new_stream->events().back().has_seat_left());
  EXPECT_FALSE(new_stream->closed());
  EXPECT_FALSE(other_seat->closed());  // another seat's stream is not touched
  EXPECT_EQ(old_stream->updates().size(), old_updates);
}

TEST_F(HostTest, ATableTakesAtMostItsSpectators) {
  HostOptions options = Options("watched");
  options.max_spectators_per_table = 2;
  host_ = std::make_unique<TableHost>(options, store_.get(), &registry_);
  ASSERT_TRUE(host_->Start().ok());
  v1::CreateTableResponse table =
      Create(CreateRequest("w", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 12)).value();
  auto first = Subscribe(table.table_id(), "");
  auto second = Subscribe(table.table_id(), "");
  auto third = Subscribe(table.table_id(), "");
  ASSERT_TRUE(third->WaitUntil([](const RecordingSink& k) { return k.closed_locked(); }));
  EXPECT_EQ(third->status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third->status().message(), HasSubstr("has 2 spectators, the most it takes"));
  EXPECT_FALSE(first->closed());
  // Seats are not spectators: all four still stream.
  for (int s = 0; s < 4; ++s) {
    auto seat = Subscribe(table.table_id(), table.seat_tokens(s));
    ASSERT_TRUE(seat->WaitUntil([](const RecordingSink& k) { return k.size_locked() > 0; }));
    EXPECT_FALSE(seat->closed());
  }
  // A spectator that left makes room.
  first->Close(absl::CancelledError("gone"));
  auto fourth = Subscribe(table.table_id(), "");
  ASSERT_TRUE(fourth->WaitUntil([](const RecordingSink& k) { return k.size_locked() > 0; }));
  Barrier(table.table_id());
  EXPECT_FALSE(fourth->closed());
}

TEST_F(VoidTest, AQuarantinedTableIsVoidedInTheStore) {
  v1::CreateTableResponse table =
      Create(CreateRequest("vq", v1::TEAM_SOLO, v1::FORMAT_COMPLEX, 10)).value();
  host_->BreakTableForTesting(table.table_id(), "the deal went wrong");
  EXPECT_THAT(Act(ActFor(table, 0, "x", Leave())).status().message(),
              HasSubstr("table quarantined"));
  for (int i = 0; i < 100; ++i) {
    {
      absl::MutexLock lock(&db_->mu);
      if (!db_->games[table.table_id()].broken.empty()) break;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  absl::StatusOr<v1::VoidTableResponse> voided = Void(table.table_id(), "quarantined");
  ASSERT_TRUE(voided.ok()) << voided.status();
  EXPECT_FALSE(voided->already_voided());
  ASSERT_EQ(Outbox(table.table_id()).size(), 1u);
  EXPECT_EQ(wire::OutboxRowFromJson(Outbox(table.table_id())[0])->reason(), "quarantined");
  {
    absl::MutexLock lock(&db_->mu);
    EXPECT_TRUE(db_->games[table.table_id()].stored.finished);
  }
  // Again, here or on another instance: the first answer.
  MemoryStore other_store(db_, "table-b");
  TableHost other(Options("table-b"), &other_store, &other_registry_);
  ASSERT_TRUE(other.Start().ok());
  for (TableHost* host : {host_.get(), &other}) {
    absl::StatusOr<v1::VoidTableResponse> again = Void(*host, table.table_id(), "again");
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE(again->already_voided());
    EXPECT_EQ(again->voided().SerializeAsString(), voided->voided().SerializeAsString());
  }
  EXPECT_EQ(Outbox(table.table_id()).size(), 1u);
}

}  // namespace
}  // namespace trix::table
