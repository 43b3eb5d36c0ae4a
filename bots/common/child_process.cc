#include "bots/common/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace trix::bots {
namespace {

int ExitStatus(int raw) {
  if (WIFEXITED(raw)) return WEXITSTATUS(raw);
  if (WIFSIGNALED(raw)) return 128 + WTERMSIG(raw);
  return -1;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const Options& options) {
  if (options.argv.empty()) return absl::InvalidArgumentError("no program to run");
  // Everything the child needs is built before fork: after it, only
  // async-signal-safe calls are allowed.
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : options.env) env[key] = value;
  std::vector<std::string> env_entries;
  for (const auto& [key, value] : env)
    env_entries.push_back(absl::StrCat(key, "=", value));
  std::vector<char*> envp;
  for (std::string& e : env_entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = options.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out = -1;
  if (!options.output_path.empty()) {
    out = open(options.output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
               0644);
    if (out < 0) {
      return absl::InternalError(
          absl::StrCat("cannot open ", options.output_path, ": ", std::strerror(errno)));
    }
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    if (out >= 0) close(out);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);  // the parent died before prctl
    // Our parent may block signals for a sigwait thread; the child must not
    // inherit that, or SIGTERM would never reach it.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    setpgid(0, 0);  // its own group: a terminal's Ctrl-C goes to us, and we stop it
    if (out >= 0) {
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
    }
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  if (out >= 0) close(out);
  return std::unique_ptr<ChildProcess>(new ChildProcess(pid));
}

ChildProcess::~ChildProcess() {
  if (!status_) Stop(absl::Seconds(2));
}

std::optional<int> ChildProcess::Poll() {
  if (status_) return status_;
  int raw = 0;
  const pid_t r = waitpid(pid_, &raw, WNOHANG);
  if (r == pid_) status_ = ExitStatus(raw);
  if (r < 0 && errno == ECHILD) status_ = -1;  // reaped elsewhere: gone anyway
  return status_;
}

absl::StatusOr<int> ChildProcess::Wait(absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  while (!Poll()) {
    if (absl::Now() >= until) {
      return absl::DeadlineExceededError(absl::StrCat(
          "process ", pid_, " still runs after ", absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return *status_;
}

void ChildProcess::Signal(int signal) {
  if (!Poll()) kill(pid_, signal);
}

int ChildProcess::Stop(absl::Duration grace) {
  Signal(SIGTERM);
  absl::StatusOr<int> status = Wait(grace);
  if (status.ok()) return *status;
  Signal(SIGKILL);
  status = Wait(absl::Seconds(5));
  return status.ok() ? *status : -1;
}

std::string SiblingBinary(const std::string& name) {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return name;
  std::string path(self, n);
  return path.substr(0, path.rfind('/') + 1) + name;
}

}  // namespace trix::bots
