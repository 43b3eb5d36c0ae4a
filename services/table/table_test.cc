#include "services/table/table.h"

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engine/cards.h"
#include "engine/deal_proof.h"
#include "engine/observation.h"
#include "engine/random.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/wire/outbox_row.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/table/testing/table_client.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

const absl::Time kStart = absl::FromUnixSeconds(1700000000);

v1::Mode Mode(v1::Team team, v1::Format format) {
  v1::Mode mode;
  mode.set_team(team);
  mode.set_format(format);
  return mode;
}

// A table and everything written for it, so a test can restore it.
struct Fixture {
  std::unique_ptr<Table> table;
  std::array<std::string, 4> tokens;
  StoredGame stored;
  std::string outbox;  // the game-ended message for the ratings service

  void Write(const Step& step) {
    for (const LogEntry& e : step.entries) {
      ASSERT_EQ(e.index, static_cast<int64_t>(stored.entries.size()));
      stored.entries.push_back(e);
    }
    stored.deadline = step.deadline;
    if (step.end) {
      ASSERT_FALSE(stored.finished) << "the game ended twice";
      stored.finished = true;
      stored.result = step.end->result;
      outbox = step.end->outbox_payload;
    }
  }
};

Fixture MakeTable(v1::Mode mode, uint64_t seed, int kingdoms = 4, int clock_ms = 1000,
                  std::vector<int> autopilot_seats = {}, bool seat_seeds = false) {
  Fixture f;
  v1::internal::TableSettings settings;
  settings.set_seat_seeds(seat_seeds);
  settings.set_deal_salt(std::string(engine::kDealSaltBytes, 's'));
  for (int seat : autopilot_seats) settings.add_autopilot_seats(seat);
  *settings.mutable_mode() = mode;
  settings.mutable_rules()->set_kingdoms(kingdoms);
  settings.mutable_clocks()->set_contract_ms(clock_ms);
  settings.mutable_clocks()->set_doubling_ms(clock_ms);
  settings.mutable_clocks()->set_card_ms(clock_ms);
  settings.set_seed(seed);
  std::array<SeatRecord, 4> seats;
  for (int s = 0; s < 4; ++s) {
    f.tokens[s] = service::NewSeatToken();
    seats[s] = {"p" + std::to_string(s), "Player", false, s == 0 ? 100 : 0,
                service::TokenHash(f.tokens[s])};
  }
  f.table = Table::Create("t1", settings, seats, kStart).value();
  f.stored.game.game_id = "t1";
  f.stored.game.config = settings.SerializeAsString();
  f.stored.game.seats = seats;
  f.stored.created = kStart;
  f.Write(f.table->Advance(kStart));
  return f;
}

v1::ActRequest Request(const std::string& id, v1::ActRequest act) {
  act.set_request_id(id);
  return act;
}

v1::ActRequest Play(const std::string& card) {
  v1::ActRequest act;
  act.mutable_play_card()->set_card(card);
  return act;
}

v1::ActRequest Seed(const std::string& seed) {
  v1::ActRequest act;
  act.mutable_contribute_seed()->set_seed(seed);
  return act;
}

// The seat's hand in the table's first deal, as the cards' names, sorted.
std::vector<std::string> FirstHand(const Table& table, int seat) {
  std::vector<v1::Event> events = table.EventsAfter(seat, 0).value();
  for (const v1::Event& e : events) {
    if (e.has_hand_shown() && e.deal() == 0) {
      std::vector<std::string> cards(e.hand_shown().cards().begin(),
                                     e.hand_shown().cards().end());
      std::sort(cards.begin(), cards.end());
      return cards;
    }
  }
  return {};
}

std::vector<std::string> Names(engine::CardSet cards) {
  std::vector<std::string> out;
  while (cards) out.push_back(engine::CardName(engine::PopLowest(cards)));
  std::sort(out.begin(), out.end());
  return out;
}

// The seat that has a decision to make (any, while doubling).
int SeatToAct(const Table& table) {
  for (int s = 0; s < 4; ++s) {
    if (table.PromptFor(s)) return s;
  }
  return -1;
}

// Plays the table to its end with random legal actions from the prompts.
void PlayOut(Fixture& f, uint64_t seed, absl::Time& now) {
  engine::Rng rng(seed);
  for (int n = 0; !f.table->over(); ++n) {
    ASSERT_LT(n, 5000);
    const int seat = SeatToAct(*f.table);
    ASSERT_GE(seat, 0);
    now += absl::Milliseconds(3);
    absl::StatusOr<Step> step = f.table->Act(
        seat,
        Request("r" + std::to_string(n), RandomAction(*f.table->PromptFor(seat), rng)),
        now);
    ASSERT_TRUE(step.ok()) << step.status();
    f.Write(*step);
  }
}

void ExpectSameEvents(const Table& a, const Table& b) {
  ASSERT_EQ(a.event_count(), b.event_count());
  for (int viewer = -1; viewer < 4; ++viewer) {
    ASSERT_EQ(a.last_seq(viewer), b.last_seq(viewer));
    const std::vector<v1::Event> x = a.EventsAfter(viewer, 0).value();
    const std::vector<v1::Event> y = b.EventsAfter(viewer, 0).value();
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(x[i].SerializeAsString(), y[i].SerializeAsString()) << i;
    }
  }
}

