#include "bots/sdk/seat_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bots/sdk/bot.h"
#include "engine/points.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

absl::Time TimeFromWire(const google::protobuf::Timestamp& t) {
  if (t.seconds() == 0 && t.nanos() == 0) return absl::InfiniteFuture();
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

absl::Status CheckSeat(int seat) {
  if (seat < 0 || seat >= engine::kNumSeats) {
    return absl::InvalidArgumentError(absl::StrCat("seat ", seat, " is out of range"));
  }
  return absl::OkStatus();
}

// Everything that belongs to one deal goes back to its start.
void StartDeal(SeatState& s, int deal, int kingdom, int owner) {
  const int per_kingdom =
      static_cast<int>(engine::ContractsOf(s.rules.variant.format).size());
  if (deal % per_kingdom == 0) s.contracts_played = 0;
  s.phase = engine::Phase::kChoosingContract;
  s.deal = deal;
  s.kingdom = kingdom;
  s.owner = owner;
  s.contract = engine::kNoContract;
  s.hand = 0;
  for (SeatInfo& seat : s.seats) {
    seat.hand_size = engine::kHandSize;
    seat.doubled = seat.twos_shown = seat.taken = 0;
    seat.tricks_won = 0;
    seat.deal_score = 0;
  }
  s.my_doubles = 0;
  s.my_ready = false;
  s.leader = -1;
  s.trick.fill(engine::kNoCard);
  s.played = 0;
  s.layout = 0;
  s.out_order.clear();
}

absl::Status OnDealStarted(const v1::Event& e, SeatState& s) {
  if (absl::Status st = CheckSeat(e.deal_started().owner()); !st.ok()) return st;
  StartDeal(s, e.deal(), e.kingdom(), e.deal_started().owner());
  return absl::OkStatus();
}

absl::Status OnHandShown(const v1::HandShown& e, SeatState& s) {
  absl::StatusOr<engine::CardSet> cards = wire::CardSetFromProto(e.cards());
  if (!cards.ok()) return cards.status();
  if (e.seat() == s.seat) s.hand = *cards;
  return absl::OkStatus();
}

absl::Status OnContractChosen(const v1::ContractChosen& e, SeatState& s) {
  absl::StatusOr<engine::Contract> c = wire::ContractOrNoneFromProto(e.contract());
  if (!c.ok()) return c.status();
  if (*c == engine::kNoContract) return absl::InvalidArgumentError("no contract");
  s.contract = *c;
  s.contracts_played |= 1u << static_cast<int>(*c);
  s.phase = engine::DoublableCards(*c, s.rules.options) ? engine::Phase::kDoubling
                                                        : engine::Phase::kPlaying;
  return absl::OkStatus();
}

absl::Status OnDoublesSelected(const v1::DoublesSelected& e, SeatState& s) {
  absl::StatusOr<engine::CardSet> cards = wire::CardSetFromProto(e.cards());
  if (!cards.ok()) return cards.status();
  if (e.seat() == s.seat) s.my_doubles = *cards;
  return absl::OkStatus();
}

// The cards an event shows beside a seat (revealed doubles, shown 2s).
absl::StatusOr<engine::CardSet> SeatCards(int seat,
                                          const google::protobuf::RepeatedPtrField<std::string>& names) {
  if (absl::Status st = CheckSeat(seat); !st.ok()) return st;
  return wire::CardSetFromProto(names);
}

absl::Status OnDoublesRevealed(const v1::DoublesRevealed& e, SeatState& s) {
  absl::StatusOr<engine::CardSet> cards = SeatCards(e.seat(), e.cards());
  if (!cards.ok()) return cards.status();
  s.seats[e.seat()].doubled |= *cards;
  return absl::OkStatus();
}

absl::Status OnTwosShown(const v1::TwosShown& e, SeatState& s) {
  absl::StatusOr<engine::CardSet> cards = SeatCards(e.seat(), e.cards());
  if (!cards.ok()) return cards.status();
  s.seats[e.seat()].twos_shown = *cards;
  return absl::OkStatus();
}

absl::Status OnPlayStarted(const v1::PlayStarted& e, SeatState& s) {
  if (absl::Status st = CheckSeat(e.seat()); !st.ok()) return st;
  s.phase = engine::Phase::kPlaying;
  // Trix has no tricks: its "leader" stays the owner, as the server's view says.
  s.leader = s.contract == engine::Contract::kTrix ? s.owner : e.seat();
  s.my_doubles = 0;
  s.my_ready = false;
  return absl::OkStatus();
}

absl::Status OnCardPlayed(const v1::CardPlayed& e, SeatState& s) {
  const int seat = e.seat();
  if (absl::Status st = CheckSeat(seat); !st.ok()) return st;
  absl::StatusOr<engine::Card> card = wire::CardFromProto(e.card());
  if (!card.ok()) return card.status();
  const engine::CardSet bit = engine::Bit(*card);
  if (s.played & bit) {
    return absl::InvalidArgumentError(absl::StrCat(e.card(), " was played twice"));
  }
  if (seat == s.seat) s.hand &= ~bit;
  --s.seats[seat].hand_size;
  s.seats[seat].twos_shown &= ~bit;
  s.played |= bit;
  if (s.contract == engine::Contract::kTrix) {
    s.layout |= bit;
  } else {
    if (s.trick_size() == 0) s.leader = seat;
    s.trick[seat] = *card;
  }
  return absl::OkStatus();
}

// The trick's points come from the engine's own scoring (engine/points.h), so the
// running deal score is exact after every trick.
absl::Status OnTrickTaken(const v1::TrickTaken& e, SeatState& s) {
  const int seat = e.seat();
  if (absl::Status st = CheckSeat(seat); !st.ok()) return st;
  if (absl::Status st = CheckSeat(s.leader); !st.ok()) return st;
  absl::StatusOr<engine::CardSet> cards = wire::CardSetFromProto(e.cards());
  if (!cards.ok()) return cards.status();
  std::array<engine::CardSet, engine::kNumSeats> doubled_by{};
  std::array<int32_t, engine::kNumSeats> points{};
  for (int i = 0; i < engine::kNumSeats; ++i) doubled_by[i] = s.seats[i].doubled;
  engine::ScoreTrick(s.contract, *cards, seat, s.leader, doubled_by, points);
  for (int i = 0; i < engine::kNumSeats; ++i) s.seats[i].deal_score += points[i];
  s.seats[seat].taken |= *cards;
  ++s.seats[seat].tricks_won;
  s.trick.fill(engine::kNoCard);
  s.leader = seat;
  return absl::OkStatus();
}

absl::Status OnSeatOut(const v1::SeatOut& e, SeatState& s) {
  if (absl::Status st = CheckSeat(e.seat()); !st.ok()) return st;
  s.out_order.push_back(e.seat());
  s.seats[e.seat()].deal_score = e.points();
  return absl::OkStatus();
}

void ClearTurn(SeatState& s) {
  s.turn.clear();
  s.deadline = absl::InfiniteFuture();
}

absl::Status OnDealEnded(const v1::DealEnded& e, SeatState& s) {
  if (e.scores_size() != engine::kNumSeats) {
    return absl::InvalidArgumentError("deal scores without four seats");
  }
  for (int i = 0; i < engine::kNumSeats; ++i) {
    s.seats[i].deal_score = e.scores(i);
    s.seats[i].total += e.scores(i);
  }
  s.phase = engine::Phase::kDealing;
  ClearTurn(s);
  return absl::OkStatus();
}

void OnGameEnded(const v1::GameEnded& e, SeatState& s) {
  s.phase = engine::Phase::kGameOver;
  s.game_over = true;
  s.result = e.result();
  if (s.result.totals_size() == engine::kNumSeats) {
    for (int i = 0; i < engine::kNumSeats; ++i) s.seats[i].total = s.result.totals(i);
  }
  ClearTurn(s);
}

absl::Status OnTurnStarted(const v1::TurnStarted& e, SeatState& s) {
  for (int seat : e.turn().seats()) {
    if (absl::Status st = CheckSeat(seat); !st.ok()) return st;
  }
  s.turn.assign(e.turn().seats().begin(), e.turn().seats().end());
  s.deadline = TimeFromWire(e.turn().deadline());
  return absl::OkStatus();
}

// One event into `s`; changes nothing when it fails.
absl::Status ApplyEventKind(const v1::Event& e, SeatState& s) {
  switch (e.kind_case()) {
    case v1::Event::kDealStarted:
      return OnDealStarted(e, s);
    case v1::Event::kHandShown:
      return OnHandShown(e.hand_shown(), s);
    case v1::Event::kContractChosen:
      return OnContractChosen(e.contract_chosen(), s);
    case v1::Event::kDoublesSelected:
      return OnDoublesSelected(e.doubles_selected(), s);
    case v1::Event::kReady:
      if (e.ready().seat() == s.seat) s.my_ready = true;
      return absl::OkStatus();
    case v1::Event::kDoublesRevealed:
      return OnDoublesRevealed(e.doubles_revealed(), s);
    case v1::Event::kTwosShown:
      return OnTwosShown(e.twos_shown(), s);
    case v1::Event::kPlayStarted:
      return OnPlayStarted(e.play_started(), s);
    case v1::Event::kCardPlayed:
      return OnCardPlayed(e.card_played(), s);
    case v1::Event::kPassed:
      return CheckSeat(e.passed().seat());
    case v1::Event::kTrickTaken:
      return OnTrickTaken(e.trick_taken(), s);
    case v1::Event::kSeatOut:
      return OnSeatOut(e.seat_out(), s);
    case v1::Event::kDealEnded:
      return OnDealEnded(e.deal_ended(), s);
    case v1::Event::kGameEnded:
      OnGameEnded(e.game_ended(), s);
      return absl::OkStatus();
    case v1::Event::kTurnStarted:
      return OnTurnStarted(e.turn_started(), s);
    case v1::Event::kSeatLeft:
      if (absl::Status st = CheckSeat(e.seat_left().seat()); !st.ok()) return st;
      s.seats[e.seat_left().seat()].left = true;
      return absl::OkStatus();
    default:
      // A newer server's event kind: nothing to track, and nothing to fail on.
      return absl::OkStatus();
  }
}

}  // namespace

