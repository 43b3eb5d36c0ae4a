// BotAccount: runs a bot account's process. It connects to matchmaking with the
// account's key (ServeBot), declares how many tables it plays at once, and plays
// every seat assigned to it, each with a fresh Bot on its own Seat (seat.h) and
// thread, so that a bot author writes only the Bot.
//
// The ServeBot stream breaks when matchmaking restarts or a replica dies: the
// account reconnects with jittered backoff, and matchmaking delivers the account's
// live assignments again; a seat already being played is not played twice. A
// refused key (UNAUTHENTICATED, PERMISSION_DENIED) ends Serve() with that status.
//
//   BotAccount account({.matchmaking_address = "mm:7100", .bot_key = key},
//                      [](const v1::Assignment&) { return std::make_unique<Mine>(); });
//   absl::Status s = account.Serve();  // until Stop()
#ifndef TRIX_BOTS_SDK_BOT_ACCOUNT_H_
#define TRIX_BOTS_SDK_BOT_ACCOUNT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "bots/sdk/bot.h"
#include "bots/sdk/seat.h"
#include "grpcpp/client_context.h"
#include "trix/v1/matchmaking.grpc.pb.h"

namespace trix::bots {

struct BotAccountConfig {
  std::string matchmaking_address;
  std::string bot_key;
  int capacity = 4;              // tables played at once
  std::vector<v1::Mode> modes;   // empty: every mode the account plays
  absl::Duration backoff_max = absl::Seconds(5);
  // For every seat (think, give_up_after, log); its credentials (TLS, null:
  // plaintext) are also matchmaking's.
  SeatConfig seat;
};

using BotFactory = std::function<std::unique_ptr<Bot>(const v1::Assignment&)>;
// Called as each assigned seat's game ends (or the seat gives up), with its stats.
using GameDone = std::function<void(const v1::Assignment&,
                                    const absl::StatusOr<v1::GameResult>&, const SeatStats&)>;

class BotAccount {
 public:
  BotAccount(BotAccountConfig config, BotFactory make_bot, GameDone done = nullptr);
  BotAccount(const BotAccount&) = delete;
  BotAccount& operator=(const BotAccount&) = delete;
  ~BotAccount();

  // Serves assignments until Stop(), then waits for the seats in play to stop.
  absl::Status Serve();
  // Makes Serve() return soon; callable from any thread.
  void Stop();

  int64_t games_finished() const { return games_finished_.load(); }
  int live_seats() const;

 private:
  struct Game {
    std::unique_ptr<Bot> bot;
    std::unique_ptr<Seat> seat;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  // One ServeBot stream; the status it ended with.
  absl::Status RunStream(bool* progressed);
  void Start(const v1::Assignment& assignment);
  void JoinFinished() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Log(LogLevel level, absl::string_view message) const;

  const BotAccountConfig config_;
  const BotFactory make_bot_;
  const GameDone done_;
  std::atomic<int64_t> games_finished_{0};
  std::atomic<bool> stopped_{false};
  absl::Notification stop_;

  mutable absl::Mutex mu_;
  grpc::ClientContext* stream_context_ ABSL_GUARDED_BY(mu_) = nullptr;
  // By "table_id/seat": the seats in play (and finished ones not yet joined).
  std::map<std::string, std::unique_ptr<Game>> games_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_SDK_BOT_ACCOUNT_H_
