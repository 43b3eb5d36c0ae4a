#include "services/table/table.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/autopilot.h"
#include "engine/check.h"
#include "engine/deal_proof.h"
#include "engine/observation.h"
#include "engine/random.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"

namespace trix::table {
namespace {

using engine::Phase;

constexpr size_t kMaxRequestIdBytes = 128;

// Storage keeps microseconds; live times are cut to the same precision so that a
// replayed table computes exactly the deadlines the live one announced.
absl::Time Micros(absl::Time t) { return absl::FromUnixMicros(absl::ToUnixMicros(t)); }

void PutVarint(uint64_t value, std::string& out) {
  for (; value >= 0x80; value >>= 7) out.push_back(static_cast<char>(value | 0x80));
  out.push_back(static_cast<char>(value));
}

uint64_t GetVarint(const std::string& in, size_t& pos) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in[pos++]);
    value |= uint64_t{byte & 0x7fu} << shift;
    if (byte < 0x80) return value;
  }
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

engine::Stakes StakesOf(const std::array<SeatRecord, engine::kNumSeats>& seats) {
  engine::Stakes stakes{};
  for (int s = 0; s < engine::kNumSeats; ++s) stakes[s] = seats[s].stake;
  return stakes;
}

}  // namespace

absl::Status CheckAutopilotSeats(const v1::internal::TableSettings& settings) {
  std::array<bool, engine::kNumSeats> seen{};
  for (int32_t seat : settings.autopilot_seats()) {
    if (seat < 0 || seat >= engine::kNumSeats || seen[seat]) {
      return absl::InvalidArgumentError(
          absl::StrCat("autopilot seat ", seat, " is not a distinct seat 0 to 3"));
    }
    seen[seat] = true;
  }
  if (settings.autopilot_seats_size() == engine::kNumSeats) {
    return absl::InvalidArgumentError(
        "every seat is autopilot: a table needs at least one seat that a client plays");
  }
  return absl::OkStatus();
}

Table::Table(std::string id, v1::internal::TableSettings settings, engine::Rules rules,
             std::array<SeatRecord, engine::kNumSeats> seats, absl::Time created)
    : id_(std::move(id)),
      settings_(std::move(settings)),
      seats_(std::move(seats)),
      created_(created),
      game_(rules) {
  // An autopilot seat is a seat that left before the first move: the one rule,
  // live and on replay, since both build the table from its stored settings.
  for (int32_t seat : settings_.autopilot_seats()) left_[seat] = true;
  if (settings_.seat_seeds()) {
    // The seats have the contract clock to contribute their seeds.
    seat_seeds_ = std::make_unique<engine::SeatSeeds>();
    deadline_ = Micros(created_) + ClockFor(Phase::kChoosingContract);
  }
}

absl::StatusOr<std::unique_ptr<Table>> Table::Create(
    std::string id, v1::internal::TableSettings settings,
    std::array<SeatRecord, engine::kNumSeats> seats, absl::Time created) {
  absl::StatusOr<engine::Rules> rules =
      wire::RulesFromProto(settings.mode(), settings.rules());
  if (!rules.ok()) return rules.status();
  const v1::Clocks& c = settings.clocks();
  if (c.contract_ms() <= 0 || c.doubling_ms() <= 0 || c.card_ms() <= 0) {
    return absl::InvalidArgumentError(
        "every clock must be resolved to a positive length");
  }
  if (absl::Status s = CheckAutopilotSeats(settings); !s.ok()) return s;
  return std::unique_ptr<Table>(
      new Table(std::move(id), std::move(settings), *rules, std::move(seats), created));
}

