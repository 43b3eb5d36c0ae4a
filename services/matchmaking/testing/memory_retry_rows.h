// The rows of an in-memory retry table (the fakes of the stores on
// retry_table.h), as PostgreSQL's keep them. A row is a struct with `row` (whose
// `tries` counts), `created`, `due` and `done` (anything that tests true once
// done).
// - LeaseDueRows: the rows due now, the longest due first, at most `limit`, each
//   due again `lease` from now with one try more;
// - PutOffRow: a row not done, due again after RetryBackoff(tries);
// - BacklogOf: the rows not done, and the age of the oldest.
//
//   for (Stored* s : LeaseDueRows(rows_, absl::Now(), lease_, limit)) leased.push_back(s->row);
#ifndef TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_RETRY_ROWS_H_
#define TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_RETRY_ROWS_H_

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/matchmaking/store/retry_table.h"

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

template <typename Stored>
void PutOffRow(std::map<std::string, Stored>& rows, const std::string& id, int tries) {
  auto it = rows.find(id);
  if (it != rows.end() && !it->second.done) it->second.due = absl::Now() + RetryBackoff(tries);
}

template <typename Stored>
RetryTable::Backlog BacklogOf(const std::map<std::string, Stored>& rows) {
  RetryTable::Backlog b;
  const absl::Time now = absl::Now();
  for (const auto& [id, s] : rows) {
    if (s.done) continue;
    ++b.pending;
    b.oldest = std::max(b.oldest, now - s.created);
  }
  return b;
}

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_TESTING_MEMORY_RETRY_ROWS_H_
