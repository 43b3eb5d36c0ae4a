#include "engine/game.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "engine/check.h"

namespace trix::engine {
namespace {

absl::Status Illegal(absl::string_view message) {
  return absl::FailedPreconditionError(message);
}

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kDealing:
      return "dealing";
    case Phase::kChoosingContract:
      return "contract choice";
    case Phase::kDoubling:
      return "doubling";
    case Phase::kPlaying:
      return "play";
    case Phase::kGameOver:
      return "game over";
  }
  return "?";
}

uint32_t ContractBit(Contract c) { return 1u << static_cast<int>(c); }

// A card set in 52 bits: the four 13-card suit lanes side by side.
uint64_t PackCards(CardSet cards) {
  uint64_t packed = 0;
  for (int s = 0; s < 4; ++s) packed |= ((cards >> (16 * s)) & kSuitLane) << (13 * s);
  return packed;
}
CardSet UnpackCards(uint64_t packed) {
  CardSet cards = 0;
  for (int s = 0; s < 4; ++s) cards |= ((packed >> (13 * s)) & kSuitLane) << (16 * s);
  return cards;
}

// The events that carry a card set.
bool HasCards(EventType type) {
  switch (type) {
    case EventType::kHandShown:
    case EventType::kDoublesSelected:
    case EventType::kDoublesRevealed:
    case EventType::kTwosShown:
    case EventType::kTrickTaken:
      return true;
    default:
      return false;
  }
}

// An event in 8 bytes: bits 0-3 its type, 4 automatic, 5 whether the deal's
// contract was chosen, 6-8 seat + 1, and from bit 9 what it carries: a card set
// (52 bits), the card played, or a seat's Trix points. The deal, kingdom and
// contract come from the game's deal marks; a deal's and the game's scores from
// deal_scores() and totals().
constexpr int kEventPayloadShift = 9;

uint64_t PackEvent(const Event& e) {
  uint64_t payload = 0;
  if (HasCards(e.type)) payload = PackCards(e.cards);
  if (e.type == EventType::kCardPlayed) payload = e.card;
  if (e.type == EventType::kSeatOut) payload = static_cast<uint32_t>(e.values[e.seat]);
  return static_cast<uint64_t>(e.type) | uint64_t{e.automatic} << 4 |
         uint64_t{e.contract != kNoContract} << 5 |
         static_cast<uint64_t>(e.seat + 1) << 6 | payload << kEventPayloadShift;
}

// An action in 4 bytes: bits 0-2 its type, 3 autopilot, 4 whether it has cards
// (kept in log_cards_), 5 whether it is a Deal (its hands are in its deal's mark:
// only a Deal's hands are kept), then seat, contract and card a byte each.
uint32_t PackAction(const Action& a) {
  return static_cast<uint32_t>(a.type) | uint32_t{a.autopilot} << 3 |
         uint32_t{a.cards != 0} << 4 | uint32_t{a.type == ActionType::kDeal} << 5 |
         uint32_t{static_cast<uint8_t>(a.seat)} << 8 |
         uint32_t{static_cast<uint8_t>(a.contract)} << 16 | uint32_t{a.card} << 24;
}

}  // namespace

size_t EventList::size() const { return game_->event_count(); }
Event EventList::operator[](size_t i) const { return game_->event(i); }
Event EventList::Iterator::operator*() const { return game_->event(i_); }

int Game::DealOf(size_t i) const {
  auto after = std::upper_bound(
      deal_marks_.begin(), deal_marks_.end(), i,
      [](size_t index, const DealMark& mark) { return index < mark.first_event; });
  return static_cast<int>(after - deal_marks_.begin()) - 1;
}

Event Game::event(size_t i) const {
  TRIX_CHECK(i >= events_forgotten_ && i < event_count())
      << "event " << i << " is not held (held: " << events_forgotten_ << " to "
      << event_count() << ")";
  const uint64_t packed = events_[i - events_forgotten_];
  const uint64_t payload = packed >> kEventPayloadShift;
  Event e;
  e.type = static_cast<EventType>(packed & 15);
  e.automatic = (packed >> 4) & 1;
  e.seat = static_cast<int8_t>(((packed >> 6) & 7) - 1);
  const int deal = DealOf(i);
  e.deal = static_cast<int8_t>(deal);
  e.kingdom = static_cast<int8_t>(deal / ContractsOf(rules_.variant.format).size());
  if ((packed >> 5) & 1) e.contract = deal_marks_[deal].contract;
  if (HasCards(e.type)) e.cards = UnpackCards(payload);
  if (e.type == EventType::kCardPlayed) e.card = static_cast<Card>(payload);
  if (e.type == EventType::kSeatOut) e.values[e.seat] = static_cast<int32_t>(payload);
  if (e.type == EventType::kDealEnded) e.values = deal_scores_[deal];
  if (e.type == EventType::kGameEnded) e.values = totals_;
  return e;
}