absl::StatusOr<std::unique_ptr<Table>> Table::Restore(const StoredGame& stored) {
  v1::internal::TableSettings settings;
  if (!settings.ParseFromString(stored.game.config)) {
    return absl::DataLossError(
        absl::StrCat("game ", stored.game.game_id, ": unreadable settings"));
  }
  absl::StatusOr<std::unique_ptr<Table>> table =
      Create(stored.game.game_id, settings, stored.game.seats, stored.created);
  if (!table.ok()) {
    return absl::DataLossError(absl::StrCat(
        "game ", stored.game.game_id, ": bad settings: ", table.status().message()));
  }
  Table& t = **table;
  for (size_t i = 0; i < stored.entries.size(); ++i) {
    const LogEntry& entry = stored.entries[i];
    auto corrupt = [&](absl::string_view why) {
      return absl::DataLossError(
          absl::StrCat("game ", stored.game.game_id, " entry ", i, ": ", why));
    };
    if (entry.index != static_cast<int64_t>(i)) return corrupt("index out of order");
    if (entry.seat < -1 || entry.seat >= engine::kNumSeats) return corrupt("bad seat");
    v1::internal::LogRecord record;
    if (!record.ParseFromString(entry.payload)) return corrupt("unreadable payload");
    if (absl::Status s = t.ApplyEntry(entry.seat, record, Micros(entry.time)); !s.ok()) {
      return corrupt(s.message());
    }
    if (!entry.request_id.empty() && entry.seat >= 0) {
      if (entry.request_id.size() > kMaxRequestIdBytes) return corrupt("request id too long");
      v1::ActResponse answer;
      if (!answer.ParseFromString(entry.response)) return corrupt("unreadable response");
      t.answers_[entry.seat].Add(entry.request_id, static_cast<uint32_t>(answer.seq()));
    }
  }
  // The stored deadline is the one clients were told; replay derives the same one.
  if (!t.over() && stored.deadline && t.deadline_) t.deadline_ = Micros(*stored.deadline);
  t.ForgetPast();
  return table;
}

absl::StatusOr<int> Table::SeatOf(const std::string& token) {
  if (token.empty()) return absl::UnauthenticatedError("seat_token is required");
  int seat = -1;
  // No early exit: every seat is compared, in constant time. A token verified
  // before is compared as it is, so that a seat's every action costs no hash.
  for (int s = 0; s < engine::kNumSeats; ++s) {
    if (service::ConstantTimeEquals(token, verified_tokens_[s])) seat = s;
  }
  if (seat >= 0) return seat;
  const std::string hash = service::TokenHash(token);
  for (int s = 0; s < engine::kNumSeats; ++s) {
    if (service::ConstantTimeEquals(hash, seats_[s].token_hash)) seat = s;
  }
  if (seat < 0) {
    return absl::PermissionDeniedError("the seat token is not one of this table's");
  }
  verified_tokens_[seat] = token;
  return seat;
}

absl::Status Table::CheckSpectator(bool trusted) const {
  if (trusted || settings_.public_spectating()) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "table ", id_,
      " is not open to spectators (it was created without public_spectating); a seat "
      "sees it with its seat token, the backend with its service token"));
}

std::optional<v1::ActResponse> Table::FindAnswer(int seat,
                                                 const std::string& request_id) const {
  const std::optional<uint32_t> seq = answers_[seat].Find(request_id);
  if (!seq) return std::nullopt;
  v1::ActResponse answer;
  answer.set_seq(*seq);
  return answer;
}

void Table::SeatAnswers::Add(absl::string_view request_id, uint32_t seq) {
  TRIX_CHECK(request_id.size() <= kMaxRequestIdBytes)
      << "a request id of " << request_id.size() << " bytes";
  answers_.push_back(static_cast<char>(request_id.size()));
  answers_.append(request_id.data(), request_id.size());
  PutVarint(ZigZag(int64_t{seq} - int64_t{last_seq_}), answers_);
  last_seq_ = seq;
}

std::optional<uint32_t> Table::SeatAnswers::Find(absl::string_view request_id) const {
  std::optional<uint32_t> found;
  int64_t seq = 0;
  for (size_t pos = 0; pos < answers_.size();) {
    const size_t size = static_cast<uint8_t>(answers_[pos++]);
    const bool match = absl::string_view(answers_).substr(pos, size) == request_id;
    pos += size;
    seq += UnZigZag(GetVarint(answers_, pos));
    if (match) found = static_cast<uint32_t>(seq);
  }
  return found;
}

void Table::SeatAnswers::ShrinkToFit() { answers_.shrink_to_fit(); }

size_t Table::SeatAnswers::bytes() const { return answers_.capacity(); }

size_t Table::answer_bytes() const {
  size_t bytes = 0;
  for (const SeatAnswers& answers : answers_) bytes += answers.bytes();
  return bytes;
}

