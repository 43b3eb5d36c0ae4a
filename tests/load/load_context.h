// What every part of the load tool shares: its options, the measurement window,
// the counters and the two latency logs. Counters are plain atomics read as a
// Snapshot; the figures of the measurement window are the difference of the
// snapshots taken when the window opens and when it closes.
//
//   LoadContext context(options);
//   context.counters.acks.fetch_add(1);
//   if (context.InWindow(sent)) context.event_latency.Add(now - sent);
#ifndef TRIX_TESTS_LOAD_LOAD_CONTEXT_H_
#define TRIX_TESTS_LOAD_LOAD_CONTEXT_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/time/time.h"
#include "services/common/tls.h"
#include "tests/load/latency.h"

namespace trix::load {

using Clock = std::chrono::steady_clock;

struct LoadOptions {
  // Loopback addresses only, comma-separated: several instances of one fleet.
  // Tables are created on them in turn; seats follow their table when it moves.
  std::string target = "127.0.0.1:50051";
  // Tables are created on the first this many targets only (0: on all of them),
  // e.g. 1: every table starts on one instance, the others only take tables over.
  int create_targets = 0;
  std::string service_token;               // for CreateTable
  int tables = 1000;                       // concurrent tables
  absl::Duration warmup = absl::Seconds(10);
  absl::Duration duration = absl::Seconds(30);  // the measurement window
  int games = 0;               // also stop once this many games ended (0: no limit)
  std::string mode = "mixed";  // classic-solo ... complex-partner, or mixed
  int channels = 4;            // HTTP/2 connections the tables are spread over
  // Actions per second all tables together offer, paced (pacer.h); 0: every seat
  // acts the moment it is prompted, which saturates the service.
  double rate = 0;
  int clock_ms = 3600000;       // every decision clock: long, so the autopilot never acts
  int create_concurrency = 32;  // CreateTable calls in flight at most
  absl::Duration drain = absl::Seconds(10);  // for actions in flight at the end
  int verify_games = -1;                     // games whose logs are checked; -1: all
  int64_t seed = 1;
  service::ChannelTls tls;  // how the targets are dialled (--tls, --tls_ca, ...)
};

// Monotonic counters. Names say what the tool saw, not what the server did.
struct Counters {
  std::atomic<int64_t> tables_created{0};
  std::atomic<int64_t> create_errors{0};
  std::atomic<int64_t> games_ended{0};
  std::atomic<int64_t> acts_sent{0};     // actions decided (written unless stopping)
  std::atomic<int64_t> acks{0};          // ActResult OK
  std::atomic<int64_t> act_rejected{0};  // INVALID_ARGUMENT, FAILED_PRECONDITION, ...
  std::atomic<int64_t> act_failed{0};    // UNAVAILABLE, ... or lost with its stream
  std::atomic<int64_t> updates{0};       // stream messages (TableUpdates)
  std::atomic<int64_t> events{0};        // what they carried
  std::atomic<int64_t> prompts{0};
  std::atomic<int64_t> snapshots{0};
  std::atomic<int64_t> stale_prompts{0};  // a prompt for a decision already answered
  std::atomic<int64_t> matched{0};        // actions whose event came back on the stream
  std::atomic<int64_t> seq_gaps{0};       // an event number that skipped or repeated
  std::atomic<int64_t> stream_errors{0};  // seats that gave up (not OK, not by us)
  std::atomic<int64_t> reconnects{0};     // streams a seat opened after its first broke
  std::atomic<int64_t> moves{0};          // reconnects to where a refusal said the table is
  std::atomic<int64_t> resent{0};         // actions sent again, same request id, on a new stream
  std::atomic<int64_t> followed_acks{0};  // acks on a seat's stream after a reconnect

  struct Snapshot {
    int64_t tables_created, create_errors, games_ended, acts_sent, acks, act_rejected,
        act_failed, updates, events, prompts, snapshots, stale_prompts, matched, seq_gaps,
        stream_errors, reconnects, moves, resent, followed_acks;
    Snapshot operator-(const Snapshot& o) const;
  };
  Snapshot Take() const;
};

class LoadContext {
 public:
  explicit LoadContext(LoadOptions options) : options(std::move(options)) {}

  const LoadOptions options;
  Counters counters;
  LatencyLog event_latency;  // action written -> the seat's stream shows its event
  LatencyLog ack_latency;    // action written -> its ActResult OK

  void OpenWindow(Clock::time_point t) { window_open_.store(Ticks(t)); }
  void CloseWindow(Clock::time_point t) { window_close_.store(Ticks(t)); }
  // Whether an action sent at `t` belongs to the measurement.
  bool InWindow(Clock::time_point t) const {
    const int64_t ticks = Ticks(t);
    return ticks >= window_open_.load(std::memory_order_relaxed) &&
           ticks < window_close_.load(std::memory_order_relaxed);
  }

  // The instant a fleet failure was caused (failover.h); none until then.
  void MarkFailure(Clock::time_point t) { failure_.store(Ticks(t)); }
  bool AfterFailure(Clock::time_point t) const {
    return Ticks(t) >= failure_.load(std::memory_order_relaxed);
  }
  Clock::time_point failure() const {
    return Clock::time_point(Clock::duration(failure_.load()));
  }
  // A call refused, or a stream ended, with gRPC code `code`: counted from the
  // failure on.
  void CountRefused(int code, Clock::time_point t) {
    if (AfterFailure(t) && code > 0 && code < kCodes) refused_[code].fetch_add(1);
  }
  static constexpr int kCodes = 17;
  int64_t refused(int code) const { return refused_[code].load(); }

  // Once set, seats send no new action and no new table is created.
  std::atomic<bool> stopping{false};
  std::atomic<int64_t> acts_in_flight{0};

 private:
  static int64_t Ticks(Clock::time_point t) { return t.time_since_epoch().count(); }
  std::atomic<int64_t> window_open_{std::numeric_limits<int64_t>::max()};
  std::atomic<int64_t> window_close_{std::numeric_limits<int64_t>::max()};
  std::atomic<int64_t> failure_{std::numeric_limits<int64_t>::max()};
  std::array<std::atomic<int64_t>, kCodes> refused_{};
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_LOAD_CONTEXT_H_
