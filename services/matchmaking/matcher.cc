#include "services/matchmaking/matcher.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/logging.h"
#include "services/common/metrics.h"
#include "proto/wire/wire.h"

namespace trix::matchmaking {

std::string PoolName(const v1::Mode& mode, int64_t stake) {
  return absl::StrCat(wire::ModeName(mode), "/", stake);
}

Matcher::Matcher(MatcherOptions options, TableClient* placement, ReserveBot reserve_bot,
                 OnAssigned on_assigned, prometheus::Registry* registry)
    : options_(std::move(options)),
      placement_(placement),
      reserve_bot_(std::move(reserve_bot)),
      on_assigned_(std::move(on_assigned)),
      stages_(options_.stage_log_every) {
  waiting_family_ = &prometheus::BuildGauge()
                         .Name("trix_matchmaking_tickets_waiting")
                         .Help("tickets waiting in a pool this replica matches (a "
                               "party counts once)")
                         .Register(*registry);
  wait_family_ = &prometheus::BuildHistogram()
                      .Name("trix_matchmaking_wait_seconds")
                      .Help("time from queueing to being grouped, per pool")
                      .Register(*registry);
  matches_ = &prometheus::BuildCounter()
                  .Name("trix_matchmaking_matches_total")
                  .Help("tables made")
                  .Register(*registry)
                  .Add({});
  bot_fills_ = &prometheus::BuildCounter()
                    .Name("trix_matchmaking_bot_fills_total")
                    .Help("seats given to bots (or the autopilot) after the wait")
                    .Register(*registry)
                    .Add({});
  placement_failures_ = &prometheus::BuildCounter()
                             .Name("trix_matchmaking_placement_failures_total")
                             .Help("tables that could not be created anywhere")
                             .Register(*registry)
                             .Add({});
}

Matcher::~Matcher() { Stop(); }

void Matcher::Start() {
  for (int i = 0; i < options_.placers; ++i) {
    placers_.emplace_back([this] { PlaceLoop(); });
  }
  thread_ = std::thread([this] { Run(); });
}

void Matcher::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard<std::mutex> lock(batches_mu_);
    placers_stop_ = true;
    batches_cv_.notify_all();
  }
  for (std::thread& t : placers_) t.join();
  placers_.clear();
  session_.reset();  // releases the pools, now that nothing is half-placed
}

std::vector<std::string> Matcher::LeasedPools() const {
  std::lock_guard<std::mutex> lock(published_mu_);
  std::vector<std::string> names;
  for (const auto& [name, waiting] : published_waiting_) names.push_back(name);
  return names;
}

int Matcher::Waiting(const std::string& pool) const {
  std::lock_guard<std::mutex> lock(published_mu_);
  auto it = published_waiting_.find(pool);
  return it == published_waiting_.end() ? 0 : it->second;
}

void Matcher::Run() {
  while (!stop_) {
    try {
      if (!session_) Connect();
      if (absl::Now() - last_lease_try_ >= options_.lease_retry) TryLeases();
      if (!Tick()) AwaitOffers();
    } catch (const std::exception& e) {
      // The advisory locks went with the connection: another replica (or this one,
      // reconnected) takes the pools over.
      service::LogWarn("matcher lost its database connection", {{"error", e.what()}});
      session_.reset();
      leased_.clear();
      {
        std::lock_guard<std::mutex> lock(published_mu_);
        published_waiting_.clear();
      }
      absl::SleepFor(absl::Seconds(1));
    }
  }
}

void Matcher::Offer(const std::vector<TicketRow>& rows) {
  std::lock_guard<std::mutex> lock(inbox_mu_);
  offered_.insert(offered_.end(), rows.begin(), rows.end());
  inbox_cv_.notify_one();
}

void Matcher::AwaitOffers() {
  // A new ticket may complete a table: group it at once rather than at the next
  // tick (which still comes, for windows that widen and bot fills).
  std::unique_lock<std::mutex> lock(inbox_mu_);
  inbox_cv_.wait_for(lock, absl::ToChronoMicroseconds(options_.tick),
                     [this] { return !offered_.empty() || stop_; });
}

