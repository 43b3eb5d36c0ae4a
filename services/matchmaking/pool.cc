#include "services/matchmaking/pool.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace trix::matchmaking {

int WideningCurve::Window(absl::Duration waited) const {
  double seconds = std::max(0.0, absl::ToDoubleSeconds(waited));
  double w = initial + per_second * seconds;
  return static_cast<int>(std::min<double>(w, std::max(initial, max)));
}

absl::Duration WideningCurve::WaitFor(int distance) const {
  if (distance <= initial) return absl::ZeroDuration();
  if (distance > std::max(initial, max) || per_second <= 0) {
    return absl::InfiniteDuration();
  }
  return absl::Seconds(static_cast<double>(distance - initial) / per_second);
}

int Ticket::rating() const {
  if (members.empty()) return 0;
  int sum = 0;
  for (const Member& m : members) sum += m.rating;
  return sum / static_cast<int>(members.size());
}

Pool::Pool(PoolOptions options) : options_(std::move(options)) {}

bool Pool::Add(Ticket ticket) {
  if (ticket.members.empty() || ticket.members.size() > 2) return false;
  if (seq_of_.contains(ticket.ticket_id)) return false;
  if (ticket.seq == 0 || ticket.seq < next_seq_) ticket.seq = next_seq_;
  next_seq_ = ticket.seq + 1;
  uint64_t seq = ticket.seq;
  BucketsOf(ticket)[BucketOf(ticket.rating())].insert(seq);
  seq_of_[ticket.ticket_id] = seq;
  players_ += ticket.members.size();
  by_seq_.emplace(seq, std::move(ticket));
  return true;
}

bool Pool::Remove(const std::string& ticket_id) {
  auto it = seq_of_.find(ticket_id);
  if (it == seq_of_.end()) return false;
  Erase(it->second);
  return true;
}

bool Pool::Contains(const std::string& ticket_id) const {
  return seq_of_.contains(ticket_id);
}

void Pool::Erase(uint64_t seq) {
  auto it = by_seq_.find(seq);
  if (it == by_seq_.end()) return;
  const Ticket& t = it->second;
  std::map<int, Bucket>& buckets = BucketsOf(t);
  auto bucket = buckets.find(BucketOf(t.rating()));
  if (bucket != buckets.end()) {
    bucket->second.erase(seq);
    if (bucket->second.empty()) buckets.erase(bucket);
  }
  players_ -= t.members.size();
  seq_of_.erase(t.ticket_id);
  by_seq_.erase(it);
}

int Pool::WindowFor(const std::string& ticket_id, absl::Time now) const {
  auto it = seq_of_.find(ticket_id);
  if (it == seq_of_.end()) return 0;
  return options_.curve.Window(now - by_seq_.at(it->second).queued);
}

int Pool::Distance(const Ticket& a, const Ticket& b) const {
  int d = std::abs(a.rating() - b.rating());
  if (a.provisional || b.provisional) d = std::max(0, d - options_.provisional_slack);
  return d;
}

void Pool::Scan(const std::map<int, Bucket>& buckets, const Ticket& anchor,
                int window, int reach, int need,
                std::vector<uint64_t>* candidates) const {
  auto last = buckets.upper_bound(BucketOf(anchor.rating() + reach));
  for (auto b = buckets.lower_bound(BucketOf(anchor.rating() - reach)); b != last;
       ++b) {
    int found = 0;
    // Each bucket offers its earliest compatible tickets; enough of them that the
    // greedy pass in Pick() can fill the table from this bucket alone.
    for (uint64_t seq : b->second) {
      if (seq == anchor.seq) continue;
      const Ticket& t = by_seq_.at(seq);
      if (static_cast<int>(t.members.size()) > need) continue;
      if (Distance(anchor, t) > window) continue;
      candidates->push_back(seq);
      if (++found >= need) break;
    }
  }
}

int Pool::Pick(const Ticket& anchor, int window, std::vector<uint64_t>* picked) const {
  const int need = kSeats - static_cast<int>(anchor.members.size());
  const int slack = window + options_.provisional_slack;
  std::vector<uint64_t>& candidates = candidates_;
  candidates.clear();
  Scan(buckets_, anchor, window, anchor.provisional ? slack : window, need,
       &candidates);
  Scan(provisional_buckets_, anchor, window, slack, need, &candidates);
  std::sort(candidates.begin(), candidates.end());
  int empty = need;
  for (uint64_t seq : candidates) {
    int size = static_cast<int>(by_seq_.at(seq).members.size());
    if (size > empty) continue;
    picked->push_back(seq);
    empty -= size;
    if (empty == 0) break;
  }
  return empty;
}

