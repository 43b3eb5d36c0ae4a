// The grouping algorithm alone (docs/benchmarks.md): tickets matched per second by
// Pool::Match with a realistic population (displayed ratings ~ N(1500, 250), one
// ticket in ten a party), fed in batches as a busy pool sees them between ticks.
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "services/matchmaking/pool.h"

namespace trix::matchmaking {
namespace {

void BM_Match(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  std::mt19937_64 rng(7);
  std::normal_distribution<double> rating(1500, 250);
  std::bernoulli_distribution party(0.1);
  Pool pool({.partner = true});
  absl::Time now = absl::FromUnixSeconds(1700000000);
  uint64_t id = 0;
  int64_t matched = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (int i = 0; i < batch; ++i) {
      Ticket t{.ticket_id = std::to_string(++id), .queued = now};
      t.members.push_back({t.ticket_id, "", static_cast<int>(rating(rng))});
      if (party(rng)) t.members.push_back({t.ticket_id + "b", "", t.members[0].rating});
      pool.Add(std::move(t));
    }
    state.ResumeTiming();
    now += absl::Milliseconds(5);
    for (const Group& g : pool.Match(now)) matched += g.tickets.size();
  }
  state.counters["tickets_per_s"] =
      benchmark::Counter(static_cast<double>(matched), benchmark::Counter::kIsRate);
  state.counters["waiting"] = static_cast<double>(pool.size());
}
BENCHMARK(BM_Match)->Arg(100)->Arg(1000)->Arg(10000);

}  // namespace
}  // namespace trix::matchmaking

BENCHMARK_MAIN();
