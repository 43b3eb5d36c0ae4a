#include "bots/arena/arena_game.h"

#include <chrono>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bots/sdk/bot.h"
#include "bots/sdk/seat_state.h"
#include "bots/strategies/level.h"
#include "proto/wire/wire.h"
#include "services/table/table.h"

namespace trix::arena {
namespace {

using engine::kNumSeats;

// Long enough that no clock ever runs out: the arena's time moves a millisecond
// per action, and the autopilot must never play for a strategy.
constexpr int64_t kClockMs = 24 * 3600 * 1000;

absl::StatusOr<std::unique_ptr<table::Table>> NewTable(const ArenaGameSetup& setup,
                                                      absl::Time now) {
  absl::StatusOr<v1::Mode> mode = wire::ModeFromName(setup.mode);
  if (!mode.ok()) return mode.status();
  v1::internal::TableSettings settings;
  *settings.mutable_mode() = *mode;
  settings.mutable_rules()->set_kingdoms(4);
  settings.mutable_rules()->set_doubling(true);
  settings.mutable_clocks()->set_contract_ms(kClockMs);
  settings.mutable_clocks()->set_doubling_ms(kClockMs);
  settings.mutable_clocks()->set_card_ms(kClockMs);
  settings.set_seed(setup.table_seed);
  std::array<table::SeatRecord, kNumSeats> seats;
  for (int s = 0; s < kNumSeats; ++s) {
    seats[s].player_id = absl::StrCat("arena-", s);
    seats[s].display_name = setup.strategies[s];
    seats[s].bot = true;
    seats[s].token_hash = absl::StrCat("arena-token-", s);
  }
  return table::Table::Create("arena", std::move(settings), std::move(seats), now);
}

Decision DecisionOf(engine::Phase phase) {
  switch (phase) {
    case engine::Phase::kChoosingContract:
      return Decision::kContract;
    case engine::Phase::kDoubling:
      return Decision::kDoubling;
    default:
      return Decision::kPlay;
  }
}

// The four seats' streams, each resumed after the last event it took in, as a
// bot's stream is after every step of the table.
class Streams {
 public:
  explicit Streams(const table::Table& table) : table_(table) {}

  absl::StatusOr<std::vector<v1::TableUpdate>> Updates(int seat) {
    uint64_t after_seq = 0;
    if (subscribed_[seat]) {
      if (table_.last_seq(seat) == seen_[seat]) return std::vector<v1::TableUpdate>();
      after_seq = seen_[seat];
    }
    subscribed_[seat] = true;
    seen_[seat] = table_.last_seq(seat);
    return table_.StreamStart(seat, after_seq);
  }

 private:
  const table::Table& table_;
  std::array<uint64_t, kNumSeats> seen_{};
  std::array<bool, kNumSeats> subscribed_{};
};

// An arena game in play: the table, its four bots, what each seat's stream
// brought, and each decision's time.
class ArenaPlay {
 public:
  ArenaPlay(const ArenaGameSetup& setup, table::Table& table,
            std::array<std::unique_ptr<bots::Bot>, kNumSeats> bots, absl::Time now)
      : setup_(setup), table_(table), bots_(std::move(bots)), streams_(table), now_(now) {}

  // Takes in what the seat's stream brought and acts on every decision it asks
  // for; whether the seat acted.
  absl::StatusOr<bool> TakeTurn(int seat) {
    absl::StatusOr<std::vector<v1::TableUpdate>> updates = streams_.Updates(seat);
    if (!updates.ok()) return updates.status();
    bool acted = false;
    for (const v1::TableUpdate& update : *updates) {
      absl::StatusOr<bool> must_act = trackers_[seat].Apply(update, bots_[seat].get());
      if (!must_act.ok()) return must_act.status();
      if (!*must_act) continue;
      if (absl::Status s = Act(seat, trackers_[seat].state()); !s.ok()) return s;
      acted = true;
    }
    return acted;
  }

  GameRecord TakeRecord() { return std::move(record_); }

 private:
  absl::Status Act(int seat, const bots::SeatState& state) {
    const auto start = std::chrono::steady_clock::now();
    const bots::Decision decision = bots_[seat]->Decide(state);
    const auto took = std::chrono::steady_clock::now() - start;
    record_.decision_ns[seat][static_cast<int>(DecisionOf(state.options.phase))].push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
    if (!bots::IsAllowed(decision, state.options)) {
      return absl::InternalError(absl::StrCat(setup_.strategies[seat], " at seat ", seat,
                                              " chose ", bots::DescribeDecision(decision),
                                              ", not an option: ", bots::DescribeState(state)));
    }
    v1::ActRequest request;
    request.set_request_id(absl::StrCat("a", ++requests_));
    bots::FillAction(decision, &request);
    now_ += absl::Milliseconds(1);
    absl::StatusOr<table::Step> step = table_.Act(seat, request, now_);
    if (!step.ok()) {
      return absl::InternalError(absl::StrCat(setup_.strategies[seat], " at seat ", seat, ": ",
                                              bots::DescribeDecision(decision),
                                              " refused: ", step.status().ToString()));
    }
    return absl::OkStatus();
  }

