#include "bots/common/bot_program.h"

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

void StopOnSignal(const service::StopSignals& signals, std::function<void()> stop) {
  std::thread([&signals, stop = std::move(stop)] {
    while (!signals.Wait(absl::Hours(1))) {
    }
    stop();
  }).detach();
}

}  // namespace trix::bots