int SeatState::trick_size() const {
  int n = 0;
  for (engine::Card c : trick) n += c != engine::kNoCard;
  return n;
}

engine::Card SeatState::led_card() const {
  return leader >= 0 ? trick[leader] : engine::kNoCard;
}

engine::Card SeatState::winning_card() const {
  const engine::Card led = led_card();
  if (led == engine::kNoCard) return engine::kNoCard;
  engine::CardSet on_trick = 0;
  for (engine::Card c : trick) {
    if (c != engine::kNoCard) on_trick |= engine::Bit(c);
  }
  return engine::Highest(on_trick & engine::SuitCards(engine::SuitOf(led)));
}

int SeatState::winning_seat() const {
  const engine::Card best = winning_card();
  for (int s = 0; s < engine::kNumSeats; ++s) {
    if (best != engine::kNoCard && trick[s] == best) return s;
  }
  return -1;
}

engine::CardSet SeatState::doubled() const {
  engine::CardSet all = 0;
  for (const SeatInfo& s : seats) all |= s.doubled;
  return all;
}

std::string DescribeState(const SeatState& s) {
  std::string out =
      absl::StrCat("seat ", s.seat, " deal ", s.deal + 1, "/", s.deals_per_game, " ");
  absl::StrAppend(&out, s.contract == engine::kNoContract
                            ? "(no contract)"
                            : engine::ContractName(s.contract));
  absl::StrAppend(&out, " hand [", engine::CardsText(s.hand), "]");
  if (s.trick_size() > 0) {
    std::vector<std::string> cards;
    for (engine::Card c : s.trick) {
      cards.push_back(c == engine::kNoCard ? "--" : engine::CardName(c));
    }
    absl::StrAppend(&out, " trick [", absl::StrJoin(cards, " "), "] led by ", s.leader);
  }
  if (s.layout) absl::StrAppend(&out, " layout [", engine::CardsText(s.layout), "]");
  if (s.options.pending && s.options.legal) {
    absl::StrAppend(&out, " legal [", engine::CardsText(s.options.legal), "]");
  }
  return out;
}

