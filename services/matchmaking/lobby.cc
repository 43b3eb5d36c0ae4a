#include "services/matchmaking/lobby.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"

namespace trix::matchmaking {
namespace {

using google::protobuf::util::TimeUtil;

bool KnownMode(const v1::Mode& m) {
  return (m.team() == v1::TEAM_SOLO || m.team() == v1::TEAM_PARTNER) &&
         (m.format() == v1::FORMAT_CLASSIC || m.format() == v1::FORMAT_COMPLEX);
}

}  // namespace

v1::Assignment ToAssignment(const AssignmentRow& row) {
  v1::Assignment a;
  a.set_ticket_id(row.ticket_id);
  a.set_table_id(row.table_id);
  a.set_address(row.address);
  a.set_seat(row.seat);
  a.set_seat_token(row.seat_token);
  a.mutable_mode()->set_team(static_cast<v1::Team>(row.team));
  a.mutable_mode()->set_format(static_cast<v1::Format>(row.format));
  a.set_stake(row.stake);
  *a.mutable_matched() = TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(row.matched));
  *a.mutable_possible() =
      TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(row.possible));
  return a;
}

Lobby::Lobby(LobbyOptions options, TicketStore* store, std::unique_ptr<RatingsClient> ratings,
             Matcher* matcher, HoldReleases* releases, std::unique_ptr<TableStates> tables)
    : options_(std::move(options)),
      store_(store),
      ratings_(std::move(ratings)),
      matcher_(matcher),
      releases_(releases),
      tables_(std::move(tables)) {}

Lobby::~Lobby() { Stop(); }

void Lobby::Start() {
  admit_thread_ = std::thread([this] { AdmitLoop(); });
  poll_thread_ = std::thread([this] { PollLoop(); });
  housekeeping_thread_ = std::thread([this] { Housekeeping(); });
}

void Lobby::Stop() {
  std::map<std::string, Open> open;
  {
    absl::MutexLock lock(&mu_);
    if (stop_) return;
    stop_ = true;
    open.swap(open_);
  }
  if (admit_thread_.joinable()) admit_thread_.join();
  if (poll_thread_.joinable()) poll_thread_.join();
  if (housekeeping_thread_.joinable()) housekeeping_thread_.join();
  for (auto& [id, o] : open) {
    o.sink->End(absl::UnavailableError("matchmaking is draining; resubmit"));
  }
  absl::MutexLock lock(&mu_);
  for (Pending& p : admissions_) {
    p.sink->End(absl::UnavailableError("matchmaking is draining; resubmit"));
  }
  admissions_.clear();
}

absl::Status Lobby::Validate(Pending& p) {
  v1::FindTableRequest& r = p.request;
  if (r.request_id().empty()) return absl::InvalidArgumentError("request_id is required");
  if (r.request_id().size() > 128) {
    return absl::InvalidArgumentError("request_id is longer than 128 bytes");
  }
  // The table seats the player under this name, and takes at most 64 bytes.
  if (r.display_name().size() > 64) {
    return absl::InvalidArgumentError("display_name is longer than 64 bytes");
  }
  if (r.party_id().size() > 128) {
    return absl::InvalidArgumentError("party_id is longer than 128 bytes");
  }
  if (!r.has_mode() || (r.mode().team() == 0 && r.mode().format() == 0)) {
    r.mutable_mode()->set_team(v1::TEAM_PARTNER);  // Quick Play
    r.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
  }
  if (!KnownMode(r.mode())) return absl::InvalidArgumentError("unknown mode");
  if (absl::Status s = CheckStake(r.stake(), options_.stake_levels, ratings_ != nullptr);
      !s.ok()) {
    return s;
  }
  const std::string name = PoolName(r.mode(), r.stake());
  for (const PoolSpec& spec : options_.pools) {
    if (spec.name == name) p.spec = &spec;
  }
  if (p.spec == nullptr) return absl::InvalidArgumentError("no pool for this mode and stake");
  return absl::OkStatus();
}