Group Pool::MakeGroup(const Ticket& anchor, const std::vector<uint64_t>& picked,
                      absl::Time now, int window) {
  Group group;
  group.possible = anchor.queued;
  int farthest = 0;
  group.tickets.push_back(anchor);
  for (uint64_t seq : picked) {
    const Ticket& t = by_seq_.at(seq);
    group.possible = std::max(group.possible, t.queued);
    farthest = std::max(farthest, Distance(anchor, t));
    group.tickets.push_back(t);
  }
  absl::Duration wait = options_.curve.WaitFor(farthest);
  if (wait != absl::InfiniteDuration()) {
    group.possible = std::max(group.possible, anchor.queued + wait);
  }
  group.possible = std::min(group.possible, now);
  group.seats = ArrangeSeats(group.tickets, options_.partner, options_.bot_rating);
  for (const SeatPlan& s : group.seats) group.bots += s.bot() ? 1 : 0;
  if (group.bots > 0) {
    group.possible = std::min(now, std::max(group.possible,
                                            anchor.queued + options_.bot_fill_wait));
  }
  (void)window;
  Erase(anchor.seq);
  for (uint64_t seq : picked) Erase(seq);
  return group;
}

std::vector<Group> Pool::Match(absl::Time now) {
  std::vector<Group> groups;
  std::vector<uint64_t> picked;
  uint64_t after = 0;
  for (;;) {
    auto it = by_seq_.upper_bound(after);
    if (it == by_seq_.end()) break;
    after = it->first;
    const Ticket& anchor = it->second;
    const absl::Duration waited = now - anchor.queued;
    const int window = options_.curve.Window(waited);
    picked.clear();
    int empty = Pick(anchor, window, &picked);
    bool fill = options_.bot_fill && waited >= options_.bot_fill_wait;
    if (empty == 0 || fill) {
      Ticket copy = anchor;  // MakeGroup erases the original
      groups.push_back(MakeGroup(copy, picked, now, window));
    }
  }
  return groups;
}

std::array<SeatPlan, kSeats> ArrangeSeats(const std::vector<Ticket>& tickets,
                                          bool partner, int bot_rating) {
  // The members in arrival order, bots after them.
  std::array<SeatPlan, kSeats> order;
  std::array<int, kSeats> rating;
  std::array<int, kSeats> party;  // ticket index, or a unique negative for bots
  int n = 0;
  for (int t = 0; t < static_cast<int>(tickets.size()); ++t) {
    for (int m = 0; m < static_cast<int>(tickets[t].members.size()) && n < kSeats;
         ++m) {
      order[n] = {t, m};
      rating[n] = tickets[t].members[m].rating;
      party[n] = t;
      ++n;
    }
  }
  for (; n < kSeats; ++n) {
    order[n] = {};
    rating[n] = bot_rating;
    party[n] = -1 - n;
  }
  if (!partner) return order;
  // Member 0 partners member 1, 2 or 3; the pair sits at seats 0 and 2.
  int best_partner = -1;
  int best_gap = 0;
  for (int p = 1; p < kSeats; ++p) {
    int a = rating[0] + rating[p];
    int b = 0;
    bool split = false;
    for (int i = 1; i < kSeats; ++i) {
      if (i == p) continue;
      b += rating[i];
      // A party member on the other team from its partner splits the party.
      if (party[i] == party[0] || party[i] == party[p]) split = true;
    }
    if (split) continue;
    int gap = std::abs(a - b);
    if (best_partner < 0 || gap < best_gap) {
      best_partner = p;
      best_gap = gap;
    }
  }
  std::array<SeatPlan, kSeats> seats;
  seats[0] = order[0];
  seats[2] = order[best_partner];
  int next = 1;
  for (int i = 1; i < kSeats; ++i) {
    if (i == best_partner) continue;
    seats[next] = order[i];
    next += 2;
  }
  return seats;
}

}  // namespace trix::matchmaking
