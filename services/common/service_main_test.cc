// StopSignals with the signals raised by the test itself: a pending stop signal
// ends the waits at once, so nothing here depends on timing.
#include "services/common/service_main.h"

#include <signal.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trix::service {
namespace {

TEST(StopSignalsTest, ASignalRaisedIsReceivedByWait) {
  StopSignals signals;
  ASSERT_EQ(raise(SIGTERM), 0);  // blocked: pending until Wait takes it
  EXPECT_TRUE(signals.Wait(absl::Seconds(10)));
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_TRUE(signals.Wait(absl::Seconds(10)));
}

TEST(StopSignalsTest, WaitWithoutASignalTimesOut) {
  StopSignals signals;
  EXPECT_FALSE(signals.Wait(absl::ZeroDuration()));
}

TEST(StopSignalsTest, RetryUntilReadyReturnsOnceTheAttemptSucceeds) {
  StopSignals signals;
  int attempts = 0;
  const absl::Status s = signals.RetryUntilReady([&] {
    ++attempts;
    return absl::OkStatus();
  });
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(attempts, 1);
}

TEST(StopSignalsTest, RetryUntilReadyGivesBackAnErrorItMayNotRetry) {
  StopSignals signals;
  int attempts = 0;
  const absl::Status s = signals.RetryUntilReady(
      [&] {
        ++attempts;
        return absl::NotFoundError("no migrations folder");
      },
      [](const absl::Status& e) { return !absl::IsNotFound(e); });
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_EQ(attempts, 1);
}

TEST(StopSignalsTest, RetryUntilReadyStopsAtASignal) {
  StopSignals signals;
  ASSERT_EQ(raise(SIGTERM), 0);
  int attempts = 0;
  const absl::Status s = signals.RetryUntilReady([&] {
    ++attempts;
    return absl::UnavailableError("the database is down");
  });
  EXPECT_TRUE(absl::IsCancelled(s)) << s;
  EXPECT_EQ(attempts, 1);
}

TEST(StopSignalsTest, ServeUntilStoppedDrainsAtASignal) {
  StopSignals signals;
  ASSERT_EQ(raise(SIGTERM), 0);
  bool drained = false;
  EXPECT_EQ(signals.ServeUntilStopped([&] { drained = true; }), 0);
  EXPECT_TRUE(drained);
}

// RunService's steps, in the order they ran.
struct Steps {
  std::vector<std::string> ran;
  ServiceLife Life(absl::Status migrated, absl::Status ready) {
    return {.migrate =
                [this, migrated](const StopSignals&) {
                  ran.push_back("migrate");
                  return migrated;
                },
            .ready =
                [this, ready] {
                  ran.push_back("ready");
                  return ready;
                },
            .serve = [this] { ran.push_back("serve"); },
            .serving_log = [] { return LogFields{{"port", 1}}; },
            .drain = [this] { ran.push_back("drain"); }};
  }
};

TEST(RunServiceTest, MigratesStartsServesAndDrainsAtASignal) {
  StopSignals signals;
  ASSERT_EQ(raise(SIGTERM), 0);  // pending: taken once the service is SERVING
  Steps steps;
  EXPECT_EQ(RunService(signals, steps.Life(absl::OkStatus(), absl::OkStatus())), 0);
  EXPECT_EQ(steps.ran, (std::vector<std::string>{"migrate", "ready", "serve", "drain"}));
}

TEST(RunServiceTest, MigrationsThatCannotApplyEndItWithStatusOne) {
  StopSignals signals;
  Steps steps;
  const ServiceLife life =
      steps.Life(absl::FailedPreconditionError("migration 1_a changed"), absl::OkStatus());
  EXPECT_EQ(RunService(signals, life), 1);
  EXPECT_EQ(steps.ran, (std::vector<std::string>{"migrate", "drain"}));
}

TEST(RunServiceTest, AStopWhileWaitingToBeReadyDrainsWithoutServing) {
  StopSignals signals;
  ASSERT_EQ(raise(SIGTERM), 0);
  Steps steps;
  const ServiceLife life =
      steps.Life(absl::OkStatus(), absl::UnavailableError("the database is down"));
  EXPECT_EQ(RunService(signals, life), 0);
  EXPECT_EQ(steps.ran, (std::vector<std::string>{"migrate", "ready", "drain"}));
}

TEST(RunServiceTest, AStopWhileMigratingDrainsWithStatusZero) {
  StopSignals signals;
  Steps steps;
  const ServiceLife life =
      steps.Life(absl::CancelledError("stopped while waiting"), absl::OkStatus());
  EXPECT_EQ(RunService(signals, life), 0);
  EXPECT_EQ(steps.ran, (std::vector<std::string>{"migrate", "drain"}));
}

TEST(ParseServiceFlagsTest, HelpAndBadFlagsEndMainWithTheirExitCodes) {
  std::string level = "info";
  Config help("test-service", "MAMLAKA_TEST_");
  help.Bind("log_level", &level, "debug, info, warn, error");
  const char* help_argv[] = {"test-service", "--help"};
  EXPECT_EQ(ParseServiceFlags(help, 2, help_argv, level), 0);

  Config bad("test-service", "MAMLAKA_TEST_");
  bad.Bind("log_level", &level, "debug, info, warn, error");
  const char* bad_argv[] = {"test-service", "--no_such_flag"};
  EXPECT_EQ(ParseServiceFlags(bad, 2, bad_argv, level), 2);

  Config good("test-service", "MAMLAKA_TEST_");
  good.Bind("log_level", &level, "debug, info, warn, error");
  const char* good_argv[] = {"test-service", "--log_level=warn"};
  EXPECT_EQ(ParseServiceFlags(good, 2, good_argv, level), std::nullopt);
  EXPECT_EQ(level, "warn");
}

}  // namespace
}  // namespace trix::service