  const ArenaGameSetup& setup_;
  table::Table& table_;
  std::array<std::unique_ptr<bots::Bot>, kNumSeats> bots_;
  Streams streams_;
  std::array<bots::SeatTracker, kNumSeats> trackers_;
  absl::Time now_;
  int64_t requests_ = 0;
  GameRecord record_;
};

}  // namespace

const char* DecisionName(Decision decision) {
  switch (decision) {
    case Decision::kContract:
      return "contract";
    case Decision::kDoubling:
      return "doubling";
    case Decision::kPlay:
      return "play";
  }
  return "?";
}

absl::StatusOr<GameRecord> PlayArenaGame(const ArenaGameSetup& setup) {
  absl::Time now = absl::FromUnixSeconds(1700000000);
  absl::StatusOr<std::unique_ptr<table::Table>> made = NewTable(setup, now);
  if (!made.ok()) return made.status();
  table::Table& table = **made;
  std::array<std::unique_ptr<bots::Bot>, kNumSeats> bots;
  for (int s = 0; s < kNumSeats; ++s) {
    absl::StatusOr<std::unique_ptr<bots::Bot>> bot =
        bots::MakeBotNamed(setup.strategies[s], setup.bot_seeds[s], setup.search);
    if (!bot.ok()) return bot.status();
    bots[s] = *std::move(bot);
  }
  table.Advance(now);
  ArenaPlay play(setup, table, std::move(bots), now);
  // Bounded: a classic game has about 1,200 decisions.
  for (int round = 0; round < 100000 && !table.over(); ++round) {
    bool acted = false;
    for (int seat = 0; seat < kNumSeats; ++seat) {
      absl::StatusOr<bool> took_turn = play.TakeTurn(seat);
      if (!took_turn.ok()) return took_turn.status();
      acted = acted || *took_turn;
    }
    // Only a doubling phase with every seat ready waits on no one, and the table
    // ends it at once; anything else is a bug.
    if (!acted && !table.over()) return absl::InternalError("no seat could act");
  }
  if (!table.over()) return absl::DeadlineExceededError("the game did not end");
  const engine::Game whole = table.WholeGame();
  absl::StatusOr<std::vector<DealRecord>> deals = BookDeals(whole.rules(), whole.events());
  if (!deals.ok()) return deals.status();
  GameRecord record = play.TakeRecord();
  record.deals = *std::move(deals);
  record.totals = table.game().totals();
  return record;
}

namespace {

// Plays `cards` on a fresh deal; the scores at its end.
absl::StatusOr<engine::Scores> Replayed(const engine::Rules& rules, const DealRecord& deal,
                                        const engine::Hands& doubled_by,
                                        const std::vector<engine::Card>& cards) {
  engine::Deal replay(rules, deal.contract, deal.owner, deal.dealt, doubled_by);
  for (engine::Card card : cards) {
    if (absl::Status played = replay.TryPlay(card); !played.ok()) return played;
  }
  if (!replay.over()) return absl::InternalError("a replayed deal did not end");
  return replay.scores();
}

}  // namespace

absl::StatusOr<std::vector<DealRecord>> BookDeals(const engine::Rules& rules,
                                                  const std::vector<engine::Event>& events) {
  std::vector<DealRecord> deals;
  DealRecord deal;
  engine::Hands doubled_by{};
  std::vector<engine::Card> cards;
  for (const engine::Event& e : events) {
    switch (e.type) {
      case engine::EventType::kDealStarted:
        deal = DealRecord{};
        deal.owner = e.seat;
        doubled_by = {};
        cards.clear();
        break;
      case engine::EventType::kHandShown:
        deal.dealt[e.seat] = e.cards;
        break;
      case engine::EventType::kContractChosen:
        deal.contract = e.contract;
        break;
      case engine::EventType::kDoublesRevealed:
        doubled_by[e.seat] |= e.cards;
        break;
      case engine::EventType::kCardPlayed:
        cards.push_back(e.card);
        break;
      case engine::EventType::kDealEnded: {
        deal.scores = e.values;
        absl::StatusOr<engine::Scores> with = Replayed(rules, deal, doubled_by, cards);
        absl::StatusOr<engine::Scores> without = Replayed(rules, deal, {}, cards);
        if (!with.ok()) return with.status();
        if (!without.ok()) return without.status();
        if (*with != deal.scores) {
          return absl::InternalError("a deal replayed from its events scores otherwise");
        }
        for (int s = 0; s < kNumSeats; ++s) deal.doubling[s] = deal.scores[s] - (*without)[s];
        deals.push_back(deal);
        break;
      }
      default:
        break;
    }
  }
  return deals;
}

}  // namespace trix::arena
