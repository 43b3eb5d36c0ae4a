#include "services/matchmaking/matcher.h"

#include <pqxx/pqxx>
#include <set>

#include "absl/strings/str_cat.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/common/metrics.h"
#include "services/storage/pg_array.h"
#include "proto/wire/wire.h"

namespace trix::matchmaking {

using storage::PgArray;
using storage::PgType;

std::string PoolName(const v1::Mode& mode, int64_t stake) {
  return absl::StrCat(wire::ModeName(mode), "/", stake);
}

Matcher::Matcher(MatcherOptions options, Placement* placement, ReserveBot reserve_bot,
                 OnAssigned on_assigned, prometheus::Registry* registry)
    : options_(std::move(options)),
      placement_(placement),
      reserve_bot_(std::move(reserve_bot)),
      on_assigned_(std::move(on_assigned)) {
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
  connection_.reset();  // releases the pools, now that nothing is half-placed
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
      if (!connection_) Connect();
      if (absl::Now() - last_lease_try_ >= options_.lease_retry) TryLeases();
      if (!Tick()) absl::SleepFor(options_.tick);
    } catch (const std::exception& e) {
      // The advisory locks went with the connection: another replica (or this one,
      // reconnected) takes the pools over.
      service::LogWarn("matcher lost its database connection", {{"error", e.what()}});
      connection_.reset();
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
  connection_ = storage::Connect(options_.database_url, "mamlaka matcher");
  last_lease_try_ = absl::InfinitePast();
}

void Matcher::TryLeases() {
  last_lease_try_ = absl::Now();
  for (const PoolSpec& spec : options_.pools) {
    if (leased_.count(spec.name)) continue;
    pqxx::nontransaction tx(*connection_);
    bool got = tx.exec_params1("SELECT pg_try_advisory_lock(hashtext('mm:' || $1))",
                               spec.name)[0]
                   .as<bool>();
    if (!got) continue;
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
    Batch unfinished;
    unfinished.jobs = UnfinishedPlacements(tx, state);
    const pqxx::result back = tx.exec_params(
        "UPDATE mm_tickets AS t SET status = 'waiting', group_id = NULL, changed = now() "
        "WHERE pool = $1 AND status = 'placing' AND NOT EXISTS "
        "(SELECT 1 FROM mm_placements AS p WHERE p.request_id = t.group_id) "
        "RETURNING ticket_id",
        spec.name);
    leased_.emplace(spec.name, std::move(state));
    last_full_read_ = absl::InfinitePast();
    service::LogInfo("matching pool",
                     {{"pool", spec.name},
                      {"recovered", static_cast<int64_t>(back.size())},
                      {"placements", static_cast<int64_t>(unfinished.jobs.size())}});
    if (!unfinished.jobs.empty()) Enqueue(std::move(unfinished));
  }
}

void Matcher::Offer(const std::vector<TicketRow>& rows) {
  std::lock_guard<std::mutex> lock(inbox_mu_);
  offered_.insert(offered_.end(), rows.begin(), rows.end());
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

bool Matcher::Tick() {
  if (leased_.empty()) return false;
  TakeInbox();
  if (absl::Now() - last_full_read_ >= options_.full_read_every) {
    last_full_read_ = absl::Now();
    std::vector<std::string> names;
    for (const auto& [name, state] : leased_) names.push_back(name);
    std::map<std::string, std::vector<TicketRow>> by_pool;
    pqxx::nontransaction tx(*connection_);
    const pqxx::result r = tx.exec_params(
        absl::StrCat("SELECT ", kTicketColumns,
                     " FROM mm_tickets WHERE pool = ANY($1::text[]) "
                     "AND status = 'waiting' ORDER BY seq"),
        TextArray(names).Finish());
    for (const pqxx::row& row : r) {
      TicketRow t = ReadTicket(row);
      by_pool[t.pool].push_back(std::move(t));
    }
    for (auto& [name, state] : leased_) Sync(state, by_pool[name]);
  }
  const absl::Time now = absl::Now();
  std::vector<std::pair<PoolState*, Group>> groups;
  for (auto& [name, state] : leased_) {
    for (Group& g : state.pool->Match(now)) groups.emplace_back(&state, std::move(g));
  }
  bool reverted = !groups.empty() && PlaceAndCommit(groups);
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
    // Chosen here so that the placement, asked for again, gets the same table back.
    seat->set_seat_token(service::NewSeatToken());
    AssignmentRow row{.seat = s,
                      .team = state.spec->mode.team(),
                      .format = state.spec->mode.format(),
                      .possible = group.possible};
    if (plan.bot()) {
      std::optional<BotSeat> bot = reserve_bot_(state.spec->mode, bots);
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

bool Matcher::PlaceAndCommit(std::vector<std::pair<PoolState*, Group>>& groups) {
  // Claim the grouped tickets: only the leaseholder moves tickets to placing, but a
  // player may cancel or supersede a ticket since it was read.
  std::vector<std::string> ids;
  for (auto& [state, group] : groups) {
    for (const Ticket& t : group.tickets) {
      for (const TicketRow& r : state->rows.at(t.ticket_id)) ids.push_back(r.ticket_id);
    }
  }
  Batch batch;
  std::vector<std::string> revert;  // claimed, but their group fell apart
  pqxx::work tx(*connection_);
  const pqxx::result r = tx.exec_params(
      "UPDATE mm_tickets SET status = 'placing', changed = now() "
      "WHERE ticket_id = ANY($1::text[]) AND status = 'waiting' RETURNING ticket_id",
      TextArray(ids).Finish());
  std::set<std::string> claimed;
  for (const pqxx::row& row : r) claimed.insert(row[0].as<std::string>());
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
        if (claimed.count(id)) revert.push_back(id);
      }
      continue;
    }
    Job job{.pool = state->spec->name, .wait = state->wait, .bots = group.bots,
            .tickets = mine, .possible = group.possible};
    for (const Ticket& t : group.tickets) job.queued.push_back(t.queued);
    job.request = TableRequest(*state, group, &job.seats);
    batch.jobs.push_back(std::move(job));
  }
  RecordPlacements(tx, batch.jobs);
  tx.exec_params0(
      "UPDATE mm_tickets SET status = 'waiting', changed = now() "
      "WHERE ticket_id = ANY($1::text[]) AND status = 'placing'",
      TextArray(revert).Finish());
  // Durable before any table is created: a crash from here on leaves placements
  // that the pool's next matcher finishes.
  tx.commit();
  if (!batch.jobs.empty()) Enqueue(std::move(batch));
  return !revert.empty();
}

void Matcher::RecordPlacements(pqxx::work& tx, const std::vector<Job>& jobs) {
  if (jobs.empty()) return;
  PgArray request_ids(PgType::kText), pools(PgType::kText), requests(PgType::kBytea),
      possible(PgType::kTimestampTz);
  PgArray seat_requests(PgType::kText), seats(PgType::kInt4), seat_tickets(PgType::kText);
  PgArray tickets(PgType::kText), groups(PgType::kText);
  for (const Job& job : jobs) {
    const std::string& id = job.request.request_id();
    request_ids.AddString(id);
    pools.AddString(job.pool);
    requests.AddString(job.request.SerializeAsString());
    possible.AddTime(job.possible);
    for (const AssignmentRow& a : job.seats) {
      seat_requests.AddString(id);
      seats.AddInt(a.seat);
      if (a.ticket_id.empty()) seat_tickets.AddNull(); else seat_tickets.AddString(a.ticket_id);
    }
    for (const std::string& t : job.tickets) {
      tickets.AddString(t);
      groups.AddString(id);
    }
  }
  tx.exec_params0(
      "INSERT INTO mm_placements (request_id, pool, request, possible) "
      "SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[], $4::timestamptz[])",
      request_ids.Finish(), pools.Finish(), requests.Finish(), possible.Finish());
  tx.exec_params0(
      "INSERT INTO mm_placement_seats (request_id, seat, ticket_id) "
      "SELECT * FROM unnest($1::text[], $2::int4[], $3::text[])",
      seat_requests.Finish(), seats.Finish(), seat_tickets.Finish());
  tx.exec_params0(
      "UPDATE mm_tickets AS t SET group_id = u.request_id "
      "FROM unnest($1::text[], $2::text[]) AS u (ticket_id, request_id) "
      "WHERE t.ticket_id = u.ticket_id",
      tickets.Finish(), groups.Finish());
}

std::vector<Matcher::Job> Matcher::UnfinishedPlacements(pqxx::transaction_base& tx,
                                                        PoolState& state) {
  std::map<std::string, Job> jobs;
  const pqxx::result r = tx.exec_params(
      "SELECT p.request_id, p.request, (extract(epoch FROM p.possible) * 1000000)::int8, "
      "s.seat, coalesce(s.ticket_id, '') FROM mm_placements AS p "
      "JOIN mm_placement_seats AS s USING (request_id) "
      "WHERE p.pool = $1 ORDER BY p.request_id, s.seat",
      state.spec->name);
  for (const pqxx::row& row : r) {
    const std::string id = row[0].as<std::string>();
    Job& job = jobs[id];
    if (job.pool.empty()) {
      job.pool = state.spec->name;
      job.wait = state.wait;
      job.request.ParseFromString(pqxx::binarystring(row[1]).str());
      job.possible = absl::FromUnixMicros(row[2].as<int64_t>());
    }
    const int s = row[3].as<int>();
    const v1::SeatAssignment& seat = job.request.seats(s);
    AssignmentRow a{.seat = s,
                    .player_id = seat.player_id(),
                    .ticket_id = row[4].as<std::string>(),
                    .bot = seat.bot(),
                    .team = job.request.mode().team(),
                    .format = job.request.mode().format(),
                    .stake = seat.stake(),
                    .possible = job.possible};
    if (a.ticket_id.empty()) {
      ++job.bots;
    } else {
      job.tickets.push_back(a.ticket_id);
    }
    job.seats.push_back(std::move(a));
  }
  std::vector<Job> out;
  for (auto& [id, job] : jobs) out.push_back(std::move(job));
  return out;
}

void Matcher::Enqueue(Batch batch) {
  std::unique_lock<std::mutex> lock(batches_mu_);
  // A bounded number of batches in flight: placement and commits overlap with the
  // next grouping, and a slow table service slows the matcher down.
  batches_cv_.wait(lock, [this] { return batches_.size() < kMaxBatchesQueued; });
  batches_.push_back(std::move(batch));
  batches_cv_.notify_all();
}

void Matcher::PlaceLoop() {
  for (;;) {
    Batch batch;
    {
      std::unique_lock<std::mutex> lock(batches_mu_);
      batches_cv_.wait(lock, [this] { return !batches_.empty() || placers_stop_; });
      if (batches_.empty()) return;
      batch = std::move(batches_.front());
      batches_.pop_front();
      batches_cv_.notify_all();
    }
    try {
      // Until committed: the same tables are asked for again (the same request ids
      // and seat tokens), so a database outage only delays the seats. Should
      // another replica take the pool meanwhile, it finishes them instead, and the
      // retry commits nothing.
      while (!Place(batch)) {
        std::unique_lock<std::mutex> lock(batches_mu_);
        if (batches_cv_.wait_for(lock, std::chrono::seconds(1),
                                 [this] { return placers_stop_; })) {
          break;
        }
      }
    } catch (const std::exception& e) {
      service::LogError("cannot commit placed tables", {{"error", e.what()}});
    }
  }
}

bool Matcher::Place(Batch& batch) {
  std::vector<v1::CreateTableRequest> requests;
  for (const Job& job : batch.jobs) requests.push_back(job.request);
  std::vector<Placed> placed = placement_->CreateTables(requests);
  service::Failpoint("matcher.after_create_tables");  // tables made, not yet assigned
  std::vector<std::string> created, failed;
  for (size_t i = 0; i < placed.size(); ++i) {
    const Job& job = batch.jobs[i];
    if (placed[i].status.ok()) {
      created.push_back(job.request.request_id());
      continue;
    }
    placement_failures_->Increment();
    service::LogWarn("cannot place a table",
                     {{"pool", job.pool}, {"error", placed[i].status.ToString()}});
    failed.push_back(job.request.request_id());
  }
  std::vector<AssignmentRow> rows;
  absl::Status s = options_.db->Run("committing assignments", [&](pqxx::connection& c) {
    rows.clear();
    pqxx::work tx(c);
    // A placement another matcher finished (this replica lost the pool meanwhile)
    // is gone: its table is the same, and its seats are already assigned.
    std::set<std::string> mine;
    for (const pqxx::row& row : tx.exec_params(
             "DELETE FROM mm_placements WHERE request_id = ANY($1::text[]) "
             "RETURNING request_id",
             TextArray(created).Finish())) {
      mine.insert(row[0].as<std::string>());
    }
    std::vector<std::string> matched;
    for (size_t i = 0; i < placed.size(); ++i) {
      const Job& job = batch.jobs[i];
      if (!placed[i].status.ok() || !mine.count(job.request.request_id())) continue;
      matched.push_back(job.request.request_id());
      for (AssignmentRow a : job.seats) {
        a.table_id = placed[i].response.table_id();
        a.address = placed[i].address;
        a.seat_token = placed[i].response.seat_tokens(a.seat);
        rows.push_back(std::move(a));
      }
    }
    tx.exec_params0(
        "UPDATE mm_tickets SET status = 'matched', changed = now() "
        "WHERE group_id = ANY($1::text[]) AND status = 'placing'",
        TextArray(matched).Finish());
    InsertAssignments(tx, rows);
    tx.exec_params0(
        "UPDATE mm_tickets SET status = 'waiting', group_id = NULL, changed = now() "
        "WHERE group_id = ANY($1::text[]) AND status = 'placing'",
        TextArray(failed).Finish());
    tx.exec_params0("DELETE FROM mm_placements WHERE request_id = ANY($1::text[])",
                    TextArray(failed).Finish());
    tx.commit();
    return absl::OkStatus();
  });
  if (!failed.empty()) reread_ = true;
  if (!s.ok()) {
    service::LogWarn("assignments not committed; placing them again",
                     {{"error", s.ToString()}});
    return false;
  }
  const absl::Time now = absl::Now();
  std::set<std::string> tables;
  for (AssignmentRow& a : rows) {
    a.matched = now;
    tables.insert(a.table_id);
  }
  for (size_t i = 0; i < placed.size(); ++i) {
    const Job& job = batch.jobs[i];
    if (!placed[i].status.ok() || !tables.count(placed[i].response.table_id())) continue;
    matches_->Increment();
    bot_fills_->Increment(job.bots);
    for (absl::Time q : job.queued) job.wait->Observe(absl::ToDoubleSeconds(now - q));
  }
  if (rows.empty()) return true;
  service::Failpoint("matcher.after_assign");  // assignments committed, nobody told
  on_assigned_(rows);
  return true;
}

void Matcher::InsertAssignments(pqxx::work& tx, const std::vector<AssignmentRow>& rows) {
  PgArray tables(PgType::kText), seat_no(PgType::kInt4), players(PgType::kText),
      tickets(PgType::kText), bots(PgType::kBool), addresses(PgType::kText),
      tokens(PgType::kText), teams(PgType::kInt4), formats(PgType::kInt4),
      stakes(PgType::kInt8), possible(PgType::kTimestampTz);
  for (const AssignmentRow& a : rows) {
    tables.AddString(a.table_id);
    seat_no.AddInt(a.seat);
    players.AddString(a.player_id);
    if (a.ticket_id.empty()) tickets.AddNull(); else tickets.AddString(a.ticket_id);
    bots.AddBool(a.bot);
    addresses.AddString(a.address);
    tokens.AddString(a.seat_token);
    teams.AddInt(a.team);
    formats.AddInt(a.format);
    stakes.AddInt(a.stake);
    possible.AddTime(a.possible);
  }
  tx.exec_params0(
      "INSERT INTO mm_assignments (table_id, seat, player_id, ticket_id, bot, address, "
      "seat_token, team, format, stake, possible) SELECT * FROM unnest($1::text[], "
      "$2::int4[], $3::text[], $4::text[], $5::bool[], $6::text[], $7::text[], "
      "$8::int4[], $9::int4[], $10::int8[], $11::timestamptz[])",
      tables.Finish(), seat_no.Finish(), players.Finish(), tickets.Finish(),
      bots.Finish(), addresses.Finish(), tokens.Finish(), teams.Finish(),
      formats.Finish(), stakes.Finish(), possible.Finish());
}

}  // namespace trix::matchmaking