absl::StatusOr<v1::internal::LogRecord> Table::RecordFor(
    int seat, const v1::ActRequest& request, std::vector<engine::Action>* actions) const {
  v1::internal::LogRecord record;
  auto add = [&](const engine::Action& a) {
    *record.add_actions() = ActionToLog(a);
    actions->push_back(a);
  };
  switch (request.action_case()) {
    case v1::ActRequest::kChooseContract: {
      absl::StatusOr<engine::Contract> contract =
          wire::ContractFromProto(request.choose_contract().contract());
      if (!contract.ok()) return contract.status();
      add(engine::Action::ChooseContract(seat, *contract));
      break;
    }
    case v1::ActRequest::kSelectDoubles: {
      absl::StatusOr<engine::CardSet> cards =
          SeatCardsFromProto(request.select_doubles().cards());
      if (!cards.ok()) return cards.status();
      add(engine::Action::SelectDoubles(seat, *cards));
      if (request.select_doubles().ready()) add(engine::Action::Ready(seat));
      break;
    }
    case v1::ActRequest::kPlayCard: {
      absl::StatusOr<engine::Card> card = wire::CardFromProto(request.play_card().card());
      if (!card.ok()) return card.status();
      add(engine::Action::PlayCard(seat, *card));
      break;
    }
    case v1::ActRequest::kLeave:
      record.set_leave(true);
      break;
    case v1::ActRequest::kContributeSeed:
      if (request.contribute_seed().seed().size() != engine::kSeatSeedBytes) {
        return absl::InvalidArgumentError(absl::StrCat(
            "a seed is exactly ", engine::kSeatSeedBytes, " bytes, not ",
            request.contribute_seed().seed().size()));
      }
      record.set_seed(request.contribute_seed().seed());
      break;
    case v1::ActRequest::ACTION_NOT_SET:
      return absl::InvalidArgumentError(
          "the request names no action (choose_contract, select_doubles, play_card, "
          "leave or contribute_seed)");
  }
  return record;
}

absl::StatusOr<Step> Table::Act(int seat, const v1::ActRequest& request, absl::Time now) {
  now = Micros(now);
  ForgetPast();
  if (!broken_.ok()) return broken_;
  if (voided()) return VoidedError();
  if (request.request_id().empty()) {
    return absl::InvalidArgumentError("request_id is required");
  }
  if (request.request_id().size() > kMaxRequestIdBytes) {
    return absl::InvalidArgumentError("request_id is longer than 128 bytes");
  }
  std::vector<engine::Action> actions;
  absl::StatusOr<v1::internal::LogRecord> record = RecordFor(seat, request, &actions);
  if (!record.ok()) return record.status();
  if (over()) return absl::FailedPreconditionError("the game is over");
  if (left_[seat]) {
    return absl::FailedPreconditionError(
        absl::StrCat("seat ", seat, " left the table; the autopilot plays for it"));
  }
  if (!record->seed().empty()) {
    if (absl::Status s = CheckSeed(seat, now); !s.ok()) return s;
  }

  const size_t actions_before = game_.log_size();
  LogEntry entry;
  entry.index = log_length_;
  entry.seat = seat;
  entry.request_id = request.request_id();
  entry.time = now;
  if (absl::Status s = ApplyEntry(seat, *record, now, actions); !s.ok()) {
    // Only the first action of a request can be refused (a selection that is legal
    // is always followed by a legal ready): the engine then changed nothing.
    if (game_.log_size() != actions_before) {
      Break("second action refused", s);
      return broken_;
    }
    return s;
  }
  Step step;
  step.response.set_seq(last_seq(seat));
  entry.payload = record->SerializeAsString();
  entry.response = step.response.SerializeAsString();
  answers_[seat].Add(entry.request_id, static_cast<uint32_t>(step.response.seq()));
  step.entries.push_back(std::move(entry));
  RunServerMoves(now, step);
  if (!broken_.ok()) return broken_;
  AddClockAndEnd(step, /*was_over=*/false);
  return step;
}

absl::StatusOr<Step> Table::Void(const std::string& reason, absl::Time now) {
  now = Micros(now);
  if (voided()) return VoidedError();
  if (over()) {
    return absl::FailedPreconditionError(
        "the game is over: its result stands and it cannot be voided");
  }
  Step step = VoidStep(id_, engine::ModeName(game_.rules().variant), seats_, reason,
                       log_length_, now);
  v1::internal::LogRecord record;
  record.set_void_reason(reason);
  if (absl::Status s = ApplyEntry(-1, record, now); !s.ok()) return s;
  return step;
}