void Lobby::FindTable(const std::string& player_id, const v1::FindTableRequest& request,
                      std::shared_ptr<TicketSink> sink, std::string consent) {
  Pending p{.player_id = player_id, .request = request, .sink = std::move(sink)};
  p.consent = std::move(consent);
  if (absl::Status s = Validate(p); !s.ok()) {
    p.sink->End(s);
    return;
  }
  absl::MutexLock lock(&mu_);
  if (stop_) {
    p.sink->End(absl::UnavailableError("matchmaking is draining; resubmit"));
    return;
  }
  if (admissions_.size() >= options_.max_admissions) {
    p.sink->End(absl::ResourceExhaustedError(
        absl::StrCat("matchmaking has ", admissions_.size(),
                     " requests waiting to be queued; retry in a moment")));
    return;
  }
  admissions_.push_back(std::move(p));
}

void Lobby::Closed(const std::shared_ptr<TicketSink>& sink) {
  absl::MutexLock lock(&mu_);
  for (auto it = open_.begin(); it != open_.end(); ++it) {
    if (it->second.sink == sink) {
      cancellations_.push_back(it->first);
      open_.erase(it);
      return;
    }
  }
}

std::shared_ptr<TicketSink> Lobby::Take(const std::string& ticket_id) {
  absl::MutexLock lock(&mu_);
  auto it = open_.find(ticket_id);
  if (it == open_.end()) return nullptr;
  std::shared_ptr<TicketSink> sink = std::move(it->second.sink);
  open_.erase(it);
  return sink;
}

void Lobby::Reconcile() {
  if (ratings_ == nullptr) return;
  absl::StatusOr<std::vector<AssignmentRow>> staked = store_->LiveStakedAssignments();
  if (!staked.ok()) {
    service::LogWarn("cannot read the live staked seats",
                     {{"error", staked.status().ToString()}});
    return;
  }
  std::map<std::string, TableEnd> ends;  // by table
  std::vector<AssignmentRow> live;
  for (const AssignmentRow& a : *staked) {
    {
      absl::MutexLock lock(&mu_);
      if (stop_) return;
    }
    auto it = ends.find(a.table_id);
    if (it == ends.end()) {
      it = ends.emplace(a.table_id, EndOf(a.address, a.table_id)).first;
      if (it->second != TableEnd::kLive) EndTable(a.table_id, it->second);
    }
    if (it->second == TableEnd::kLive) live.push_back(a);
  }
  AttachHolds(live);
  if (absl::Status s = releases_->Reconcile(); !s.ok()) {
    service::LogWarn("cannot reconcile ended tickets' holds", {{"error", s.ToString()}});
  }
}

void Lobby::EndTable(const std::string& table_id, TableEnd end) {
  if (end == TableEnd::kLive || end == TableEnd::kUnknown) return;
  const char* reason = end == TableEnd::kOver     ? kReleaseGameOver
                       : end == TableEnd::kVoided ? kReleaseVoided
                                                  : kReleaseGone;
  if (absl::Status s = releases_->EndTable(table_id, reason); !s.ok()) {
    service::LogWarn("cannot end a table's seats", {{"table", table_id}, {"error", s.ToString()}});
  }
}

void Lobby::Housekeeping() {
  Reconcile();
  absl::Time reconciled = absl::Now();
  absl::Time kept = absl::Now();
  constexpr int kSweepBatch = 5000;
  bool failing = false;
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
      mu_.AwaitWithTimeout(absl::Condition(&stopped),
                           std::min({options_.sweep_every, options_.reconcile_every,
                                     options_.keep_holds_every}));
      if (stop_) return;
    }
    if (absl::Now() - kept >= options_.keep_holds_every) {
      kept = absl::Now();
      KeepWaitingHolds();
    }
    if (absl::Now() - reconciled >= options_.reconcile_every) {
      reconciled = absl::Now();
      Reconcile();
    }
    // Batches until one comes back short: a backlog (after a pause) goes in one go.
    absl::StatusOr<int64_t> swept;
    do {
      swept = store_->SweepEnded(options_.keep_ended, kSweepBatch);
    } while (swept.ok() && *swept >= kSweepBatch);
    if (swept.ok() == failing) {  // one line per change, not one per sweep
      failing = !swept.ok();
      if (failing) {
        service::LogWarn("cannot sweep ended tickets", {{"error", swept.status().ToString()}});
      } else {
        service::LogInfo("sweeping ended tickets again");
      }
    }
  }
}

