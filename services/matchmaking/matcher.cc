#include "services/matchmaking/matcher.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/common/metrics.h"
#include "services/matchmaking/store/retry_table.h"
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

void Matcher::Connect() {
  session_ = options_.store->OpenSession();
  last_lease_try_ = absl::InfinitePast();
}

void Matcher::TryLeases() {
  last_lease_try_ = absl::Now();
  std::vector<Batch> unfinished;  // enqueued once no statement is waiting
  for (const PoolSpec& spec : options_.pools) {
    if (leased_.count(spec.name) || !session_->TryLease(spec.name)) continue;
    PoolState state{.spec = &spec, .pool = std::make_unique<Pool>(spec.options)};
    const std::map<std::string, std::string> labels = {
        {"mode", wire::ModeName(spec.mode)}, {"stake", std::to_string(spec.stake)}};
    state.waiting = &waiting_family_->Add(labels);
    state.wait = &wait_family_->Add(
        labels,
        prometheus::Histogram::BucketBoundaries{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                2.5, 5, 10, 20, 30, 60, 120});
    // Whoever held the pool before may have died mid-placement: its placements are
    // finished (the same tables, asked for again), and tickets it claimed without
    // one go back to the queue.
    PoolTakeover takeover = session_->TakeOver(spec.name);
    Batch placements{.recovered = true};
    placements.jobs = UnfinishedPlacements(std::move(takeover.placements), state);
    leased_.emplace(spec.name, std::move(state));
    last_full_read_ = absl::InfinitePast();
    service::LogInfo("matching pool",
                     {{"pool", spec.name},
                      {"recovered", takeover.requeued},
                      {"placements", static_cast<int64_t>(placements.jobs.size())}});
    if (!placements.jobs.empty()) unfinished.push_back(std::move(placements));
  }
  for (Batch& batch : unfinished) Enqueue(std::move(batch));
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
    if (it != leased_.end()) AddRow(it->second, row);
  }
  for (const std::string& id : withdrawn) {
    for (auto& [name, state] : leased_) RemoveRow(state, id);
  }
}

void Matcher::AddRow(PoolState& state, const TicketRow& row) {
  if (state.owner.count(row.ticket_id)) return;
  std::vector<TicketRow> members;
  std::string key = row.ticket_id;
  if (!row.party_id.empty()) {
    key = row.party_id;
    auto half = state.halves.find(row.party_id);
    if (half == state.halves.end()) {
      // A party is queued once both members have asked.
      state.halves.emplace(row.party_id, row);
      state.owner[row.ticket_id] = row.party_id;
      return;
    }
    members.push_back(half->second);
    state.halves.erase(half);
  }
  members.push_back(row);
  Ticket t{.ticket_id = key};
  for (const TicketRow& r : members) {
    t.members.push_back({r.player_id, r.display_name, r.rating});
    t.provisional |= r.provisional;
    t.queued = std::max(t.queued, r.queued);
    t.seq = std::max<uint64_t>(t.seq, r.seq);
    state.owner[r.ticket_id] = key;
  }
  state.pool->Add(std::move(t));
  state.rows[key] = std::move(members);
}

void Matcher::Forget(PoolState& state, const std::string& pool_ticket) {
  auto it = state.rows.find(pool_ticket);
  if (it == state.rows.end()) return;
  for (const TicketRow& r : it->second) state.owner.erase(r.ticket_id);
  state.rows.erase(it);
}

void Matcher::RemoveRow(PoolState& state, const std::string& ticket_id) {
  auto o = state.owner.find(ticket_id);
  if (o == state.owner.end()) return;
  const std::string key = o->second;
  auto half = state.halves.find(key);
  if (half != state.halves.end() && half->second.ticket_id == ticket_id) {
    state.halves.erase(half);
    state.owner.erase(o);
    return;
  }
  auto it = state.rows.find(key);
  if (it == state.rows.end()) {
    state.owner.erase(o);
    return;
  }
  std::vector<TicketRow> members = it->second;
  state.pool->Remove(key);
  Forget(state, key);
  // The partner of a member who left waits for them again.
  for (const TicketRow& r : members) {
    if (r.ticket_id != ticket_id) AddRow(state, r);
  }
}

