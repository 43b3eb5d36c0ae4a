#include "bots/common/bot_program.h"

#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <thread>
#include <utility>

namespace trix::bots {

std::shared_ptr<grpc::ChannelCredentials> FlagCredentials(
    const std::string& program, const service::ChannelTls& tls) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      service::ChannelCredentials(tls);
  if (!credentials.ok()) {
    std::cerr << program << ": " << credentials.status().message() << "\n";
    return nullptr;
  }
  return *std::move(credentials);
}

namespace {

sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

void BlockStopSignals() {
  const sigset_t signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

void StopOnSignal(std::function<void()> stop) {
  const sigset_t signals = StopSignals();
  std::thread([stop = std::move(stop), signals] {
    int signal = 0;
    if (sigwait(&signals, &signal) == 0) stop();
  }).detach();
}

}  // namespace trix::bots
