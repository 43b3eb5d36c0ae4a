#include "bots/sdk/testing/local_table.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proto/wire/wire.h"

namespace trix::bots {

LocalTable::LocalTable(const LocalTableOptions& options)
    : now_(absl::FromUnixSeconds(1700000000)) {
  v1::internal::TableSettings settings;
  *settings.mutable_mode() = wire::ModeFromName(options.mode).value();
  settings.mutable_rules()->set_kingdoms(options.kingdoms);
  settings.mutable_rules()->set_doubling(options.doubling);
  settings.mutable_clocks()->set_contract_ms(10000);
  settings.mutable_clocks()->set_doubling_ms(10000);
  settings.mutable_clocks()->set_card_ms(10000);
  settings.set_seed(options.seed);
  std::array<table::SeatRecord, 4> seats;
  for (int s = 0; s < 4; ++s) {
    seats[s].player_id = absl::StrCat("p", s);
    seats[s].display_name = absl::StrCat("Player ", s);
    seats[s].stake = options.stakes[s];
    seats[s].token_hash = absl::StrCat("hash", s);
  }
  absl::StatusOr<std::unique_ptr<table::Table>> table =
      table::Table::Create("local", settings, seats, now_);
  if (!table.ok()) ADD_FAILURE() << table.status();
  table_ = *std::move(table);
  table_->Advance(now_);
}

std::vector<v1::TableUpdate> LocalTable::Updates(int seat) {
  uint64_t after_seq = 0;
  if (subscribed_[seat]) {
    // A prompt after nothing would tell the seat of another seat's secret move.
    if (table_->last_seq(seat) == seen_[seat]) return {};
    after_seq = seen_[seat];
  }
  subscribed_[seat] = true;
  seen_[seat] = table_->last_seq(seat);
  absl::StatusOr<std::vector<v1::TableUpdate>> updates =
      table_->StreamStart(seat, after_seq);
  if (!updates.ok()) ADD_FAILURE() << updates.status();
  return updates.ok() ? *std::move(updates) : std::vector<v1::TableUpdate>();
}

absl::StatusOr<v1::ActResponse> LocalTable::Act(int seat, const Decision& decision) {
  v1::ActRequest request;
  request.set_request_id(absl::StrCat("r", ++requests_));
  FillAction(decision, &request);
  now_ += absl::Milliseconds(1);
  absl::StatusOr<table::Step> step = table_->Act(seat, request, now_);
  if (!step.ok()) return step.status();
  return step->response;
}

absl::StatusOr<v1::ActResponse> LocalTable::Act(int seat, const v1::ActRequest& request) {
  if (const std::optional<v1::ActResponse> answer = table_->FindAnswer(seat, request.request_id())) {
    return *answer;
  }
  now_ += absl::Milliseconds(1);
  absl::StatusOr<table::Step> step = table_->Act(seat, request, now_);
  if (!step.ok()) return step.status();
  return step->response;
}

bool LocalTable::PlayOthers(int seat) {
  bool any = false;
  for (bool acted = true; acted && !over();) {
    acted = false;
    for (int other = 0; other < 4; ++other) {
      if (other == seat) continue;
      std::optional<v1::Prompt> prompt = table_->PromptFor(other);
      if (!prompt) continue;
      v1::ActRequest request;
      request.set_request_id(absl::StrCat("other", ++requests_));
      switch (prompt->phase()) {
        case v1::PHASE_CHOOSING_CONTRACT:
          request.mutable_choose_contract()->set_contract(
              static_cast<v1::Contract>(prompt->available_contracts(0)));
          break;
        case v1::PHASE_DOUBLING:
          request.mutable_select_doubles()->set_ready(true);
          break;
        default:
          request.mutable_play_card()->set_card(prompt->legal_cards(0));
          break;
      }
      now_ += absl::Milliseconds(1);
      absl::StatusOr<table::Step> step = table_->Act(other, request, now_);
      if (!step.ok()) ADD_FAILURE() << step.status();
      if (step.ok()) acted = any = true;
    }
  }
  return any;
}

void LocalTable::ExpireClock() {
  if (std::optional<absl::Time> deadline = table_->deadline()) now_ = *deadline;
  table_->Advance(now_);
}

absl::Status LocalTable::PlayToEnd(const std::array<Bot*, 4>& bots, const Check& check) {
  // Bounded: a classic game has about 1,200 decisions.
  for (int round = 0; round < 100000 && !over(); ++round) {
    bool acted = false;
    for (int seat = 0; seat < 4; ++seat) {
      for (const v1::TableUpdate& update : Updates(seat)) {
        absl::StatusOr<bool> must_act = trackers_[seat].Apply(update, bots[seat]);
        if (!must_act.ok()) return must_act.status();
        if (check) check(seat, trackers_[seat]);
        if (!*must_act) continue;
        const SeatState& state = trackers_[seat].state();
        const Decision decision = bots[seat]->Decide(state);
        if (!IsAllowed(decision, state.options)) {
          return absl::InternalError(
              absl::StrCat("seat ", seat, " chose ", DescribeDecision(decision),
                           ", not an option: ", DescribeState(state)));
        }
        absl::StatusOr<v1::ActResponse> response = Act(seat, decision);
        if (!response.ok()) {
          return absl::InternalError(absl::StrCat(
              "seat ", seat, ": ", DescribeDecision(decision),
              " refused: ", response.status().ToString(), "; ", DescribeState(state)));
        }
        acted = true;
      }
    }
    if (!acted && !over()) {
      // Everyone is waiting: only a doubling phase with every seat ready can do
      // that, and the server ends it at once; anything else is a bug.
      return absl::InternalError("no seat could act");
    }
  }
  // The last events (the game's end) for every tracker.
  for (int seat = 0; seat < 4; ++seat) {
    for (const v1::TableUpdate& update : Updates(seat)) {
      absl::StatusOr<bool> must_act = trackers_[seat].Apply(update, bots[seat]);
      if (!must_act.ok()) return must_act.status();
      if (check) check(seat, trackers_[seat]);
    }
  }
  return over() ? absl::OkStatus() : absl::DeadlineExceededError("the game did not end");
}

}  // namespace trix::bots