Step Table::VoidStep(const std::string& id, const std::string& mode,
                     const std::array<SeatRecord, engine::kNumSeats>& seats,
                     const std::string& reason, int64_t index, absl::Time now) {
  now = Micros(now);
  v1::internal::LogRecord record;
  record.set_void_reason(reason);
  LogEntry entry;
  entry.index = index;
  entry.time = now;
  entry.payload = record.SerializeAsString();
  Step step;
  step.entries.push_back(std::move(entry));
  GameEnd end;
  end.voided = true;
  end.result = VoidedResultJson(mode, reason);
  end.outbox_payload = VoidedOutboxJson(id, mode, seats, reason, absl::ToUnixMillis(now));
  step.end = std::move(end);
  return step;
}

absl::Status Table::VoidedError() const {
  return absl::FailedPreconditionError(absl::StrCat("table voided: ", void_reason_));
}

Step Table::Advance(absl::Time now) {
  now = Micros(now);
  ForgetPast();
  Step step;
  if (voided()) return step;
  const bool was_over = over();
  // The seeding clock ran out: the table deals with the seeds it has.
  if (SeedingOpen() && deadline_ && now >= *deadline_) seeding_over_ = true;
  if (!was_over && deadline_ && now >= *deadline_) {
    // Every seat that must act on this clock: one seat, or each seat not yet ready
    // while doubling (the autopilot commits its current selection). The loop ends
    // as soon as the decision changes.
    const std::array<int, 4> key = turn_key_;
    for (int s = 0; s < engine::kNumSeats && turn_key_ == key; ++s) {
      if (game_.CanAct(s))
        AddServerEntry(s, engine::AutopilotAction(game_, s), now, step);
    }
  }
  RunServerMoves(now, step);
  AddClockAndEnd(step, was_over);
  return step;
}

void Table::BreakForTesting(absl::string_view reason) {
  Break("for testing", absl::InternalError(reason));
}

void Table::RunServerMoves(absl::Time now, Step& step) {
  // Bounded: a game of seats that all left is at most ~1100 actions.
  for (int guard = 0; guard < 100000; ++guard) {
    if (ended() || !broken_.ok()) return;
    if (game_.phase() == Phase::kDealing) {
      if (SeedingOpen()) return;
      const engine::Hands hands = engine::ShuffledHands(DealSeed(), game_.deals_started());
      AddServerEntry(-1, engine::Action::Deal(hands), now, step);
      continue;
    }
    int seat = -1;
    for (int s = 0; s < engine::kNumSeats && seat < 0; ++s) {
      if (left_[s] && game_.CanAct(s)) seat = s;
    }
    if (seat < 0) return;
    AddServerEntry(seat, engine::AutopilotAction(game_, seat), now, step);
  }
  Break("server moves did not end", absl::InternalError(id_));
}

void Table::Break(absl::string_view what, const absl::Status& status) {
  if (broken_.ok()) {
    broken_ = absl::InternalError(absl::StrCat(what, ": ", status.message()));
  }
}

void Table::AddServerEntry(int seat, const engine::Action& action, absl::Time now,
                           Step& step) {
  v1::internal::LogRecord record;
  *record.add_actions() = ActionToLog(action);
  LogEntry entry;
  entry.index = log_length_;
  entry.seat = seat;
  entry.time = now;
  entry.payload = record.SerializeAsString();
  if (absl::Status s = ApplyEntry(seat, record, now, absl::MakeConstSpan(&action, 1));
      !s.ok()) {
    Break("server move", s);
    return;
  }
  step.entries.push_back(std::move(entry));
}

void Table::AddClockAndEnd(Step& step, bool was_over) const {
  step.deadline = deadline_;
  if (was_over || !over()) return;
  const engine::GameResult result = Result();
  GameEnd end;
  end.result =
      ResultJson(game_.rules().variant, result, StakesOf(seats_), settings_.unrated());
  for (int s = 0; s < engine::kNumSeats; ++s) {
    end.totals[s] = result.totals[s];
    end.places[s] = result.places[s];
  }
  end.outbox_payload = GameEndedOutboxJson(
      id_, game_.rules().variant, result, seats_,
      step.entries.empty() ? 0 : absl::ToUnixMillis(step.entries.back().time),
      settings_.unrated());
  step.end = std::move(end);
}

