// The lease of an in-memory retry table (the fakes of the stores on
// retry_table.h): the rows due now, the longest due first, at most `limit`, each
// due again `lease` from now with one try more. A row is a struct with `row`
// (whose `tries` counts), `due` and `done` (anything that tests true once done).
//
//   for (Stored* s : LeaseDueRows(rows_, absl::Now(), lease_, limit)) leased.push_back(s->row);
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_RETRY_ROWS_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_RETRY_ROWS_H_

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace trix::matchmaking {

template <typename Stored>
std::vector<Stored*> LeaseDueRows(std::map<std::string, Stored>& rows, absl::Time now,
                                  absl::Duration lease, int limit) {
  std::vector<Stored*> due;
  for (auto& [id, s] : rows) {
    if (!s.done && s.due <= now) due.push_back(&s);
  }
  std::sort(due.begin(), due.end(), [](Stored* a, Stored* b) { return a->due < b->due; });
  if (due.size() > static_cast<size_t>(limit)) due.resize(limit);
  for (Stored* s : due) {
    s->due = now + lease;
    ++s->row.tries;
  }
  return due;
}

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_RETRY_ROWS_H_