void Lobby::KeepWaitingHolds() {
  if (ratings_ == nullptr) return;
  std::vector<std::string> ids;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, open] : open_) {
      if (open.spec->stake > 0) ids.push_back(id);
    }
  }
  if (ids.empty()) return;
  absl::StatusOr<std::vector<TicketRow>> tickets = store_->Tickets(ids);
  if (!tickets.ok()) {
    service::LogWarn("cannot read the waiting staked tickets",
                     {{"error", tickets.status().ToString()}});
    return;
  }
  std::vector<std::string> unheld;
  for (const TicketRow& t : *tickets) {
    if (t.hold_id.empty() || t.status != "waiting") continue;
    absl::StatusOr<v1::HoldState> state = KeepHold(t.hold_id);
    if (state.ok()) continue;
    if (absl::IsNotFound(state.status()) || absl::IsFailedPrecondition(state.status())) {
      unheld.push_back(t.ticket_id);
      continue;
    }
    // The ratings service is away: these holds are kept at the next round.
    service::LogWarn("cannot keep waiting tickets' stake holds",
                     {{"ticket", t.ticket_id}, {"error", state.status().ToString()}});
    break;
  }
  if (!unheld.empty()) EndUnheld(unheld);
}

HoldCheck Lobby::CheckHolds(const std::vector<std::string>& ticket_ids) {
  HoldCheck check;
  if (ratings_ == nullptr) return check;
  absl::StatusOr<std::vector<TicketRow>> tickets = store_->Tickets(ticket_ids);
  if (!tickets.ok()) {
    check.unchecked.insert(ticket_ids.begin(), ticket_ids.end());
    return check;
  }
  for (const TicketRow& t : *tickets) {
    absl::StatusOr<v1::HoldState> state =
        t.hold_id.empty() ? absl::NotFoundError("the ticket carries no hold")
                          : KeepHold(t.hold_id);
    if (state.ok() && *state == v1::HOLD_STATE_HELD) continue;
    // Attached to another seat, released or unknown: this seat could not settle.
    const bool gone = state.ok() || absl::IsNotFound(state.status()) ||
                      absl::IsFailedPrecondition(state.status());
    (gone ? check.gone : check.unchecked).insert(t.ticket_id);
  }
  return check;
}

void Lobby::EndUnheld(const std::vector<std::string>& ticket_ids) {
  absl::StatusOr<std::vector<TicketRow>> gone = store_->Cancel(ticket_ids);
  if (!gone.ok()) {
    service::LogWarn("cannot end tickets whose hold is gone",
                     {{"error", gone.status().ToString()}});
    return;
  }
  std::vector<std::string> ids;
  for (const TicketRow& t : *gone) {
    ids.push_back(t.ticket_id);
    service::LogWarn("a waiting ticket's stake hold is gone; the ticket ends",
                     {{"ticket", t.ticket_id}, {"hold", t.hold_id}});
    if (std::shared_ptr<TicketSink> sink = Take(t.ticket_id)) {
      sink->End(absl::FailedPreconditionError(
          "the stake held for this ticket was given back; request again"));
    }
  }
  if (matcher_ != nullptr) matcher_->Withdraw(ids);
}

void Lobby::AdmitLoop() {
  for (;;) {
    std::vector<Pending> batch;
    std::vector<std::string> cancel;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || !admissions_.empty() || !cancellations_.empty();
      };
      mu_.AwaitWithTimeout(absl::Condition(&ready), absl::Milliseconds(100));
      if (stop_) return;
      while (!admissions_.empty() && batch.size() < 1000) {
        batch.push_back(std::move(admissions_.front()));
        admissions_.pop_front();
      }
      // A stream that closed while a retry of its request resumed the ticket
      // leaves the ticket to the retry's stream: it is not cancelled.
      for (std::string& id : cancellations_) {
        if (!open_.count(id)) cancel.push_back(std::move(id));
      }
      cancellations_.clear();
    }
    if (!cancel.empty()) Cancel(cancel);
    if (!batch.empty()) AdmitBatch(batch);
  }
}

