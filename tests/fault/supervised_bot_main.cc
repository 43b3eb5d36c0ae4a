// fault-supervised-bot: trix-demo's --bot_binary in the fault tests. A person's
// seat (TRIX_BOT_TABLE set) is played by trix-bot itself (exec). A bot account's
// process (TRIX_BOT_MATCHMAKING set) runs under this supervisor, as a deployment's
// process manager would run it: when it dies of SIGKILL it is started again a
// second later with the same settings (its key included, from the environment),
// and it takes its live assignments back from matchmaking. The pid of the running
// trix-bot is kept in $FAULT_BOT_DIR/<this supervisor's pid>.pid and each restart
// is noted in $FAULT_BOT_DIR/restarts; SIGTERM stops the bot (it drains) and the
// supervisor, with the bot's exit status. trix-bot is $FAULT_TRIX_BOT, or the one
// beside this program.
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bots/common/child_process.h"

namespace {

volatile std::sig_atomic_t stopping = 0;

void Stop(int) { stopping = 1; }

// Runs the bot until it ends; its exit status (SIGTERM passed on once asked to stop).
int RunOnce(const std::vector<std::string>& argv, const std::string& dir) {
  auto bot = trix::bots::ChildProcess::Start({.argv = argv});
  if (!bot.ok()) {
    std::cerr << "fault-supervised-bot: " << bot.status() << std::endl;
    return 1;
  }
  std::ofstream(absl::StrCat(dir, "/", getpid(), ".pid")) << (*bot)->pid() << "\n";
  bool passed_on = false;
  for (;;) {
    if (std::optional<int> status = (*bot)->Poll(); status.has_value()) return *status;
    if (stopping && !passed_on) {
      (*bot)->Signal(SIGTERM);
      passed_on = true;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* bot_path = std::getenv("FAULT_TRIX_BOT");
  std::vector<std::string> bot_argv = {bot_path != nullptr
                                           ? std::string(bot_path)
                                           : trix::bots::SiblingBinary("trix-bot")};
  for (int i = 1; i < argc; ++i) bot_argv.push_back(argv[i]);
  if (std::getenv("TRIX_BOT_MATCHMAKING") == nullptr) {
    argv[0] = bot_argv[0].data();
    execv(argv[0], argv);
    std::perror(argv[0]);
    return 127;
  }
  const char* dir = std::getenv("FAULT_BOT_DIR");
  if (dir == nullptr) {
    std::cerr << "fault-supervised-bot: FAULT_BOT_DIR must name a folder" << std::endl;
    return 2;
  }
  struct sigaction stop = {};
  stop.sa_handler = Stop;
  sigaction(SIGTERM, &stop, nullptr);
  sigaction(SIGINT, &stop, nullptr);
  for (;;) {
    const int status = RunOnce(bot_argv, dir);
    if (stopping || status != 128 + SIGKILL) return status;
    std::ofstream(absl::StrCat(dir, "/restarts"), std::ios::app)
        << getpid() << " "
        << absl::FormatTime("%H:%M:%S", absl::Now(), absl::UTCTimeZone())
        << " restarted after SIGKILL\n";
    absl::SleepFor(absl::Seconds(1));
    if (stopping) return 0;
  }
}
