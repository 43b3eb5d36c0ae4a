// The matcher's placers (matcher.h): the tables of the claimed groups created,
// their seats committed and delivered, and what is unfinished placed again.
#include "services/matchmaking/matcher.h"

#include <algorithm>
#include <set>

#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/matchmaking/store/retry_table.h"

namespace trix::matchmaking {

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
