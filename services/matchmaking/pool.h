// A matchmaking pool: the tickets waiting for one mode at one stake level, and the
// grouping that turns them into tables. No network, no database: the service feeds
// it tickets and asks it for groups; tests and the benchmark drive it alone.
//
// Grouping, each time Match() runs, takes the waiting tickets in arrival order. The
// oldest ticket (the anchor) accepts others whose displayed rating is within its
// window, which widens with the anchor's waiting time (WideningCurve); from those it
// takes the earliest arrivals that fill the four seats (a party counts two). So
// nobody waits behind a later arrival while a table for them was possible: a later
// ticket is only grouped ahead of an earlier one that no table could include. When
// the anchor has waited `bot_fill_wait` and still no full group exists, the group is
// made of what there is and the empty seats go to bots. A provisional player's
// rating says little, so a distance involving one is shortened by
// `provisional_slack`. Partner teams are balanced by rating (SeatPlan); a party is
// never split across teams and in solo modes sits at the same table.
//
//   Pool pool(PoolOptions{.partner = true});
//   pool.Add(ticket);                    // or Remove(ticket_id)
//   for (Group& g : pool.Match(absl::Now())) place(g);
#ifndef TRIX_SERVICES_MATCHMAKING_POOL_H_
#define TRIX_SERVICES_MATCHMAKING_POOL_H_

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace trix::matchmaking {

inline constexpr int kSeats = 4;

// The accepted rating distance as a function of waiting time: `initial`, growing by
// `per_second`, capped at `max`.
struct WideningCurve {
  int initial = 100;
  int per_second = 50;
  int max = 1000;

  int Window(absl::Duration waited) const;
  // The shortest wait whose window covers `distance` (InfiniteDuration if none).
  absl::Duration WaitFor(int distance) const;
};

struct PoolOptions {
  bool partner = true;  // partner mode: teams of two, balanced
  WideningCurve curve;
  absl::Duration bot_fill_wait = absl::Seconds(10);
  bool bot_fill = true;       // false: staked pools (bots never stake) wait on
  int provisional_slack = 200;
  int bot_rating = 1500;      // what a bot seat counts for when balancing
};

struct Member {
  std::string player_id;
  std::string display_name;
  int rating = 0;
};

// One entry of the queue: a player alone or a party of two.
struct Ticket {
  std::string ticket_id;
  std::vector<Member> members;  // 1 or 2
  bool provisional = false;
  absl::Time queued;
  uint64_t seq = 0;  // arrival order; set by Add() when 0

  int rating() const;  // the members' mean
};

// Seat s is `members` of ticket `ticket` (an index into Group::tickets), or a bot
// when ticket < 0.
struct SeatPlan {
  int ticket = -1;
  int member = 0;
  bool bot() const { return ticket < 0; }
};

struct Group {
  std::vector<Ticket> tickets;
  std::array<SeatPlan, kSeats> seats;
  int bots = 0;
  // When this table first became possible: the latest arrival, or the moment the
  // anchor's window grew to cover the group, or the bot-fill deadline.
  absl::Time possible;
};

class Pool {
 public:
  explicit Pool(PoolOptions options);

  // A ticket with an id already in the pool is ignored (returns false).
  bool Add(Ticket ticket);
  bool Remove(const std::string& ticket_id);
  bool Contains(const std::string& ticket_id) const;
  size_t size() const { return by_seq_.size(); }
  // Players waiting (a party counts two).
  size_t players() const { return players_; }

  // Groups every table possible at `now` and removes their tickets.
  std::vector<Group> Match(absl::Time now);

  // The window the ticket's wait gives it at `now`, for the player's updates.
  int WindowFor(const std::string& ticket_id, absl::Time now) const;
  const PoolOptions& options() const { return options_; }

 private:
  using Bucket = std::set<uint64_t>;
  int Distance(const Ticket& a, const Ticket& b) const;
  // The earliest-arrived tickets compatible with `anchor` that fill its table,
  // appended to `picked` (seq numbers); returns the seats still empty.
  int Pick(const Ticket& anchor, int window, std::vector<uint64_t>* picked) const;
  Group MakeGroup(const Ticket& anchor, const std::vector<uint64_t>& picked,
                  absl::Time now, int window);
  void Erase(uint64_t seq);
  int BucketOf(int rating) const { return rating >= 0 ? rating / kBucketWidth
                                                      : -((-rating + kBucketWidth - 1) /
                                                          kBucketWidth); }

  static constexpr int kBucketWidth = 25;
  PoolOptions options_;
  mutable std::vector<uint64_t> candidates_;  // Pick()'s scratch
  uint64_t next_seq_ = 1;
  size_t players_ = 0;
  std::map<uint64_t, Ticket> by_seq_;
  absl::flat_hash_map<std::string, uint64_t> seq_of_;
  // Rating bucket -> seqs in arrival order, established and provisional players
  // apart so that a search reaches each only as far as its distance rule allows.
  std::map<int, Bucket> buckets_;
  std::map<int, Bucket> provisional_buckets_;
  std::map<int, Bucket>& BucketsOf(const Ticket& t) {
    return t.provisional ? provisional_buckets_ : buckets_;
  }
  void Scan(const std::map<int, Bucket>& buckets, const Ticket& anchor, int window,
            int reach, int need, std::vector<uint64_t>* candidates) const;
};

// Seats a group's members: in partner mode the two teams (seats 0+2 and 1+3) with
// the closest rating sums that keep every party together; in solo modes in arrival
// order. Bots fill the seats left.
std::array<SeatPlan, kSeats> ArrangeSeats(const std::vector<Ticket>& tickets,
                                          bool partner, int bot_rating);

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_POOL_H_