std::vector<Action> Game::log() const {
  std::vector<Action> log;
  log.reserve(log_.size());
  size_t cards = 0, hands = 0;
  for (const uint32_t packed : log_) {
    Action a;
    a.type = static_cast<ActionType>(packed & 7);
    a.autopilot = (packed >> 3) & 1;
    if ((packed >> 4) & 1) a.cards = log_cards_[cards++];
    if ((packed >> 5) & 1) a.hands = deal_marks_[hands++].hands;
    a.seat = static_cast<int8_t>(static_cast<uint8_t>(packed >> 8));
    a.contract = static_cast<Contract>(static_cast<uint8_t>(packed >> 16));
    a.card = static_cast<Card>(packed >> 24);
    log.push_back(a);
  }
  return log;
}

size_t Game::list_bytes() const {
  return deal_marks_.capacity() * sizeof(DealMark) + events_.capacity() * sizeof(uint64_t) +
         log_.capacity() * sizeof(uint32_t) + log_cards_.capacity() * sizeof(CardSet) +
         deal_scores_.capacity() * sizeof(Scores);
}

void Game::ShrinkLists() {
  deal_marks_.shrink_to_fit();
  events_.shrink_to_fit();
  log_.shrink_to_fit();
  log_cards_.shrink_to_fit();
  deal_scores_.shrink_to_fit();
}

void Game::ForgetEventsBefore(size_t n) {
  TRIX_CHECK(n >= events_forgotten_ && n <= event_count())
      << "cannot forget the events before " << n << " (held: " << events_forgotten_
      << " to " << event_count() << ")";
  events_.erase(events_.begin(), events_.begin() + (n - events_forgotten_));
  events_forgotten_ = n;
}

void Game::AddEvent(const Event& event) {
  events_.push_back(PackEvent(event));
}

void Game::AddAction(const Action& action) {
  log_.push_back(PackAction(action));
  if (action.cards) log_cards_.push_back(action.cards);
}

Action Action::Deal(const Hands& hands) {
  Action a;
  a.type = ActionType::kDeal;
  a.hands = hands;
  return a;
}
Action Action::ChooseContract(int seat, Contract contract) {
  Action a;
  a.type = ActionType::kChooseContract;
  a.seat = static_cast<int8_t>(seat);
  a.contract = contract;
  return a;
}
Action Action::SelectDoubles(int seat, CardSet cards) {
  Action a;
  a.type = ActionType::kSelectDoubles;
  a.seat = static_cast<int8_t>(seat);
  a.cards = cards;
  return a;
}
Action Action::Ready(int seat) {
  Action a;
  a.type = ActionType::kReady;
  a.seat = static_cast<int8_t>(seat);
  return a;
}
Action Action::PlayCard(int seat, Card card) {
  Action a;
  a.type = ActionType::kPlayCard;
  a.seat = static_cast<int8_t>(seat);
  a.card = card;
  return a;
}

// Nothing is reserved: a table service hosts thousands of games, and a game's
// event and action lists grow as it is played (reserving a whole deal's worth was
// 16 KiB per game before its first card).
Game::Game(const Rules& rules) : rules_(rules) {}

absl::StatusOr<Game> Game::Replay(const Rules& rules, const std::vector<Action>& log) {
  Game game(rules);
  for (size_t i = 0; i < log.size(); ++i) {
    absl::Status status = game.Apply(log[i]);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("action ", i, ": ", status.message()));
    }
  }
  return game;
}

bool Game::CanAct(int seat) const {
  if (seat < 0 || seat >= kNumSeats) return false;
  switch (phase_) {
    case Phase::kChoosingContract:
      return seat == owner_;
    case Phase::kDoubling:
      return !ready_[seat];
    case Phase::kPlaying:
      return seat == deal_.to_play();
    default:
      return false;
  }
}

int Game::ToAct() const {
  if (phase_ == Phase::kChoosingContract) return owner_;
  if (phase_ == Phase::kPlaying) return deal_.to_play();
  return -1;
}

uint32_t Game::AvailableContracts() const {
  if (phase_ != Phase::kChoosingContract) return 0;
  uint32_t bits = 0;
  for (Contract c : ContractsOf(rules_.variant.format)) bits |= ContractBit(c);
  return bits & ~contracts_played_;
}

CardSet Game::DoublableFor(int seat) const {
  if (phase_ != Phase::kDoubling || !CanAct(seat)) return 0;
  return dealt_[seat] & DoublableCards(contract_, rules_.options);
}

CardSet Game::LegalCards(int seat) const {
  if (phase_ != Phase::kPlaying || seat != deal_.to_play()) return 0;
  return deal_.LegalCards();
}