TEST(TableTest, CreationDealsAndStartsTheOwnersClock) {
  Fixture f = MakeTable(Mode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 11);
  ASSERT_EQ(f.stored.entries.size(), 1u);
  EXPECT_EQ(f.stored.entries[0].seat, -1);
  const Table& t = *f.table;
  EXPECT_EQ(t.game().phase(), engine::Phase::kChoosingContract);
  ASSERT_TRUE(t.deadline().has_value());
  EXPECT_EQ(*t.deadline(), kStart + absl::Seconds(1));
  const int owner = t.game().owner();
  // The owner sees its hand; the others do not yet; spectators never.
  for (int v = -1; v < 4; ++v) {
    v1::TableView view = t.View(v);
    EXPECT_EQ(view.hand_size(), v == owner ? 13 : 0) << v;
  }
  std::vector<v1::Event> owner_events = t.EventsAfter(owner, 0).value();
  ASSERT_EQ(owner_events.size(), 3u);  // DealStarted, HandShown, TurnStarted
  EXPECT_TRUE(owner_events[1].has_hand_shown());
  EXPECT_EQ(owner_events[2].turn_started().turn().seats(0), owner);
  EXPECT_EQ(t.EventsAfter(engine::kSpectator, 0).value().size(), 2u);
  // Sequence numbers have no gaps for any viewer.
  for (size_t i = 0; i < owner_events.size(); ++i)
    EXPECT_EQ(owner_events[i].seq(), i + 1);
  EXPECT_EQ(t.PromptFor(owner)->available_contracts_size(), 2);
  EXPECT_FALSE(t.PromptFor((owner + 1) % 4).has_value());
}

// A table with seat_seeds deals only once every seat a client plays gave its
// seed, and deals from the committed seed mixed with theirs (trix-deals-v2).
TEST(TableTest, SeatSeedsDealOnceEverySeatContributed) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 7, 4, 1000, {3}, true);
  Table& t = *f.table;
  EXPECT_TRUE(f.stored.entries.empty());
  EXPECT_EQ(t.game().deals_started(), 0);
  EXPECT_EQ(f.stored.deadline, kStart + absl::Seconds(1));
  EXPECT_TRUE(t.PromptFor(0)->contribute_seed());
  EXPECT_FALSE(t.PromptFor(3).has_value());  // the autopilot's seat gives none
  EXPECT_EQ(t.View(0).turn().seats_size(), 3);
  EXPECT_EQ(t.DealProof()->procedure(), "trix-deals-v2");

  const absl::Time now = kStart + absl::Milliseconds(10);
  EXPECT_EQ(t.Act(0, Request("x", Seed("short")), now).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.Act(0, Request("x", Play("2C")), now).status().code(),
            absl::StatusCode::kFailedPrecondition);
  const engine::SeatSeeds seeds = {std::string(32, 'a'), std::string(32, 'b'),
                                   std::string(32, 'c'), ""};
  for (int s = 0; s < 3; ++s) {
    absl::StatusOr<Step> step = t.Act(s, Request("seed", Seed(seeds[s])), now);
    ASSERT_TRUE(step.ok()) << step.status();
    f.Write(*step);
    EXPECT_EQ(t.game().deals_started(), s == 2 ? 1 : 0);
    if (s == 0) {
      EXPECT_THAT(std::string(t.Act(0, Request("again", Seed(seeds[1])), now)
                                  .status()
                                  .message()),
                  HasSubstr("already contributed"));
    }
  }
  const engine::Hands dealt =
      engine::ShuffledHands(engine::SeatSeededDealSeed(7, std::string(32, 's'), seeds), 0);
  EXPECT_EQ(FirstHand(t, t.game().owner()), Names(dealt[t.game().owner()]));
  EXPECT_NE(Names(dealt[0]), Names(engine::ShuffledHands(7, 0)[0]));
  EXPECT_EQ(t.Act(1, Request("late", Seed(seeds[1])), now).status().code(),
            absl::StatusCode::kFailedPrecondition);

  std::unique_ptr<Table> restored = Table::Restore(f.stored).value();
  ExpectSameEvents(t, *restored);
  absl::Time later = now;
  PlayOut(f, 5, later);
  const v1::DealProof proof = *t.DealProof();
  ASSERT_EQ(proof.seat_seeds_size(), 4);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(proof.seat_seeds(s), seeds[s]);
  EXPECT_EQ(proof.commitment(),
            engine::DealCommitment(7, proof.salt(), engine::kSeatSeededDealProcedure));
  restored = Table::Restore(f.stored).value();
  ExpectSameEvents(t, *restored);
}

TEST(TableTest, TheSeedingClockRunningOutDealsWithTheSeedsGiven) {
  Fixture f = MakeTable(Mode(v1::TEAM_PARTNER, v1::FORMAT_CLASSIC), 9, 4, 1000, {}, true);
  Table& t = *f.table;
  const std::string seed0(32, 'z');
  f.Write(t.Act(0, Request("seed", Seed(seed0)), kStart).value());
  EXPECT_TRUE(t.Advance(kStart + absl::Milliseconds(999)).empty());
  EXPECT_TRUE(t.PromptFor(1)->contribute_seed());
  Step dealt = t.Advance(kStart + absl::Seconds(1));
  ASSERT_FALSE(dealt.empty());
  f.Write(dealt);
  EXPECT_EQ(t.game().deals_started(), 1);
  const engine::SeatSeeds seeds = {seed0, "", "", ""};
  const engine::Hands hands =
      engine::ShuffledHands(engine::SeatSeededDealSeed(9, std::string(32, 's'), seeds), 0);
  EXPECT_EQ(FirstHand(t, t.game().owner()), Names(hands[t.game().owner()]));
  EXPECT_THAT(std::string(t.Act(1, Request("seed", Seed(seed0)), kStart + absl::Seconds(2))
                              .status()
                              .message()),
              HasSubstr("only before"));
  std::unique_ptr<Table> restored = Table::Restore(f.stored).value();
  ExpectSameEvents(t, *restored);
  EXPECT_EQ(restored->deadline(), t.deadline());
}

