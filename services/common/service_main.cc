#include "services/common/service_main.h"

#include <pthread.h>

#include "absl/synchronization/mutex.h"
#include "services/common/logging.h"

namespace trix::service {

std::optional<int> ParseServiceFlags(Config& config, int argc, const char* const* argv,
                                     const std::string& log_level) {
  // Debian's Abseil is built without NDEBUG, which leaves deadlock detection on in
  // every absl::Mutex, gRPC's included: a lock-graph update under one process-wide
  // lock on every acquisition, measured at a fifth of the table service's CPU under
  // load (docs/benchmarks.md). Lock order is checked by the tests, not in
  // production.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::optional<int> exit_code = config.ParseCommandLine(argc, argv);
  if (exit_code) return exit_code;
  InitLogging(config.program(), log_level);
  return std::nullopt;
}

StopSignals::StopSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

bool StopSignals::Wait(absl::Duration timeout) const {
  const timespec ts = absl::ToTimespec(timeout);
  return sigtimedwait(&signals_, nullptr, &ts) > 0;
}

absl::Status StopSignals::RetryUntilReady(
    const std::function<absl::Status()>& attempt,
    const std::function<bool(const absl::Status&)>& retry) const {
  for (;;) {
    absl::Status s = attempt();
    if (s.ok() || (retry && !retry(s))) return s;
    LogWarn("waiting for the database", {{"error", s.ToString()}});
    if (Wait(absl::Seconds(2))) return absl::CancelledError("stopped while waiting");
  }
}

int StopSignals::ServeUntilStopped(const std::function<void()>& drain) const {
  while (!Wait(absl::Hours(1))) {
  }
  LogInfo("draining");
  drain();
  LogInfo("stopped");
  return 0;
}

}  // namespace trix::service
