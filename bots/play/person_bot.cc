#include "bots/play/person_bot.h"

#include <utility>

#include "absl/time/clock.h"
#include "proto/wire/wire.h"

namespace trix::bots {
namespace {

constexpr size_t kLogLines = 8;

}  // namespace

v1::TableView PublicView(const SeatState& s) {
  v1::TableView view;
  view.set_table_id(s.table_id);
  *view.mutable_mode() = wire::ModeToProto(s.rules.variant);
  view.set_seq(s.seq);
  view.set_phase(wire::PhaseToProto(s.phase));
  view.set_deal(s.deal);
  view.set_deals_per_game(s.deals_per_game);
  view.set_kingdom(s.kingdom);
  view.set_owner(s.owner);
  view.set_contract(wire::ContractToProto(s.contract));
  for (int seat = 0; seat < engine::kNumSeats; ++seat) {
    v1::SeatView* v = view.add_seats();
    v->set_seat(seat);
    v->set_player_id(s.seats[seat].player_id);
    v->set_display_name(SeatName(s, seat));
    v->set_total(s.seats[seat].total);
  }
  for (engine::CardSet layout = s.layout; layout;) {
    view.add_layout(engine::CardName(engine::PopLowest(layout)));
  }
  return view;
}

PersonBot::PersonBot(std::FILE* out, ScreenInfo info, std::function<void()> on_leave)
    : out_(out), on_leave_(std::move(on_leave)), info_(std::move(info)) {}

void PersonBot::Restart(const SeatState& state) {
  absl::MutexLock lock(&mu_);
  state_ = state;
  have_state_ = true;
  printer_ = TablePrinter();
  v1::TableUpdate update;
  *update.mutable_snapshot() = PublicView(state);
  AddLogLocked(update);
  DrawLocked();
}

void PersonBot::Observe(const v1::Event& event, const SeatState& state) {
  absl::MutexLock lock(&mu_);
  state_ = state;
  v1::TableUpdate update;
  *update.add_events() = event;
  AddLogLocked(update);
  DrawLocked();
}

void PersonBot::AddLogLocked(const v1::TableUpdate& update) {
  for (std::string& line : printer_.Lines(update)) {
    if (line.rfind("watching ", 0) == 0) continue;  // the header says it
    log_.push_back(std::move(line));
  }
  if (log_.size() > kLogLines) log_.erase(log_.begin(), log_.end() - kLogLines);
}

Decision PersonBot::Decide(const SeatState& state) {
  absl::MutexLock lock(&mu_);
  state_ = state;
  have_state_ = true;
  chooser_.Begin(state);
  decision_.reset();
  info_.status.clear();  // news of the last decision
  DrawLocked();
  // The person has until the prompt's deadline; past it the server's autopilot
  // answers, and whatever is sent now is refused or is what the autopilot does.
  const absl::Time give_up = state.options.deadline + absl::Seconds(1);
  while (!decision_ && !abandoned_ && absl::Now() < give_up) {
    mu_.AwaitWithDeadline(absl::Condition(
                              +[](PersonBot* b) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                return b->decision_.has_value() || b->abandoned_;
                              },
                              this),
                          std::min(give_up, absl::Now() + absl::Seconds(1)));
  }
  Decision answer = decision_ ? *decision_ : FirstOption(state.options);
  if (!decision_ && !abandoned_) info_.status = "The clock ran out: the autopilot played.";
  decision_.reset();
  chooser_.End();
  DrawLocked();
  return answer;
}

void PersonBot::Keys(absl::string_view bytes) {
  bool leave = false;
  {
    absl::MutexLock lock(&mu_);
    for (KeyPress key : decoder_.Feed(bytes)) {
      if (finished_) {
        key_after_finish_ = true;
        continue;
      }
      if (key.key == Key::kChar && key.ch == '\x03') key.ch = 'q';  // Ctrl-C
      Chooser::Outcome out = chooser_.Handle(key);
      if (out.decision) decision_ = out.decision;
      if (out.leave) leave = true;
    }
    if (leave) info_.status = "Leaving: the autopilot plays your seat...";
    DrawLocked();
  }
  if (!leave) return;
  // The seat leaves first, so that no answer of the person's goes after it.
  if (on_leave_) on_leave_();
  Abandon();
}

void PersonBot::Tick() {
  absl::MutexLock lock(&mu_);
  DrawLocked();
}

void PersonBot::Abandon() {
  absl::MutexLock lock(&mu_);
  abandoned_ = true;
}

void PersonBot::SetStatus(const std::string& status) {
  absl::MutexLock lock(&mu_);
  info_.status = status;
  DrawLocked();
}

void PersonBot::Finish(const SeatState& state, const std::string& status) {
  absl::MutexLock lock(&mu_);
  if (state.seat >= 0) {
    state_ = state;
    have_state_ = true;
  }
  chooser_.End();
  finished_ = true;
  info_.status = status;
  DrawLocked();
}

bool PersonBot::AwaitDeciding(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(
      absl::Condition(
          +[](Chooser* c) ABSL_NO_THREAD_SAFETY_ANALYSIS { return c->open(); },
          &chooser_),
      timeout);
}

bool PersonBot::WaitAnyKey(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&key_after_finish_), timeout);
}

void PersonBot::DrawLocked() {
  if (!have_state_) return;
  ScreenInfo info = info_;
  info.log = log_;
  const std::string frame = Frame(ScreenLines(state_, chooser_, info, absl::Now()));
  std::fwrite(frame.data(), 1, frame.size(), out_);
  std::fflush(out_);
}

}  // namespace trix::bots