TEST(TableTest, ATableWithoutSeatSeedsTakesNoSeed) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 3);
  EXPECT_THAT(std::string(f.table->Act(0, Request("s", Seed(std::string(32, 'a'))), kStart)
                              .status()
                              .message()),
              HasSubstr("created without seat_seeds"));
  EXPECT_EQ(f.table->DealProof()->procedure(), "trix-deals-v1");
  EXPECT_FALSE(f.table->PromptFor(f.table->game().owner())->contribute_seed());
}

TEST(TableTest, TokensMapToSeats) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 1);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(f.table->SeatOf(f.tokens[s]).value(), s);
  EXPECT_EQ(f.table->SeatOf("").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(f.table->SeatOf(service::NewSeatToken()).status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(TableTest, TokensVerifiedBeforeStillMapToTheirOwnSeats) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 1);
  // Seats 1 and 3 verified once (remembered), then every seat, in another order.
  EXPECT_EQ(f.table->SeatOf(f.tokens[3]).value(), 3);
  EXPECT_EQ(f.table->SeatOf(f.tokens[1]).value(), 1);
  for (int s : {3, 0, 1, 2, 1, 3}) EXPECT_EQ(f.table->SeatOf(f.tokens[s]).value(), s);
  // A token one character off a remembered one is nobody's.
  std::string near = f.tokens[3];
  near.back() = near.back() == 'a' ? 'b' : 'a';
  EXPECT_EQ(f.table->SeatOf(near).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(f.table->SeatOf("").status().code(), absl::StatusCode::kUnauthenticated);
}

TEST(TableTest, BadRequestsChangeNothing) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), 5);
  Table& t = *f.table;
  const int owner = t.game().owner();
  const int other = (owner + 1) % 4;
  const size_t events = t.event_count();
  auto expect = [&](int seat, v1::ActRequest request, absl::StatusCode code,
                    const std::string& message) {
    absl::StatusOr<Step> step = t.Act(seat, request, kStart);
    EXPECT_EQ(step.status().code(), code) << step.status();
    EXPECT_THAT(step.status().message(), HasSubstr(message));
    EXPECT_EQ(t.event_count(), events);
    EXPECT_EQ(t.log_length(), 1);
  };
  v1::ActRequest choose;
  choose.mutable_choose_contract()->set_contract(v1::CONTRACT_TRIX);
  expect(owner, choose, absl::StatusCode::kInvalidArgument, "request_id is required");
  expect(owner, Request(std::string(129, 'x'), choose),
         absl::StatusCode::kInvalidArgument, "128");
  expect(owner, Request("a", v1::ActRequest()), absl::StatusCode::kInvalidArgument,
         "names no action");
  expect(owner, Request("a", Play("ZZ")), absl::StatusCode::kInvalidArgument,
         "not a card");
  v1::ActRequest unspecified;
  unspecified.mutable_choose_contract();
  expect(owner, Request("a", unspecified), absl::StatusCode::kInvalidArgument,
         "not a contract");
  expect(other, Request("a", choose), absl::StatusCode::kFailedPrecondition,
         "does not own this kingdom");
  expect(owner, Request("a", Play("2C")), absl::StatusCode::kFailedPrecondition,
         "no card may be played");
  v1::ActRequest complex;
  complex.mutable_choose_contract()->set_contract(v1::CONTRACT_COMPLEX);
  expect(owner, Request("a", complex), absl::StatusCode::kFailedPrecondition,
         "not played in classic");
  EXPECT_FALSE(t.FindAnswer(owner, "a").has_value());
}

TEST(TableTest, AnswersAreKeptPerSeat) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 3);
  Table& t = *f.table;
  const int owner = t.game().owner();
  v1::ActRequest choose;
  choose.mutable_choose_contract()->set_contract(v1::CONTRACT_TRIX);
  absl::StatusOr<Step> step = t.Act(owner, Request("same", choose), kStart);
  ASSERT_TRUE(step.ok()) << step.status();
  ASSERT_TRUE(t.FindAnswer(owner, "same").has_value());
  EXPECT_EQ(t.FindAnswer(owner, "same")->seq(), step->response.seq());
  // The last event the action produced (here: the clock of the first card).
  EXPECT_EQ(step->response.seq(), t.last_seq(owner));
  EXPECT_TRUE(t.EventsAfter(owner, 0).value().back().has_turn_started());
  EXPECT_FALSE(t.FindAnswer((owner + 1) % 4, "same").has_value());
  EXPECT_EQ(step->entries[0].request_id, "same");
}

