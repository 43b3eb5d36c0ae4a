// The tables this instance is adopting for calls: a call that names a table the
// instance does not host has it located and claimed on the spot (or learns that
// the database does not know it), and Adoptions keeps the books of that. It owns
//   - the count of calls' adoptions loading now, at most max_adoptions, so that a
//     flood of made-up ids costs at most that many lookups at a time (the
//     trix_table_adoptions gauge shows it); a claim round's tables are not
//     counted: its batch bounds them;
//   - the tables whose calls wait their turn past that bound, in the order they
//     came, at most max_waiting_adoptions; when an adoption ends the one that
//     waited longest starts, unless a claim round took it meanwhile;
//   - the ids the database just said it does not know, each remembered for
//     unknown_table_memory (at most max_unknown_tables of them), so that repeated
//     calls for one are answered NOT_FOUND without a lookup each.
// It holds no table and knows nothing of slots or strands: the host asks whether a
// call's adoption starts, waits or is refused (Admit), tells it when one ended
// (Ended), and starts the waiting table it hands out (StartWaiting).
//
// Its lock is the innermost: the host calls it while holding its own (which
// guards the hosted tables), and it calls nothing of the host's but the predicate
// StartWaiting is given.
#ifndef TRIX_SERVICES_TABLE_ADOPTIONS_H_
#define TRIX_SERVICES_TABLE_ADOPTIONS_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "services/table/host_metrics.h"

namespace trix::table {

// HostOptions' fields of the same names (their defaults and docs are there).
struct AdoptionOptions {
  size_t max_adoptions = 0;
  size_t max_waiting_adoptions = 0;
  absl::Duration unknown_table_memory;  // zero: no id is remembered
  size_t max_unknown_tables = 0;
};

class Adoptions {
 public:
  // What Admit decided for a call's adoption.
  enum class Turn {
    kStart,    // it starts now, counted until Ended
    kWait,     // it waits its turn (StartWaiting), its call's commands held
    kRefused,  // not adopted: the call gets the refusal
  };

  // `metrics` must outlive the adoptions.
  Adoptions(AdoptionOptions options, HostMetrics& metrics);
  Adoptions(const Adoptions&) = delete;
  Adoptions& operator=(const Adoptions&) = delete;

  // For a call that names `table_id`, which is not hosted here: refused with the
  // lookup's NOT_FOUND while the id is remembered as unknown (one that expired by
  // `now` is forgotten); otherwise it starts when fewer than max_adoptions load,
  // else waits when the call `may_wait` and fewer than max_waiting_adoptions
  // wait, else is refused UNAVAILABLE. `refused` (may be null) gets the refusal.
  Turn Admit(const std::string& table_id, bool may_wait, absl::Time now,
             absl::Status* refused);
  // An adoption ended with `outcome`: a call's (`for_call`) is no longer counted,
  // and a table the database does not know (NOT_FOUND) is remembered as unknown
  // until `now` plus unknown_table_memory.
  void Ended(const std::string& table_id, bool for_call, const absl::Status& outcome,
             absl::Time now);
  // When fewer than max_adoptions load, the table that has waited longest, now
  // counted as loading; the ones `still_waits` says no longer wait (their
  // placeholder is gone: a claim round took the table meanwhile) are skipped.
  // None when there is no room or nothing waits. `still_waits` runs under the
  // lock and may read what the caller's own lock guards.
  absl::optional<std::string> StartWaiting(
      const std::function<bool(const std::string&)>& still_waits);
  // A table StartWaiting handed out turned out to need no adoption (a claim round
  // delivered it meanwhile): no longer counted.
  void NotStarted();

  // A table created or hosted here is not unknown any more.
  void ForgetUnknown(const std::string& table_id);
  // Forgets the unknown ids that expired by `now`.
  void DropExpired(absl::Time now);

  // For tests.
  size_t loading() const;
  size_t waiting() const;
  size_t unknown() const;

 private:
  // Counts `loading` adoptions loading, and shows it (trix_table_adoptions).
  void ShowLoading(size_t loading) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Forgets the unknown ids that expired by `now`.
  void EraseExpired(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Busy() const;

  struct Unknown {
    absl::Status status;  // NOT_FOUND, as the lookup said
    absl::Time expires;
  };

  const AdoptionOptions options_;
  HostMetrics& metrics_;
  mutable absl::Mutex mu_;
  size_t loading_ ABSL_GUARDED_BY(mu_) = 0;  // calls' adoptions loading
  // Tables whose calls wait for an adoption, in the order they came.
  std::deque<std::string> waiting_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Unknown> unknown_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_ADOPTIONS_H_
