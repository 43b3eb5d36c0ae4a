// RatingsStore on PostgreSQL (migrations/0007, 0011, 0035): each batch is a
// transaction on the consumer's own connection, under a transaction-level advisory
// lock that one replica holds at a time; each settlement runs behind a savepoint.
#ifndef TRIX_SERVICES_RATINGS_STORE_POSTGRES_RATINGS_STORE_H_
#define TRIX_SERVICES_RATINGS_STORE_POSTGRES_RATINGS_STORE_H_

#include <memory>
#include <pqxx/connection>

#include "services/ratings/store/ratings_store.h"

namespace trix::ratings {

class PostgresRatingsStore : public RatingsStore {
 public:
  // `connection` outlives the store and is used by one batch at a time.
  explicit PostgresRatingsStore(pqxx::connection& connection) : connection_(connection) {}

  std::unique_ptr<ConsumerBatch> BeginBatch() override;
  std::vector<std::string> DueSetAside(absl::Duration after, int limit) override;
  ConsumerLag ReadLag() override;

 private:
  pqxx::connection& connection_;
};

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_STORE_POSTGRES_RATINGS_STORE_H_
