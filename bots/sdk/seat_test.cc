// Seat against a fake table service over a real gRPC channel (port 0). The fake
// runs a real table (LocalTable) for seat 0, plays the other seats itself, and
// injects the failures a bot meets in production: lost answers, unavailability,
// broken streams, moves the autopilot made first, refused tokens.
#include "bots/sdk/seat.h"

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "bots/sdk/testing/local_table.h"
#include "gmock/gmock.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_context.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

constexpr int kSeat = 0;

// Plays the lowest legal card, the first contract, no doubles.
class FirstBot : public Bot {
 public:
  void Restart(const SeatState& state) override {
    restart_seq = state.seq;
    observed = 0;
  }
  void Observe(const v1::Event& event, const SeatState& state) override { ++observed; }
  Decision Decide(const SeatState& state) override {
    ++decisions;
    return FirstOption(state.options);
  }
  int decisions = 0;
  uint64_t restart_seq = 0;
  uint64_t observed = 0;  // events since the last Restart
};

// Always answers with a card it does not hold.
class WrongBot : public Bot {
 public:
  Decision Decide(const SeatState& state) override {
    return Decision::PlayCard(engine::kNoCard);
  }
};

class FakeTableService final : public v1::TableService::Service {
 public:
  explicit FakeTableService(LocalTableOptions options) : table_(options) {}

  // Faults, set before Play().
  int unavailable_acts = 0;    // Acts answered UNAVAILABLE, not applied
  int lost_answers = 0;        // Acts applied, then answered UNAVAILABLE
  int break_stream_after = 0;  // events; then the stream ends UNAVAILABLE
  int autopilot_first = 0;     // Acts preceded by an expired clock
  bool deny = false;           // every call PERMISSION_DENIED

  grpc::Status Subscribe(grpc::ServerContext* context,
                         const v1::SubscribeRequest* request,
                         grpc::ServerWriter<v1::TableUpdate>* writer) override {
    if (deny) return {grpc::StatusCode::PERMISSION_DENIED, "not this table's token"};
    uint64_t seen = request->after_seq();
    {
      absl::MutexLock lock(&mu_);
      after_seqs.push_back(seen);
    }
    bool first = true;
    int sent = 0;
    while (!context->IsCancelled()) {
      std::vector<v1::TableUpdate> out;
      bool over = false;
      {
        absl::MutexLock lock(&mu_);
        table_.PlayOthers(kSeat);
        // As the server does: the stream's start, then one update per change.
        if (first || table_.last_seq(kSeat) > seen) {
          absl::StatusOr<std::vector<v1::TableUpdate>> updates =
              table_.table().StreamStart(kSeat, seen);
          if (!updates.ok()) return {grpc::StatusCode::INVALID_ARGUMENT, "after_seq"};
          out = *std::move(updates);
        }
        seen = table_.last_seq(kSeat);
        over = table_.over();
        first = false;
      }
      for (const v1::TableUpdate& u : out) {
        if (break_stream_after > 0 && u.events_size() > 0 && sent >= break_stream_after) {
          break_stream_after = 0;
          return {grpc::StatusCode::UNAVAILABLE, "draining"};
        }
        sent += u.events_size();
        if (!writer->Write(u)) return grpc::Status::CANCELLED;
      }
      if (over) return grpc::Status::OK;
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&changed_), absl::Milliseconds(50));
      changed_ = false;
    }
    return grpc::Status::CANCELLED;
  }

  grpc::Status Act(grpc::ServerContext*, const v1::ActRequest* request,
                   v1::ActResponse* response) override {
    if (deny) return {grpc::StatusCode::PERMISSION_DENIED, "not this table's token"};
    absl::MutexLock lock(&mu_);
    request_ids.push_back(request->request_id());
    if (unavailable_acts > 0) {
      --unavailable_acts;
      return {grpc::StatusCode::UNAVAILABLE, "starting"};
    }
    if (autopilot_first > 0) {
      --autopilot_first;
      table_.ExpireClock();
      changed_ = true;
    }
    absl::StatusOr<v1::ActResponse> answer = table_.Act(kSeat, *request);
    changed_ = true;
    if (!answer.ok()) {
      ++refused;
      return {static_cast<grpc::StatusCode>(answer.status().code()),
              std::string(answer.status().message())};
    }
    if (lost_answers > 0) {
      --lost_answers;
      return {grpc::StatusCode::UNAVAILABLE, "the answer was lost"};
    }
    *response = *answer;
    return grpc::Status::OK;
  }

  bool over() {
    absl::MutexLock lock(&mu_);
    return table_.over();
  }

  // What the client did.
  std::vector<uint64_t> after_seqs;
  std::vector<std::string> request_ids;
  int refused = 0;

 private:
  absl::Mutex mu_;
  bool changed_ ABSL_GUARDED_BY(mu_) = false;
  LocalTable table_ ABSL_GUARDED_BY(mu_);
};