TEST(TableTest, FullGamesOfEveryModeReplayExactly) {
  const v1::Mode modes[] = {Mode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC),
                            Mode(v1::TEAM_PARTNER, v1::FORMAT_CLASSIC),
                            Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX),
                            Mode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX)};
  uint64_t seed = 100;
  for (const v1::Mode& mode : modes) {
    SCOPED_TRACE(wire::ModeName(mode));
    Fixture f = MakeTable(mode, ++seed);
    absl::Time now = kStart;
    PlayOut(f, seed, now);
    ASSERT_TRUE(f.stored.finished);
    EXPECT_FALSE(f.table->deadline().has_value());
    // Seat 0 alone stakes 100 and gets it back: money is whole units everywhere.
    EXPECT_THAT(f.stored.result, HasSubstr("\"payouts\":[100,0,0,0]"));
    EXPECT_EQ(wire::OutboxRowFromJson(f.outbox)->seats(0).payout(), 100);
    std::unique_ptr<Table> restored = Table::Restore(f.stored).value();
    ExpectSameEvents(*f.table, *restored);
    EXPECT_TRUE(restored->over());
    EXPECT_EQ(restored->View(0).SerializeAsString(),
              f.table->View(0).SerializeAsString());
    // Every viewer's stream ends with GameEnded.
    for (int v = -1; v < 4; ++v) {
      EXPECT_TRUE(f.table->EventsAfter(v, 0).value().back().has_game_ended());
    }
    // After the end, nothing more.
    EXPECT_EQ(f.table->Act(0, Request("late", Play("2C")), now).status().code(),
              absl::StatusCode::kFailedPrecondition);
    EXPECT_TRUE(f.table->Advance(now + absl::Hours(1)).empty());
  }
}

TEST(TableTest, RestoreMidGameResumesClockAndAnswers) {
  Fixture f = MakeTable(Mode(v1::TEAM_PARTNER, v1::FORMAT_CLASSIC), 77);
  engine::Rng rng(9);
  absl::Time now = kStart;
  for (int n = 0; n < 40; ++n) {
    const int seat = SeatToAct(*f.table);
    now += absl::Milliseconds(10);
    Step step = f.table
                    ->Act(seat,
                          Request("r" + std::to_string(n),
                                  RandomAction(*f.table->PromptFor(seat), rng)),
                          now)
                    .value();
    f.Write(step);
  }
  std::unique_ptr<Table> restored = Table::Restore(f.stored).value();
  ExpectSameEvents(*f.table, *restored);
  EXPECT_EQ(restored->deadline(), f.table->deadline());
  EXPECT_EQ(restored->log_length(), f.table->log_length());
  for (int s = 0; s < 4; ++s) {
    for (int n = 0; n < 40; ++n) {
      const std::optional<v1::ActResponse> a = f.table->FindAnswer(s, "r" + std::to_string(n));
      const std::optional<v1::ActResponse> b = restored->FindAnswer(s, "r" + std::to_string(n));
      ASSERT_EQ(a.has_value(), b.has_value());
      if (a) {
        EXPECT_EQ(a->seq(), b->seq());
      }
    }
  }
}

TEST(TableTest, CorruptLogsAreDataLoss) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 4);
  StoredGame bad = f.stored;
  bad.entries[0].payload = "\xff\xff garbage";
  EXPECT_EQ(Table::Restore(bad).status().code(), absl::StatusCode::kDataLoss);
  bad = f.stored;
  bad.entries[0].index = 3;
  EXPECT_EQ(Table::Restore(bad).status().code(), absl::StatusCode::kDataLoss);
  bad = f.stored;
  bad.entries.push_back(bad.entries[0]);  // a second deal while choosing
  bad.entries[1].index = 1;
  EXPECT_EQ(Table::Restore(bad).status().code(), absl::StatusCode::kDataLoss);
  bad = f.stored;
  bad.game.config = "nonsense";
  EXPECT_EQ(Table::Restore(bad).status().code(), absl::StatusCode::kDataLoss);
}

TEST(TableTest, ClockExpiryPlaysForTheSeat) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 21);
  Table& t = *f.table;
  const int owner = t.game().owner();
  EXPECT_TRUE(t.Advance(kStart + absl::Milliseconds(999)).empty());
  Step step = t.Advance(kStart + absl::Seconds(1));
  ASSERT_EQ(step.entries.size(), 1u);
  EXPECT_EQ(step.entries[0].seat, owner);
  EXPECT_TRUE(step.entries[0].request_id.empty());
  EXPECT_NE(t.game().contract(), engine::kNoContract);
  std::vector<v1::Event> events = t.EventsAfter(engine::kSpectator, 0).value();
  bool automatic_choice = false;
  for (const v1::Event& e : events) {
    if (e.has_contract_chosen()) automatic_choice = e.automatic();
  }
  EXPECT_TRUE(automatic_choice);
}

