// Failpoints: named places in the services where a fault test can make the
// process die at once, as kill -9 would, to test what a crash between two steps
// leaves behind (FoundationDB and TiKV test their recovery the same way), or
// misbehave in another named way.
//
//   MAMLAKA_FAILPOINTS=matcher.after_create_tables matchmaking-service ...
//
//   service::Failpoint("matcher.after_create_tables");  // dies here when named
//
// The variable is a comma-separated list of names, read once; `name=K` arms a
// failpoint for its first K passes only (FailpointFires). Unset (always, in
// production) a failpoint costs one load of a cached flag. Every failpoint is
// listed in docs/operations.md.
#ifndef TRIX_SERVICES_COMMON_FAILPOINT_H_
#define TRIX_SERVICES_COMMON_FAILPOINT_H_

#include "absl/strings/string_view.h"

namespace trix::service {

// Sends this process SIGKILL when `name` is in MAMLAKA_FAILPOINTS.
void Failpoint(absl::string_view name);

// Whether `name` is in MAMLAKA_FAILPOINTS: for a fault other than death that a test
// injects (e.g. a leak the soak must catch). Listed in docs/operations.md too.
bool FailpointArmed(absl::string_view name);

// Whether the fault `name` happens at this pass: every pass when armed as `name`,
// the first K passes when armed as `name=K`, never when not armed.
//
//   if (service::FailpointFires("table.lose_create_answer")) ...  // =2: twice
bool FailpointFires(absl::string_view name);

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_FAILPOINT_H_