void Lobby::Cancel(const std::vector<std::string>& cancel) {
  // The cancellation records the tickets' hold releases (migration 0030).
  absl::StatusOr<std::vector<TicketRow>> gone = store_->Cancel(cancel);
  if (!gone.ok()) {
    // Kept, and tried again with the next batch: a closed stream's ticket is
    // never left queued for nobody.
    service::LogWarn("cannot cancel tickets", {{"error", gone.status().ToString()}});
    absl::SleepFor(absl::Milliseconds(200));
    absl::MutexLock lock(&mu_);
    cancellations_.insert(cancellations_.end(), cancel.begin(), cancel.end());
    return;
  }
  std::vector<std::string> ids;
  for (const TicketRow& t : *gone) ids.push_back(t.ticket_id);
  releases_->Kick();
  if (matcher_ != nullptr) matcher_->Withdraw(ids);
}

void Lobby::Rate(std::vector<Pending*>& batch) {
  std::map<std::string, std::vector<Pending*>> by_mode;
  for (Pending* p : batch) {
    p->row.rating = options_.default_rating;
    p->row.provisional = true;
    by_mode[p->spec->name.substr(0, p->spec->name.find('/'))].push_back(p);
  }
  if (ratings_ == nullptr) return;
  for (auto& [mode, ps] : by_mode) {
    v1::GetRatingsRequest request;
    *request.mutable_mode() = ps.front()->request.mode();
    for (Pending* p : ps) request.add_player_ids(p->player_id);
    absl::StatusOr<v1::GetRatingsResponse> response = ratings_->GetRatings(request);
    if (!response.ok() || response->ratings_size() != static_cast<int>(ps.size())) {
      service::LogWarn("cannot read ratings; using the default",
                       {{"error", std::string(response.status().message())}});
      continue;
    }
    for (size_t i = 0; i < ps.size(); ++i) {
      ps[i]->row.rating = response->ratings(static_cast<int>(i)).display();
      ps[i]->row.provisional = response->ratings(static_cast<int>(i)).provisional();
    }
  }
}

void Lobby::AttachHolds(const std::vector<AssignmentRow>& rows) {
  if (ratings_ == nullptr) return;
  std::vector<std::string> ids;
  std::map<std::string, const AssignmentRow*> by_ticket;
  for (const AssignmentRow& a : rows) {
    if (a.stake > 0 && !a.ticket_id.empty()) {
      ids.push_back(a.ticket_id);
      by_ticket[a.ticket_id] = &a;
    }
  }
  if (ids.empty()) return;
  absl::StatusOr<std::vector<TicketRow>> tickets = store_->Tickets(ids);
  if (!tickets.ok()) return;
  for (const TicketRow& t : *tickets) {
    if (t.hold_id.empty()) continue;
    const AssignmentRow& seat = *by_ticket[t.ticket_id];
    if (absl::Status s = ratings_->AttachHold(t.hold_id, seat.table_id, seat.seat); !s.ok()) {
      service::LogWarn("cannot attach a stake hold",
                       {{"hold", t.hold_id}, {"error", std::string(s.message())}});
    }
    service::Failpoint("lobby.after_attach");
  }
}

void Lobby::AdmitBatch(std::vector<Pending>& batch) {
  std::vector<Pending*> queue = SeatAgain(batch);
  Rate(queue);
  for (Pending* p : queue) FillTicket(*p);
  std::vector<Pending*> admitted = HoldStakes(queue);
  if (!admitted.empty()) Queue(admitted);
}