void Matcher::Sync(PoolState& state, const std::vector<TicketRow>& rows) {
  std::set<std::string> present;
  for (const TicketRow& r : rows) {
    present.insert(r.ticket_id);
    AddRow(state, r);
  }
  std::vector<std::string> gone;
  for (const auto& [id, key] : state.owner) {
    if (!present.count(id)) gone.push_back(id);
  }
  for (const std::string& id : gone) RemoveRow(state, id);
}

void Matcher::ReadPools(bool whole) {
  last_read_ = absl::Now();
  if (whole) last_full_read_ = last_read_;
  std::vector<std::string> names;
  for (const auto& [name, state] : leased_) names.push_back(name);
  PoolRead read =
      session_->ReadWaiting(names, whole ? int64_t{0} : numbered_read_before_);
  numbered_read_before_ = numbered_last_read_;
  numbered_last_read_ = read.numbered;
  std::map<std::string, std::vector<TicketRow>> by_pool;
  for (TicketRow& t : read.tickets) by_pool[t.pool].push_back(std::move(t));
  for (auto& [name, state] : leased_) {
    if (whole) {
      Sync(state, by_pool[name]);
    } else {
      for (const TicketRow& t : by_pool[name]) AddRow(state, t);
    }
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
    for (Group& g : state.pool->Match(now)) groups.emplace_back(&state, std::move(g));
  }
  bool reverted = !groups.empty() && PlaceAndCommit(groups, now);
  stages_.MaybeLog();
  // Grouped tickets leave the pool's rows; those put back (a member left, or no
  // instance had room) come back with the next read of the pool.
  for (auto& [state, group] : groups) {
    for (const Ticket& t : group.tickets) Forget(*state, t.ticket_id);
  }
  if (reverted || reread_.exchange(false)) last_full_read_ = absl::InfinitePast();
  {
    std::lock_guard<std::mutex> lock(published_mu_);
    for (auto& [name, state] : leased_) {
      published_waiting_[name] = static_cast<int>(state.pool->players());
      state.waiting->Set(static_cast<double>(state.pool->size()));
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
      const TicketRow& t = state.rows.at(key)[plan.member];
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
    for (const TicketRow& r : state.rows.at(t.ticket_id)) job.tickets.push_back(r.ticket_id);
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
      for (const TicketRow& r : state->rows.at(t.ticket_id)) ids.push_back(r.ticket_id);
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
      for (const TicketRow& r : state->rows.at(t.ticket_id)) {
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

std::vector<Matcher::Job> Matcher::UnfinishedPlacements(std::vector<PlannedTable> tables,
                                                        const PoolState& state) const {
  std::vector<Job> jobs;
  jobs.reserve(tables.size());
  for (PlannedTable& table : tables) {
    Job job;
    static_cast<PlannedTable&>(job) = std::move(table);
    job.wait = state.wait;
    options_.seat_tokens->Restore(&job.request);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

void Matcher::Enqueue(Batch batch) {
  std::unique_lock<std::mutex> lock(batches_mu_);
  // A bounded number of batches in flight: placement and commits overlap with the
  // next grouping, and a slow table service slows the matcher down.
  batches_cv_.wait(lock, [this] { return batches_.size() < kMaxBatchesQueued; });
  batch.enqueued = absl::Now();
  if (batch.claimed != absl::Time()) {
    stages_.Add("backpressure", batch.enqueued - batch.claimed);
  }
  batches_.push_back(std::move(batch));
  batches_cv_.notify_all();
}

void Matcher::PlaceLoop() {
  while (std::optional<Batch> batch = NextBatch()) {
    try {
      // Until finished: the same tables are asked for again (the same request ids
      // and seat tokens), so a database outage or a lost answer only delays the
      // seats. Should another replica take the pool meanwhile, it finishes them
      // instead, and the retry commits nothing.
      std::vector<Job> again = Place(*batch);
      if (!again.empty()) PlaceLater(std::move(again), batch->retries + 1);
    } catch (const std::exception& e) {
      service::LogError("cannot commit placed tables", {{"error", e.what()}});
    }
  }
}

std::optional<Matcher::Batch> Matcher::NextBatch() {
  std::unique_lock<std::mutex> lock(batches_mu_);
  for (;;) {
    // A batch due again comes first: its players have waited longest.
    auto soonest = std::min_element(
        later_.begin(), later_.end(),
        [](const Batch& a, const Batch& b) { return a.due < b.due; });
    const absl::Time now = absl::Now();
    if (!placers_stop_ && soonest != later_.end() && soonest->due <= now) {
      Batch batch = std::move(*soonest);
      later_.erase(soonest);
      return batch;
    }
    if (!batches_.empty()) {
      Batch batch = std::move(batches_.front());
      batches_.pop_front();
      batches_cv_.notify_all();
      return batch;
    }
    // Stopped: what waits to be placed again stays recorded, for the pool's next
    // matcher.
    if (placers_stop_) return std::nullopt;
    if (soonest == later_.end()) {
      batches_cv_.wait(lock);
    } else {
      batches_cv_.wait_for(lock, absl::ToChronoMicroseconds(soonest->due - now));
    }
  }
}

void Matcher::PlaceLater(std::vector<Job> jobs, int retries) {
  Batch batch{.jobs = std::move(jobs), .retries = retries};
  // The same backoff as every retried chore (100 ms doubling to 5 s).
  batch.due = absl::Now() + RetryBackoff(retries);
  std::lock_guard<std::mutex> lock(batches_mu_);
  later_.push_back(std::move(batch));
  batches_cv_.notify_all();
}

bool Matcher::AskAgain(Job& job, const absl::Status& failure, absl::Time now) {
  if (ProvesNoTable(failure)) return false;
  if (job.unanswered_since == absl::InfinitePast()) job.unanswered_since = now;
  const service::LogFields fields = {
      {"pool", job.pool},
      {"request", job.request.request_id()},
      {"error", failure.ToString()}};
  if (now - job.unanswered_since < options_.give_up_placing) {
    service::LogWarn("table placement unanswered; asking again with the same request",
                     fields);
    return true;
  }
  // Its tickets go back to the queue; a table made meanwhile is voided
  // (table_voids.h), recorded in the statement that gives the placement up.
  service::LogError("table unanswered too long; its tickets go back to the queue and "
                    "the table, if made, is voided",
                    fields);
  return false;
}

std::vector<Matcher::Job> Matcher::Place(Batch& batch) {
  const absl::Time started = absl::Now();
  std::set<std::string> gone;
  std::set<size_t> held_back;  // placed again later, with the unanswered
  std::vector<Placed> placed = CreateHeldTables(batch, gone, held_back);
  service::Failpoint("matcher.after_create_tables");  // tables made, not yet assigned
  const absl::Time created_at = absl::Now();
  std::vector<size_t> unanswered;  // jobs whose table may have been made
  Placements p = Sort(batch, placed, created_at, held_back, unanswered);
  absl::StatusOr<std::set<std::string>> mine = Commit(p);
  if (!p.failed.empty()) reread_ = true;
  if (!mine.ok()) {
    service::LogWarn("assignments not committed; placing them again",
                     {{"error", mine.status().ToString()}});
    return std::move(batch.jobs);
  }
  // Back in the queue now, where they can be cancelled.
  if (!gone.empty()) options_.end_unheld({gone.begin(), gone.end()});
  const absl::Time now = absl::Now();
  Deliver(batch, placed, p, *mine, now);
  LogStages(batch, started, created_at, now);
  std::vector<Job> again;
  for (size_t i : unanswered) again.push_back(std::move(batch.jobs[i]));
  return again;
}

std::vector<std::string> Matcher::StakedTickets(const Batch& batch) const {
  std::vector<std::string> tickets;
  if (!options_.check_holds || batch.recovered) return tickets;
  for (const Job& job : batch.jobs) {
    const bool staked = !job.seats.empty() && job.seats.front().stake > 0;
    if (!staked || job.asked) continue;
    tickets.insert(tickets.end(), job.tickets.begin(), job.tickets.end());
  }
  return tickets;
}

std::vector<Placed> Matcher::CreateHeldTables(Batch& batch, std::set<std::string>& gone,
                                              std::set<size_t>& held_back) {
  const std::vector<std::string> staked = StakedTickets(batch);
  const HoldCheck check = staked.empty() ? HoldCheck{} : options_.check_holds(staked);
  std::vector<Placed> placed(batch.jobs.size());
  std::vector<v1::CreateTableRequest> requests;
  std::vector<size_t> asked;  // the jobs whose tables are asked for
  for (size_t i = 0; i < batch.jobs.size(); ++i) {
    Job& job = batch.jobs[i];
    bool unheld = false, unchecked = false;
    for (const std::string& t : job.tickets) {
      if (check.gone.count(t)) gone.insert(t);
      unheld |= check.gone.count(t) > 0;
      unchecked |= check.unchecked.count(t) > 0;
    }
    if (unheld) {
      placed[i].status =
          absl::FailedPreconditionError("a staked seat's hold is gone: no table is made");
    } else if (unchecked) {
      placed[i].status = absl::UnavailableError("a staked seat's hold could not be checked");
      held_back.insert(i);
    } else {
      job.asked = true;
      requests.push_back(job.request);
      asked.push_back(i);
    }
  }
  if (requests.empty()) return placed;
  std::vector<Placed> answers = placement_->CreateTables(requests);
  for (size_t k = 0; k < asked.size(); ++k) placed[asked[k]] = std::move(answers[k]);
  return placed;
}

Matcher::Placements Matcher::Sort(Batch& batch, const std::vector<Placed>& placed,
                                  absl::Time created_at, const std::set<size_t>& held_back,
                                  std::vector<size_t>& unanswered) {
  // The seats of the tables made, built once, before the transaction.
  Placements p;
  for (size_t i = 0; i < placed.size(); ++i) {
    Job& job = batch.jobs[i];
    if (held_back.count(i)) {
      unanswered.push_back(i);
      continue;
    }
    if (!placed[i].status.ok()) {
      placement_failures_->Increment();
      if (AskAgain(job, placed[i].status, created_at)) {
        unanswered.push_back(i);
        continue;
      }
      service::LogWarn("cannot place a table",
                       {{"pool", job.pool}, {"error", placed[i].status.ToString()}});
      if (!ProvesNoTable(placed[i].status)) p.given_up.push_back(job.request.request_id());
      p.failed.push_back(job.request.request_id());
      p.failed_tickets.insert(p.failed_tickets.end(), job.tickets.begin(), job.tickets.end());
      continue;
    }
    p.created.push_back(job.request.request_id());
    p.created_tickets.insert(p.created_tickets.end(), job.tickets.begin(), job.tickets.end());
    for (AssignmentRow a : job.seats) {
      a.table_id = placed[i].response.table_id();
      a.address = placed[i].address;
      a.seat_token = placed[i].response.seat_tokens(a.seat);
      // A placement recorded by a release that chose its tokens at random keeps
      // them (migration 0032).
      if (a.seat_token == options_.seat_tokens->For(job.request.request_id(), a.seat)) {
        a.placement_id = job.request.request_id();
      }
      p.rows.push_back(std::move(a));
      p.row_requests.push_back(job.request.request_id());
    }
  }
  return p;
}

absl::StatusOr<std::set<std::string>> Matcher::Commit(const Placements& p) {
  return options_.store->CommitPlacements(p);
}

void Matcher::Deliver(const Batch& batch, const std::vector<Placed>& placed, Placements& p,
                      const std::set<std::string>& mine, absl::Time now) {
  // A placement another matcher finished (this replica lost the pool meanwhile)
  // was gone: its table is the same, and its seats were assigned by that matcher.
  std::vector<AssignmentRow> assigned;
  for (size_t i = 0; i < p.rows.size(); ++i) {
    if (!mine.count(p.row_requests[i])) continue;
    assigned.push_back(std::move(p.rows[i]));
    assigned.back().matched = now;
  }
  for (size_t i = 0; i < placed.size(); ++i) {
    const Job& job = batch.jobs[i];
    if (!placed[i].status.ok() || !mine.count(job.request.request_id())) continue;
    matches_->Increment();
    bot_fills_->Increment(job.bots);
    for (absl::Time q : job.queued) job.wait->Observe(absl::ToDoubleSeconds(now - q));
  }
  if (!assigned.empty()) {
    service::Failpoint("matcher.after_assign");  // assignments committed, nobody told
    on_assigned_(assigned);
  }
}

void Matcher::LogStages(const Batch& batch, absl::Time started, absl::Time created_at,
                        absl::Time committed) {
  if (!stages_.on() || batch.seen == absl::Time()) return;
  const absl::Time delivered = absl::Now();
  stages_.Add("queue", started - batch.enqueued);
  stages_.Add("create", created_at - started);
  stages_.Add("commit", committed - created_at);
  stages_.Add("deliver", delivered - committed);
  for (const Job& job : batch.jobs) stages_.Add("total", delivered - job.possible);
}

}  // namespace trix::matchmaking
