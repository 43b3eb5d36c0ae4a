// build/bin/table-service as a child process for the tests that need real
// processes and real signals (kill -9, SIGSTOP): it listens on a kernel-chosen
// loopback port (--listen=127.0.0.1:0) and reports the port through --port_file,
// so no test guesses a free port. Its output goes to a log file for failures.
//
//   auto a = ServiceProcess::Start({.binary = BuildPath("bin/table-service"), .db_url =
//   url,
//                                   .instance_id = "a", .dir = dir});
//   a->WaitServing(absl::Seconds(30));
//   a->Pause();   // SIGSTOP
//   a->Kill();    // SIGKILL
#ifndef TRIX_TESTS_INTEGRATION_SERVICE_PROCESS_H_
#define TRIX_TESTS_INTEGRATION_SERVICE_PROCESS_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "bots/common/child_process.h"
#include "grpcpp/grpcpp.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::table {

class ServiceProcess {
 public:
  struct Options {
    std::string binary = {};
    std::string db_url = {};
    std::string instance_id;
    std::string dir;  // for the log and the port file
    std::string migrations_dir = {};
    std::string lease_ttl = "1s";
    int port = 0;                         // 0: any free port
    std::vector<std::string> extra = {};  // more flags
    std::vector<std::pair<std::string, std::string>> env = {};  // e.g. failpoints
  };

  // Starts the process and waits (up to 30 s) for its port; null on failure.
  static std::unique_ptr<ServiceProcess> Start(const Options& options);
  // Start, then health SERVING within 30 s; on failure the test fails with the
  // process's log, and the answer is null.
  static std::unique_ptr<ServiceProcess> StartServing(const Options& options);
  ~ServiceProcess();  // SIGKILL if it still runs

  int port() const { return port_; }
  pid_t pid() const { return child_ ? child_->pid() : 0; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::shared_ptr<grpc::Channel> NewChannel() const;
  // Health SERVING within `timeout`.
  bool WaitServing(absl::Duration timeout) const;
  // Whether the process still runs (it was not killed, nor did it exit).
  bool Running() const;
  void Kill();
  void Pause();
  void Resume();
  std::string Log() const;
  // CreateTable with the service token; fails the test on error.
  v1::CreateTableResponse CreateTable(const v1::CreateTableRequest& request) const;

 private:
  explicit ServiceProcess(Options options) : options_(std::move(options)) {}
  std::string LogPath() const;

  const Options options_;
  std::unique_ptr<bots::ChildProcess> child_;
  int port_ = 0;
};

}  // namespace trix::table

#endif  // TRIX_TESTS_INTEGRATION_SERVICE_PROCESS_H_
