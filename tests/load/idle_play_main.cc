// idle-play: what idle unauthenticated Play calls cost a table service. It opens
// --calls Play calls over --channels connections (one by default, as one client
// would) and never sends their first message, then reports how they ended (each
// status code and how many) and how long that took; with --server_pid, the
// server's resident memory (VmRSS) before and at its peak, sampled every 100 ms
// from the first call on.
//
//   idle-play --target=127.0.0.1:50051 --calls=100000 --server_pid=$(pidof table-service)
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "services/common/config.h"
#include "tests/load/process_cpu.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::load {
namespace {

struct Flags {
  std::string target;
  int calls = 100000;
  int channels = 1;
  int server_pid = 0;
  absl::Duration give_up = absl::Minutes(15);
};

class Ended {
 public:
  void Add(const grpc::Status& s) {
    absl::MutexLock lock(&mu_);
    ++count_;
    ++by_code_[s.error_code()];
    if (example_.empty() && !s.ok()) example_ = s.error_message();
  }
  bool WaitFor(int n, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return count_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
  }
  int count() {
    absl::MutexLock lock(&mu_);
    return count_;
  }
  std::string Summary() {
    absl::MutexLock lock(&mu_);
    std::string out;
    for (const auto& [code, n] : by_code_) absl::StrAppend(&out, " code ", code, ": ", n, ";");
    return absl::StrCat(out, " e.g. \"", example_, "\"");
  }

 private:
  absl::Mutex mu_;
  int count_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int, int> by_code_ ABSL_GUARDED_BY(mu_);
  std::string example_ ABSL_GUARDED_BY(mu_);
};

struct Call : grpc::ClientBidiReactor<v1::PlayRequest, v1::TableUpdate> {
  explicit Call(Ended* ended) : ended(ended) {}
  void OnDone(const grpc::Status& s) override { ended->Add(s); }
  Ended* ended;
  grpc::ClientContext context;
};

int Run(const Flags& f) {
  std::vector<std::unique_ptr<v1::TableService::Stub>> stubs;
  for (int c = 0; c < f.channels; ++c) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection each
    stubs.push_back(v1::TableService::NewStub(
        grpc::CreateCustomChannel(f.target, grpc::InsecureChannelCredentials(), args)));
  }
  const int64_t before = f.server_pid ? ResidentKiB(f.server_pid) : 0;
  Ended ended;
  std::vector<std::unique_ptr<Call>> calls;
  const absl::Time start = absl::Now();
  // The peak is sampled from the first call on, while they open too.
  std::atomic<int64_t> peak{before};
  std::atomic<bool> sampling{f.server_pid != 0};
  std::thread sampler([&] {
    while (sampling.load()) {
      peak.store(std::max(peak.load(), ResidentKiB(f.server_pid)));
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  for (int i = 0; i < f.calls; ++i) {
    calls.push_back(std::make_unique<Call>(&ended));
    stubs[i % stubs.size()]->async()->Play(&calls.back()->context, calls.back().get());
    calls.back()->StartCall();
  }
  const absl::Duration opened = absl::Now() - start;
  absl::Time next_line = start + absl::Seconds(10);
  while (!ended.WaitFor(f.calls, absl::Milliseconds(100)) && absl::Now() - start < f.give_up) {
    if (absl::Now() >= next_line) {
      std::printf("%s: %d of %d ended, server VmRSS %lld KiB\n",
                  absl::FormatDuration(absl::Now() - start).c_str(), ended.count(), f.calls,
                  static_cast<long long>(f.server_pid ? ResidentKiB(f.server_pid) : 0));
      std::fflush(stdout);
      next_line += absl::Seconds(10);
    }
  }
  sampling.store(false);
  sampler.join();
  std::printf("%d idle Play calls over %d connection(s), opened in %s: %d ended in %s;%s\n"
              "server VmRSS %lld KiB before, peak %lld KiB (+%lld KiB)\n",
              f.calls, f.channels, absl::FormatDuration(opened).c_str(), ended.count(),
              absl::FormatDuration(absl::Now() - start).c_str(), ended.Summary().c_str(),
              static_cast<long long>(before), static_cast<long long>(peak.load()),
              static_cast<long long>(peak.load() - before));
  for (auto& call : calls) call->context.TryCancel();
  ended.WaitFor(f.calls, absl::Seconds(30));
  return ended.count() == f.calls ? 0 : 1;
}

}  // namespace
}  // namespace trix::load

int main(int argc, char** argv) {
  trix::load::Flags f;
  trix::service::Config config("idle-play", "MAMLAKA_IDLE_PLAY_");
  config.Bind("target", &f.target, "the table service's host:port");
  config.Bind("calls", &f.calls, "idle Play calls to open");
  config.Bind("channels", &f.channels, "client connections they are spread over");
  config.Bind("server_pid", &f.server_pid, "the server's pid, for its VmRSS");
  config.Bind("give_up", &f.give_up, "how long to wait for every call to end");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) return *exit_code;
  if (f.target.empty() || f.calls < 1 || f.channels < 1) {
    std::fprintf(stderr, "idle-play: --target=HOST:PORT and --calls >= 1 are required\n");
    return 2;
  }
  return trix::load::Run(f);
}
