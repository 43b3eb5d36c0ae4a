// Seat against a fake table service over a real gRPC channel (port 0). The fake
// serves the seat's Play stream from a real table (LocalTable) for seat 0, plays the
// other seats itself, and injects the failures a bot meets in production: lost
// results, unavailability, broken streams (also mid-action), moves the autopilot
// made first, refused tokens.
#include "bots/sdk/seat.h"

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
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

// The seat's Play stream as the server runs it, one action at a time: the updates
// the seat has not seen, then (when the seat must act) its next message. An
// accepted action's result rides in the update with its events, a refused one's
// comes alone. Subscribe and Act are not implemented: the SDK must not need them.
class FakeTableService final : public v1::TableService::Service {
 public:
  using Stream = grpc::ServerReaderWriter<v1::TableUpdate, v1::PlayRequest>;

  explicit FakeTableService(LocalTableOptions options) : table_(options) {}

  // Faults, set before Serve().
  int unavailable_acts = 0;    // acts answered UNAVAILABLE, not applied
  int break_after_act = 0;     // acts applied, then the stream ends before the result
  int late_acts = 0;           // acts read, the stream ends, applied once the seat
                               // has resumed (as if queued on the old connection)
  int break_stream_after = 0;  // events; then the stream ends UNAVAILABLE
  int autopilot_first = 0;     // acts preceded by an expired clock
  bool deny = false;           // every call PERMISSION_DENIED
  bool refuse_resume = false;  // a stream resumed with after_seq > 0 is OUT_OF_RANGE,
                               // as when a failover rewound the table's log