engine::GameResult Table::Result() const {
  return engine::ResultOf(game_.rules().variant, game_.totals(), StakesOf(seats_));
}

v1::GameResult Table::ResultProto() const {
  return ResultToProto(game_.rules().variant, Result());
}

absl::Status Table::ApplyEntry(int seat, const v1::internal::LogRecord& record,
                               absl::Time time, absl::Span<const engine::Action> actions) {
  entry_time_ = time;
  if (voided()) return absl::DataLossError("an entry after the table was voided");
  if (!record.void_reason().empty()) return ApplyVoid(seat, record);
  if (!record.seed().empty()) return ApplySeed(seat, record);
  if (record.leave()) {
    if (seat < 0 || seat >= engine::kNumSeats || left_[seat] || record.actions_size()) {
      return absl::DataLossError("bad leave");
    }
    left_[seat] = true;
    ServiceEvent left;
    left.kind = ServiceEvent::kSeatLeft;
    left.seat = static_cast<int8_t>(seat);
    AddServiceEvent(left);
  }
  TRIX_CHECK(actions.empty() || actions.size() == static_cast<size_t>(record.actions_size()))
      << "table " << id_ << ": a record and its actions differ";
  const int deals_before = game_.deals_started();
  for (int i = 0; i < record.actions_size(); ++i) {
    if (!actions.empty()) {
      if (absl::Status s = ApplyAction(seat, actions[i]); !s.ok()) return s;
      continue;
    }
    absl::StatusOr<engine::Action> action = ActionFromLog(record.actions(i));
    if (!action.ok()) return action.status();
    if (absl::Status s = ApplyAction(seat, *action); !s.ok()) return s;
  }
  if (game_.deals_started() != deals_before) {
    deal_start_ = event_count();
    deal_start_engine_ = engine_events_seen_;
  }
  for (; engine_events_seen_ < game_.event_count(); ++engine_events_seen_) {
    const engine::Event e = game_.event(engine_events_seen_);
    uint8_t visible = 0;
    for (int v = 0; v < engine::kNumSeats; ++v) {
      if (engine::VisibleTo(e, v)) visible |= 1 << v;
    }
    if (engine::VisibleTo(e, engine::kSpectator))
      visible |= 1 << ViewerIndex(engine::kSpectator);
    AddEngineEvent(visible);
  }
  UpdateClock(time);
  NoteEntry(record.leave() ? kLeave : kActions, seat, record.actions_size());
  if (over()) ShrinkLists();
  return absl::OkStatus();
}

absl::Status Table::ApplyAction(int seat, const engine::Action& action) {
  if (action.type != engine::ActionType::kDeal && action.seat != seat) {
    return absl::DataLossError("an action for another seat");
  }
  return game_.Apply(action);
}

void Table::NoteEntry(EntryKind kind, int seat, int actions) {
  TRIX_CHECK(seat >= -1 && seat < engine::kNumSeats && actions >= 0 && actions < 8)
      << "table " << id_ << ": an entry of seat " << seat << " with " << actions
      << " actions";
  entry_log_.push_back(static_cast<char>(kind | (seat + 1) << 2 | actions << 5));
  const int64_t time_us = absl::ToUnixMicros(entry_time_);
  PutVarint(ZigZag(time_us - last_entry_us_), entry_log_);
  last_entry_us_ = time_us;
  ++log_length_;
}

