// TableVoidStore's contract (table_void_store.h), checked against PostgreSQL
// and against the in-memory fake TableVoids' tests use
// (testing/memory_table_void_store.h): due rows leased oldest first with their
// tries counted, a lease that hides a row from the next, a row due again after
// a backoff, a table recorded, rows done.
#include "services/matchmaking/store/table_void_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "services/matchmaking/testing/memory_table_void_store.h"
#include "services/pg/connection_pool.h"
#include "services/pg/testing/test_database.h"

namespace trix::matchmaking {
namespace {

// The store to check, with a way to record a void (as a given-up placement's
// commit does) and to make every row due now.
class VoidsUnderTest {
 public:
  virtual ~VoidsUnderTest() = default;
  virtual TableVoidStore& store() = 0;
  virtual void Add(const std::string& request_id) = 0;
  virtual void DueNow() = 0;
};

class MemoryVoids : public VoidsUnderTest {
 public:
  TableVoidStore& store() override { return store_; }
  void Add(const std::string& request_id) override {
    store_.Add(request_id, "request of " + request_id, "placement given up");
  }
  void DueNow() override { store_.DueNow(); }

 private:
  MemoryTableVoidStore store_;
};

class PostgresVoids : public VoidsUnderTest {
 public:
  explicit PostgresVoids(std::unique_ptr<pg::TestDatabase> db)
      : db_(std::move(db)), pool_(db_->url(), 2, "void store test"), store_(&pool_) {}

  TableVoidStore& store() override { return store_; }
  void Add(const std::string& request_id) override {
    Exec("INSERT INTO mm_table_voids (request_id, request, reason) "
         "VALUES ($1, convert_to('request of ' || $1, 'UTF8'), 'placement given up')",
         request_id);
  }
  void DueNow() override { Exec("UPDATE mm_table_voids SET due = now() WHERE $1 = $1", ""); }

 private:
  void Exec(const std::string& sql, const std::string& arg) {
    pqxx::connection c(db_->url());
    pqxx::work tx(c);
    tx.exec_params0(sql, arg);
    tx.commit();
  }

  std::unique_ptr<pg::TestDatabase> db_;  // first made, last dropped
  pg::ConnectionPool pool_;
  PostgresTableVoidStore store_;
};

class TableVoidStoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "Memory") {
      voids_ = std::make_unique<MemoryVoids>();
    } else {
      absl::StatusOr<std::unique_ptr<pg::TestDatabase>> db =
          pg::TestDatabase::Create();
      ASSERT_TRUE(db.ok()) << db.status();
      voids_ = std::make_unique<PostgresVoids>(*std::move(db));
    }
  }

  TableVoidStore& store() { return voids_->store(); }

  // The request ids leased now (up to `limit`).
  std::vector<std::string> Lease(int limit = 10) {
    absl::StatusOr<std::vector<DueVoid>> due = store().Lease(limit);
    EXPECT_TRUE(due.ok()) << due.status();
    std::vector<std::string> ids;
    if (due.ok()) {
      for (const DueVoid& v : *due) ids.push_back(v.request_id);
    }
    return ids;
  }

  std::unique_ptr<VoidsUnderTest> voids_;
};

TEST_P(TableVoidStoreContractTest, ADueVoidIsLeasedOnceWithItsRequestAndTries) {
  voids_->Add("v1");
  absl::StatusOr<std::vector<DueVoid>> due = store().Lease(10);
  ASSERT_TRUE(due.ok()) << due.status();
  ASSERT_EQ(due->size(), 1u);
  const DueVoid& v = (*due)[0];
  EXPECT_EQ(v.request_id, "v1");
  EXPECT_EQ(v.tries, 1);
  EXPECT_EQ(v.request, "request of v1");
  EXPECT_EQ(v.table_id, "");
  EXPECT_EQ(v.reason, "placement given up");
  EXPECT_TRUE(Lease().empty());  // leased
  voids_->DueNow();
  due = store().Lease(10);
  ASSERT_TRUE(due.ok() && due->size() == 1u);
  EXPECT_EQ((*due)[0].tries, 2);
}

TEST_P(TableVoidStoreContractTest, ATableRecordedIsLeasedWithIt) {
  voids_->Add("v1");
  ASSERT_TRUE(store().RecordTable("v1", "table-1", "table:7").ok());
  absl::StatusOr<std::vector<DueVoid>> due = store().Lease(10);
  ASSERT_TRUE(due.ok() && due->size() == 1u);
  EXPECT_EQ((*due)[0].table_id, "table-1");
  EXPECT_EQ((*due)[0].address, "table:7");
}

TEST_P(TableVoidStoreContractTest, AVoidTriedAndFailedWaitsAndOneDoneIsNotLeased) {
  for (const char* id : {"v1", "v2", "v3"}) voids_->Add(id);
  EXPECT_EQ(Lease(2).size(), 2u);
  EXPECT_EQ(Lease().size(), 1u);
  voids_->DueNow();
  ASSERT_TRUE(store().Later("v1", 1).ok());
  ASSERT_TRUE(store().Done("v2").ok());
  EXPECT_EQ(Lease(), std::vector<std::string>{"v3"});
  absl::StatusOr<RetryTable::Backlog> backlog = store().Pending();
  ASSERT_TRUE(backlog.ok()) << backlog.status();
  EXPECT_EQ(backlog->pending, 2);
  absl::SleepFor(absl::Milliseconds(120));  // past v1's backoff (at most 100 ms)
  EXPECT_EQ(Lease(), std::vector<std::string>{"v1"});
}

INSTANTIATE_TEST_SUITE_P(Stores, TableVoidStoreContractTest,
                         ::testing::Values("Memory", "Postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace trix::matchmaking