  grpc::Status Play(grpc::ServerContext* context, Stream* stream) override {
    if (deny) return {grpc::StatusCode::PERMISSION_DENIED, "not this table's token"};
    v1::PlayRequest message;
    if (!stream->Read(&message) || !message.has_subscribe()) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "subscribe first"};
    }
    uint64_t seen = message.subscribe().after_seq();
    std::optional<v1::ActRequest> late;
    {
      absl::MutexLock lock(&mu_);
      after_seqs.push_back(seen);
      late = std::exchange(late_act_, std::nullopt);
    }
    if (refuse_resume && seen > 0) {
      return {grpc::StatusCode::OUT_OF_RANGE, "after_seq is beyond this stream's last event"};
    }
    bool first = true;
    bool resend_due = false;  // the seat will send its late action again
    int sent = 0;
    while (!context->IsCancelled()) {
      std::vector<v1::TableUpdate> out;
      bool over = false;
      bool must_act = false;
      {
        absl::MutexLock lock(&mu_);
        table_.PlayOthers(kSeat);
        // As the server does: the stream's start, then one update per change.
        if (first || table_.last_seq(kSeat) > seen) {
          if (!Unseen(&seen, &out)) return {grpc::StatusCode::INVALID_ARGUMENT, "seq"};
        }
        over = table_.over();
        must_act = table_.PromptFor(kSeat).has_value();
      }
      first = false;
      if (!Write(stream, out, &sent)) return {grpc::StatusCode::UNAVAILABLE, "draining"};
      if (over) return grpc::Status::OK;
      if (late) {
        absl::MutexLock lock(&mu_);
        if (!Apply(*late).ok()) ADD_FAILURE() << "the late action was refused";
        late.reset();
        resend_due = true;
        continue;
      }
      if (!must_act && !resend_due) return {grpc::StatusCode::INTERNAL, "nobody can act"};
      resend_due = false;
      if (!stream->Read(&message)) return grpc::Status::CANCELLED;
      if (!message.has_act()) return {grpc::StatusCode::INVALID_ARGUMENT, "act expected"};
      if (!Act(message.act(), stream, &seen, &sent)) {
        return {grpc::StatusCode::UNAVAILABLE, "draining"};
      }
    }
    return grpc::Status::CANCELLED;
  }

  bool over() {
    absl::MutexLock lock(&mu_);
    return table_.over();
  }

  // What the client did.
  std::vector<uint64_t> after_seqs;
  std::vector<std::string> request_ids;  // every act received
  std::map<std::string, int> applied;    // request id -> times it changed the table
  int refused = 0;

 private:
  // Judges one act and writes its result; false when the stream is to break.
  bool Act(const v1::ActRequest& request, Stream* stream, uint64_t* seen, int* sent) {
    v1::ActResult result;
    result.set_request_id(request.request_id());
    std::vector<v1::TableUpdate> before;  // the autopilot's move, if it came first
    std::vector<v1::TableUpdate> out;
    {
      absl::MutexLock lock(&mu_);
      request_ids.push_back(request.request_id());
      if (unavailable_acts > 0) {
        --unavailable_acts;
        result.set_code(grpc::StatusCode::UNAVAILABLE);
        result.set_message("starting");
      } else if (late_acts > 0) {
        --late_acts;
        late_act_ = request;
        return false;
      } else {
        if (autopilot_first > 0) {
          --autopilot_first;
          table_.ExpireClock();
          if (!Unseen(seen, &before)) ADD_FAILURE() << "no autopilot updates";
        }
        absl::StatusOr<v1::ActResponse> answer = Apply(request);
        if (!answer.ok()) {
          ++refused;
          result.set_code(static_cast<int>(answer.status().code()));
          result.set_message(std::string(answer.status().message()));
        } else {
          if (break_after_act > 0) {
            --break_after_act;
            return false;
          }
          result.set_seq(answer->seq());
          if (table_.last_seq(kSeat) > *seen && !Unseen(seen, &out)) return false;
        }
      }
    }
    if (out.empty()) out.emplace_back();  // a result alone
    *out.front().add_results() = result;
    return Write(stream, before, sent) && Write(stream, out, sent);
  }

  // The seat's action on the table, counted when it changed the table (not a
  // repeated request id answered from memory).
  absl::StatusOr<v1::ActResponse> Apply(const v1::ActRequest& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const bool repeated =
        table_.table().FindAnswer(kSeat, request.request_id()).has_value();
    absl::StatusOr<v1::ActResponse> answer = table_.Act(kSeat, request);
    if (answer.ok() && !repeated) ++applied[request.request_id()];
    return answer;
  }

  // The updates since `seen` (with the seat's prompt), as a stream resumed there.
  bool Unseen(uint64_t* seen, std::vector<v1::TableUpdate>* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    absl::StatusOr<std::vector<v1::TableUpdate>> updates =
        table_.table().StreamStart(kSeat, *seen);
    if (!updates.ok()) return false;
    *out = *std::move(updates);
    *seen = table_.last_seq(kSeat);
    return true;
  }

  // False when the stream breaks (break_stream_after) or the client is gone.
  bool Write(Stream* stream, const std::vector<v1::TableUpdate>& updates, int* sent) {
    for (const v1::TableUpdate& u : updates) {
      if (break_stream_after > 0 && u.events_size() > 0 && *sent >= break_stream_after) {
        break_stream_after = 0;
        return false;
      }
      *sent += u.events_size();
      if (!stream->Write(u)) return false;
    }
    return true;
  }

  absl::Mutex mu_;
  LocalTable table_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::ActRequest> late_act_ ABSL_GUARDED_BY(mu_);
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
  EXPECT_EQ(seat.stats().resubscribes, 0);  // one Play stream for the whole game
  // Fresh request ids, one per decision.
  std::set<std::string> ids(service_->request_ids.begin(), service_->request_ids.end());
  EXPECT_EQ(ids.size(), service_->request_ids.size());
  EXPECT_EQ(static_cast<int>(ids.size()), bot.decisions);
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
  EXPECT_EQ(seat.stats().resubscribes, 0);  // retried on the same stream
  EXPECT_EQ(seat.stats().actions, bot.decisions);
}