absl::StatusOr<bool> SeatTracker::Apply(const v1::TableUpdate& update, Bot* bot) {
  if (!update.has_snapshot() && update.events().empty() && !update.has_prompt()) {
    // On a Play stream, an action's result may come alone; the caller reads it.
    if (!update.results().empty()) return false;
    return absl::InvalidArgumentError("an empty TableUpdate");
  }
  if (update.has_snapshot()) {
    if (absl::Status s = ApplySnapshot(update.snapshot()); !s.ok()) return s;
    if (bot != nullptr) bot->Restart(state_);
  }
  for (const v1::Event& event : update.events()) {
    absl::StatusOr<Applied> applied = ApplyEvent(event);
    if (!applied.ok()) return applied.status();
    if (bot != nullptr && *applied == Applied::kEvent) bot->Observe(event, state_);
  }
  if (!update.has_prompt()) return false;
  absl::StatusOr<Applied> applied = ApplyPrompt(update.prompt());
  if (!applied.ok()) return applied.status();
  return *applied == Applied::kPrompt;
}

namespace {

// One seat of a snapshot: who sits there and what the table shows of it.
absl::Status SeatFromView(const v1::SeatView& in, SeatInfo& out) {
  out.player_id = in.player_id();
  out.display_name = in.display_name();
  out.bot = in.bot();
  out.left = in.left();
  out.hand_size = in.hand_size();
  out.tricks_won = in.tricks_won();
  out.deal_score = in.deal_score();
  out.total = in.total();
  out.stake = in.stake();
  for (auto [names, set] : {std::pair{&in.doubled(), &out.doubled},
                            std::pair{&in.twos_shown(), &out.twos_shown},
                            std::pair{&in.taken(), &out.taken}}) {
    absl::StatusOr<engine::CardSet> cards = wire::CardSetFromProto(*names);
    if (!cards.ok()) return cards.status();
    *set = *cards;
  }
  return absl::OkStatus();
}

// The trick on the table in a snapshot (none, or four places, empty where no card
// is played yet); its cards count as played.
absl::Status TrickFromView(const v1::TableView& view, SeatState& s) {
  if (view.trick_size() == 0) return absl::OkStatus();
  if (view.trick_size() != engine::kNumSeats) {
    return absl::InvalidArgumentError("a trick without four places");
  }
  for (int i = 0; i < engine::kNumSeats; ++i) {
    if (view.trick(i).empty()) continue;
    absl::StatusOr<engine::Card> card = wire::CardFromProto(view.trick(i));
    if (!card.ok()) return card.status();
    s.trick[i] = *card;
    s.played |= engine::Bit(*card);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SeatTracker::ApplySnapshot(const v1::TableView& view) {
  // Built aside and swapped in, so that a malformed view changes nothing.
  SeatState s;
  absl::StatusOr<engine::Rules> rules = wire::RulesFromProto(view.mode(), view.rules());
  if (!rules.ok()) return rules.status();
  absl::StatusOr<engine::Phase> phase = wire::PhaseFromProto(view.phase());
  if (!phase.ok()) return phase.status();
  absl::StatusOr<engine::Contract> contract =
      wire::ContractOrNoneFromProto(view.contract());
  if (!contract.ok()) return contract.status();
  absl::StatusOr<uint32_t> played_contracts =
      wire::ContractBitsFromProto(view.contracts_played());
  if (!played_contracts.ok()) return played_contracts.status();
  absl::StatusOr<engine::CardSet> hand = wire::CardSetFromProto(view.hand());
  if (!hand.ok()) return hand.status();
  absl::StatusOr<engine::CardSet> my_doubles = wire::CardSetFromProto(view.my_doubles());
  if (!my_doubles.ok()) return my_doubles.status();
  absl::StatusOr<engine::CardSet> layout = wire::CardSetFromProto(view.layout());
  if (!layout.ok()) return layout.status();
  if (absl::Status st = CheckSeat(view.viewer()); !st.ok()) return st;
  if (view.seats_size() != engine::kNumSeats) {
    return absl::InvalidArgumentError("a snapshot without four seats");
  }

  s.table_id = view.table_id();
  s.rules = *rules;
  s.seat = view.viewer();
  s.seq = view.seq();
  s.phase = *phase;
  s.deal = view.deal();
  s.deals_per_game = view.deals_per_game();
  s.kingdom = view.kingdom();
  s.owner = view.owner();
  s.contract = *contract;
  s.contracts_played = *played_contracts;
  s.hand = *hand;
  s.my_doubles = *my_doubles;
  s.my_ready = view.my_ready();
  s.layout = *layout;
  s.played = *layout;
  for (int i = 0; i < engine::kNumSeats; ++i) {
    if (absl::Status st = SeatFromView(view.seats(i), s.seats[i]); !st.ok()) return st;
    s.played |= s.seats[i].taken;
  }
  s.leader = view.leader();
  if (absl::Status st = TrickFromView(view, s); !st.ok()) return st;
  for (int seat : view.out_order()) {
    if (absl::Status st = CheckSeat(seat); !st.ok()) return st;
    s.out_order.push_back(seat);
  }
  for (int seat : view.turn().seats()) s.turn.push_back(seat);
  s.deadline = TimeFromWire(view.turn().deadline());
  if (view.has_result() && s.phase == engine::Phase::kGameOver) {
    s.game_over = true;
    s.result = view.result();
  }
  state_ = std::move(s);
  started_ = true;
  return absl::OkStatus();
}

absl::StatusOr<SeatTracker::Applied> SeatTracker::ApplyEvent(const v1::Event& event) {
  if (!started_) return absl::FailedPreconditionError("an event before any snapshot");
  if (event.seq() <= state_.seq) return Applied::kDuplicate;
  if (event.seq() != state_.seq + 1) {
    return absl::OutOfRangeError(absl::StrCat("event ", event.seq(), " follows event ",
                                              state_.seq, ": events were missed"));
  }
  // Each kind checks the whole event before it changes anything.
  if (absl::Status st = ApplyEventKind(event, state_); !st.ok()) return st;
  state_.seq = event.seq();
  // A decision the events leave the seat comes as a prompt after them (in the
  // same update).
  state_.options = SeatOptions();
  return Applied::kEvent;
}

absl::StatusOr<SeatTracker::Applied> SeatTracker::ApplyPrompt(const v1::Prompt& prompt) {
  if (!started_) return absl::FailedPreconditionError("a prompt before any snapshot");
  if (prompt.seq() < state_.seq) return Applied::kStalePrompt;
  if (prompt.seq() > state_.seq) {
    return absl::OutOfRangeError(
        absl::StrCat("a prompt at event ", prompt.seq(), " after event ", state_.seq));
  }
  SeatOptions o;
  absl::StatusOr<engine::Phase> phase = wire::PhaseFromProto(prompt.phase());
  if (!phase.ok()) return phase.status();
  absl::StatusOr<uint32_t> contracts =
      wire::ContractBitsFromProto(prompt.available_contracts());
  if (!contracts.ok()) return contracts.status();
  absl::StatusOr<engine::CardSet> doublable = wire::CardSetFromProto(prompt.doublable());
  if (!doublable.ok()) return doublable.status();
  absl::StatusOr<engine::CardSet> mine = wire::CardSetFromProto(prompt.my_doubles());
  if (!mine.ok()) return mine.status();
  absl::StatusOr<engine::CardSet> legal = wire::CardSetFromProto(prompt.legal_cards());
  if (!legal.ok()) return legal.status();
  o.pending = true;
  o.seq = prompt.seq();
  o.phase = *phase;
  o.contracts = *contracts;
  o.doublable = *doublable;
  o.my_doubles = *mine;
  o.legal = *legal;
  o.deadline = TimeFromWire(prompt.deadline());
  o.contribute_seed = prompt.contribute_seed();
  // A prompt with nothing to choose from is one no bot can answer.
  const bool answerable = o.contribute_seed ||
                          (o.phase == engine::Phase::kChoosingContract && o.contracts) ||
                          o.phase == engine::Phase::kDoubling ||
                          (o.phase == engine::Phase::kPlaying && o.legal);
  if (!answerable) return absl::InvalidArgumentError("a prompt without options");
  state_.options = o;
  return Applied::kPrompt;
}

}  // namespace trix::bots
