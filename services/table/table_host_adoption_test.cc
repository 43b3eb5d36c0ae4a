// A call for a table this instance does not host makes it look the table up (and
// adopt it when nobody holds it). A flood of such calls must not become a flood of
// database lookups or of placeholders in memory: a malformed id is refused
// INVALID_ARGUMENT before any lookup, at most max_adoptions lookups run at once
// (a call past them waits for one, while max_waiting_adoptions tables wait; past
// those it is UNAVAILABLE "retry in a second"), an id the database does
// not know is NOT_FOUND and leaves nothing behind (and is remembered for a moment,
// so that calls repeating it are answered without a lookup each), and the tables
// the instance hosts play on meanwhile. Over the in-memory store, its lookups held to fill
// the bound.
#include <future>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/auth.h"
#include "services/table/table_host.h"
#include "services/table/testing/memory_store.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

// The answers to many calls, counted by code.
class Answers {
 public:
  Reply<v1::ActResponse> Collect() {
    return [this](absl::StatusOr<v1::ActResponse> r) {
      absl::MutexLock lock(&mu_);
      ++by_code_[r.status().code()];
      if (absl::IsUnavailable(r.status())) last_unavailable_ = r.status();
      ++total_;
    };
  }
  bool WaitFor(int total) {
    absl::MutexLock lock(&mu_);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return total_ >= total; };
    return mu_.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(10));
  }
  int Count(absl::StatusCode code) {
    absl::MutexLock lock(&mu_);
    return by_code_[code];
  }
  absl::Status last_unavailable() {
    absl::MutexLock lock(&mu_);
    return last_unavailable_;
  }

 private:
  absl::Mutex mu_;
  std::map<absl::StatusCode, int> by_code_ ABSL_GUARDED_BY(mu_);
  absl::Status last_unavailable_ ABSL_GUARDED_BY(mu_);
  int total_ ABSL_GUARDED_BY(mu_) = 0;
};

v1::ActRequest LeaveAt(const std::string& table_id, const std::string& token,
                       const std::string& request_id) {
  v1::ActRequest r;
  r.mutable_leave();
  r.set_table_id(table_id);
  r.set_seat_token(token);
  r.set_request_id(request_id);
  return r;
}

// Instance "table-a" over the in-memory store; a test sets options_ and makes
// its host.
class AdoptionBoundsTest : public ::testing::Test {
 protected:
  AdoptionBoundsTest() { options_.instance_id = "table-a"; }

  std::shared_ptr<MemoryDatabase> db_ = std::make_shared<MemoryDatabase>();
  MemoryStore store_{db_, "table-a"};
  prometheus::Registry registry_;
  HostOptions options_;
};

TEST_F(AdoptionBoundsTest, AFloodOfUnknownIdsIsBoundedAndTheHostedTablesPlayOn) {
  options_.max_adoptions = 8;
  options_.max_waiting_adoptions = 100;
  TableHost host(options_, &store_, &registry_);
  ASSERT_TRUE(host.Start().ok());
  v1::CreateTableRequest create;
  create.set_request_id("real");
  create.mutable_mode()->set_team(v1::TEAM_SOLO);
  create.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
  for (int s = 0; s < 4; ++s) create.add_seats()->set_player_id(absl::StrCat("p", s));
  std::promise<absl::StatusOr<v1::CreateTableResponse>> created;
  host.CreateTable(create, [&](auto r) { created.set_value(std::move(r)); });
  const v1::CreateTableResponse table = created.get_future().get().value();
  const int64_t lookups_before = store_.calls("Locate");

  // The database is slow: every lookup waits.
  store_.HoldCalls("Locate", true);
  Answers flood;
  constexpr int kUnknown = 300, kMalformed = 100;
  for (int i = 0; i < kUnknown; ++i) {
    host.Act(LeaveAt(service::NewUuid(), "some-token", "r"), flood.Collect());
  }
  for (int i = 0; i < kMalformed; ++i) {
    host.Act(LeaveAt(absl::StrCat("table-", i), "some-token", "r"), flood.Collect());
  }
  // All but the lookups in flight and the calls waiting for one are answered at
  // once.
  constexpr int kLookingUp = 8, kWaiting = 100;
  ASSERT_TRUE(flood.WaitFor(kUnknown + kMalformed - kLookingUp - kWaiting));
  EXPECT_EQ(flood.Count(absl::StatusCode::kInvalidArgument), kMalformed);
  EXPECT_EQ(flood.Count(absl::StatusCode::kUnavailable), kUnknown - kLookingUp - kWaiting);
  EXPECT_THAT(flood.last_unavailable().message(), HasSubstr("retry in a second"));
  EXPECT_EQ(host.metrics().adoptions.Value(), kLookingUp);
  EXPECT_LE(host.table_count(), 1u + kLookingUp + kWaiting);

  // The hosted table answers meanwhile.
  std::promise<absl::StatusOr<v1::ActResponse>> left;
  host.Act(LeaveAt(table.table_id(), table.seat_tokens(0), "leave"),
           [&](auto r) { left.set_value(std::move(r)); });
  EXPECT_TRUE(left.get_future().get().ok());

  store_.HoldCalls("Locate", false);
  ASSERT_TRUE(flood.WaitFor(kUnknown + kMalformed));
  // The waiting calls were answered once their turn came.
  EXPECT_EQ(flood.Count(absl::StatusCode::kNotFound), kLookingUp + kWaiting);
  // One lookup per id let through, none for the others; nothing left in memory.
  EXPECT_EQ(store_.calls("Locate") - lookups_before, kLookingUp + kWaiting);
  for (int i = 0; i < 100 && (host.metrics().adoptions.Value() > 0 ||
                              host.table_count() > 1); ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(host.metrics().adoptions.Value(), 0);
  EXPECT_EQ(host.table_count(), 1u);
}

TEST_F(AdoptionBoundsTest, AnUnknownIdIsLookedUpOnceWhileRemembered) {
  options_.unknown_table_memory = absl::Milliseconds(50);
  TableHost host(options_, &store_, &registry_);
  ASSERT_TRUE(host.Start().ok());
  const std::string unknown = service::NewUuid();
  const int64_t lookups_before = store_.calls("Locate");
  Answers answers;
  for (int i = 0; i < 20; ++i) {
    host.Act(LeaveAt(unknown, "some-token", "r"), answers.Collect());
    ASSERT_TRUE(answers.WaitFor(i + 1));  // one after the other: each sees the last
  }
  EXPECT_EQ(answers.Count(absl::StatusCode::kNotFound), 20);
  EXPECT_EQ(store_.calls("Locate") - lookups_before, 1);
  EXPECT_EQ(host.table_count(), 0u);

  // Once forgotten, the next call looks again.
  absl::SleepFor(absl::Milliseconds(100));
  host.Act(LeaveAt(unknown, "some-token", "r"), answers.Collect());
  ASSERT_TRUE(answers.WaitFor(21));
  EXPECT_EQ(answers.Count(absl::StatusCode::kNotFound), 21);
  EXPECT_EQ(store_.calls("Locate") - lookups_before, 2);
}

}  // namespace
}  // namespace trix::table