TEST_F(SeatTest, AnActionWhoseResultIsLostIsSeenInTheResumedStream) {
  Start();
  service_->break_after_act = 1;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  ASSERT_TRUE(seat.Play().ok());
  ASSERT_GE(service_->after_seqs.size(), 2u);
  EXPECT_GT(service_->after_seqs[1], 0u);
  // The resumed stream showed the action applied: not sent again, nothing refused.
  std::set<std::string> ids(service_->request_ids.begin(), service_->request_ids.end());
  EXPECT_EQ(ids.size(), service_->request_ids.size());
  EXPECT_EQ(service_->refused, 0);
  for (const auto& [id, times] : service_->applied) EXPECT_EQ(times, 1) << id;
  // Every decision but the one whose result was lost was acknowledged.
  EXPECT_EQ(seat.stats().actions, bot.decisions - 1);
}

TEST_F(SeatTest, AnActionCutOffByABrokenStreamIsResentWithItsRequestIdAndAppliedOnce) {
  Start();
  service_->late_acts = 1;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  absl::StatusOr<v1::GameResult> result = seat.Play();
  ASSERT_TRUE(result.ok()) << result.status();
  // The first action went out, the stream broke, and the resumed stream still
  // showed its decision open: the same request went again and was applied once.
  ASSERT_GE(service_->request_ids.size(), 2u);
  EXPECT_EQ(service_->request_ids[0], service_->request_ids[1]);
  EXPECT_EQ(service_->applied[service_->request_ids[0]], 1);
  for (const auto& [id, times] : service_->applied) EXPECT_EQ(times, 1) << id;
  EXPECT_EQ(service_->refused, 0);
  ASSERT_EQ(service_->after_seqs.size(), 2u);
  EXPECT_GT(service_->after_seqs[1], 0u);
  EXPECT_EQ(seat.stats().resubscribes, 1);
  EXPECT_EQ(seat.stats().act_retries, 1);
  EXPECT_EQ(seat.stats().actions, bot.decisions);  // its answer came on the new stream
  EXPECT_EQ(bot.restart_seq + bot.observed, seat.state().seq);
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
  EXPECT_EQ(bot.restart_seq + bot.observed, seat.state().seq);
}

TEST_F(SeatTest, AResumeBeyondTheStreamStartsOverFromASnapshot) {
  Start();
  service_->break_stream_after = 5;
  service_->refuse_resume = true;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  ASSERT_TRUE(seat.Play().ok());
  ASSERT_GE(service_->after_seqs.size(), 3u);
  EXPECT_GT(service_->after_seqs[1], 0u);  // resumed: OUT_OF_RANGE
  EXPECT_EQ(service_->after_seqs[2], 0u);  // then from a snapshot
  EXPECT_EQ(seat.stats().snapshots, 2);
}

TEST_F(SeatTest, AnActionTheAutopilotBeatIsRefusedAndTheSeatPlaysOn) {
  Start();
  service_->autopilot_first = 3;
  Serve();
  FirstBot bot;
  Seat seat(TableChannel(address_), Config(), &bot);
  absl::StatusOr<v1::GameResult> result = seat.Play();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GE(seat.stats().rejected, 1);
  EXPECT_EQ(seat.stats().rejected, service_->refused);
  // The stream stays open after a refusal and has already shown the autopilot's
  // move: the seat answers its next decision on the same stream.
  EXPECT_EQ(service_->after_seqs.size(), 1u);
  EXPECT_EQ(bot.restart_seq + bot.observed, seat.state().seq);
}

TEST_F(SeatTest, AnAnswerThatIsNotAnOptionIsReplaced) {
  Start();
  Serve();
  WrongBot bot;
  SeatConfig config = Config();
  std::atomic<int> errors{0};
  config.log = [&errors](LogLevel level, absl::string_view message) {
    if (level == LogLevel::kError && absl::StrContains(message, "not an option")) ++errors;
  };
  Seat seat(TableChannel(address_), config, &bot);
  ASSERT_TRUE(seat.Play().ok());
  EXPECT_GT(seat.stats().replaced, 0);
  EXPECT_EQ(errors.load(), seat.stats().replaced);  // each one at error level
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