std::vector<Lobby::Pending*> Lobby::SeatAgain(std::vector<Pending>& batch) {
  // A player whose game is still on gets that seat again instead of a new ticket.
  std::vector<std::string> players;
  for (const Pending& p : batch) players.push_back(p.player_id);
  absl::StatusOr<std::vector<AssignmentRow>> live = store_->LiveAssignmentsOf(players);
  if (!live.ok()) {
    for (Pending& p : batch) p.sink->End(live.status());
    return {};
  }
  std::map<std::string, AssignmentRow> seat_of;
  for (const AssignmentRow& a : *live) {
    const TableEnd end = EndOf(a.address, a.table_id);
    if (end == TableEnd::kLive || end == TableEnd::kUnknown) {
      seat_of[a.player_id] = a;
    } else {
      EndTable(a.table_id, end);
    }
  }
  std::vector<Pending*> queue;
  std::vector<AssignmentRow> again;
  for (Pending& p : batch) {
    auto it = seat_of.find(p.player_id);
    if (it != seat_of.end()) {
      p.sink->Assigned(ToAssignment(it->second));
      again.push_back(it->second);
    } else if (absl::Status s = CheckParty(p); !s.ok()) {
      p.sink->End(s);
    } else {
      queue.push_back(&p);
    }
  }
  // Attaching is idempotent: this finishes what a matchmaking process that died
  // between committing the seats and attaching their holds left undone.
  AttachHolds(again);
  return queue;
}

absl::Status Lobby::CheckParty(const Pending& p) {
  if (p.request.party_id().empty()) return absl::OkStatus();
  absl::StatusOr<PartyRow> party = store_->Party(p.request.party_id());
  if (!party.ok()) return party.status();
  if (std::find(party->members.begin(), party->members.end(), p.player_id) ==
      party->members.end()) {
    return absl::PermissionDeniedError("not a member of this party");
  }
  if (party->members.size() != 2) {
    return absl::FailedPreconditionError(
        "the party has one member; the other must join it first");
  }
  return absl::OkStatus();
}

void Lobby::FillTicket(Pending& p) {
  TicketRow& t = p.row;
  t.ticket_id = service::NewUuid();
  t.request_id = p.request.request_id();
  t.player_id = p.player_id;
  t.display_name = p.request.display_name();
  t.pool = p.spec->name;
  t.team = p.request.mode().team();
  t.format = p.request.mode().format();
  t.stake = p.request.stake();
  t.party_id = p.request.party_id();
  t.queued = absl::Now();
}

void Lobby::Queue(const std::vector<Pending*>& admitted) {
  std::vector<TicketRow> rows;
  for (Pending* p : admitted) rows.push_back(p->row);
  const absl::Time now = absl::Now();
  {
    // Open before the insert commits, so the matcher's result finds the stream.
    absl::MutexLock lock(&mu_);
    for (Pending* p : admitted) {
      open_[p->row.ticket_id] = {p->sink, p->spec, now, p->row.rating};
    }
  }
  absl::StatusOr<Admitted> result = store_->Admit(rows);
  if (!result.ok()) {
    std::vector<std::string> holds;
    for (Pending* p : admitted) {
      Take(p->row.ticket_id);
      if (!p->hold_request.empty()) holds.push_back(p->hold_request);
      p->sink->End(result.status());
    }
    // Recorded by HoldStakes(): released now if the database answers, else after
    // the admission's grace.
    (void)releases_->NotQueued(holds);
    return;
  }
  std::vector<std::string> gone;
  for (const TicketRow& old : result->superseded) gone.push_back(old.ticket_id);
  const std::set<std::string> lost(gone.begin(), gone.end());
  KeepHolds(admitted, *result, lost);
  if (matcher_ != nullptr) {
    std::vector<TicketRow> fresh;
    for (size_t i = 0; i < admitted.size(); ++i) {
      const TicketRow& row = admitted[i]->row;
      const AdmitOutcome& o = result->outcomes[i];
      if (o.resumed || o.assigned || lost.count(row.ticket_id)) continue;
      fresh.push_back(row);
      fresh.back().queued = absl::Now();  // in the queue from its commit on
    }
    matcher_->Withdraw(gone);
    matcher_->Offer(fresh);
  }
  for (const TicketRow& old : result->superseded) {
    if (std::shared_ptr<TicketSink> sink = Take(old.ticket_id)) {
      sink->End(absl::AbortedError("superseded by a newer request of this player"));
    }
  }
  for (size_t i = 0; i < admitted.size(); ++i) Answer(*admitted[i], result->outcomes[i]);
}