void Matcher::Withdraw(const std::vector<std::string>& ticket_ids) {
  std::lock_guard<std::mutex> lock(inbox_mu_);
  withdrawn_.insert(withdrawn_.end(), ticket_ids.begin(), ticket_ids.end());
}

void Matcher::TakeInbox() {
  std::vector<TicketRow> offered;
  std::vector<std::string> withdrawn;
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    offered.swap(offered_);
    withdrawn.swap(withdrawn_);
  }
  for (const TicketRow& row : offered) {
    auto it = leased_.find(row.pool);
    if (it != leased_.end()) it->second.tickets.Add(row);
  }
  for (const std::string& id : withdrawn) {
    for (auto& [name, state] : leased_) state.tickets.Remove(id);
  }
}

bool Matcher::Tick() {
  if (leased_.empty()) return false;
  TakeInbox();
  const bool whole = absl::Now() - last_full_read_ >= options_.full_read_every;
  if (whole || absl::Now() - last_read_ >= options_.read_every) ReadPools(whole);
  const absl::Time now = absl::Now();
  std::vector<std::pair<PoolState*, Group>> groups;
  for (auto& [name, state] : leased_) {
    for (Group& g : state.tickets.Match(now)) groups.emplace_back(&state, std::move(g));
  }
  bool reverted = !groups.empty() && PlaceAndCommit(groups, now);
  stages_.MaybeLog();
  // Grouped tickets leave the pool's rows; those put back (a member left, or no
  // instance had room) come back with the next read of the pool.
  for (auto& [state, group] : groups) {
    for (const Ticket& t : group.tickets) state->tickets.Forget(t.ticket_id);
  }
  if (reverted || reread_.exchange(false)) last_full_read_ = absl::InfinitePast();
  {
    std::lock_guard<std::mutex> lock(published_mu_);
    for (auto& [name, state] : leased_) {
      published_waiting_[name] = static_cast<int>(state.tickets.players());
      state.waiting->Set(static_cast<double>(state.tickets.size()));
    }
  }
  return !groups.empty();
}

