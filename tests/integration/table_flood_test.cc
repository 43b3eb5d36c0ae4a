// A flood of calls for tables that do not exist, over real gRPC against the real
// service and PostgreSQL: hundreds of random well-formed ids and malformed ones at
// once. Every call gets its right answer (NOT_FOUND, or UNAVAILABLE "retry in a
// second" past the bound on lookups in flight; INVALID_ARGUMENT for a malformed id),
// the table the instance hosts keeps answering meanwhile, and nothing of the flood
// stays in memory.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/auth.h"
#include "tests/integration/service_fixture.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

class FloodTest : public TableServiceTest {};

// One asynchronous Act call and its answer.
struct Call {
  grpc::ClientContext context;
  v1::ActRequest request;
  v1::ActResponse response;
  grpc::Status status;
};

TEST_F(FloodTest, UnknownIdsCostBoundedLookupsAndTheHostedTablePlaysOn) {
  ServiceOptions options = DefaultServiceOptions();
  options.host.max_adoptions = 4;
  StartService(options);
  v1::CreateTableResponse table =
      CreateTable(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 81);

  constexpr int kUnknown = 400, kMalformed = 100;
  std::vector<std::unique_ptr<Call>> calls;
  absl::Mutex mu;
  int answered = 0;
  for (int i = 0; i < kUnknown + kMalformed; ++i) {
    auto call = std::make_unique<Call>();
    call->request.set_table_id(i < kUnknown ? service::NewUuid()
                                            : absl::StrCat("made-up-", i));
    call->request.set_seat_token("a-token");
    call->request.set_request_id("r");
    call->request.mutable_leave();
    calls.push_back(std::move(call));
  }
  for (auto& call : calls) {
    Call* c = call.get();
    stub_->async()->Act(&c->context, &c->request, &c->response,
                        [c, &mu, &answered](grpc::Status s) {
                          absl::MutexLock lock(&mu);
                          c->status = std::move(s);
                          ++answered;
                        });
  }
  // The hosted table answers while the flood is in flight.
  v1::ActResponse left;
  EXPECT_TRUE(Act(table, 0, "leave", Leave(), &left).ok());
  {
    absl::MutexLock lock(&mu);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return answered == kUnknown + kMalformed;
    };
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(60)));
  }
  int not_found = 0, busy = 0;
  for (int i = 0; i < kUnknown + kMalformed; ++i) {
    const grpc::Status& s = calls[i]->status;
    if (i >= kUnknown) {
      EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
      EXPECT_THAT(s.error_message(), HasSubstr("is not a table id"));
      continue;
    }
    if (s.error_code() == grpc::StatusCode::NOT_FOUND) {
      ++not_found;
    } else {
      EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
      EXPECT_THAT(s.error_message(), HasSubstr("retry in a second"));
      ++busy;
    }
  }
  EXPECT_EQ(not_found + busy, kUnknown);
  EXPECT_GT(not_found, 0);
  // Nothing left behind: the hosted table only, no lookup in flight.
  EXPECT_EQ(service_->host().table_count(), 1u);
  EXPECT_EQ(service_->host().metrics().adoptions.Value(), 0);
  EXPECT_EQ(GetTable(table.table_id()).table_id(), table.table_id());
}

}  // namespace
}  // namespace trix::table