std::unique_ptr<Table> Table::Rebuilt() const {
  std::unique_ptr<Table> t(new Table(id_, settings_, game_.rules(), seats_, created_));
  t->hold_all_ = true;
  const std::vector<engine::Action> actions = game_.log();
  size_t next = 0;
  int64_t time_us = 0;
  for (size_t pos = 0; pos < entry_log_.size();) {
    const uint8_t head = static_cast<uint8_t>(entry_log_[pos++]);
    time_us += UnZigZag(GetVarint(entry_log_, pos));
    const int seat = ((head >> 2) & 7) - 1;
    const size_t count = head >> 5;
    v1::internal::LogRecord record;
    switch (static_cast<EntryKind>(head & 3)) {
      case kActions:
        break;
      case kLeave:
        record.set_leave(true);
        break;
      case kSeed:
        record.set_seed((*seat_seeds_)[seat]);
        break;
      case kVoid:
        record.set_void_reason(void_reason_);
        break;
    }
    TRIX_CHECK(next + count <= actions.size()) << "table " << id_ << ": entries past the log";
    for (size_t i = 0; i < count; ++i) *record.add_actions() = ActionToLog(actions[next + i]);
    const absl::Status applied = t->ApplyEntry(
        seat, record, absl::FromUnixMicros(time_us), absl::MakeConstSpan(&actions[next], count));
    TRIX_CHECK(applied.ok()) << "table " << id_ << ": rebuilding entry " << t->log_length_
                             << ": " << applied.message();
    next += count;
  }
  return t;
}

engine::Game Table::WholeGame() const {
  absl::StatusOr<engine::Game> game = engine::Game::Replay(game_.rules(), game_.log());
  TRIX_CHECK(game.ok()) << "table " << id_ << ": " << game.status().message();
  return *std::move(game);
}

void Table::ForgetPast() {
  if (hold_all_ || deal_start_ <= base_) return;
  ViewerCounts seqs;
  for (int v = 0; v < kViewers; ++v) seqs[v] = static_cast<uint32_t>(SeqBefore(deal_start_, v));
  const size_t drop = deal_start_ - base_;
  size_t services = 0;
  for (size_t k = 0; k < drop; ++k) services += events_[k].service();
  events_.erase(events_.begin(), events_.begin() + drop);
  service_events_.erase(service_events_.begin(), service_events_.begin() + services);
  game_.ForgetEventsBefore(deal_start_engine_);
  base_ = deal_start_;
  base_seqs_ = seqs;
  // The marks again, for the blocks of the events held now.
  seq_marks_.clear();
  uint32_t engine_events = static_cast<uint32_t>(deal_start_engine_);
  for (size_t k = 0; k < events_.size(); ++k) {
    if (k % kSeqBlock == 0) seq_marks_.push_back({seqs, engine_events});
    for (int v = 0; v < kViewers; ++v) seqs[v] += (events_[k].visible() >> v) & 1;
    engine_events += !events_[k].service();
  }
}

void Table::ShrinkLists() {
  game_.ShrinkLists();
  events_.shrink_to_fit();
  service_events_.shrink_to_fit();
  seq_marks_.shrink_to_fit();
  entry_log_.shrink_to_fit();
  for (SeatAnswers& answers : answers_) answers.ShrinkToFit();
}

absl::Status Table::ApplyVoid(int seat, const v1::internal::LogRecord& record) {
  if (seat != -1 || record.leave() || record.actions_size() > 0 || over()) {
    return absl::DataLossError("bad void");
  }
  void_reason_ = record.void_reason();
  voided_at_ = entry_time_;
  ServiceEvent voided;
  voided.kind = ServiceEvent::kVoided;
  AddServiceEvent(voided);
  deadline_.reset();
  turn_key_ = {-1, -1, -1, -1};
  NoteEntry(kVoid, seat, 0);
  ShrinkLists();
  return absl::OkStatus();
}

absl::Status Table::CheckSeed(int seat, absl::Time now) const {
  if (!settings_.seat_seeds()) {
    return absl::FailedPreconditionError(
        "this table takes no seeds: it was created without seat_seeds");
  }
  if (game_.deals_started() > 0 || !SeedingOpen()) {
    return absl::FailedPreconditionError(
        "the first deal is dealt: seeds are taken only before it");
  }
  if (!(*seat_seeds_)[seat].empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("seat ", seat, " already contributed its seed"));
  }
  if (deadline_ && now >= *deadline_) {
    return absl::FailedPreconditionError("the seeding clock ran out: the table deals now");
  }
  return absl::OkStatus();
}

bool Table::WaitsForSeed(int seat) const {
  return seat_seeds_ && !seeding_over_ && !voided() && game_.deals_started() == 0 &&
         !left_[seat] && (*seat_seeds_)[seat].empty();
}

