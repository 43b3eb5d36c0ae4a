// table-load: N concurrent tables of autopilot-like clients against one table-service
// instance on this machine (or several of one fleet: --target=a,b; seats follow a
// table that moves, as the bot SDK does), measuring accepted actions per second and the latency
// from an action written on the seat's Play stream to its event on that stream;
// then checks that every acknowledged action is in the games' logs. See
// tests/load/run_load.sh, which starts PostgreSQL and the service and runs it, and
// docs/benchmarks.md.
//
//   table-load --target=127.0.0.1:50051 --service_token=... --tables=1000
//       --warmup=10s --duration=30s [--metrics=127.0.0.1:9464]
//       [--cpu_pids=table-service=PID,postgres=PID]
//
// Flags also come from the environment (MAMLAKA_LOAD_<FLAG>); the service token
// also from MAMLAKA_SERVICE_TOKEN, as the service reads it. It prints a summary and,
// as its last line, the same figures as one JSON object.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "services/common/config.h"
#include "services/common/service_main.h"
#include "tests/load/durability.h"
#include "tests/load/failover.h"
#include "tests/load/load_context.h"
#include "tests/load/load_run.h"
#include "tests/load/metrics_scrape.h"
#include "tests/load/process_cpu.h"
#include "tests/load/void_tables.h"