void Lobby::Answer(const Pending& p, const AdmitOutcome& o) {
  if (o.assigned) {
    // Seated meanwhile (matched since the check above): that seat, no ticket.
    if (std::shared_ptr<TicketSink> sink = Take(p.row.ticket_id)) {
      sink->Assigned(ToAssignment(*o.assigned));
    }
    return;
  }
  Open open;
  {
    absl::MutexLock lock(&mu_);
    auto it = open_.find(p.row.ticket_id);
    if (it == open_.end()) return;  // superseded within the batch, or assigned
    open = it->second;
    if (o.resumed) {
      // A retry of the same request: this stream follows the live ticket.
      open_.erase(it);
      auto old = open_.find(o.ticket_id);
      if (old != open_.end()) {
        old->second.sink->End(absl::AbortedError("resumed by a newer stream"));
        open.queued = old->second.queued;
      }
      open_[o.ticket_id] = open;
    }
  }
  SendQueued(o.ticket_id, open);
}

void Lobby::KeepHolds(const std::vector<Pending*>& admitted, const Admitted& result,
                      const std::set<std::string>& lost) {
  // A new ticket carries its hold. Any other's (a retry that resumed a live ticket
  // or found its seat, a request superseded within the batch) goes back unless
  // the ticket the player has carries it (the same request's hold): the release
  // checks. A retry that resumed a waiting ticket whose hold is over (the hold its
  // request made first was released) gives that ticket its new hold instead.
  std::vector<std::string> queued, unqueued;
  for (size_t i = 0; i < admitted.size(); ++i) {
    const Pending* p = admitted[i];
    if (p->hold_request.empty()) continue;
    const AdmitOutcome& o = result.outcomes[i];
    bool carried = !o.resumed && !o.assigned && !lost.count(p->row.ticket_id);
    if (o.resumed && p->own_hold && !lost.count(p->row.ticket_id)) {
      carried = store_->CarryHold(o.ticket_id, p->row.hold_id, p->row.stake).value_or(false);
    }
    (carried ? queued : unqueued).push_back(p->hold_request);
  }
  (void)releases_->Queued(queued);
  (void)releases_->NotQueued(unqueued);
}

absl::StatusOr<bool> Lobby::HoldStake(Pending& p) {
  v1::HoldStakeRequest request;
  request.set_request_id(p.hold_request);
  request.set_player_id(p.player_id);
  request.set_amount(p.row.stake);
  request.set_replaces_hold_id(p.replaces_hold);
  request.set_consent(p.consent);
  absl::StatusOr<v1::Hold> hold = matchmaking::HoldStake(*ratings_, request);
  service::Failpoint("lobby.after_hold");
  if (!hold.ok()) return hold.status();
  p.row.hold_id = hold->hold_id();
  return hold->state() == v1::HOLD_STATE_HELD;
}

absl::StatusOr<v1::HoldState> Lobby::KeepHold(const std::string& hold_id) {
  absl::StatusOr<v1::Hold> hold = ratings_->KeepHold(hold_id);
  if (!hold.ok()) return hold.status();
  return hold->state();
}

std::vector<Lobby::Pending*> Lobby::TakeOverHolds(const std::vector<Pending*>& staked) {
  std::vector<std::string> players;
  for (const Pending* p : staked) players.push_back(p->player_id);
  absl::StatusOr<std::vector<TicketRow>> waiting =
      staked.empty() ? std::vector<TicketRow>{} : store_->HeldTicketsOf(players);
  if (!waiting.ok()) return staked;  // each holds a stake of its own
  std::map<std::string, const TicketRow*> older;  // by player
  for (const TicketRow& t : *waiting) older[t.player_id] = &t;
  std::vector<Pending*> rest;
  for (Pending* p : staked) {
    auto it = older.find(p->player_id);
    const bool same_stake = it != older.end() && it->second->stake == p->row.stake;
    absl::StatusOr<v1::HoldState> state =
        same_stake ? KeepHold(it->second->hold_id) : absl::NotFoundError("no live ticket");
    if (state.ok() && *state == v1::HOLD_STATE_HELD) {
      // Admit() supersedes a waiting ticket of another request as it queues this
      // one (whose release leaves alone the hold that a waiting ticket carries),
      // or resumes the live one (a retry, or a ticket being placed) with its hold.
      p->row.hold_id = it->second->hold_id;
      continue;
    }
    // Not yet being placed, it can be superseded now, before its hold is moved:
    // a ticket being placed keeps its hold, and this one needs its own.
    const bool another_stake = it != older.end() && !same_stake &&
                               it->second->request_id != p->row.request_id &&
                               it->second->status == "waiting";
    if (another_stake && store_->SupersedeWaiting(it->second->ticket_id).value_or(false)) {
      p->replaces_hold = it->second->hold_id;
    }
    rest.push_back(p);
  }
  return rest;
}