TEST(TableTest, DoublingClockReadiesEverySeatAndKeepsReadinessSecret) {
  // Complex always doubles; find a seed where the owner has a choice to make.
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 8);
  Table& t = *f.table;
  const int owner = t.game().owner();
  v1::ActRequest complex;
  complex.mutable_choose_contract()->set_contract(v1::CONTRACT_COMPLEX);
  absl::Time now = kStart + absl::Milliseconds(100);
  f.Write(t.Act(owner, Request("c", complex), now).value());
  ASSERT_EQ(t.game().phase(), engine::Phase::kDoubling);
  for (int s = 0; s < 4; ++s) ASSERT_TRUE(t.PromptFor(s).has_value());
  const int a = (owner + 1) % 4, b = (owner + 2) % 4;
  const uint64_t seq_b = t.last_seq(b);
  const uint64_t seq_spectator = t.last_seq(engine::kSpectator);
  v1::ActRequest ready;
  ready.mutable_select_doubles()->set_ready(true);
  f.Write(t.Act(a, Request("d", ready), now).value());
  // Seat a's readiness reaches only seat a.
  EXPECT_EQ(t.last_seq(b), seq_b);
  EXPECT_EQ(t.last_seq(engine::kSpectator), seq_spectator);
  EXPECT_EQ(t.Act(a, Request("d2", ready), now).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // The view shows all four seats on the clock, whoever is ready.
  EXPECT_EQ(t.View(b).turn().seats_size(), 4);
  // The clock commits the other three.
  Step step = t.Advance(now + absl::Seconds(1));
  ASSERT_EQ(step.entries.size(), 3u);
  EXPECT_EQ(t.game().phase(), engine::Phase::kPlaying);
  f.Write(step);
  ExpectSameEvents(t, *Table::Restore(f.stored).value());
}

TEST(TableTest, LeavingHandsTheSeatToTheAutopilot) {
  Fixture f = MakeTable(Mode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 31);
  Table& t = *f.table;
  const int owner = t.game().owner();
  v1::ActRequest leave;
  leave.mutable_leave();
  Step step = t.Act(owner, Request("bye", leave), kStart).value();
  // The owner's contract choice (and its doubling) is made at once for it.
  ASSERT_GE(step.entries.size(), 2u);
  EXPECT_EQ(step.entries[1].seat, owner);
  EXPECT_TRUE(step.entries[1].request_id.empty());
  EXPECT_NE(t.game().contract(), engine::kNoContract);
  EXPECT_TRUE(t.left(owner));
  EXPECT_TRUE(t.View(engine::kSpectator).seats(owner).left());
  EXPECT_FALSE(t.PromptFor(owner).has_value());
  EXPECT_THAT(t.Act(owner, Request("back", leave), kStart).status().message(),
              HasSubstr("left the table"));
  std::vector<v1::Event> events = t.EventsAfter(engine::kSpectator, 0).value();
  bool seen = false;
  for (const v1::Event& e : events)
    seen |= e.has_seat_left() && e.seat_left().seat() == owner;
  EXPECT_TRUE(seen);
}

TEST(TableTest, AutopilotSeatsArePlayedFromTheFirstMoveAndAfterRestore) {
  Fixture f = MakeTable(Mode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 33, /*kingdoms=*/1,
                        1000, /*autopilot_seats=*/{1, 3});
  Table& t = *f.table;
  for (int s : {1, 3}) {
    EXPECT_TRUE(t.left(s));
    EXPECT_TRUE(t.View(engine::kSpectator).seats(s).left());
  }
  EXPECT_FALSE(t.left(0));
  absl::Time now = kStart;
  // Half-way, the table is rebuilt from its log: the seats are still autopilot.
  for (int n = 0; n < 20; ++n) {
    const int seat = SeatToAct(t);
    ASSERT_TRUE(seat == 0 || seat == 2) << seat;
    engine::Rng rng(n);
    now += absl::Milliseconds(3);
    f.Write(t.Act(seat, Request("m" + std::to_string(n),
                                RandomAction(*t.PromptFor(seat), rng)), now).value());
  }
  const std::unique_ptr<Table> before = std::move(f.table);
  f.table = Table::Restore(f.stored).value();
  ExpectSameEvents(*before, *f.table);
  EXPECT_TRUE(f.table->left(1) && f.table->left(3));
  EXPECT_FALSE(f.table->PromptFor(1).has_value());
  PlayOut(f, 34, now);
  EXPECT_TRUE(f.stored.finished);
  for (const LogEntry& e : f.stored.entries) {
    if (e.seat == 1 || e.seat == 3) {
      EXPECT_TRUE(e.request_id.empty());
    }
  }
  // Held here: a range-for over value() of the temporary would outlive it.
  const std::vector<v1::Event> events = f.table->EventsAfter(engine::kSpectator, 0).value();
  for (const v1::Event& e : events) {
    EXPECT_FALSE(e.has_seat_left()) << "an autopilot seat never left";
  }
}

TEST(TableTest, AutopilotSeatsAreCheckedOnCreateAndRestore) {
  v1::internal::TableSettings settings;
  *settings.mutable_mode() = Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX);
  settings.mutable_clocks()->set_contract_ms(1000);
  settings.mutable_clocks()->set_doubling_ms(1000);
  settings.mutable_clocks()->set_card_ms(1000);
  for (int s = 0; s < 4; ++s) settings.add_autopilot_seats(s);
  std::array<SeatRecord, 4> seats;
  EXPECT_THAT(Table::Create("t", settings, seats, kStart).status().message(),
              HasSubstr("every seat is autopilot"));
  settings.clear_autopilot_seats();
  settings.add_autopilot_seats(4);
  EXPECT_EQ(Table::Create("t", settings, seats, kStart).status().code(),
            absl::StatusCode::kInvalidArgument);
  StoredGame stored;
  stored.game.game_id = "t";
  stored.game.config = settings.SerializeAsString();
  EXPECT_EQ(Table::Restore(stored).status().code(), absl::StatusCode::kDataLoss);
}

