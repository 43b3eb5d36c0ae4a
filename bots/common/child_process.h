// ChildProcess: another program run as a child (fork + exec), with its output sent
// to a file, stopped on request and never outliving us: the child asks the kernel
// for SIGTERM when its parent dies (PR_SET_PDEATHSIG), so a demo or a test killed
// with SIGKILL leaves no bots or servers behind.
//
// Start() must be called from a thread that lives as long as the child should
// (the death signal follows the thread that forked, not the process): the main
// thread of a program or of a test.
//
//   auto bot = ChildProcess::Start({.argv = {"build/bin/trix-bot", "--strategy=random"},
//                                   .env = {{"TRIX_BOT_TOKEN", token}},
//                                   .output_path = "/tmp/bot.log"});
//   absl::StatusOr<int> status = (*bot)->Wait(absl::Minutes(1));
#ifndef TRIX_BOTS_COMMON_CHILD_PROCESS_H_
#define TRIX_BOTS_COMMON_CHILD_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trix::bots {

// The path of the program `name` in the folder of the running one (trix-bot
// beside trix-demo); `name` itself when that folder is unknown.
std::string SiblingBinary(const std::string& name);

class ChildProcess {
 public:
  struct Options {
    std::vector<std::string> argv;  // argv[0] is the program's path
    // Added to (or replacing in) this process's environment.
    std::vector<std::pair<std::string, std::string>> env;
    std::string output_path;  // stdout and stderr, appended; empty: ours
  };

  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const Options& options);
  // Stops the child if it still runs.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // The exit status once the child ended (128 + signal when a signal ended it),
  // nullopt while it runs.
  std::optional<int> Poll();
  // DEADLINE_EXCEEDED when it still runs after `timeout`.
  absl::StatusOr<int> Wait(absl::Duration timeout);
  void Signal(int signal);
  // SIGTERM, then SIGKILL after `grace`; the exit status.
  int Stop(absl::Duration grace = absl::Seconds(5));

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::optional<int> status_;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_COMMON_CHILD_PROCESS_H_
