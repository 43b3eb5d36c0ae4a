// Idle unauthenticated Play calls against the real table-service binary: one
// client channel opens thousands of Play calls and never sends their first
// message. The server holds only --max_streams_per_connection of them at once (the
// rest wait in the client), ends each DEADLINE_EXCEEDED once --subscribe_within
// has passed, and its resident memory (VmRSS) stays bounded; spread over four
// connections, the ones past --max_waiting_play_streams end RESOURCE_EXHAUSTED at
// once. Meanwhile and after, players on their own channels play. Loopback only, bounded in count and time
// (the 100,000-call run is a load run: docs/benchmarks.md).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "tests/integration/failover_check.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/service_process.h"
#include "tests/load/process_cpu.h"

namespace trix::table {
namespace {

using ::testing::HasSubstr;

// Idle Play calls on one channel: opened, never written to; each records how it
// ended.
class IdleCalls {
 public:
  // Spread over `stubs` (one per connection) in turn.
  IdleCalls(const std::vector<v1::TableService::Stub*>& stubs, int count) {
    for (int i = 0; i < count; ++i) calls_.push_back(std::make_unique<Call>(this));
    for (size_t i = 0; i < calls_.size(); ++i) {
      stubs[i % stubs.size()]->async()->Play(&calls_[i]->context, calls_[i].get());
      calls_[i]->StartCall();
    }
  }
  ~IdleCalls() {  // a call still open is cancelled first
    for (auto& call : calls_) call->context.TryCancel();
    WaitEnded(absl::Seconds(30));
  }
  // True when every call ended within `timeout`.
  bool WaitEnded(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto all = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return ended_.size() == calls_.size();
    };
    return mu_.AwaitWithTimeout(absl::Condition(&all), timeout);
  }
  std::vector<grpc::Status> ended() {
    absl::MutexLock lock(&mu_);
    return ended_;
  }
  size_t count() const { return calls_.size(); }

 private:
  struct Call : grpc::ClientBidiReactor<v1::PlayRequest, v1::TableUpdate> {
    explicit Call(IdleCalls* owner) : owner(owner) {}
    void OnDone(const grpc::Status& s) override {
      absl::MutexLock lock(&owner->mu_);
      owner->ended_.push_back(s);
    }
    IdleCalls* owner;
    grpc::ClientContext context;
  };

  absl::Mutex mu_;
  std::vector<grpc::Status> ended_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Call>> calls_;
};

class IdleStreamsTest : public TableServiceTest {
 protected:
  void SetUp() override {
    TableServiceTest::SetUp();
    StopService();  // the real binary instead
  }
  std::unique_ptr<ServiceProcess> Launch() {
    return ServiceProcess::StartServing(
        {.binary = BuildPath("bin/table-service"),
         .db_url = db_->url(),
         .instance_id = "idle-streams",
         .dir = ::testing::TempDir(),
         .migrations_dir = SourcePath("migrations"),
         .extra = {"--subscribe_within=2s", "--max_streams_per_connection=500",
                   "--max_waiting_play_streams=1000", "--grpc_memory_quota_mib=256"}});
  }
  // Four seats on Play streams, each on its own channel, playing until `acks`.
  bool Plays(const ServiceProcess& at, uint64_t seed) {
    v1::CreateTableResponse table =
        at.CreateTable(CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC), seed));
    std::vector<std::unique_ptr<SeatClient>> seats;
    for (int s = 0; s < 4; ++s) {
      seats.push_back(std::make_unique<SeatClient>(at.NewChannel(), table.table_id(),
                                                   table.seat_tokens(s), s));
      seats.back()->OpenPlay(0, seed + s);
    }
    return WaitForAcks(seats, 12);
  }
};

TEST_F(IdleStreamsTest, IdlePlayCallsAreEndedAndMemoryStaysBounded) {
  std::unique_ptr<ServiceProcess> at = Launch();
  ASSERT_NE(at, nullptr);
  ASSERT_TRUE(Plays(*at, 3));  // warm: the first table's memory is not the calls'
  const int64_t before = load::ResidentKiB(at->pid());
  ASSERT_GT(before, 0);

  // One channel, then four: each connection holds 500 at most, and the instance
  // 1,000 waiting in all.
  constexpr int kCalls = 5000;
  auto one = v1::TableService::NewStub(at->NewChannel());
  const absl::Time start = absl::Now();
  IdleCalls idle({one.get()}, kCalls);
  int64_t peak = before;
  bool ended = false;
  while (!ended && absl::Now() - start < absl::Seconds(60)) {
    ended = idle.WaitEnded(absl::Milliseconds(100));
    peak = std::max(peak, load::ResidentKiB(at->pid()));
  }
  const absl::Duration took = absl::Now() - start;
  ASSERT_TRUE(ended) << idle.ended().size() << " of " << kCalls << " ended in "
                     << took << "\n"
                     << at->Log();
  for (const grpc::Status& s : idle.ended()) {
    ASSERT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << s.error_message();
    ASSERT_THAT(s.error_message(), HasSubstr("no subscribe within 2s"));
  }
  std::vector<std::unique_ptr<v1::TableService::Stub>> four;
  for (int c = 0; c < 4; ++c) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection each
    four.push_back(v1::TableService::NewStub(grpc::CreateCustomChannel(
        at->address(), grpc::InsecureChannelCredentials(), args)));
  }
  IdleCalls spread({four[0].get(), four[1].get(), four[2].get(), four[3].get()}, kCalls);
  ended = false;
  while (!ended && absl::Now() - start < absl::Seconds(90)) {
    ended = spread.WaitEnded(absl::Milliseconds(100));
    peak = std::max(peak, load::ResidentKiB(at->pid()));
  }
  ASSERT_TRUE(ended) << spread.ended().size() << " of " << kCalls << " ended\n" << at->Log();
  int refused = 0;
  for (const grpc::Status& s : spread.ended()) {
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
      ASSERT_THAT(s.error_message(), HasSubstr("1000 Play streams waiting"));
    } else {
      ASSERT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << s.error_message();
    }
  }
  EXPECT_GT(refused, 0);
  // Unbounded, 5,000 idle calls held ~89 MiB (18.2 KiB each) and none ended.
  const int64_t grew_kib = peak - before;
  std::printf("%d idle Play calls on one connection, then on four (%d refused at "
              "once): all ended in %s; VmRSS %lld KiB before, peak %lld KiB (+%lld KiB)\n",
              kCalls, refused, absl::FormatDuration(absl::Now() - start).c_str(),
              static_cast<long long>(before), static_cast<long long>(peak),
              static_cast<long long>(grew_kib));
  EXPECT_LT(grew_kib, 48 * 1024);
  EXPECT_TRUE(Plays(*at, 5));  // a player still plays
}

TEST_F(IdleStreamsTest, APlayerPlaysWhileIdleCallsWait) {
  std::unique_ptr<ServiceProcess> at = Launch();
  ASSERT_NE(at, nullptr);
  auto stub = v1::TableService::NewStub(at->NewChannel());
  IdleCalls idle({stub.get()}, 2000);
  EXPECT_TRUE(Plays(*at, 7));
  EXPECT_TRUE(idle.WaitEnded(absl::Seconds(60)));
}

}  // namespace
}  // namespace trix::table