TEST(TableTest, EveryoneLeavingFinishesTheGame) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), 41);
  Table& t = *f.table;
  v1::ActRequest leave;
  leave.mutable_leave();
  for (int s = 0; s < 4; ++s) f.Write(t.Act(s, Request("bye", leave), kStart).value());
  EXPECT_TRUE(t.over());
  EXPECT_TRUE(f.stored.finished);
  ExpectSameEvents(t, *Table::Restore(f.stored).value());
}

TEST(TableTest, ResumeGivesExactlyTheMissedEvents) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 51);
  absl::Time now = kStart;
  PlayOut(f, 51, now);
  for (int v = -1; v < 4; ++v) {
    std::vector<v1::Event> all = f.table->EventsAfter(v, 0).value();
    std::vector<v1::Event> tail = f.table->EventsAfter(v, 10).value();
    ASSERT_EQ(tail.size(), all.size() - 10);
    EXPECT_EQ(tail.front().SerializeAsString(), all[10].SerializeAsString());
    EXPECT_TRUE(f.table->EventsAfter(v, all.size()).value().empty());
    EXPECT_EQ(f.table->EventsAfter(v, all.size() + 1).status().code(),
              absl::StatusCode::kOutOfRange);
  }
}

// The events are kept once for all viewers: a whole game's list costs a few words
// per event however many viewers there are, and every viewer's seq numbers and
// every resume point still come out of it exactly.
TEST(TableTest, EventsAreKeptOnceForEveryViewer) {
  Fixture f = MakeTable(Mode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 52);
  absl::Time now = kStart;
  PlayOut(f, 52, now);
  ASSERT_GT(f.table->event_count(), 1000u);
  // 16 bytes an event, and the service events (a third of them, 16 bytes each) and
  // seq marks beside them; a list per viewer would add 4 bytes per event for each
  // viewer that sees it (all five for most events).
  EXPECT_LE(f.table->event_list_bytes(), f.table->event_count() * 28);
  for (int v = -1; v < 4; ++v) {
    const std::vector<v1::Event> all = f.table->EventsAfter(v, 0).value();
    ASSERT_EQ(all.size(), f.table->last_seq(v));
    for (size_t k = 0; k < all.size(); ++k) ASSERT_EQ(all[k].seq(), k + 1);
    for (size_t after = 0; after <= all.size(); after += 7) {
      const std::vector<v1::Event> tail = f.table->EventsAfter(v, after).value();
      ASSERT_EQ(tail.size(), all.size() - after);
      if (!tail.empty()) {
        ASSERT_EQ(tail.front().SerializeAsString(), all[after].SerializeAsString());
      }
    }
  }
}

// Each step reaches a viewer as at most one update, with the step's events it may
// see numbered on from the last step's, and a seat's prompt only beside them.
TEST(TableTest, StepUpdatesCarryAStepInOneUpdate) {
  Fixture f = MakeTable(Mode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), 53, /*kingdoms=*/1);
  Table& t = *f.table;
  std::array<std::vector<v1::Event>, kViewers> streamed;
  std::array<int, kViewers> updates{};
  auto take = [&](size_t from) {
    for (int v = -1; v < 4; ++v) {
      std::vector<v1::Event>& mine = streamed[v + 1];
      const std::vector<v1::TableUpdate> step = t.StepUpdates(from, v);
      ASSERT_LE(step.size(), 1u);
      updates[v + 1] += static_cast<int>(step.size());
      if (step.empty()) continue;
      ASSERT_GT(step[0].events_size(), 0);
      EXPECT_FALSE(step[0].has_snapshot());
      for (const v1::Event& e : step[0].events()) {
        ASSERT_EQ(e.seq(), mine.size() + 1);
        mine.push_back(e);
      }
      EXPECT_EQ(step[0].has_prompt(), t.PromptFor(v).has_value());
      if (step[0].has_prompt()) {
        EXPECT_EQ(step[0].prompt().seq(), mine.size());
      }
    }
  };
  take(0);  // the first deal
  engine::Rng rng(53);
  absl::Time now = kStart;
  int steps = 1;
  for (int n = 0; !t.over(); ++n, ++steps) {
    ASSERT_LT(n, 5000);
    const int seat = SeatToAct(t);
    ASSERT_GE(seat, 0);
    const size_t from = t.event_count();
    now += absl::Milliseconds(3);
    ASSERT_TRUE(
        t.Act(seat,
              Request("r" + std::to_string(n), RandomAction(*t.PromptFor(seat), rng)),
              now)
            .ok());
    take(from);
  }
  for (int v = -1; v < 4; ++v) {
    const std::vector<v1::Event> all = t.EventsAfter(v, 0).value();
    ASSERT_EQ(streamed[v + 1].size(), all.size());
    EXPECT_EQ(streamed[v + 1].back().SerializeAsString(), all.back().SerializeAsString());
    EXPECT_LE(updates[v + 1], steps);
  }
  // Doubling selections are secret: some steps reached only the seat that made them.
  EXPECT_LT(updates[1], steps);
}

