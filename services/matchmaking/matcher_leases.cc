// The matcher's pool leases (matcher.h): the pools this replica takes, the
// placements a previous holder left, and the reads of the leased pools.
#include "services/matchmaking/matcher.h"

#include "services/common/logging.h"
#include "proto/wire/wire.h"

namespace trix::matchmaking {

void Matcher::Connect() {
  session_ = options_.store->OpenSession();
  last_lease_try_ = absl::InfinitePast();
}

void Matcher::TryLeases() {
  last_lease_try_ = absl::Now();
  std::vector<Batch> unfinished;  // enqueued once no statement is waiting
  for (const PoolSpec& spec : options_.pools) {
    if (leased_.count(spec.name) || !session_->TryLease(spec.name)) continue;
    PoolState state{.spec = &spec, .tickets = PoolTickets(spec.options)};
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
      state.tickets.Sync(by_pool[name]);
    } else {
      for (const TicketRow& t : by_pool[name]) state.tickets.Add(t);
    }
  }
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

}  // namespace trix::matchmaking
