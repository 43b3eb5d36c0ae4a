#include "bots/sdk/seat_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bots/sdk/bot.h"
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
    const v1::SeatView& in = view.seats(i);
    SeatInfo& out = s.seats[i];
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
    s.played |= out.taken;
  }
  s.leader = view.leader();
  if (view.trick_size() != 0) {
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
  }
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
  SeatState s = state_;
  if (absl::Status st = ApplyEventKind(event, s); !st.ok()) return st;
  s.seq = event.seq();
  // A decision the events leave the seat comes as a prompt after them (in the
  // same update).
  s.options = SeatOptions();
  state_ = std::move(s);
  return Applied::kEvent;
}

absl::Status SeatTracker::ApplyEventKind(const v1::Event& e, SeatState& s) const {
  const auto seat_of = [](int seat) { return CheckSeat(seat); };
  switch (e.kind_case()) {
    case v1::Event::kDealStarted:
      if (absl::Status st = seat_of(e.deal_started().owner()); !st.ok()) return st;
      StartDeal(s, e.deal(), e.kingdom(), e.deal_started().owner());
      return absl::OkStatus();
    case v1::Event::kHandShown: {
      absl::StatusOr<engine::CardSet> cards =
          wire::CardSetFromProto(e.hand_shown().cards());
      if (!cards.ok()) return cards.status();
      if (e.hand_shown().seat() == s.seat) s.hand = *cards;
      return absl::OkStatus();
    }
    case v1::Event::kContractChosen: {
      absl::StatusOr<engine::Contract> c =
          wire::ContractOrNoneFromProto(e.contract_chosen().contract());
      if (!c.ok()) return c.status();
      if (*c == engine::kNoContract) return absl::InvalidArgumentError("no contract");
      s.contract = *c;
      s.contracts_played |= 1u << static_cast<int>(*c);
      s.phase = engine::DoublableCards(*c, s.rules.options) ? engine::Phase::kDoubling
                                                            : engine::Phase::kPlaying;
      return absl::OkStatus();
    }
    case v1::Event::kDoublesSelected: {
      absl::StatusOr<engine::CardSet> cards =
          wire::CardSetFromProto(e.doubles_selected().cards());
      if (!cards.ok()) return cards.status();
      if (e.doubles_selected().seat() == s.seat) s.my_doubles = *cards;
      return absl::OkStatus();
    }
    case v1::Event::kReady:
      if (e.ready().seat() == s.seat) s.my_ready = true;
      return absl::OkStatus();
    case v1::Event::kDoublesRevealed: {
      const int seat = e.doubles_revealed().seat();
      if (absl::Status st = seat_of(seat); !st.ok()) return st;
      absl::StatusOr<engine::CardSet> cards =
          wire::CardSetFromProto(e.doubles_revealed().cards());
      if (!cards.ok()) return cards.status();
      s.seats[seat].doubled |= *cards;
      return absl::OkStatus();
    }
    case v1::Event::kTwosShown: {
      const int seat = e.twos_shown().seat();
      if (absl::Status st = seat_of(seat); !st.ok()) return st;
      absl::StatusOr<engine::CardSet> cards =
          wire::CardSetFromProto(e.twos_shown().cards());
      if (!cards.ok()) return cards.status();
      s.seats[seat].twos_shown = *cards;
      return absl::OkStatus();
    }
    case v1::Event::kPlayStarted:
      if (absl::Status st = seat_of(e.play_started().seat()); !st.ok()) return st;
      s.phase = engine::Phase::kPlaying;
      // Trix has no tricks: its "leader" stays the owner, as the server's view says.
      s.leader =
          s.contract == engine::Contract::kTrix ? s.owner : e.play_started().seat();
      s.my_doubles = 0;
      s.my_ready = false;
      return absl::OkStatus();
    case v1::Event::kCardPlayed: {
      const int seat = e.card_played().seat();
      if (absl::Status st = seat_of(seat); !st.ok()) return st;
      absl::StatusOr<engine::Card> card = wire::CardFromProto(e.card_played().card());
      if (!card.ok()) return card.status();
      const engine::CardSet bit = engine::Bit(*card);
      if (s.played & bit) {
        return absl::InvalidArgumentError(
            absl::StrCat(e.card_played().card(), " was played twice"));
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
    case v1::Event::kPassed:
      return seat_of(e.passed().seat());
    case v1::Event::kTrickTaken: {
      const int seat = e.trick_taken().seat();
      if (absl::Status st = seat_of(seat); !st.ok()) return st;
      absl::StatusOr<engine::CardSet> cards =
          wire::CardSetFromProto(e.trick_taken().cards());
      if (!cards.ok()) return cards.status();
      s.seats[seat].taken |= *cards;
      ++s.seats[seat].tricks_won;
      s.trick.fill(engine::kNoCard);
      s.leader = seat;
      return absl::OkStatus();
    }
    case v1::Event::kSeatOut: {
      const int seat = e.seat_out().seat();
      if (absl::Status st = seat_of(seat); !st.ok()) return st;
      s.out_order.push_back(seat);
      s.seats[seat].deal_score = e.seat_out().points();
      return absl::OkStatus();
    }
    case v1::Event::kDealEnded: {
      if (e.deal_ended().scores_size() != engine::kNumSeats) {
        return absl::InvalidArgumentError("deal scores without four seats");
      }
      for (int i = 0; i < engine::kNumSeats; ++i) {
        s.seats[i].deal_score = e.deal_ended().scores(i);
        s.seats[i].total += e.deal_ended().scores(i);
      }
      s.phase = engine::Phase::kDealing;
      s.turn.clear();
      s.deadline = absl::InfiniteFuture();
      return absl::OkStatus();
    }
    case v1::Event::kGameEnded: {
      const v1::GameResult& result = e.game_ended().result();
      s.phase = engine::Phase::kGameOver;
      s.game_over = true;
      s.result = result;
      if (result.totals_size() == engine::kNumSeats) {
        for (int i = 0; i < engine::kNumSeats; ++i) s.seats[i].total = result.totals(i);
      }
      s.turn.clear();
      s.deadline = absl::InfiniteFuture();
      return absl::OkStatus();
    }
    case v1::Event::kTurnStarted:
      s.turn.assign(e.turn_started().turn().seats().begin(),
                    e.turn_started().turn().seats().end());
      for (int seat : s.turn) {
        if (absl::Status st = seat_of(seat); !st.ok()) return st;
      }
      s.deadline = TimeFromWire(e.turn_started().turn().deadline());
      return absl::OkStatus();
    case v1::Event::kSeatLeft:
      if (absl::Status st = seat_of(e.seat_left().seat()); !st.ok()) return st;
      s.seats[e.seat_left().seat()].left = true;
      return absl::OkStatus();
    default:
      // A newer server's event kind: nothing to track, and nothing to fail on.
      return absl::OkStatus();
  }
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
  // A prompt with nothing to choose from is one no bot can answer.
  const bool answerable = (o.phase == engine::Phase::kChoosingContract && o.contracts) ||
                          o.phase == engine::Phase::kDoubling ||
                          (o.phase == engine::Phase::kPlaying && o.legal);
  if (!answerable) return absl::InvalidArgumentError("a prompt without options");
  state_.options = o;
  return Applied::kPrompt;
}

}  // namespace trix::bots