TEST(TableTest, StreamStartChunksTheMissedEvents) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), 54);
  Table& t = *f.table;
  const int owner = SeatToAct(t);
  ASSERT_GE(owner, 0);
  // At the start: the snapshot, with the prompt of a seat that must act.
  std::vector<v1::TableUpdate> start = t.StreamStart(owner, 0).value();
  ASSERT_EQ(start.size(), 1u);
  EXPECT_TRUE(start[0].has_snapshot());
  EXPECT_TRUE(start[0].has_prompt());
  EXPECT_FALSE(t.StreamStart(engine::kSpectator, 0).value()[0].has_prompt());
  // Resuming with nothing missed: the prompt alone for the seat that must act (it
  // could not answer otherwise), nothing for the others.
  start = t.StreamStart(owner, t.last_seq(owner)).value();
  ASSERT_EQ(start.size(), 1u);
  EXPECT_EQ(start[0].events_size(), 0);
  EXPECT_TRUE(start[0].has_prompt());
  const int other = (owner + 1) % 4;
  EXPECT_TRUE(t.StreamStart(other, t.last_seq(other)).value().empty());

  absl::Time now = kStart;
  PlayOut(f, 54, now);
  for (int v = -1; v < 4; ++v) {
    const std::vector<v1::Event> missed = t.EventsAfter(v, 1).value();
    ASSERT_GT(missed.size(), 2 * kMaxEventsPerUpdate);
    const std::vector<v1::TableUpdate> chunks = t.StreamStart(v, 1).value();
    ASSERT_EQ(chunks.size(),
              (missed.size() + kMaxEventsPerUpdate - 1) / kMaxEventsPerUpdate);
    size_t k = 0;
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (c + 1 < chunks.size()) {
        EXPECT_EQ(chunks[c].events_size(), static_cast<int>(kMaxEventsPerUpdate));
      }
      EXPECT_FALSE(chunks[c].has_prompt());  // the game is over
      for (const v1::Event& e : chunks[c].events()) {
        ASSERT_EQ(e.SerializeAsString(), missed[k++].SerializeAsString());
      }
    }
    EXPECT_EQ(k, missed.size());
    EXPECT_EQ(t.StreamStart(v, t.last_seq(v) + 1).status().code(),
              absl::StatusCode::kOutOfRange);
  }
}

TEST(TableTest, StreamsNeverShowAnotherSeatsHand) {
  Fixture f = MakeTable(Mode(v1::TEAM_PARTNER, v1::FORMAT_CLASSIC), 61);
  absl::Time now = kStart;
  PlayOut(f, 61, now);
  for (int v = -1; v < 4; ++v) {
    const std::vector<v1::Event> events = f.table->EventsAfter(v, 0).value();
    for (const v1::Event& e : events) {
      if (e.has_hand_shown()) {
        EXPECT_EQ(e.hand_shown().seat(), v);
      }
      if (e.has_doubles_selected()) {
        EXPECT_EQ(e.doubles_selected().seat(), v);
      }
      if (e.has_ready()) {
        EXPECT_EQ(e.ready().seat(), v);
      }
    }
  }
}

// Every viewer's events as its stream received them, one step at a time: what a
// table that held every event of its game gives each viewer.
struct Streams {
  std::array<std::vector<v1::Event>, kViewers> events;
  // The table's event count and each viewer's streamed events before each step.
  std::vector<std::pair<size_t, std::array<size_t, kViewers>>> steps;

  void Take(const Table& t, size_t from) {
    std::array<size_t, kViewers> before;
    for (int v = -1; v < 4; ++v) {
      std::vector<v1::Event>& mine = events[v + 1];
      before[v + 1] = mine.size();
      for (const v1::TableUpdate& u : t.StepUpdates(from, v)) {
        for (const v1::Event& e : u.events()) mine.push_back(e);
      }
    }
    steps.push_back({from, before});
  }
};

// Plays `f`'s table to its end with random actions, a step at a time, streaming each
// step; `leaver` (when >= 0) leaves a third of the way through.
void PlayStreamed(Fixture& f, uint64_t seed, Streams& streams, int leaver = -1) {
  Table& t = *f.table;
  engine::Rng rng(seed);
  absl::Time now = kStart;
  for (int n = 0; !t.over(); ++n) {
    ASSERT_LT(n, 5000);
    const size_t from = t.event_count();
    now += absl::Milliseconds(1 + rng.Below(5000));
    absl::StatusOr<Step> step;
    if (n == 150 && leaver >= 0) {
      v1::ActRequest leave;
      leave.mutable_leave();
      step = t.Act(leaver, Request("bye", leave), now);
    } else if (t.deadline() && rng.Below(40) == 0) {
      step = t.Advance(*t.deadline());  // a clock runs out: the autopilot acts
      now = *t.deadline() > now ? *t.deadline() : now;
    } else {
      const int seat = SeatToAct(t);
      ASSERT_GE(seat, 0);
      step = t.Act(seat, Request("r" + std::to_string(n), RandomAction(*t.PromptFor(seat), rng)),
                   now);
    }
    ASSERT_TRUE(step.ok()) << step.status();
    f.Write(*step);
    streams.Take(t, from);
  }
}