class SeatTest : public ::testing::Test {
 protected:
  void Start(LocalTableOptions options = {
                 .mode = "complex-solo", .seed = 11, .kingdoms = 1}) {
    service_ = std::make_unique<FakeTableService>(options);
  }
  void Serve() {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(port, 0);
    address_ = "127.0.0.1:" + std::to_string(port);
  }
  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::system_clock::now());
  }
  SeatConfig Config() {
    SeatConfig config;
    config.table_id = "local";
    config.seat_token = "token";
    config.backoff_initial = absl::Milliseconds(10);
    config.backoff_max = absl::Milliseconds(50);
    config.give_up_after = absl::Seconds(20);
    config.log = [](LogLevel, absl::string_view) {};
    return config;
  }

  std::unique_ptr<FakeTableService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

TEST_F(SeatTest, PlaysAGameToItsResult) {
  Start();
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  absl::StatusOr<v1::GameResult> result = seat.Play();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(service_->over());
  EXPECT_EQ(result->totals_size(), 4);
  // Every event after the snapshot was told to the bot, once.
  EXPECT_EQ(bot.restart_seq + bot.observed, seat.state().seq);
  EXPECT_GT(bot.decisions, 13);
  EXPECT_EQ(seat.stats().actions, bot.decisions);
  EXPECT_EQ(seat.stats().rejected, 0);
  // Fresh request ids, one per decision.
  std::set<std::string> ids(service_->request_ids.begin(), service_->request_ids.end());
  EXPECT_EQ(ids.size(), service_->request_ids.size());
}

TEST_F(SeatTest, RetriesAnUnavailableActWithTheSameRequestId) {
  Start();
  service_->unavailable_acts = 2;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  ASSERT_TRUE(seat.Play().ok());
  ASSERT_GE(service_->request_ids.size(), 3u);
  EXPECT_EQ(service_->request_ids[0], service_->request_ids[1]);
  EXPECT_EQ(service_->request_ids[1], service_->request_ids[2]);
  EXPECT_EQ(seat.stats().act_retries, 2);
}

TEST_F(SeatTest, ALostAnswerIsRetriedAndAppliedOnce) {
  Start();
  service_->lost_answers = 1;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  ASSERT_TRUE(seat.Play().ok());
  EXPECT_EQ(service_->request_ids[0], service_->request_ids[1]);
  EXPECT_EQ(service_->refused, 0);
  EXPECT_EQ(seat.stats().actions, bot.decisions);
}

TEST_F(SeatTest, ResumesABrokenStreamAfterTheLastEventSeen) {
  Start();
  service_->break_stream_after = 5;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  ASSERT_TRUE(seat.Play().ok());
  ASSERT_GE(service_->after_seqs.size(), 2u);
  EXPECT_EQ(service_->after_seqs[0], 0u);
  EXPECT_GT(service_->after_seqs[1], 0u);  // resumed, not a new snapshot
  EXPECT_EQ(seat.stats().snapshots, 1);
  EXPECT_GE(seat.stats().resubscribes, 1);
}

TEST_F(SeatTest, AnActionTheAutopilotBeatIsRefusedAndTheSeatResyncs) {
  Start();
  service_->autopilot_first = 3;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  absl::StatusOr<v1::GameResult> result = seat.Play();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GE(seat.stats().rejected, 1);
  EXPECT_GE(service_->after_seqs.size(), 2u);
}

TEST_F(SeatTest, AnAnswerThatIsNotAnOptionIsReplaced) {
  Start();
  Serve();
  WrongBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  ASSERT_TRUE(seat.Play().ok());
  EXPECT_GT(seat.stats().replaced, 0);
  EXPECT_EQ(service_->refused, 0);
}

TEST_F(SeatTest, ARefusedTokenStopsAtOnce) {
  Start();
  service_->deny = true;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  absl::StatusOr<v1::GameResult> result = seat.Play();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(SeatTest, GivesUpWhenTheServiceNeverAnswers) {
  FirstBot bot;
  SeatConfig config = Config();
  config.give_up_after = absl::Milliseconds(300);
  // A port nobody listens on: bind one, then let it go.
  Start();
  Serve();
  const std::string address = address_;
  server_->Shutdown(std::chrono::system_clock::now());
  server_.reset();
  Seat seat(TableChannel(address), config, &bot);
  absl::StatusOr<v1::GameResult> result = seat.Play();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(SeatTest, StopEndsPlay) {
  Start();
  Serve();
  FirstBot bot;
  SeatConfig config = Config();
  config.think = absl::Seconds(10);  // parked in a decision
  Seat seat(TableChannel(address_), config, &bot);
  std::thread stopper([&seat] {
    absl::SleepFor(absl::Milliseconds(200));
    seat.Stop();
  });
  absl::StatusOr<v1::GameResult> result = seat.Play();
  stopper.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace trix::bots