// The mean displayed rating of the group's people, for bot fill by rating.
std::optional<int> HumansRating(const Group& group) {
  int64_t sum = 0;
  int n = 0;
  for (const Ticket& t : group.tickets) {
    for (const auto& m : t.members) {
      sum += m.rating;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return static_cast<int>(sum / n);
}

v1::CreateTableRequest Matcher::TableRequest(const PoolState& state, const Group& group,
                                             std::vector<AssignmentRow>* seats) {
  v1::CreateTableRequest request;
  std::vector<std::string> bots;
  request.set_request_id(service::NewUuid());
  *request.mutable_mode() = state.spec->mode;
  if (options_.clocks.card_ms() > 0) *request.mutable_clocks() = options_.clocks;
  for (int s = 0; s < kSeats; ++s) {
    const SeatPlan& plan = group.seats[s];
    v1::SeatAssignment* seat = request.add_seats();
    // Chosen here so that the placement, asked for again, gets the same table back;
    // derived, so that nothing stored can act for the seat (seat_tokens.h).
    seat->set_seat_token(options_.seat_tokens->For(request.request_id(), s));
    AssignmentRow row{.seat = s,
                      .team = state.spec->mode.team(),
                      .format = state.spec->mode.format(),
                      .possible = group.possible};
    if (plan.bot()) {
      std::optional<BotSeat> bot = reserve_bot_(
          BotAsk{.mode = state.spec->mode, .taken = bots, .near_rating = HumansRating(group)});
      seat->set_bot(true);
      if (!bot) {  // the table's autopilot plays it from the first move
        seat->set_player_id(absl::StrCat("autopilot-", s));
        seat->set_display_name("Autopilot");
        seat->set_autopilot(true);
        seat->clear_seat_token();  // nobody's: an autopilot seat has none
        continue;
      }
      bots.push_back(bot->bot_id);
      seat->set_player_id(bot->bot_id);
      seat->set_display_name(bot->name);
      row.player_id = bot->bot_id;
      row.bot = true;
      row.bot_stream = bot->stream_id;
    } else {
      const std::string& key = group.tickets[plan.ticket].ticket_id;
      const TicketRow& t = state.tickets.RowsOf(key)[plan.member];
      seat->set_player_id(t.player_id);
      seat->set_display_name(t.display_name);
      seat->set_stake(t.stake);
      row.player_id = t.player_id;
      row.ticket_id = t.ticket_id;
      row.stake = t.stake;
    }
    seats->push_back(row);
  }
  return request;
}

Matcher::Job Matcher::MakeJob(const PoolState& state, const Group& group) {
  Job job;
  job.pool = state.spec->name;
  job.wait = state.wait;
  job.bots = group.bots;
  job.possible = group.possible;
  for (const Ticket& t : group.tickets) {
    for (const TicketRow& r : state.tickets.RowsOf(t.ticket_id)) job.tickets.push_back(r.ticket_id);
    job.queued.push_back(t.queued);
  }
  job.request = TableRequest(state, group, &job.seats);
  return job;
}

bool Matcher::PlaceAndCommit(std::vector<std::pair<PoolState*, Group>>& groups,
                             absl::Time seen) {
  const absl::Time start = absl::Now();
  Batch batch;
  // Usually every grouped ticket is still waiting: claimed and recorded in one
  // statement. Groups with bots take the longer way (their bots are reserved only
  // for groups that hold).
  bool bots = false;
  for (auto& [state, group] : groups) bots |= group.bots > 0;
  if (!bots) {
    for (auto& [state, group] : groups) batch.jobs.push_back(MakeJob(*state, group));
    if (!session_->ClaimWhole(TablesOf(batch.jobs))) batch.jobs.clear();
  }
  bool reverted = false;
  if (batch.jobs.empty()) reverted = ClaimEach(groups, &batch);
  if (stages_.on()) {
    batch.seen = seen;
    batch.claimed = absl::Now();
    stages_.Add("match", start - seen);
    stages_.Add("claim", batch.claimed - start);
    stages_.Count("tables", static_cast<double>(batch.jobs.size()));
    for (const Job& job : batch.jobs) stages_.Add("tick", seen - job.possible);
  }
  for (size_t first = 0; first < batch.jobs.size(); first += kTablesPerBatch) {
    Batch part{.seen = batch.seen, .claimed = batch.claimed};
    const size_t last = std::min(batch.jobs.size(), first + kTablesPerBatch);
    for (size_t i = first; i < last; ++i) part.jobs.push_back(std::move(batch.jobs[i]));
    Enqueue(std::move(part));
  }
  return reverted;
}

bool Matcher::ClaimEach(std::vector<std::pair<PoolState*, Group>>& groups, Batch* out) {
  // Claim the grouped tickets: only the leaseholder moves tickets to placing, but a
  // player may cancel or supersede a ticket since it was read.
  Batch& batch = *out;
  std::vector<std::string> ids;
  for (auto& [state, group] : groups) {
    for (const Ticket& t : group.tickets) {
      for (const TicketRow& r : state->tickets.RowsOf(t.ticket_id)) ids.push_back(r.ticket_id);
    }
  }
  bool reverted = false;
  session_->ClaimEach(ids, [&](const std::set<std::string>& claimed) {
    ClaimPlan plan = WholeGroups(groups, claimed, batch);
    reverted = !plan.back.empty();
    return plan;
  });
  return reverted;
}

ClaimPlan Matcher::WholeGroups(std::vector<std::pair<PoolState*, Group>>& groups,
                               const std::set<std::string>& claimed, Batch& batch) {
  ClaimPlan plan;
  for (auto& [state, group] : groups) {
    std::vector<std::string> mine;
    bool whole = true;
    for (const Ticket& t : group.tickets) {
      for (const TicketRow& r : state->tickets.RowsOf(t.ticket_id)) {
        mine.push_back(r.ticket_id);
        whole = whole && claimed.count(r.ticket_id) > 0;
      }
    }
    if (!whole) {
      for (const std::string& id : mine) {
        if (claimed.count(id)) plan.back.push_back(id);
      }
      continue;
    }
    batch.jobs.push_back(MakeJob(*state, group));
  }
  plan.tables = TablesOf(batch.jobs);
  return plan;
}

PlannedTables Matcher::TablesOf(const std::vector<Job>& jobs) {
  PlannedTables tables;
  tables.reserve(jobs.size());
  for (const Job& job : jobs) tables.push_back(&job);
  return tables;
}

}  // namespace trix::matchmaking
