// The durability check at the end of a load run: every action the service
// acknowledged must be in the game's log. For each checked game and seat it fetches
// GetGameRecord with that seat's token (the record is rebuilt from PostgreSQL, not
// from the live table) and lines up the seat's own decisions in the record with
// the actions the tool sent, in order. Any instance of a fleet answers it. A seat acts again only after its previous
// action's event came back (or it was refused), so its acknowledged actions must
// appear in the log in the order they were sent, with nothing in between that the
// tool did not send.
//
//   DurabilityReport r = CheckDurability(run.tables(), run.target_stubs(), -1);
//   if (r.missing > 0) ... // an acknowledged action is not in the log
#ifndef TRIX_TESTS_LOAD_DURABILITY_H_
#define TRIX_TESTS_LOAD_DURABILITY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tests/load/load_table.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::load {

struct DurabilityReport {
  int64_t games = 0;           // games checked
  int64_t acked = 0;           // acknowledged actions of those games
  int64_t found = 0;           // of which found in the log, in place
  int64_t missing = 0;         // acknowledged, not in the log: a durability failure
  int64_t unacked_logged = 0;  // in the log though the tool saw no OK (answer lost)
  int64_t foreign = 0;         // decisions in the log the tool never sent
  int64_t record_errors = 0;   // GetGameRecord calls that failed
  std::string first_problem;   // the first missing action or error, for the report

  bool ok() const { return missing == 0 && foreign == 0 && record_errors == 0; }
  std::string Json() const;
};

// Checks `max_games` of `tables` (-1: all), spread evenly, with `threads` callers,
// through any of `stubs` (the next one when an instance does not answer).
DurabilityReport CheckDurability(const std::vector<const LoadTable*>& tables,
                                 const std::vector<v1::TableService::Stub*>& stubs,
                                 int max_games, int threads = 8);

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_DURABILITY_H_