bool Table::SeedingOpen() const {
  for (int s = 0; s < engine::kNumSeats; ++s) {
    if (WaitsForSeed(s)) return true;
  }
  return false;
}

uint64_t Table::DealSeed() const {
  if (!seat_seeds_) return settings_.seed();
  return engine::SeatSeededDealSeed(settings_.seed(), settings_.deal_salt(), *seat_seeds_);
}

absl::Status Table::ApplySeed(int seat, const v1::internal::LogRecord& record) {
  if (seat < 0 || seat >= engine::kNumSeats || !seat_seeds_ || record.leave() ||
      record.actions_size() > 0 || game_.deals_started() > 0 ||
      !(*seat_seeds_)[seat].empty() || record.seed().size() != engine::kSeatSeedBytes) {
    return absl::DataLossError("bad seed");
  }
  (*seat_seeds_)[seat] = record.seed();
  ServiceEvent contributed;
  contributed.kind = ServiceEvent::kSeedContributed;
  contributed.seat = static_cast<int8_t>(seat);
  AddServiceEvent(contributed);
  UpdateClock(entry_time_);
  NoteEntry(kSeed, seat, 0);
  return absl::OkStatus();
}

void Table::AddEngineEvent(uint8_t visible) {
  AddEvent(EventRef(absl::ToUnixMicros(entry_time_), visible, /*service=*/false));
}

void Table::AddServiceEvent(ServiceEvent event) {
  event.deal = static_cast<int8_t>(game_.deals_started() - 1);
  event.kingdom = static_cast<int8_t>(game_.kingdom());
  service_events_.push_back(event);
  constexpr uint8_t kEveryone = (1 << kViewers) - 1;
  AddEvent(EventRef(absl::ToUnixMicros(entry_time_), kEveryone, /*service=*/true));
}

void Table::AddEvent(EventRef ref) {
  if (events_.size() % kSeqBlock == 0) {
    seq_marks_.push_back(
        {seq_totals_, static_cast<uint32_t>(game_.events_forgotten() + events_.size() -
                                            service_events_.size() +
                                            (ref.service() ? 1 : 0))});
  }
  events_.push_back(ref);
  for (int viewer_index = 0; viewer_index < kViewers; ++viewer_index) {
    if (ref.visible() & (1 << viewer_index)) ++seq_totals_[viewer_index];
  }
}

int64_t Table::IndexOf(size_t i) const {
  const size_t at = i - base_;  // in events_
  const size_t block = at / kSeqBlock;
  int64_t engine_events = seq_marks_[block].engine_events;
  for (size_t k = block * kSeqBlock; k < at; ++k) {
    if (!events_[k].service()) ++engine_events;
  }
  if (!events_[at].service()) return engine_events;
  return ~static_cast<int64_t>(i - engine_events);
}

size_t Table::event_list_bytes() const {
  return events_.size() * sizeof(EventRef) +
         service_events_.size() * sizeof(ServiceEvent) +
         seq_marks_.size() * sizeof(BlockMark) + entry_log_.size();
}

uint64_t Table::SeqBefore(size_t i, int viewer_index) const {
  if (i == event_count()) return seq_totals_[viewer_index];
  const size_t at = i - base_;
  const size_t block = at / kSeqBlock;
  uint64_t seq = seq_marks_[block].seqs[viewer_index];
  for (size_t k = block * kSeqBlock; k < at; ++k) {
    if (events_[k].visible() & (1 << viewer_index)) ++seq;
  }
  return seq;
}

size_t Table::StartAfter(uint64_t seen, int viewer_index) const {
  // The last block that starts with at most `seen` of the viewer's events.
  auto after = std::upper_bound(
      seq_marks_.begin(), seq_marks_.end(), seen,
      [viewer_index](uint64_t n, const BlockMark& m) { return n < m.seqs[viewer_index]; });
  if (after == seq_marks_.begin()) return base_;
  size_t at = (after - seq_marks_.begin() - 1) * kSeqBlock;
  uint64_t seq = seq_marks_[at / kSeqBlock].seqs[viewer_index];
  for (; seq < seen; ++at) {
    if (events_[at].visible() & (1 << viewer_index)) ++seq;
  }
  return base_ + at;
}