absl::Status Game::CheckAction(const Action& action) const {
  if (phase_ == Phase::kGameOver) return Illegal("the game is over");
  if (action.type == ActionType::kDeal) {
    if (phase_ != Phase::kDealing) {
      return Illegal(absl::StrCat("cannot deal during ", PhaseName(phase_)));
    }
    return ValidateHands(action.hands);
  }
  if (action.seat < 0 || action.seat >= kNumSeats) {
    return absl::InvalidArgumentError(absl::StrCat("seat ", action.seat, " is not 0-3"));
  }
  switch (action.type) {
    case ActionType::kChooseContract:
      return CheckContractChoice(action);
    case ActionType::kSelectDoubles:
    case ActionType::kReady:
      return CheckDoubling(action);
    case ActionType::kPlayCard:
      return CheckCardPlay(action);
    case ActionType::kDeal:
      break;
  }
  return absl::InvalidArgumentError("unknown action");
}

// The refusals below spell the seat out only when an action is refused: the
// accepted path stays cheap.

absl::Status Game::CheckContractChoice(const Action& action) const {
  if (phase_ != Phase::kChoosingContract) {
    return Illegal(absl::StrCat("no contract is being chosen during ", PhaseName(phase_)));
  }
  if (action.seat != owner_) {
    return Illegal(absl::StrCat("seat ", action.seat, " does not own this kingdom; seat ",
                                owner_, " picks its contracts"));
  }
  if (!InFormat(action.contract, rules_.variant.format)) {
    return Illegal(absl::StrCat(ContractName(action.contract), " is not played in ",
                                FormatName(rules_.variant.format), " games"));
  }
  if (contracts_played_ & ContractBit(action.contract)) {
    return Illegal(absl::StrCat(ContractName(action.contract),
                                " was already played in this kingdom"));
  }
  return absl::OkStatus();
}

absl::Status Game::CheckDoubling(const Action& action) const {
  if (phase_ != Phase::kDoubling) {
    return Illegal(absl::StrCat("doubling is not open during ", PhaseName(phase_)));
  }
  if (ready_[action.seat]) {
    return Illegal(absl::StrCat("seat ", action.seat, " is already ready"));
  }
  if (action.type == ActionType::kReady) return absl::OkStatus();
  const CardSet doublable = DoublableCards(contract_, rules_.options);
  const CardSet bad = action.cards & ~(dealt_[action.seat] & doublable);
  if (!bad) return absl::OkStatus();
  const Card card = Lowest(bad);
  if (!(Bit(card) & kAllCards)) return absl::InvalidArgumentError("the doubles hold a non-card");
  if (!(Bit(card) & doublable)) {
    return Illegal(absl::StrCat("cannot double ", CardName(card), " in ",
                                ContractName(contract_)));
  }
  return Illegal(absl::StrCat("seat ", action.seat, " cannot double ", CardName(card),
                              ": only its holder may double a card"));
}

absl::Status Game::CheckCardPlay(const Action& action) const {
  if (phase_ != Phase::kPlaying) {
    return Illegal(absl::StrCat("no card may be played during ", PhaseName(phase_)));
  }
  if (action.seat != deal_.to_play()) {
    return Illegal(absl::StrCat("it is seat ", deal_.to_play(), "'s turn, not seat ",
                                action.seat, "'s"));
  }
  return deal_.CheckPlay(action.card);
}

absl::Status Game::Apply(const Action& action) {
  if (absl::Status status = CheckAction(action); !status.ok()) return status;
  AddAction(action);
  switch (action.type) {
    case ActionType::kDeal:
      StartDeal(action.hands);
      break;
    case ActionType::kChooseContract:
      ChooseContract(action.contract, action.autopilot);
      break;
    case ActionType::kSelectDoubles: {
      selected_[action.seat] = action.cards;
      Event e = MakeEvent(EventType::kDoublesSelected, action.seat);
      e.cards = action.cards;
      e.automatic = action.autopilot;
      AddEvent(e);
      break;
    }
    case ActionType::kReady: {
      ready_[action.seat] = true;
      Event e = MakeEvent(EventType::kReady, action.seat);
      e.automatic = action.autopilot;
      AddEvent(e);
      if (ready_[0] && ready_[1] && ready_[2] && ready_[3]) {
        for (int s = 0; s < kNumSeats; ++s) {
          if (!selected_[s]) continue;
          Event r = MakeEvent(EventType::kDoublesRevealed, s);
          r.cards = selected_[s];
          AddEvent(r);
        }
        StartPlay();
      }
      break;
    }
    case ActionType::kPlayCard:
      PlayCard(action.seat, action.card, action.autopilot);
      break;
  }
  return absl::OkStatus();
}

