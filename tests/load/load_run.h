// A load run: keeps `options.tables` tables in play against one table-service
// instance, or several of one fleet (`options.target` lists them: tables are
// created on each in turn), opening a new table whenever a game ends, over a few
// HTTP/2 connections per instance (each channel its own, so the client's and the
// server's work spreads over several sockets). CreateTable calls are throttled to
// `create_concurrency` in flight. Seats that follow a moved table to an address
// not listed get channels of their own (StubFor).
//
//   LoadRun run(&context);
//   run.Start();                                  // the first tables
//   run.WaitPlaying(absl::Minutes(2));            // all of them dealt and streaming
//   ... measure ...
//   run.Stop(); run.Close(absl::Seconds(30));     // no new actions, then end streams
//   for (const LoadTable* t : run.tables()) ...   // check durability
#ifndef TRIX_TESTS_LOAD_LOAD_RUN_H_
#define TRIX_TESTS_LOAD_LOAD_RUN_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "tests/load/load_context.h"
#include "tests/load/load_table.h"
#include "tests/load/pacer.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::load {

// "127.0.0.1:50051", "localhost:50051", "[::1]:50051": OK; anything else is
// INVALID_ARGUMENT, so that the tool never loads a machine it was not meant to.
absl::Status CheckLoopback(const std::string& target);

// "a,b,...": every one a loopback address (CheckLoopback), at least one.
absl::StatusOr<std::vector<std::string>> ParseTargets(const std::string& text);

// "classic-solo" ... "complex-partner", or "mixed" (the four in turn).
absl::StatusOr<std::vector<v1::Mode>> ParseModes(const std::string& text);

class LoadRun {
 public:
  // `context` must outlive the run. The options must have passed CheckLoopback.
  explicit LoadRun(LoadContext* context);
  ~LoadRun();

  absl::Status Start();
  // Waits until `options.tables` tables are created and streaming; false on
  // timeout or when a create failed for good.
  bool WaitPlaying(absl::Duration timeout);
  // Waits until `games` games ended (and then returns true), or `timeout` passed.
  bool WaitGames(int64_t games, absl::Duration timeout);

  // No new action or table from now on; waits (up to `timeout`) for the actions in
  // flight to be answered. False when some are still in flight.
  bool Stop(absl::Duration timeout);
  // Cancels every stream and waits for all of them, and for the creates in flight.
  // False on timeout: the run must then not be destroyed (gRPC still holds it).
  bool Close(absl::Duration timeout);

  std::vector<const LoadTable*> tables() const;
  const std::vector<std::string>& targets() const { return targets_; }
  // How the targets are dialled (--tls and its files); made by Start().
  const std::shared_ptr<grpc::ChannelCredentials>& credentials() const {
    return credentials_;
  }
  // A stub for `address` (one of its channels, chosen by `n`), connecting to an
  // address not listed on first use; nullptr when it is not a loopback address.
  v1::TableService::Stub* StubFor(const std::string& address, size_t n);
  // One stub per target, for calls that may go to any instance.
  std::vector<v1::TableService::Stub*> target_stubs();
  int64_t streaming_tables() const;
  Pacer& pacer() { return pacer_; }

  // From the tables.
  void OnCreated(LoadTable* table, bool ok);
  void OnGameEnded(LoadTable* table);
  void OnStreamsClosed(LoadTable* table);

 private:
  void AddTable() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts queued creates while fewer than the limit are in flight.
  std::vector<LoadTable*> TakeCreates() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static void RunCreates(const std::vector<LoadTable*>& tables);
  bool Quiet() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return streaming_ == 0 && creating_ == 0;
  }

  LoadContext* const context_;
  std::vector<v1::Mode> modes_;
  std::string run_key_;  // makes request ids unique across runs on one database
  std::vector<std::string> targets_;
  struct Channels {
    std::vector<std::shared_ptr<grpc::Channel>> channels;
    std::vector<std::unique_ptr<v1::TableService::Stub>> stubs;
  };
  // `count` channels to `address`, each its own connection.
  std::unique_ptr<Channels> Connect(const std::string& address, int count) const;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;  // made by Start()
  absl::Mutex channels_mu_;
  // Never shrinks: seats and tables keep the stubs they were given.
  absl::flat_hash_map<std::string, std::unique_ptr<Channels>> channels_
      ABSL_GUARDED_BY(channels_mu_);

  Pacer pacer_;  // before the tables: destroyed after them

  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<LoadTable>> tables_ ABSL_GUARDED_BY(mu_);
  std::deque<LoadTable*> to_create_ ABSL_GUARDED_BY(mu_);
  int creating_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t streaming_ ABSL_GUARDED_BY(mu_) = 0;       // tables whose streams are open
  bool create_failed_ ABSL_GUARDED_BY(mu_) = false;  // a create failed for good
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_LOAD_RUN_H_
