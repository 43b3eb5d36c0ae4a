#include "services/ratings/ledger.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/result.h"
#include "services/common/logging.h"
#include "services/ratings/store/ledger_store.h"

namespace trix::ratings {
namespace {

// The world accounts a player's credits and debits move through (migration 0028).
constexpr uint64_t kWorldShards = 16;

// A stable choice (FNV-1a of the player id): a player's statement of outside money
// always names the same world account.
std::string WorldAccount(const std::string& player_id) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : player_id) h = (h ^ c) * 1099511628211ull;
  return absl::StrCat("world:", h % kWorldShards);
}

// An id as the rest of the system takes it (a table seat's player_id, an Act's
// request_id): present and at most 128 bytes.
absl::Status CheckId(absl::string_view what, const std::string& id) {
  if (id.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " is required"));
  if (id.size() > 128) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is longer than 128 bytes"));
  }
  return absl::OkStatus();
}

// Whether an earlier entry under the same request_id is this very request: the
// same kind, reason, and amount on this player's account.
bool SameTransfer(const PostedTransfer& seen, EntryKind kind, int64_t signed_amount,
                  const std::string& reason) {
  return seen.kind == kind && seen.reason == reason && seen.amount == signed_amount;
}

}  // namespace

std::string PlayerAccount(const std::string& player_id) {
  return absl::StrCat("player:", player_id);
}

absl::Status Ledger::CheckTransfer(const std::string& request_id, const std::string& player_id,
                                   int64_t amount, const std::string& reason) const {
  if (absl::Status s = CheckId("request_id", request_id); !s.ok()) return s;
  if (absl::Status s = CheckId("player_id", player_id); !s.ok()) return s;
  if (amount <= 0) return absl::InvalidArgumentError("amount must be positive");
  if (amount > options_.max_transfer) {
    return absl::InvalidArgumentError(absl::StrCat(
        "amount ", amount, " is above the largest transfer, ", options_.max_transfer));
  }
  if (reason.size() > 512) return absl::InvalidArgumentError("reason is longer than 512 bytes");
  return absl::OkStatus();
}