Event Game::MakeEvent(EventType type, int seat) const {
  Event e;
  e.type = type;
  e.seat = static_cast<int8_t>(seat);
  e.deal = static_cast<int8_t>(deals_started_ - 1);
  e.kingdom = static_cast<int8_t>(kingdom_);
  e.contract = contract_;
  return e;
}

void Game::StartDeal(const Hands& hands) {
  const int per_kingdom = static_cast<int>(ContractsOf(rules_.variant.format).size());
  if (first_owner_ < 0) {
    first_owner_ = 0;
    while (!(hands[first_owner_] & Bit(kSevenOfHearts))) ++first_owner_;
  }
  kingdom_ = deals_started_ / per_kingdom;
  if (deals_started_ % per_kingdom == 0) contracts_played_ = 0;
  owner_ = (first_owner_ + kingdom_) % kNumSeats;
  ++deals_started_;
  dealt_ = hands;
  selected_ = {};
  ready_ = {};
  contract_ = kNoContract;
  phase_ = Phase::kChoosingContract;
  // A game has total_deals() deals, known from the start: one list for them all.
  if (deal_marks_.empty()) deal_marks_.reserve(total_deals());
  deal_marks_.push_back({static_cast<uint32_t>(event_count()), kNoContract, hands});

  AddEvent(MakeEvent(EventType::kDealStarted, owner_));
  Event hand = MakeEvent(EventType::kHandShown, owner_);
  hand.cards = dealt_[owner_];
  AddEvent(hand);

  const uint32_t left = AvailableContracts();
  if ((left & (left - 1)) == 0) {
    ChooseContract(static_cast<Contract>(__builtin_ctz(left)), /*automatic=*/true);
  }
}

void Game::ChooseContract(Contract contract, bool automatic) {
  contract_ = contract;
  contracts_played_ |= ContractBit(contract);
  deal_marks_.back().contract = contract;
  Event chosen = MakeEvent(EventType::kContractChosen, owner_);
  chosen.automatic = automatic;
  AddEvent(chosen);
  for (int i = 1; i < kNumSeats; ++i) {
    const int seat = (owner_ + i) % kNumSeats;
    Event hand = MakeEvent(EventType::kHandShown, seat);
    hand.cards = dealt_[seat];
    AddEvent(hand);
  }
  if (DoublableCards(contract_, rules_.options)) {
    phase_ = Phase::kDoubling;
  } else {
    StartPlay();
  }
}

void Game::StartPlay() {
  deal_ = Deal(rules_, contract_, owner_, dealt_, selected_);
  phase_ = Phase::kPlaying;
  if (TwosShown(rules_.variant, contract_, dealt_)) {
    for (int s = 0; s < kNumSeats; ++s) {
      if (!(dealt_[s] & kTwos)) continue;
      Event twos = MakeEvent(EventType::kTwosShown, s);
      twos.cards = dealt_[s] & kTwos;
      AddEvent(twos);
    }
  }
  EmitPasses();
  AddEvent(MakeEvent(EventType::kPlayStarted, deal_.to_play()));
}

void Game::EmitPasses() {
  for (int i = 0; i < deal_.recent_passes(); ++i) {
    Event pass = MakeEvent(EventType::kPassed, deal_.recent_pass(i));
    pass.automatic = true;
    AddEvent(pass);
  }
}

void Game::PlayCard(int seat, Card card, bool autopilot) {
  const int tricks_before = deal_.tricks_played();
  const int out_before = deal_.seats_out();
  deal_.Play(card);

  Event played = MakeEvent(EventType::kCardPlayed, seat);
  played.card = card;
  played.automatic = autopilot;
  AddEvent(played);
  if (deal_.tricks_played() != tricks_before) {
    Event taken = MakeEvent(EventType::kTrickTaken, deal_.last_trick_winner());
    taken.cards = deal_.last_trick();
    AddEvent(taken);
  }
  for (int i = out_before; i < deal_.seats_out(); ++i) {
    const int out = deal_.out_order()[i];
    Event e = MakeEvent(EventType::kSeatOut, out);
    e.values[out] = kTrixPlacePoints[i];
    AddEvent(e);
  }
  if (deal_.over()) {
    FinishDeal();
  } else if (contract_ == Contract::kTrix) {
    EmitPasses();
  }
}

void Game::FinishDeal() {
  const Scores& scores = deal_.scores();
  deal_scores_.push_back(scores);
  for (int s = 0; s < kNumSeats; ++s) totals_[s] += scores[s];
  Event ended = MakeEvent(EventType::kDealEnded, -1);
  ended.values = scores;
  AddEvent(ended);
  if (deals_started_ == total_deals()) {
    phase_ = Phase::kGameOver;
    Event over = MakeEvent(EventType::kGameEnded, -1);
    over.values = totals_;
    AddEvent(over);
  } else {
    phase_ = Phase::kDealing;
  }
}

}  // namespace trix::engine