namespace trix::load {
namespace {

struct Flags {
  LoadOptions load;
  std::string metrics;   // the service's /metrics host:port, optional
  std::string cpu_pids;  // name=pid,... process trees to account CPU to
  double target_rate = 10000;
  double target_p99_ms = 10;
  bool keep_tables = false;  // leave the unfinished tables as they are
  FailoverOptions failover;
};

void Bind(service::Config& c, Flags& f) {
  LoadOptions& o = f.load;
  c.Bind("target", &o.target,
         "the table service, host:port on loopback (a,b,...: instances of one fleet)");
  c.Bind("service_token", &o.service_token,
         "bearer token for CreateTable (default: $MAMLAKA_SERVICE_TOKEN)");
  c.Bind("create_targets", &o.create_targets,
         "tables are created on the first N of --target only (0: on all of them)");
  c.Bind("tables", &o.tables, "tables in play at once");
  c.Bind("warmup", &o.warmup, "play before the measurement window opens");
  c.Bind("duration", &o.duration, "length of the measurement window");
  c.Bind("games", &o.games, "also close the window once this many games ended (0: no)");
  c.Bind("mode", &o.mode,
         "classic-solo, classic-partner, complex-solo, "
         "complex-partner, or mixed (the four in turn)");
  c.Bind("channels", &o.channels, "gRPC connections the tables are spread over");
  c.Bind("rate", &o.rate,
         "actions per second offered by all tables together, paced like players "
         "thinking (0: act at once on every prompt, saturating the service)");
  c.Bind("clock_ms", &o.clock_ms, "every decision clock of the tables created");
  c.Bind("create_concurrency", &o.create_concurrency, "CreateTable calls in flight");
  c.Bind("drain", &o.drain, "time actions in flight get once the window closes");
  c.Bind("verify_games", &o.verify_games, "games whose logs are checked (-1: all)");
  c.Bind("seed", &o.seed, "seeds the deals and the seats' choices");
  service::BindChannelTlsFlags(c, &o.tls);
  c.Bind("metrics", &f.metrics, "the service's metrics host:port, to report its view");
  c.Bind("cpu_pids", &f.cpu_pids, "name=pid,... process trees whose CPU to report");
  c.Bind("target_rate", &f.target_rate, "accepted actions per second the run must reach");
  c.Bind("target_p99_ms", &f.target_p99_ms, "p99 action-to-event latency to stay under");
  c.Bind("keep_tables", &f.keep_tables,
         "leave the run's unfinished tables as they are, for investigation (default: "
         "void them at the end, so that no instance keeps them)");
  FailoverOptions& fail = f.failover;
  c.Bind("fleet_kill_pid", &fail.pid,
         "a table-service process to signal mid-window, timing every table's way "
         "back into play (0: none)");
  c.Bind("fleet_kill_after", &fail.after, "when, counted from the window's opening");
  c.Bind("fleet_signal", &fail.signal, "KILL (the instance dies) or TERM (it drains)");
  c.Bind("fleet_bound", &fail.bound,
         "every table in play at the failure must have an action accepted within this "
         "(else the run fails)");
}

// What the window saw: the counters, the server's metrics, the CPU.
struct Window {
  double seconds = 0;
  Counters::Snapshot counts{};
  std::optional<MetricValues> metrics_from, metrics_to;
  std::vector<CpuShare> cpu;
};

void PrintProgress(const LoadContext& context, const LoadRun& run,
                   Counters::Snapshot& last, Clock::time_point& last_time) {
  const Counters::Snapshot now = context.counters.Take();
  const Clock::time_point t = Clock::now();
  const double seconds = std::chrono::duration<double>(t - last_time).count();
  const Counters::Snapshot d = now - last;
  absl::FPrintF(stderr,
                "table-load: %6.0f actions/s  %lld tables playing  %lld games ended"
                "  %lld errors\n",
                seconds > 0 ? static_cast<double>(d.acks) / seconds : 0,
                static_cast<long long>(run.streaming_tables()),
                static_cast<long long>(now.games_ended),
                static_cast<long long>(now.act_rejected + now.act_failed +
                                       now.stream_errors + now.create_errors));
  last = now;
  last_time = t;
}

// Sleeps until `until` (or `games` games ended), printing progress every 5 s.
void Play(const LoadContext& context, const LoadRun& run, Clock::time_point until,
          int64_t games) {
  Counters::Snapshot last = context.counters.Take();
  Clock::time_point last_time = Clock::now();
  while (Clock::now() < until) {
    if (games > 0 && context.counters.games_ended.load() >= games) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (Clock::now() - last_time >= std::chrono::seconds(5)) {
      PrintProgress(context, run, last, last_time);
    }
  }
}

// The measurement window from `open`: with --fleet_kill_pid, the failure at its
// time (returned, on the wall clock), then play on to the window's end.
absl::Time PlayWindow(const Flags& flags, LoadContext& context, const LoadRun& run,
                      Clock::time_point open, int64_t games) {
  absl::Time failure_at;
  if (flags.failover.pid != 0) {
    Play(context, run, open + absl::ToChronoNanoseconds(flags.failover.after), 0);
    absl::FPrintF(stderr, "table-load: sending SIG%s to %d\n", flags.failover.signal,
                  flags.failover.pid);
    if (absl::Status s = CauseFailure(flags.failover, context, &failure_at); !s.ok()) {
      std::cerr << "table-load: " << s.message() << "\n";
    }
  }
  Play(context, run, open + absl::ToChronoNanoseconds(flags.load.duration), games);
  return failure_at;
}

// Beyond the histogram's last bound is +Inf, which JSON cannot say.
std::string JsonNumber(double v) {
  return std::isfinite(v) ? absl::StrFormat("%.3f", v) : "null";
}

std::string CpuJson(const std::vector<CpuShare>& shares) {
  std::vector<std::string> parts;
  for (const CpuShare& s : shares) {
    parts.push_back(absl::StrFormat("\"%s\":{\"cores\":%.3f,\"threads\":%d}", s.name,
                                    s.cores, s.threads));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

// What the run ended with, for the report.
struct Outcome {
  Window window;
  DurabilityReport durable;
  int64_t acks_total = 0;  // acknowledged actions, warm-up and drain included
  bool drained = false;    // no action still in flight once play stopped
  std::optional<FailoverFigures> failover;
};

// The window's figures as the seats saw them, against the run's targets.
struct Figures {
  double rate = 0;  // accepted actions per second
  LatencySummary event, ack;
  bool rate_met = false, p99_met = false, met = false;
};

Figures FiguresOf(const Flags& flags, const LoadContext& context, const Outcome& out) {
  const Window& w = out.window;
  Figures f;
  f.rate = w.seconds > 0 ? static_cast<double>(w.counts.acks) / w.seconds : 0;
  f.event = context.event_latency.Summarize();
  f.ack = context.ack_latency.Summarize();
  f.rate_met = f.rate >= flags.target_rate;
  f.p99_met = f.event.count > 0 && f.event.p99_us < flags.target_p99_ms * 1000;
  f.met = f.rate_met && f.p99_met && out.durable.ok();
  return f;
}

// The run's shape, then what the seats saw of play in the window.
void PrintPlay(const LoadOptions& o, const Window& w, const Figures& f, bool drained) {
  const Counters::Snapshot& c = w.counts;
  const double per_action =
      c.acks > 0 ? static_cast<double>(c.updates) / static_cast<double>(c.acks) : 0;
  const std::string offered =
      o.rate > 0 ? absl::StrFormat("%.0f actions/s offered", o.rate) : "unpaced";
  absl::PrintF(
      "table-load: %d tables (%s), %d channels, %s, window %.1f s after %.0f s "
      "warm-up\n",
      o.tables, o.mode.c_str(), o.channels, offered, w.seconds,
      absl::ToDoubleSeconds(o.warmup));
  absl::PrintF("  accepted actions   %.0f /s  (%lld in the window; %lld games ended)\n",
               f.rate, static_cast<long long>(c.acks),
               static_cast<long long>(c.games_ended));
  absl::PrintF("  act -> own event   %s\n", f.event.Text().c_str());
  absl::PrintF("  act -> answer      %s\n", f.ack.Text().c_str());
  absl::PrintF(
      "  stream messages    %.0f /s (%.2f per action), carrying %.0f events/s and "
      "%.0f prompts/s\n",
      static_cast<double>(c.updates) / w.seconds, per_action,
      static_cast<double>(c.events) / w.seconds,
      static_cast<double>(c.prompts) / w.seconds);
  absl::PrintF(
      "  problems           rejected %lld, failed %lld, stream errors "
      "%lld, seq gaps %lld, create errors %lld, stale prompts %lld%s\n",
      static_cast<long long>(c.act_rejected), static_cast<long long>(c.act_failed),
      static_cast<long long>(c.stream_errors), static_cast<long long>(c.seq_gaps),
      static_cast<long long>(c.create_errors), static_cast<long long>(c.stale_prompts),
      drained ? "" : "; actions still in flight at the end");
  absl::PrintF(
      "  followed           %lld streams reopened, %lld to where the table moved, "
      "%lld actions resent, %lld acknowledged after a reopen\n",
      static_cast<long long>(c.reconnects), static_cast<long long>(c.moves),
      static_cast<long long>(c.resent), static_cast<long long>(c.followed_acks));
}

// The service's own view of the window (with --metrics); returns it as JSON,
// "null" without it.
std::string PrintServer(const Window& w) {
  if (!w.metrics_from || !w.metrics_to) return "null";
  const MetricValues& a = *w.metrics_from;
  const MetricValues& b = *w.metrics_to;
  const double ok = Delta(a, b, "trix_table_actions_total{result=\"ok\"}");
  const double autopilot = Delta(a, b, "trix_table_autopilot_total");
  const AppendTimes append = AppendTimesBetween(a, b);
  absl::PrintF(
      "  server             %.0f actions/s ok, %.0f autopilot moves, %.0f appends/s,"
      " append mean %.2f ms, p50 <= %.2f ms, p99 <= %.2f ms\n",
      ok / w.seconds, autopilot, append.count / w.seconds, append.mean_ms,
      append.p50_le_ms, append.p99_le_ms);
  return absl::StrFormat(
      "{\"actions_ok_per_s\":%.1f,\"autopilot\":%.0f,\"appends_per_s\":%.1f,"
      "\"append_mean_ms\":%.3f,\"append_p50_le_ms\":%s,\"append_p99_le_ms\":%s}",
      ok / w.seconds, autopilot, append.count / w.seconds, append.mean_ms,
      JsonNumber(append.p50_le_ms), JsonNumber(append.p99_le_ms));
}

void PrintCpu(const std::vector<CpuShare>& shares) {
  for (const CpuShare& s : shares) {
    const std::string detail =
        s.threads > 0
            ? absl::StrFormat("  (%d threads, %d processes)", s.threads, s.processes)
            : "";
    absl::PrintF("  cpu %-14s %.2f cores%s\n", s.name, s.cores, detail);
  }
}

void PrintDurability(const DurabilityReport& durable) {
  absl::PrintF(
      "  durability         %lld games: %lld acknowledged actions, %lld in the log, "
      "%lld missing, %lld not acknowledged but logged, %lld foreign, %lld errors%s%s\n",
      static_cast<long long>(durable.games), static_cast<long long>(durable.acked),
      static_cast<long long>(durable.found), static_cast<long long>(durable.missing),
      static_cast<long long>(durable.unacked_logged),
      static_cast<long long>(durable.foreign),
      static_cast<long long>(durable.record_errors),
      durable.first_problem.empty() ? "" : "; first: ", durable.first_problem.c_str());
}

void PrintTargets(const Flags& flags, const Figures& f, bool durable) {
  auto verdict = [](bool ok) { return ok ? "met" : "NOT met"; };
  absl::PrintF(
      "  targets            >= %.0f actions/s %s; p99 < %.0f ms %s; durable %s\n",
      flags.target_rate, verdict(f.rate_met), flags.target_p99_ms, verdict(f.p99_met),
      verdict(durable));
}

// The report's last line: every figure as one JSON object.
void PrintJson(const LoadOptions& o, const Outcome& out, const Figures& f,
               const std::string& server_json) {
  const Window& w = out.window;
  const Counters::Snapshot& c = w.counts;
  absl::PrintF(
      "{\"tables\":%d,\"mode\":\"%s\",\"channels\":%d,\"offered_rate\":%.1f,"
      "\"window_s\":%.3f,"
      "\"actions_per_s\":%.1f,\"actions\":%lld,\"acks_total\":%lld,\"games_ended\":%lld,"
      "\"event_latency\":%s,\"act_latency\":%s,\"updates_per_s\":%.1f,"
      "\"events_per_s\":%.1f,"
      "\"prompts_per_s\":%.1f,\"rejected\":%lld,\"failed\":%lld,"
      "\"stream_errors\":%lld,\"seq_gaps\":%lld,\"reconnects\":%lld,\"moves\":%lld,"
      "\"resent\":%lld,\"followed_acks\":%lld,\"drained\":%s,\"server\":%s,\"cpu\":%s,"
      "\"durability\":%s,\"failover\":%s,\"targets_met\":%s}\n",
      o.tables, o.mode, o.channels, o.rate, w.seconds, f.rate,
      static_cast<long long>(c.acks), static_cast<long long>(out.acks_total),
      static_cast<long long>(c.games_ended), f.event.Json(), f.ack.Json(),
      static_cast<double>(c.updates) / w.seconds,
      static_cast<double>(c.events) / w.seconds,
      static_cast<double>(c.prompts) / w.seconds, static_cast<long long>(c.act_rejected),
      static_cast<long long>(c.act_failed), static_cast<long long>(c.stream_errors),
      static_cast<long long>(c.seq_gaps), static_cast<long long>(c.reconnects),
      static_cast<long long>(c.moves), static_cast<long long>(c.resent),
      static_cast<long long>(c.followed_acks), out.drained ? "true" : "false",
      server_json, CpuJson(w.cpu), out.durable.Json(),
      out.failover ? out.failover->Json() : "null", f.met ? "true" : "false");
}

void Report(const Flags& flags, const LoadContext& context, const Outcome& out) {
  const Figures f = FiguresOf(flags, context, out);
  PrintPlay(flags.load, out.window, f, out.drained);
  const std::string server_json = PrintServer(out.window);
  PrintCpu(out.window.cpu);
  if (out.failover) absl::PrintF("%s", out.failover->Text());
  PrintDurability(out.durable);
  PrintTargets(flags, f, out.durable.ok());
  PrintJson(flags.load, out, f, server_json);
  std::fflush(stdout);
}

// Voids the run's tables whose games did not end (after the durability check,
// which reads their logs as the run left them).
void VoidUnfinished(LoadRun& run, const std::string& service_token) {
  std::vector<std::pair<std::string, std::string>> unfinished;
  for (const LoadTable* table : run.tables()) {
    // Any target: one that does not host the table names the one that does. The
    // last: after a fleet failure (--fleet_kill_pid) the first may be gone.
    if (table->created() && !table->ended()) {
      unfinished.emplace_back(table->id(), run.targets().back());
    }
  }
  const VoidCounts counts =
      VoidTables(unfinished, run.credentials(), service_token, "the load run ended");
  absl::FPrintF(stderr, "table-load: %s\n", counts.Text());
}

absl::Status CheckFlags(const Flags& flags,
                        const absl::StatusOr<std::vector<ProcessTree>>& trees) {
  const LoadOptions& o = flags.load;
  if (absl::Status s = ParseTargets(o.target).status(); !s.ok()) return s;
  if (!flags.metrics.empty()) {
    if (absl::Status s = CheckLoopback(flags.metrics); !s.ok()) return s;
  }
  if (o.service_token.empty()) {
    return absl::InvalidArgumentError(
        "--service_token (or MAMLAKA_SERVICE_TOKEN) is required");
  }
  if (o.tables <= 0 || o.duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--tables and --duration must be positive");
  }
  if (o.rate < 0) {
    return absl::InvalidArgumentError("--rate must be 0 (unpaced) or positive");
  }
  if (absl::Status s = CheckFailover(flags.failover, o.duration); !s.ok()) return s;
  return trees.status();
}

// Reads and checks the flags, and the process trees of --cpu_pids; an exit code
// when there is no run to make (--help, or a bad flag).
std::optional<int> ParseFlags(int argc, char** argv, Flags& flags,
                              std::vector<ProcessTree>& trees) {
  service::Config config("table-load", "MAMLAKA_LOAD_");
  Bind(config, flags);
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) {
    return *exit_code;
  }
  LoadOptions& o = flags.load;
  if (o.service_token.empty()) {
    if (const char* token = std::getenv("MAMLAKA_SERVICE_TOKEN")) o.service_token = token;
  }
  absl::StatusOr<std::vector<ProcessTree>> parsed = ParseProcessTrees(flags.cpu_pids);
  if (absl::Status valid = CheckFlags(flags, parsed); !valid.ok()) {
    std::cerr << "table-load: " << valid.message() << "\n";
    return 2;
  }
  trees = *std::move(parsed);
  return std::nullopt;
}

// Creates the tables and plays through the warm-up; false when not every table
// started (the run measures anyway).
bool WarmUp(const LoadOptions& o, LoadContext& context, LoadRun& run) {
  absl::FPrintF(stderr, "table-load: creating %d tables on %s\n", o.tables,
                o.target.c_str());
  const bool playing =
      run.WaitPlaying(absl::Seconds(60) + o.tables * absl::Milliseconds(100));
  if (!playing)
    absl::FPrintF(stderr, "table-load: not every table started; measuring anyway\n");
  Play(context, run, Clock::now() + absl::ToChronoNanoseconds(o.warmup), 0);
  return playing;
}

// Opens the measurement window, plays it (and the failure, if any, whose time
// goes to `failure_at`) and closes it: what it saw.
Window MeasureWindow(const Flags& flags, LoadContext& context, const LoadRun& run,
                     const CpuProbe& probe, absl::Time* failure_at) {
  const LoadOptions& o = flags.load;
  Window w;
  const Counters::Snapshot before = context.counters.Take();
  const CpuProbe::Sample cpu_before = probe.Take();
  if (!flags.metrics.empty()) {
    absl::StatusOr<MetricValues> m = ScrapeMetrics(flags.metrics);
    if (m.ok()) w.metrics_from = *std::move(m);
  }
  const Clock::time_point open = Clock::now();
  context.OpenWindow(open);
  *failure_at = PlayWindow(flags, context, run, open,
                           o.games > 0 ? before.games_ended + o.games : 0);
  const Clock::time_point close = Clock::now();
  context.CloseWindow(close);
  w.counts = context.counters.Take() - before;
  w.cpu = probe.Shares(cpu_before, probe.Take());
  if (w.metrics_from) {
    absl::StatusOr<MetricValues> m = ScrapeMetrics(flags.metrics);
    if (m.ok()) w.metrics_to = *std::move(m);
  }
  w.seconds = std::chrono::duration<double>(close - open).count();
  return w;
}

// Once play stopped: every acknowledged action against the games' logs and, after
// a fleet failure, every table's way back into play.
void CheckAfterPlay(const Flags& flags, const LoadContext& context, LoadRun& run,
                    absl::Time failure_at, Outcome& out) {
  const LoadOptions& o = flags.load;
  absl::FPrintF(stderr, "table-load: checking the logs of %s games\n",
                o.verify_games < 0 ? "all" : std::to_string(o.verify_games).c_str());
  out.durable = CheckDurability(run.tables(), run.target_stubs(), o.verify_games);
  if (flags.failover.pid != 0) {
    out.failover =
        MeasureFailover(run.tables(), context, flags.failover.bound, failure_at);
  }
}

int Run(int argc, char** argv) {
  // Debian's Abseil is built without NDEBUG, which leaves deadlock detection on in
  // every absl::Mutex (gRPC's included): a graph update per lock, several percent
  // of the tool's CPU. The tool measures the server, not that.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  Flags flags;
  std::vector<ProcessTree> trees;
  if (std::optional<int> exit_code = ParseFlags(argc, argv, flags, trees)) {
    return *exit_code;
  }
  const LoadOptions& o = flags.load;
  const CpuProbe probe(trees);

  LoadContext context(o);
  auto run = std::make_unique<LoadRun>(&context);
  if (absl::Status s = run->Start(); !s.ok()) {
    std::cerr << "table-load: " << s.message() << "\n";
    return 1;
  }
  const bool playing = WarmUp(o, context, *run);
  Outcome out;
  absl::Time failure_at;
  out.window = MeasureWindow(flags, context, *run, probe, &failure_at);
  out.drained = run->Stop(o.drain);
  const bool closed = out.drained && run->Close(absl::Seconds(30));
  out.acks_total = context.counters.acks.load();
  CheckAfterPlay(flags, context, *run, failure_at, out);
  Report(flags, context, out);
  if (!flags.keep_tables) VoidUnfinished(*run, o.service_token);
  // gRPC may still hold a seat or a table whose call did not end: leave them be.
  if (!closed) (void)run.release();
  return playing && out.durable.ok() && (!out.failover || out.failover->ok()) ? 0 : 1;
}

}  // namespace
}  // namespace trix::load

int main(int argc, char** argv) { trix::load::EndLoadTool(trix::load::Run(argc, argv)); }