absl::StatusOr<Transfer> Ledger::Move(EntryKind kind, const std::string& request_id,
                                      const std::string& player_id, int64_t amount,
                                      const std::string& reason) {
  if (absl::Status s = CheckTransfer(request_id, player_id, amount, reason); !s.ok()) {
    return s;
  }
  const int64_t signed_amount = kind == EntryKind::kCredit ? amount : -amount;
  Transfer out;
  absl::Status s = store_->Transact("moving money", [&](LedgerTransaction& tx) -> absl::Status {
    // A retry racing its original waits for it and then sees its answer.
    tx.LockKey(request_id);
    if (std::optional<PostedTransfer> seen =
            tx.FindTransfer(request_id, PlayerAccount(player_id))) {
      if (!SameTransfer(*seen, kind, signed_amount, reason)) {
        return absl::AlreadyExistsError("request_id was used with other arguments");
      }
      out.entry_id = seen->entry_id;
      out.balance = tx.LockBalance(player_id).value_or(BalanceInfo{});
      return absl::OkStatus();
    }
    if (kind == EntryKind::kCredit) tx.OpenAccount(PlayerAccount(player_id), "player");
    const std::optional<BalanceInfo> before = tx.LockBalance(player_id);
    if (!before) return absl::NotFoundError("no account for this player");
    if (absl::Status s = CheckRoom(kind, *before, amount); !s.ok()) return s;
    out.entry_id = tx.PostEntry(kind, request_id, "", reason,
                                {{PlayerAccount(player_id), signed_amount},
                                 {WorldAccount(player_id), -signed_amount}});
    out.balance = *before;
    out.balance.balance += signed_amount;
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::Status Ledger::CheckRoom(EntryKind kind, const BalanceInfo& before, int64_t amount) const {
  if (kind == EntryKind::kDebit && before.available() < amount) {
    return absl::FailedPreconditionError(absl::StrCat(
        "insufficient balance: ", before.available(), " available, ", amount, " asked"));
  }
  if (kind == EntryKind::kCredit && before.balance > options_.max_balance - amount) {
    return absl::FailedPreconditionError(
        absl::StrCat("a credit of ", amount, " would take the balance of ", before.balance,
                     " above the largest balance, ", options_.max_balance));
  }
  return absl::OkStatus();
}

absl::StatusOr<BalanceInfo> Ledger::GetBalance(const std::string& player_id) {
  if (player_id.empty()) return absl::InvalidArgumentError("player_id is required");
  absl::StatusOr<std::optional<BalanceInfo>> balance = store_->ReadBalance(player_id);
  if (!balance.ok()) return balance.status();
  if (!*balance) return absl::NotFoundError("no account for this player");
  return **balance;
}

absl::StatusOr<StatementPage> Ledger::GetStatement(const std::string& player_id, int page_size,
                                                   const std::string& page_token) {
  if (player_id.empty()) return absl::InvalidArgumentError("player_id is required");
  if (page_size < 0 || page_size > 500) {
    return absl::InvalidArgumentError("page_size must be 0 to 500");
  }
  if (page_size == 0) page_size = 50;
  int64_t before = INT64_MAX;
  if (!page_token.empty() && (!absl::SimpleAtoi(page_token, &before) || before <= 0)) {
    return absl::InvalidArgumentError("bad page_token");
  }
  absl::StatusOr<std::optional<std::vector<StatementEntry>>> lines =
      store_->ReadStatement(player_id, before, page_size + 1);
  if (!lines.ok()) return lines.status();
  if (!*lines) return absl::NotFoundError("no account for this player");
  StatementPage page;
  page.lines = std::move(**lines);
  if (static_cast<int>(page.lines.size()) > page_size) {
    page.lines.resize(page_size);
    page.next_page_token = absl::StrCat(page.lines.back().entry_id);
  }
  return page;
}

namespace {

// HoldStake's replaced hold, locked: released when held, passed over when
// released already, refused otherwise.
absl::Status ReleaseReplaced(LedgerTransaction& tx, const std::string& hold_id,
                             const std::string& player_id) {
  std::optional<HoldInfo> old = tx.LockHold(hold_id);
  if (!old) return absl::NotFoundError("no such hold to replace");
  if (old->player_id != player_id) {
    return absl::InvalidArgumentError("the hold to replace is another player's");
  }
  if (old->state == HoldState::kReleased) return absl::OkStatus();
  if (old->state != HoldState::kHeld) {
    return absl::FailedPreconditionError(
        "the hold to replace is attached to a table or settled");
  }
  tx.ReleaseHold(*old);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HoldInfo> Ledger::HoldStake(const std::string& request_id,
                                           const std::string& player_id, int64_t amount,
                                           const std::string& replaces_hold_id) {
  if (absl::Status s = CheckId("request_id", request_id); !s.ok()) return s;
  if (absl::Status s = CheckId("player_id", player_id); !s.ok()) return s;
  if (amount <= 0) return absl::InvalidArgumentError("amount must be positive");
  HoldInfo out;
  absl::Status s = store_->Transact("holding a stake", [&](LedgerTransaction& tx) -> absl::Status {
    tx.LockKey(request_id);
    if (std::optional<HoldInfo> seen = tx.FindHoldByRequest(request_id)) {
      out = *seen;
      if (out.player_id != player_id || out.amount != amount) {
        return absl::AlreadyExistsError("request_id was used with other arguments");
      }
      return absl::OkStatus();
    }
    if (!replaces_hold_id.empty()) {
      if (absl::Status r = ReleaseReplaced(tx, replaces_hold_id, player_id); !r.ok()) return r;
    }
    const std::optional<BalanceInfo> balance = tx.LockBalance(player_id);
    if (!balance) return absl::NotFoundError("no account for this player");
    if (balance->available() < amount) {
      return absl::FailedPreconditionError(absl::StrCat(
          "insufficient balance: ", balance->available(), " available, ", amount, " asked"));
    }
    tx.AddHeld(player_id, amount);
    out = tx.AddHold(request_id, player_id, amount);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<HoldInfo> Ledger::ReleaseHold(const std::string& hold_id,
                                             const std::string& table_id) {
  if (hold_id.empty()) return absl::InvalidArgumentError("hold_id is required");
  HoldInfo out;
  absl::Status s = store_->Transact("releasing a hold", [&](LedgerTransaction& tx) -> absl::Status {
    std::optional<HoldInfo> hold = tx.LockHold(hold_id);
    if (!hold) return absl::NotFoundError("no such hold");
    out = *hold;
    if (out.state == HoldState::kReleased) return absl::OkStatus();
    if (out.state == HoldState::kSettled) {
      return absl::FailedPreconditionError("the hold was settled by its table's result");
    }
    if (out.state == HoldState::kAttached && table_id != out.table_id) {
      return absl::FailedPreconditionError(
          table_id.empty() ? "the hold is attached to a table: name it (table_id) to release it"
                           : "the hold is attached to another table");
    }
    tx.ReleaseHold(out);
    out.state = HoldState::kReleased;
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<HoldInfo> Ledger::AttachHold(const std::string& hold_id,
                                            const std::string& table_id, int seat) {
  if (hold_id.empty()) return absl::InvalidArgumentError("hold_id is required");
  if (absl::Status s = CheckId("table_id", table_id); !s.ok()) return s;
  if (seat < 0 || seat >= kSeats) return absl::InvalidArgumentError("seat must be 0 to 3");
  HoldInfo out;
  absl::Status s = store_->Transact("attaching a hold", [&](LedgerTransaction& tx) -> absl::Status {
    std::optional<HoldInfo> hold = tx.LockHold(hold_id);
    if (!hold) return absl::NotFoundError("no such hold");
    out = *hold;
    if (out.state == HoldState::kAttached) {
      if (out.table_id == table_id && out.seat == seat) return absl::OkStatus();
      return absl::FailedPreconditionError("the hold is attached to another table or seat");
    }
    if (out.state != HoldState::kHeld) {
      return absl::FailedPreconditionError("the hold was released or settled");
    }
    // Attaches to one table seat queue here, so two of them cannot both pass the
    // check below.
    tx.LockKey(absl::StrCat("seat ", seat, " of ", table_id));
    if (tx.SeatTaken(table_id, seat)) {
      return absl::FailedPreconditionError("another hold is attached to that table and seat");
    }
    tx.AttachHold(hold_id, table_id, seat);
    out.state = HoldState::kAttached;
    out.table_id = table_id;
    out.seat = seat;
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<HoldInfo> Ledger::KeepHold(const std::string& hold_id) {
  if (hold_id.empty()) return absl::InvalidArgumentError("hold_id is required");
  HoldInfo out;
  absl::Status s = store_->Transact("keeping a hold", [&](LedgerTransaction& tx) -> absl::Status {
    std::optional<HoldInfo> hold = tx.LockHold(hold_id);
    if (!hold) return absl::NotFoundError("no such hold");
    out = *hold;
    if (out.state == HoldState::kAttached) return absl::OkStatus();
    if (out.state != HoldState::kHeld) {
      return absl::FailedPreconditionError("the hold was released or settled");
    }
    tx.KeepHold(hold_id);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<int> Ledger::ReleaseExpiredHolds(int limit) {
  const HoldTtls ttls{options_.held_ttl, options_.attached_ttl};
  absl::StatusOr<std::vector<std::string>> expired = store_->FindSweepable(ttls, limit);
  if (!expired.ok()) return expired.status();
  int released = 0;
  for (const std::string& hold_id : *expired) {
    std::optional<HoldInfo> swept;
    absl::Status s = store_->Transact("releasing an expired hold", [&](LedgerTransaction& tx) {
      std::optional<HoldInfo> hold = tx.LockHold(hold_id);
      // Still open and past its TTL: another replica may have been first.
      if (!hold || !tx.Sweepable(hold_id, ttls)) return absl::OkStatus();
      tx.ReleaseHold(*hold);
      swept = hold;
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    if (!swept) continue;
    ++released;
    service::LogInfo("hold past its TTL released",
                     {{"hold", hold_id}, {"player", swept->player_id},
                      {"state", swept->state == HoldState::kHeld ? "held" : "attached"},
                      {"table", swept->table_id}});
  }
  return released;
}

absl::StatusOr<OpenHolds> Ledger::GetOpenHolds() {
  return store_->ReadOpenHolds({options_.held_ttl, options_.attached_ttl});
}

namespace {

// Why seat `s`'s stake has no hold to settle against; "" when it has one.
std::string UnheldReason(const FinishedSeat& s, const std::vector<HoldInfo>& holds) {
  for (const HoldInfo& h : holds) {
    if (h.seat != s.seat) continue;
    if (h.player_id != s.player_id) return "the hold attached to it is another player's";
    if (h.amount != s.stake) {
      return absl::StrCat("the hold attached to it is ", h.amount, ", the stake ", s.stake);
    }
    return "";
  }
  return "no hold attached to it";
}

// The payouts of the held stakes: the result's own when every stake is held, else
// the engine's split of the held stakes alone (the unheld seats as non-stakers).
engine::Payouts PayoutsOf(const FinishedGame& game, const engine::Stakes& held, bool all_held) {
  engine::Payouts payouts{};
  if (all_held) {
    for (const FinishedSeat& s : game.seats) payouts[s.seat] = s.payout;
    return payouts;
  }
  engine::Scores totals{};
  for (const FinishedSeat& s : game.seats) totals[s.seat] = static_cast<int32_t>(s.total);
  return engine::ResultOf(VariantOf(game.mode), totals, held).payouts;
}

// Settles the plan's held stakes against the table's locked holds: the holds of
// held seats leave `held`, every other hold is released, one STAKE entry moves the
// held stakes into the pot and one PAYOUT entry empties it, and the holds that
// backed the stakes become settled. A settled hold leaves `held` before its stake
// leaves `balance`: the other order breaks the account's held <= balance in
// between whenever the stake is more than half the balance.
Settlement ApplySettlement(LedgerTransaction& tx, const FinishedGame& game,
                           const std::vector<HoldInfo>& holds,
                           const SettlementPlan& plan) {
  Settlement out = plan.settlement;
  std::vector<std::string> settled;
  for (const HoldInfo& h : holds) {
    if (plan.held[h.seat] == 0) {  // not the hold of its seat's stake
      tx.ReleaseHold(h);
      ++out.released_holds;
      continue;
    }
    tx.AddHeld(h.player_id, -h.amount);
    settled.push_back(h.hold_id);
  }
  if (plan.stakes.empty()) return out;
  tx.OpenAccount(PotAccount(game.game_id), "pot");
  const int64_t stake_entry =
      tx.PostEntry(EntryKind::kStake, "", game.game_id, "stake", plan.stakes);
  tx.PostEntry(EntryKind::kPayout, "", game.game_id, "payout", plan.payouts);
  out.moved = true;
  for (const std::string& hold_id : settled) tx.SettleHold(hold_id, stake_entry);
  return out;
}

// Whether every staked seat of `game` has its own hold among `holds`.
bool EveryStakeHeld(const FinishedGame& game, const std::vector<HoldInfo>& holds) {
  for (const FinishedSeat& s : game.seats) {
    if (s.stake > 0 && !UnheldReason(s, holds).empty()) return false;
  }
  return true;
}

// The pot's STAKE and PAYOUT lines for the stakes in `held`.
void PlanLines(const FinishedGame& game, SettlementPlan& plan) {
  const engine::Payouts payouts =
      PayoutsOf(game, plan.held, plan.settlement.unheld_seats == 0);
  const std::string pot = PotAccount(game.game_id);
  for (const FinishedSeat& s : game.seats) {
    if (plan.held[s.seat] > 0) {
      plan.stakes[PlayerAccount(s.player_id)] -= plan.held[s.seat];
      plan.stakes[pot] += plan.held[s.seat];
    }
    if (payouts[s.seat] > 0) {
      plan.payouts[PlayerAccount(s.player_id)] += payouts[s.seat];
      plan.payouts[pot] -= payouts[s.seat];
    }
  }
}

}  // namespace

std::string PotAccount(const std::string& game_id) {
  return absl::StrCat("pot:", game_id);
}

std::vector<HoldInfo> ExpectedHolds(const FinishedGame& game) {
  std::vector<HoldInfo> holds;
  for (const FinishedSeat& s : game.seats) {
    if (s.stake == 0) continue;
    HoldInfo h;
    h.player_id = s.player_id;
    h.amount = s.stake;
    h.state = HoldState::kAttached;
    h.table_id = game.game_id;
    h.seat = s.seat;
    holds.push_back(h);
  }
  return holds;
}

SettlementPlan PlanSettlement(const FinishedGame& game,
                              const std::vector<HoldInfo>& holds) {
  SettlementPlan plan;
  if (game.voided) return {{"voided", game.void_reason}};
  if (!game.staked()) return {{"unstaked", ""}};
  if (!game.money_problem.empty()) return {{"unsettled", game.money_problem}};
  for (const FinishedSeat& s : game.seats) {
    if (s.payout > 0 && s.stake == 0) {
      return {{"unsettled", absl::StrCat("seat ", s.seat, " is paid but did not stake")}};
    }
  }
  plan.settlement = {"settled", ""};
  std::vector<std::string> unheld;
  for (const FinishedSeat& s : game.seats) {
    if (s.stake == 0) continue;
    const std::string why = UnheldReason(s, holds);
    if (why.empty()) {
      plan.held[s.seat] = s.stake;
    } else {
      unheld.push_back(absl::StrCat("seat ", s.seat, " (", s.player_id, ") settled nothing: ", why));
    }
  }
  plan.settlement.unheld_seats = static_cast<int>(unheld.size());
  if (!unheld.empty()) {
    plan.settlement.outcome = "unheld";
    plan.settlement.note = absl::StrJoin(unheld, "; ");
  }
  PlanLines(game, plan);
  return plan;
}

Settlement Ledger::Settle(LedgerTransaction& tx, const FinishedGame& game,
                          const SettlementPlan& planned) {
  const std::string& outcome = planned.settlement.outcome;
  if (outcome == "unstaked" || outcome == "unsettled") return planned.settlement;
  const std::vector<HoldInfo> holds = tx.LockTableHolds(game.game_id);
  if (outcome == "voided" || EveryStakeHeld(game, holds)) {
    return ApplySettlement(tx, game, holds, planned);
  }
  return ApplySettlement(tx, game, holds, PlanSettlement(game, holds));
}

}  // namespace trix::ratings
