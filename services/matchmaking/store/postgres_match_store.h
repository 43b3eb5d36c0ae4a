// MatchStore on PostgreSQL (migrations 0008, 0017, 0026): pool leases are
// advisory locks on each session's own connection, claims and placements one
// statement each, and the commit of placed seats one statement on the shared
// connections. Every statement the matcher runs lives here.
//
//   PostgresMatchStore store(url, &ticket_store.pool());
//   Matcher matcher({.store = &store, ...}, ...);
#ifndef TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_MATCH_STORE_H_
#define TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_MATCH_STORE_H_

#include <memory>
#include <pqxx/result>
#include <pqxx/transaction_base>
#include <set>
#include <string>

#include "services/matchmaking/store/match_store.h"
#include "services/pg/connection_pool.h"

namespace trix::matchmaking {

class PostgresMatchStore : public MatchStore {
 public:
  // Sessions connect to `url`, each on a connection of its own; commits run on
  // `db`.
  PostgresMatchStore(std::string url, pg::ConnectionPool* db);

  std::unique_ptr<PoolSession> OpenSession() override;
  absl::StatusOr<std::set<std::string>> CommitPlacements(
      const PlacementOutcome& outcome) override;

  // The commit's one statement, in `tx`. Returns the placements it finished
  // (request_id): the created ones still recorded.
  static pqxx::result CommitAssignments(pqxx::transaction_base& tx,
                                        const PlacementOutcome& p);

 private:
  const std::string url_;
  pg::ConnectionPool* const db_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_STORE_POSTGRES_MATCH_STORE_H_