absl::Duration Table::ClockFor(Phase phase) const {
  const v1::Clocks& c = settings_.clocks();
  switch (phase) {
    case Phase::kChoosingContract:
      return absl::Milliseconds(c.contract_ms());
    case Phase::kDoubling:
      return absl::Milliseconds(c.doubling_ms());
    default:
      return absl::Milliseconds(c.card_ms());
  }
}

void Table::UpdateClock(absl::Time time) {
  const Phase phase = game_.phase();
  if (phase == Phase::kDealing && SeedingOpen()) return;  // the seeding clock runs on
  if (phase == Phase::kDealing || phase == Phase::kGameOver) {
    deadline_.reset();
    turn_key_ = {-1, -1, -1, -1};
    return;
  }
  // Doubling is one clock for all four seats, whoever selects or readies; in play
  // every card (or run of Trix passes) starts the next seat's clock.
  const std::array<int, 4> key = {
      static_cast<int>(phase), game_.deals_started(),
      phase == Phase::kDoubling ? -1 : game_.ToAct(),
      phase == Phase::kPlaying ? game_.deal().cards_played() : 0};
  if (key == turn_key_) return;
  turn_key_ = key;
  deadline_ = time + ClockFor(phase);
  ServiceEvent turn;
  turn.seats =
      phase == Phase::kDoubling ? 0x0F : static_cast<uint8_t>(1 << game_.ToAct());
  turn.clock = phase;
  AddServiceEvent(turn);
}

std::optional<v1::Event> Table::EventFor(size_t i, int viewer) const {
  if (i < base_) return Rebuilt()->EventFor(i, viewer);
  const int viewer_index = ViewerIndex(viewer);
  if (!(events_[i - base_].visible() & (1 << viewer_index))) return std::nullopt;
  return EventProto(i, SeqBefore(i, viewer_index) + 1);
}

v1::Event Table::EventProto(size_t i, uint64_t seq) const {
  const EventRef& ref = events_[i - base_];
  const int64_t index = IndexOf(i);
  v1::Event out;
  if (index >= 0) {
    const engine::Event e = game_.event(index);
    out = EngineEventToProto(
        e, e.type == engine::EventType::kGameEnded ? ResultProto() : v1::GameResult{});
  } else {
    const ServiceEvent& s =
        service_events_[~index - static_cast<int64_t>(base_ - game_.events_forgotten())];
    if (s.kind == ServiceEvent::kSeatLeft) {
      out.mutable_seat_left()->set_seat(s.seat);
    } else if (s.kind == ServiceEvent::kVoided) {
      out.mutable_table_voided()->set_reason(void_reason_);
    } else if (s.kind == ServiceEvent::kSeedContributed) {
      out.mutable_seed_contributed()->set_seat(s.seat);
    } else {
      *out.mutable_turn_started()->mutable_turn() =
          TurnToProto(s.seats, absl::FromUnixMicros(ref.time_us()) + ClockFor(s.clock));
    }
    out.set_deal(s.deal);
    out.set_kingdom(s.kingdom);
  }
  out.set_seq(seq);
  *out.mutable_time() = TimeToProto(absl::FromUnixMicros(ref.time_us()));
  return out;
}

absl::Status BeyondStream(uint64_t after_seq, uint64_t last_seq) {
  return absl::OutOfRangeError(absl::StrCat(
      "after_seq ", after_seq, " is beyond this stream's last event, ", last_seq,
      " (the table's log may have been rewound by a database failover); resume from "
      "the snapshot: subscribe with after_seq 0"));
}

absl::StatusOr<std::vector<v1::Event>> Table::EventsAfter(int viewer,
                                                          uint64_t after_seq) const {
  const int viewer_index = ViewerIndex(viewer);
  if (after_seq > last_seq(viewer)) return BeyondStream(after_seq, last_seq(viewer));
  if (after_seq < base_seqs_[viewer_index]) return Rebuilt()->EventsAfter(viewer, after_seq);
  std::vector<v1::Event> out;
  out.reserve(last_seq(viewer) - after_seq);
  uint64_t seq = after_seq;
  for (size_t i = StartAfter(after_seq, viewer_index); i < event_count(); ++i) {
    if (events_[i - base_].visible() & (1 << viewer_index)) {
      out.push_back(EventProto(i, ++seq));
    }
  }
  return out;
}

}  // namespace trix::table
