// A matchmaking replica for tests: the real build/bin/matchmaking-service as a
// child process on the test's database, on a port the kernel picks (read back
// from its "serving" log line), killed with SIGKILL or left to die at a
// failpoint (MAMLAKA_FAILPOINTS in `env`).
//
//   Replica a(db_->url(), dir + "/mm-a.log", "200ms",
//             {{"MAMLAKA_FAILPOINTS", "matcher.after_create_tables"}});
//   auto stub = a.Stub();
#ifndef TRIX_TESTS_INTEGRATION_MATCHMAKING_REPLICA_H_
#define TRIX_TESTS_INTEGRATION_MATCHMAKING_REPLICA_H_

#include <signal.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "bots/common/child_process.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "tests/integration/service_fixture.h"
#include "trix/v1/matchmaking.grpc.pb.h"

namespace trix::matchmaking {

class Replica {
 public:
  Replica(const std::string& db_url, const std::string& log,
          const std::string& bot_fill_wait = "60s",
          std::vector<std::pair<std::string, std::string>> env = {},
          const std::vector<std::string>& flags = {})
      : log_(log) {
    std::remove(log.c_str());  // the port is read from this run's log
    std::vector<std::string> argv = {
        BuildPath("bin/matchmaking-service"),
        "--listen=127.0.0.1:0",
        "--database_url=" + db_url,
        std::string("--service_token=") + table::kServiceToken,
        "--migrations_dir=" + SourcePath("migrations"),
        "--metrics_port=-1",
        "--lease_retry=200ms",
        "--poll_every=50ms",
        "--bot_fill_wait=" + bot_fill_wait};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto child = bots::ChildProcess::Start(
        {.argv = std::move(argv), .env = std::move(env), .output_path = log});
    EXPECT_TRUE(child.ok()) << child.status();
    if (child.ok()) process_ = *std::move(child);
  }
  // The port from the "serving" log line, once it is there (0 on timeout).
  int WaitPort() {
    const std::regex serving("\"msg\":\"serving\".*\"port\":([0-9]+)");
    for (absl::Time deadline = absl::Now() + absl::Seconds(20); absl::Now() < deadline;
         absl::SleepFor(absl::Milliseconds(20))) {
      std::ifstream in(log_);
      std::string line;
      while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, serving)) return std::stoi(m[1]);
      }
    }
    return 0;
  }
  // How many lines of its log hold `text`.
  int LogLines(const std::string& text) {
    std::ifstream in(log_);
    int n = 0;
    for (std::string line; std::getline(in, line);)
      n += line.find(text) != std::string::npos;
    return n;
  }
  std::unique_ptr<v1::MatchmakingService::Stub> Stub() {
    int port = WaitPort();
    EXPECT_GT(port, 0);
    return v1::MatchmakingService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  }
  void KillNine() {
    process_->Signal(SIGKILL);
    (void)process_->Wait(absl::Seconds(10));
  }
  // Whether the process still runs (has not died at its failpoint).
  bool Running() { return process_ != nullptr && !process_->Poll().has_value(); }
  // Waits for the process to end by itself; its exit status or an error.
  absl::StatusOr<int> Wait() { return process_->Wait(absl::Seconds(20)); }

 private:
  std::string log_;
  std::unique_ptr<bots::ChildProcess> process_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_TESTS_INTEGRATION_MATCHMAKING_REPLICA_H_
