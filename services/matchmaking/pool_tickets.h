// A leased pool's waiting tickets as the matcher groups them: the ticket rows read
// from the store (or offered by this replica's lobby) turned into the pool's
// tickets (pool.h), who plays whom. No network, no database.
//
// A party is one pool ticket, keyed by its party id, once both members have
// queued; until then the first member waits alone as a half, out of the pool. A
// member who leaves takes the party out, and the partner waits for them again.
//
//   PoolTickets tickets(spec.options);
//   tickets.Add(row);  tickets.Remove(ticket_id);  tickets.Sync(rows_read);
//   for (Group& g : tickets.Match(now)) ... tickets.RowsOf(g.tickets[0].ticket_id) ...
//   tickets.Forget(pool_ticket);  // grouped: out of the rows too
#ifndef TRIX_SERVICES_MATCHMAKING_POOL_TICKETS_H_
#define TRIX_SERVICES_MATCHMAKING_POOL_TICKETS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/matchmaking/pool.h"
#include "services/matchmaking/ticket_store.h"

namespace trix::matchmaking {

class PoolTickets {
 public:
  explicit PoolTickets(const PoolOptions& options);

  // Takes a waiting ticket in (one already held is ignored).
  void Add(const TicketRow& row);
  // Takes a ticket out (cancelled, superseded, claimed elsewhere); one not held is
  // ignored.
  void Remove(const std::string& ticket_id);
  // Holds exactly `rows`, the pool's waiting tickets read whole.
  void Sync(const std::vector<TicketRow>& rows);
  // Drops a grouped pool ticket's rows (the pool let it go when it grouped it).
  void Forget(const std::string& pool_ticket);

  // Groups every table possible at `now` (Pool::Match); their rows stay until
  // forgotten.
  std::vector<Group> Match(absl::Time now) { return pool_->Match(now); }
  // The ticket rows of a pool ticket (one, or a party's two), as grouped.
  const std::vector<TicketRow>& RowsOf(const std::string& pool_ticket) const {
    return rows_.at(pool_ticket);
  }
  // Whether the ticket is held (in the pool, or a half waiting for its partner).
  bool Holds(const std::string& ticket_id) const { return owner_.count(ticket_id) > 0; }
  size_t size() const { return pool_->size(); }
  size_t players() const { return pool_->players(); }

 private:
  std::unique_ptr<Pool> pool_;
  // Pool ticket id (the ticket's, or a party's id) -> its ticket rows.
  std::map<std::string, std::vector<TicketRow>> rows_;
  // A party member whose partner has not queued yet, by party id.
  std::map<std::string, TicketRow> halves_;
  // Ticket id -> the pool ticket (or half) that holds it.
  std::map<std::string, std::string> owner_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_POOL_TICKETS_H_