absl::Status Lobby::RenewHold(Pending& p) {
  p.hold_request = HoldRequestId(p.player_id, p.row.request_id, p.row.ticket_id);
  p.own_hold = true;
  if (absl::Status s = releases_->Expect({{p.hold_request, p.player_id, p.row.stake}});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<bool> held = HoldStake(p);
  if (!held.ok()) return held.status();
  return *held ? absl::OkStatus() : absl::InternalError("a new stake hold is not held");
}

std::vector<Lobby::Pending*> Lobby::HoldStakes(std::vector<Pending*>& queue) {
  std::vector<Pending*> staked;
  for (Pending* p : queue) {
    if (p->row.stake != 0) staked.push_back(p);
  }
  staked = TakeOverHolds(staked);
  std::vector<HoldIntent> intents;
  for (Pending* p : staked) {
    p->hold_request = HoldRequestId(p->player_id, p->row.request_id);
    intents.push_back({p->hold_request, p->player_id, p->row.stake});
  }
  // Recorded before the stakes are held: a hold whose ticket is never queued
  // (this process dies, the answer is lost, the database fails) is released.
  std::set<Pending*> failed;
  auto fail = [&failed](Pending* p, const absl::Status& s) {
    p->sink->End(s);
    failed.insert(p);
  };
  if (absl::Status s = releases_->Expect(intents); !s.ok()) {
    for (Pending* p : staked) fail(p, s);
    staked.clear();
  }
  std::vector<Pending*> held;
  for (Pending* p : staked) {
    absl::StatusOr<bool> h = HoldStake(*p);
    // Not held: the request's earlier ticket is over (released, or attached to
    // its game), and this new ticket needs a hold of its own.
    absl::Status s = h.ok() && !*h ? RenewHold(*p) : h.status();
    if (!s.ok()) {
      fail(p, s);
    } else {
      held.push_back(p);
    }
  }
  // Still held, but carried by an ended ticket (its release may be pending):
  // this ticket needs its own too.
  std::vector<std::string> ids;
  for (const Pending* p : held) ids.push_back(p->row.hold_id);
  absl::StatusOr<std::set<std::string>> spent = releases_->Spent(ids);
  for (Pending* p : held) {
    absl::Status s = spent.status();
    if (s.ok() && spent->count(p->row.hold_id)) s = RenewHold(*p);
    if (!s.ok()) fail(p, s);
  }
  std::vector<Pending*> out;  // in the batch's order: a player's last request wins
  for (Pending* p : queue) {
    if (!failed.count(p)) out.push_back(p);
  }
  return out;
}

void Lobby::SendQueued(const std::string& ticket_id, const Open& open) {
  v1::Queued q;
  q.set_ticket_id(ticket_id);
  absl::Duration waited = absl::Now() - open.queued;
  q.set_waited_ms(static_cast<int32_t>(absl::ToInt64Milliseconds(waited)));
  q.set_rating_window(open.spec->options.curve.Window(waited));
  // At least this ticket: the matcher's count (of its leased pools only) may be
  // from before the ticket reached it.
  int waiting = std::max(1, matcher_ != nullptr ? matcher_->Waiting(open.spec->name) : 0);
  q.set_pool_size(waiting);
  // Until bots fill in, the wait is for three more players of the window.
  absl::Duration left = open.spec->options.bot_fill
                            ? std::max(absl::ZeroDuration(),
                                       open.spec->options.bot_fill_wait - waited)
                            : absl::ZeroDuration();
  if (waiting >= 4) left = absl::ZeroDuration();
  q.set_estimated_wait_ms(static_cast<int32_t>(absl::ToInt64Milliseconds(left)));
  open.sink->Queued(q);
}

void Lobby::PollLoop() {
  absl::Time last_update = absl::Now();
  absl::Time last_all = absl::Now();
  for (;;) {
    std::vector<std::string> ids;
    std::set<std::string> local;
    if (matcher_ != nullptr) {
      for (const std::string& pool : matcher_->LeasedPools()) local.insert(pool);
    }
    // This replica's matcher hands its own results over at once; tickets of its
    // pools are polled only now and then (another replica may supersede them).
    const bool all = absl::Now() - last_all >= absl::Seconds(1);
    if (all) last_all = absl::Now();
    {
      absl::MutexLock lock(&mu_);
      auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
      mu_.AwaitWithTimeout(absl::Condition(&stopped), options_.poll_every);
      if (stop_) return;
      for (const auto& [id, open] : open_) {
        if (open.queued >= absl::Now() - options_.poll_every) continue;
        if (all || !local.count(open.spec->name)) ids.push_back(id);
      }
    }
    if (!ids.empty()) Follow(ids);
    if (absl::Now() - last_update >= options_.update_every) {
      last_update = absl::Now();
      std::vector<std::pair<std::string, Open>> open;
      {
        absl::MutexLock lock(&mu_);
        for (const auto& [id, o] : open_) open.emplace_back(id, o);
      }
      for (const auto& [id, o] : open) SendQueued(id, o);
    }
  }
}

void Lobby::Follow(const std::vector<std::string>& ids) {
  absl::StatusOr<std::vector<TicketRow>> rows = store_->Tickets(ids);
  if (!rows.ok()) return;
  std::vector<std::string> matched;
  for (const TicketRow& t : *rows) {
    if (t.status == "matched") {
      matched.push_back(t.ticket_id);
    } else if (t.status == "superseded" || t.status == "cancelled") {
      if (std::shared_ptr<TicketSink> sink = Take(t.ticket_id)) {
        sink->End(t.status == "superseded"
                      ? absl::AbortedError("superseded by a newer request of this player")
                      : absl::CancelledError("the ticket was cancelled"));
      }
    }
  }
  if (matched.empty()) return;
  absl::StatusOr<std::vector<AssignmentRow>> seats = store_->AssignmentsOfTickets(matched);
  if (seats.ok()) Deliver(*seats);
}

void Lobby::Deliver(const std::vector<AssignmentRow>& rows) {
  for (const AssignmentRow& a : rows) {
    if (a.ticket_id.empty()) continue;
    if (std::shared_ptr<TicketSink> sink = Take(a.ticket_id)) {
      sink->Assigned(ToAssignment(a));
    }
  }
}

absl::StatusOr<std::vector<AssignmentRow>> Lobby::Live(const std::string& player_id) {
  absl::StatusOr<std::vector<AssignmentRow>> rows = store_->LiveAssignments(player_id);
  if (!rows.ok()) return rows.status();
  std::vector<AssignmentRow> live;
  for (const AssignmentRow& a : *rows) {
    const TableEnd end = EndOf(a.address, a.table_id);
    if (end == TableEnd::kLive || end == TableEnd::kUnknown) {
      live.push_back(a);
    } else {
      EndTable(a.table_id, end);
    }
  }
  return live;
}

absl::StatusOr<v1::Assignment> Lobby::GetAssignment(const std::string& player_id) {
  absl::StatusOr<std::vector<AssignmentRow>> live = Live(player_id);
  if (!live.ok()) return live.status();
  if (live->empty()) return absl::NotFoundError("no live assignment for this player");
  return ToAssignment(live->front());
}

bool Lobby::GameOver(const std::string& address, const std::string& table_id) {
  const TableEnd end = EndOf(address, table_id);
  return end != TableEnd::kLive && end != TableEnd::kUnknown;
}

TableEnd Lobby::EndOf(const std::string& address, const std::string& table_id) {
  return tables_->EndOf(address, table_id);
}

}  // namespace trix::matchmaking
