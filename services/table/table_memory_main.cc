// table-memory: the heap one Table holds, as tcmalloc counts it, at the points of
// a game a hosted table goes through (docs/benchmarks.md, "Memory per hosted
// table"). It builds --tables tables of --mode, deals, then has the seats play
// --actions actions each (random legal actions from the prompts, as a load run),
// and prints the heap in use per table after each stage and the event list's part,
// then the time a spectator's resume from its first event takes.
//
//   build/bin/table-memory --mode=complex-solo --tables=1000 --actions=100
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "engine/random.h"
#include "gperftools/malloc_extension.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/table/table.h"
#include "services/table/testing/table_client.h"

ABSL_FLAG(std::string, mode, "complex-solo", "classic-solo, classic-partner, ...");
ABSL_FLAG(int, tables, 1000, "tables built");
ABSL_FLAG(int, actions, 100, "client actions each table plays (fewer if it ends)");

namespace trix::table {
namespace {

size_t HeapInUse() {
  size_t value = 0;
  MallocExtension::instance()->GetNumericProperty("generic.current_allocated_bytes",
                                                  &value);
  return value;
}

std::unique_ptr<Table> NewTable(const v1::Mode& mode, uint64_t seed) {
  v1::internal::TableSettings settings;
  *settings.mutable_mode() = mode;
  settings.mutable_rules()->set_kingdoms(4);
  settings.mutable_clocks()->set_contract_ms(3600000);
  settings.mutable_clocks()->set_doubling_ms(3600000);
  settings.mutable_clocks()->set_card_ms(3600000);
  settings.set_seed(seed);
  std::array<SeatRecord, engine::kNumSeats> seats;
  for (int s = 0; s < engine::kNumSeats; ++s) {
    seats[s] = {absl::StrFormat("player-%d-%d", seed, s), "Player", false, 0,
                service::TokenHash(service::NewSeatToken())};
  }
  return Table::Create(absl::StrFormat("table-%d", seed), settings, seats,
                       absl::Now())
      .value();
}

// Plays up to `actions` client actions; returns how many were played.
int PlayActions(Table& table, int actions, engine::Rng& rng) {
  int n = 0;
  for (; n < actions && !table.over(); ++n) {
    int seat = -1;
    for (int s = 0; s < engine::kNumSeats && seat < 0; ++s) {
      if (table.PromptFor(s)) seat = s;
    }
    if (seat < 0) break;
    v1::ActRequest act = RandomAction(*table.PromptFor(seat), rng);
    act.set_request_id(absl::StrFormat("r%d", n));
    if (!table.Act(seat, act, absl::Now()).ok()) break;
  }
  return n;
}

int Run() {
  const v1::Mode mode = wire::ModeFromName(absl::GetFlag(FLAGS_mode)).value();
  const int count = absl::GetFlag(FLAGS_tables);
  std::vector<std::unique_ptr<Table>> tables;
  tables.reserve(count);
  const size_t start = HeapInUse();
  for (int i = 0; i < count; ++i) tables.push_back(NewTable(mode, i + 1));
  const size_t created = HeapInUse();
  for (auto& t : tables) t->Advance(absl::Now());
  const size_t dealt = HeapInUse();
  engine::Rng rng(7);
  int64_t played = 0, events = 0, event_bytes = 0, engine_bytes = 0, answer_bytes = 0;
  for (auto& t : tables) played += PlayActions(*t, absl::GetFlag(FLAGS_actions), rng);
  const size_t after = HeapInUse();
  for (auto& t : tables) {
    events += t->event_count();
    event_bytes += t->event_list_bytes();
    engine_bytes += t->game().list_bytes();
    answer_bytes += t->answer_bytes();
  }
  auto per = [count](double bytes) { return bytes / count; };
  absl::PrintF("mode %s, %d tables, %.1f client actions and %.1f events each\n",
               absl::GetFlag(FLAGS_mode), count, per(played), per(events));
  absl::PrintF("bytes per table: created %.0f, first deal %.0f, after the actions "
               "%.0f (of which the table's event list %.0f used, the engine's events, "
               "actions and scores %.0f reserved, the seats' answers %.0f reserved)\n",
               per(created - start), per(dealt - start), per(after - start),
               per(event_bytes), per(engine_bytes), per(answer_bytes));
  // What a spectator resuming from its first event costs: the events of earlier
  // deals are rebuilt from the table's entries.
  const absl::Time resume_start = absl::Now();
  size_t resumed = 0;
  for (auto& t : tables) resumed += t->EventsAfter(engine::kSpectator, 1).value().size();
  const double resumed_events = per(resumed);
  const double resume_us = absl::ToDoubleMicroseconds(absl::Now() - resume_start) / count;
  // Of which the rebuild: the table's first event alone is rebuilt as well.
  const absl::Time first_start = absl::Now();
  for (auto& t : tables) resumed += t->EventFor(0, engine::kSpectator).has_value();
  absl::PrintF("a spectator resuming after its first event: %.1f events, %.0f us a table "
               "(its first event alone: %.0f us)\n",
               resumed_events, resume_us,
               absl::ToDoubleMicroseconds(absl::Now() - first_start) / count);
  return 0;
}

}  // namespace
}  // namespace trix::table

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return trix::table::Run();
}
