// Placement against fake table-service instances (in-process gRPC servers) and
// a list of live instances in place of the registry: the least loaded instance
// with room first, the next one on failure, the failure reported that may have
// made the table, the fallback address, and VoidTable.
#include "services/matchmaking/placement.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"

namespace trix::matchmaking {
namespace {

// One table-service instance: answers CreateTable with `answer` (a table named
// after itself when OK) and keeps the requests and the callers' credentials.
class FakeInstance : public v1::TableService::Service {
 public:
  explicit FakeInstance(std::string name) : name_(std::move(name)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~FakeInstance() override { server_->Shutdown(); }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  grpc::Status CreateTable(grpc::ServerContext* context, const v1::CreateTableRequest* request,
                           v1::CreateTableResponse* response) override {
    std::lock_guard<std::mutex> lock(mu_);
    asked_.push_back(request->request_id());
    Record(context);
    response->set_table_id(name_ + "-" + request->request_id());
    return answer_;
  }
  grpc::Status VoidTable(grpc::ServerContext* context, const v1::VoidTableRequest* request,
                         v1::VoidTableResponse*) override {
    std::lock_guard<std::mutex> lock(mu_);
    voided_.push_back(request->table_id() + ": " + request->reason());
    Record(context);
    return grpc::Status::OK;
  }

  void Answer(grpc::Status answer) {
    std::lock_guard<std::mutex> lock(mu_);
    answer_ = std::move(answer);
  }
  std::vector<std::string> asked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return asked_;
  }
  std::vector<std::string> voided() const {
    std::lock_guard<std::mutex> lock(mu_);
    return voided_;
  }
  std::string authorization() const {
    std::lock_guard<std::mutex> lock(mu_);
    return authorization_;
  }

 private:
  void Record(grpc::ServerContext* context) {
    auto it = context->client_metadata().find("authorization");
    if (it != context->client_metadata().end()) {
      authorization_ = std::string(it->second.data(), it->second.size());
    }
  }

  const std::string name_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  mutable std::mutex mu_;
  grpc::Status answer_ = grpc::Status::OK;
  std::vector<std::string> asked_, voided_;
  std::string authorization_;
};

// The registry's answer: instances set by the test.
class ListedInstances : public TableInstances {
 public:
  absl::StatusOr<std::vector<table::Instance>> Live(absl::Duration) override {
    return listed;
  }
  void Add(const FakeInstance& instance, int capacity, int live_tables) {
    listed.push_back({.instance_id = instance.address(),
                      .state = {.address = instance.address(),
                                .capacity = capacity,
                                .live_tables = live_tables}});
  }
  std::vector<table::Instance> listed;
};

class PlacementTest : public ::testing::Test {
 protected:
  // One table's placement, with `options`.
  Placed PlaceOne(PlacementOptions options = {}) {
    options.service_token = "matchmaking-token";
    Placement placement(&instances_, options);
    v1::CreateTableRequest request;
    request.set_request_id("r1");
    failures_ = 0;
    Placed placed = std::move(placement.CreateTables({request}).front());
    failures_ = placement.failures();
    return placed;
  }

  FakeInstance a_{"a"}, b_{"b"}, c_{"c"};
  ListedInstances instances_;
  int64_t failures_ = 0;
};

TEST_F(PlacementTest, TheLeastLoadedInstanceWithRoomGetsTheTable) {
  instances_.Add(a_, 10, 5);
  instances_.Add(b_, 4, 1);   // a quarter in use
  instances_.Add(c_, 10, 10);  // full
  const Placed placed = PlaceOne();
  ASSERT_TRUE(placed.status.ok()) << placed.status;
  EXPECT_EQ(placed.address, b_.address());
  EXPECT_EQ(placed.response.table_id(), "b-r1");
  EXPECT_EQ(b_.authorization(), "Bearer matchmaking-token");
  EXPECT_TRUE(a_.asked().empty());
  EXPECT_TRUE(c_.asked().empty());
}

TEST_F(PlacementTest, AnInstanceThatFailsIsFollowedByTheNext) {
  instances_.Add(a_, 10, 0);
  instances_.Add(b_, 10, 5);
  a_.Answer(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "full"));
  const Placed placed = PlaceOne();
  ASSERT_TRUE(placed.status.ok()) << placed.status;
  EXPECT_EQ(placed.address, b_.address());
  EXPECT_EQ(a_.asked(), std::vector<std::string>{"r1"});
  EXPECT_EQ(failures_, 1);
}

TEST_F(PlacementTest, AFailureThatMayHaveMadeTheTableIsWhatIsReported) {
  instances_.Add(a_, 10, 0);
  instances_.Add(b_, 10, 5);
  a_.Answer(grpc::Status(grpc::StatusCode::UNAVAILABLE, "answer lost"));
  b_.Answer(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "full"));
  const Placed placed = PlaceOne();
  EXPECT_EQ(placed.status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(placed.address, a_.address());  // asked again, it gets that table
  EXPECT_FALSE(ProvesNoTable(placed.status));
  EXPECT_EQ(b_.asked().size(), 1u);
}

TEST_F(PlacementTest, ABadRequestIsNotTriedElsewhere) {
  instances_.Add(a_, 10, 0);
  instances_.Add(b_, 10, 5);
  a_.Answer(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no seats"));
  const Placed placed = PlaceOne();
  EXPECT_EQ(placed.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(ProvesNoTable(placed.status));
  EXPECT_TRUE(b_.asked().empty());
}

TEST_F(PlacementTest, WithNoInstanceWithRoomTheFallbackOrNothing) {
  instances_.Add(a_, 3, 3);
  const Placed none = PlaceOne();
  EXPECT_EQ(none.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(ProvesNoTable(none.status));
  const Placed fallback = PlaceOne({.fallback_address = c_.address()});
  ASSERT_TRUE(fallback.status.ok()) << fallback.status;
  EXPECT_EQ(fallback.response.table_id(), "c-r1");
  EXPECT_TRUE(a_.asked().empty());
}

TEST_F(PlacementTest, VoidTableGoesToTheAddressGiven) {
  Placement placement(&instances_, {.service_token = "matchmaking-token"});
  EXPECT_TRUE(placement.VoidTable(b_.address(), "t1", "placement given up").ok());
  EXPECT_EQ(b_.voided(), std::vector<std::string>{"t1: placement given up"});
  EXPECT_EQ(b_.authorization(), "Bearer matchmaking-token");
}

TEST(ProvesNoTableTest, OnlyARefusalBeforeAnythingWasWrittenProvesIt) {
  for (absl::StatusCode code :
       {absl::StatusCode::kInvalidArgument, absl::StatusCode::kFailedPrecondition,
        absl::StatusCode::kPermissionDenied, absl::StatusCode::kUnauthenticated,
        absl::StatusCode::kResourceExhausted}) {
    EXPECT_TRUE(ProvesNoTable(absl::Status(code, ""))) << code;
  }
  for (absl::StatusCode code :
       {absl::StatusCode::kUnavailable, absl::StatusCode::kDeadlineExceeded,
        absl::StatusCode::kInternal, absl::StatusCode::kUnknown, absl::StatusCode::kAborted}) {
    EXPECT_FALSE(ProvesNoTable(absl::Status(code, ""))) << code;
  }
}

}  // namespace
}  // namespace trix::matchmaking