// What the table gives a viewer resuming anywhere, the seqs of earlier deals
// included (rebuilt from the table's entries), is exactly the rest of what its
// stream received.
void ExpectResumesAsStreamed(const Table& t, const Streams& streams) {
  for (int v = -1; v < 4; ++v) {
    const std::vector<v1::Event>& all = streams.events[v + 1];
    ASSERT_EQ(all.size(), t.last_seq(v));
    for (size_t after = 0; after <= all.size(); after += 1 + after / 4) {
      const std::vector<v1::Event> tail = t.EventsAfter(v, after).value();
      ASSERT_EQ(tail.size(), all.size() - after) << "viewer " << v << " after " << after;
      for (size_t k = 0; k < tail.size(); ++k) {
        ASSERT_EQ(tail[k].SerializeAsString(), all[after + k].SerializeAsString())
            << "viewer " << v << " after " << after << " event " << k;
      }
      if (after == 0) continue;
      size_t k = after;
      const std::vector<v1::TableUpdate> updates = t.StreamStart(v, after).value();
      for (const v1::TableUpdate& u : updates) {
        for (const v1::Event& e : u.events()) {
          ASSERT_LT(k, all.size());
          ASSERT_EQ(e.SerializeAsString(), all[k++].SerializeAsString());
        }
      }
      ASSERT_EQ(k, all.size());
    }
  }
}

// The table holds the current deal's events only; a viewer that resumes from a seq
// of an earlier deal, or a step streamed late, gets what a table that held every
// event gives: the same events, content and seq.
TEST(TableTest, EventsOfEarlierDealsAreRebuiltExactly) {
  const std::array<v1::Mode, 4> modes = {
      Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), Mode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX),
      Mode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), Mode(v1::TEAM_PARTNER, v1::FORMAT_CLASSIC)};
  for (size_t m = 0; m < modes.size(); ++m) {
    SCOPED_TRACE(m);
    Fixture f = MakeTable(modes[m], 60 + m, /*kingdoms=*/2);
    Streams streams;
    streams.Take(*f.table, 0);
    PlayStreamed(f, 60 + m, streams, /*leaver=*/static_cast<int>(m));
    const Table& t = *f.table;
    ASSERT_LT(t.game().events_forgotten(), t.game().event_count());
    ASSERT_GT(t.game().events_forgotten(), 0u);  // it forgot the earlier deals
    ExpectResumesAsStreamed(t, streams);
    // Each step again, as a stream that fell behind would ask for it late.
    for (size_t s = 0; s < streams.steps.size(); s += 5) {
      const auto& [from, before] = streams.steps[s];
      for (int v = -1; v < 4; ++v) {
        size_t k = before[v + 1];
        for (const v1::TableUpdate& u : t.StepUpdates(from, v)) {
          for (const v1::Event& e : u.events()) {
            ASSERT_EQ(e.SerializeAsString(), streams.events[v + 1][k++].SerializeAsString());
          }
        }
        ASSERT_EQ(k, streams.events[v + 1].size());
      }
    }
    // One event by its index, from an earlier deal and from the current one.
    for (size_t i : {size_t{3}, t.event_count() - 1}) {
      for (int v = -1; v < 4; ++v) {
        const std::optional<v1::Event> e = t.EventFor(i, v);
        if (e) {
          ASSERT_EQ(e->SerializeAsString(),
                    streams.events[v + 1][e->seq() - 1].SerializeAsString());
        }
      }
    }
    // The whole game, the engine's events of every deal, is there to replay.
    EXPECT_EQ(t.WholeGame().event_count(), t.game().event_count());
    EXPECT_EQ(t.WholeGame().events_forgotten(), 0u);
    // A table restored from the stored log resumes the same.
    ExpectResumesAsStreamed(*Table::Restore(f.stored).value(), streams);
  }
}

// The entries that carry no engine action (seeds, a leave, a void) are rebuilt too,
// mid-game: resuming from the first seq gives the whole stream.
TEST(TableTest, SeedsLeavesAndVoidsAreRebuiltExactly) {
  Fixture f = MakeTable(Mode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 70, /*kingdoms=*/2,
                        /*clock_ms=*/1000, /*autopilot_seats=*/{2}, /*seat_seeds=*/true);
  Table& t = *f.table;
  Streams streams;
  streams.Take(t, 0);
  for (int s : {0, 1, 3}) {
    const size_t from = t.event_count();
    f.Write(t.Act(s, Request("seed", Seed(std::string(engine::kSeatSeedBytes, 'a' + s))),
                  kStart + absl::Milliseconds(s))
                .value());
    streams.Take(t, from);
  }
  ASSERT_GT(t.game().deals_started(), 0);
  engine::Rng rng(70);
  absl::Time now = kStart + absl::Seconds(1);
  for (int n = 0; n < 90 && !t.over(); ++n) {
    const size_t from = t.event_count();
    now += absl::Milliseconds(7);
    const int seat = SeatToAct(t);
    ASSERT_GE(seat, 0);
    Step step;
    if (n == 40) {
      v1::ActRequest leave;
      leave.mutable_leave();
      step = t.Act(seat, Request("bye", leave), now).value();
    } else {
      step = t.Act(seat, Request("r" + std::to_string(n), RandomAction(*t.PromptFor(seat), rng)),
                   now)
                 .value();
    }
    f.Write(step);
    streams.Take(t, from);
  }
  ASSERT_FALSE(t.over());
  const size_t from = t.event_count();
  f.Write(t.Void("the room closed", now + absl::Seconds(1)).value());
  streams.Take(t, from);
  ASSERT_GT(t.game().events_forgotten(), 0u);
  ExpectResumesAsStreamed(t, streams);
  ExpectResumesAsStreamed(*Table::Restore(f.stored).value(), streams);
}

}  // namespace
}  // namespace trix::table
