// The checks the fault tests share: a wait for a condition that fails with what
// was awaited, one value read from the database, and the checks a scenario ends
// with on the database (which the soak run and the stack test run too, through
// build/bin/trix-end-checks), and the seat clients' acknowledged actions. Each
// check of the database answers what is wrong, one line each ("3 accounts whose
// ..."; empty when all is well); every game of the database counts: it is the
// test's own.
//
//   EXPECT_TRUE(WaitFor([&] { return Playing(); }, 30, "the game is on"));
//   EXPECT_THAT(LedgerOnce(db_->url()), IsEmpty());
#ifndef TRIX_TESTS_FAULT_FAULT_CHECKS_H_
#define TRIX_TESTS_FAULT_FAULT_CHECKS_H_

#include <cstdlib>
#include <functional>
#include <iostream>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bots/common/child_process.h"
#include "gtest/gtest.h"

namespace trix::fault {

// Checks `condition` every 100 ms for up to `seconds`; the failure names `what`.
// On success it prints how long it took.
inline ::testing::AssertionResult WaitFor(const std::function<bool()>& condition,
                                          int seconds, const std::string& what) {
  const absl::Time start = absl::Now(), until = start + absl::Seconds(seconds);
  for (;;) {
    if (condition()) {
      std::cout << "  " << what << ": after "
                << absl::FormatDuration(
                       absl::Trunc(absl::Now() - start, absl::Milliseconds(100)))
                << std::endl;
      return ::testing::AssertionSuccess();
    }
    if (absl::Now() >= until) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return ::testing::AssertionFailure() << what << ": not within " << seconds << " s";
}

// FAULT_FULL=1 in the environment: longer games (the fault strikes deeper into
// them), run by hand.
inline bool FullRun() {
  const char* full = std::getenv("FAULT_FULL");
  return full != nullptr && std::string(full) == "1";
}

// The first column of the query's first row; "" when there is no row or it is
// NULL. `params` are $1, $2, ...
template <typename... Params>
std::string Scalar(const std::string& url, const std::string& sql, Params&&... params) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  pqxx::result r = tx.exec_params(sql, std::forward<Params>(params)...);
  return r.empty() || r[0][0].is_null() ? "" : r[0][0].as<std::string>();
}

// What is wrong: each check's description with its count, when its query
// (SELECT count(*) ...) does not count zero.
using Checks = std::vector<std::pair<std::string, std::string>>;  // description, SQL
std::vector<std::string> NoneOf(const std::string& url, const Checks& checks);

// Runs a program (a client, a tool) to its end; its exit status, or -1 when it
// could not start or still ran after `timeout` (then it is stopped).
int RunToEnd(const bots::ChildProcess::Options& options,
             absl::Duration timeout = absl::Minutes(1));

// `process` exits 0 within `within`; otherwise a failure naming `name`, its exit
// status or why it could not be waited for, and the end of its log at `log_path`.
::testing::AssertionResult ExitsZero(bots::ChildProcess& process, absl::Duration within,
                                     const std::string& name, const std::string& log_path);

// The ledger after a fault: it sums to zero and every balance is the sum of its
// lines; a settled game moved its stakes and payouts in one stake and one payout
// entry that net each staker exactly payout - stake and leave the pot empty, with
// no hold left attached to its seats; an unheld game (staked seats without their
// hold) moved nothing or one such pair, its pot empty; an unstaked or unsettled
// game moved nothing.
std::vector<std::string> LedgerOnce(const std::string& url);

// Each finished game was applied by the ratings service once: its outbox row
// consumed, one applied_games row, one rating history row per seat (none for a
// voided table); every rating's history is a chain (each change starts where the
// last ended, and the rating is where its last change ended), as many changes as
// games.
std::vector<std::string> RatedOnce(const std::string& url);
// Waits up to `seconds` until the ratings service consumed every finished game's
// outbox row, as RatedOnce expects.
::testing::AssertionResult WaitRated(const std::string& url, int seconds = 30);

// `n` games were made at seats matchmaking assigned, and all of them finished.
::testing::AssertionResult GamesMade(const std::string& url, int n);
// Every matched ticket has its seat in mm_assignments, no ticket is left waiting,
// and every game's seats are the ones matchmaking assigned (a seat no bot was free
// for is the table's autopilot's from the first move: it has no assignment).
std::vector<std::string> AssignmentsKept(const std::string& url);
// Tables made with nobody assigned (neither a flood's nor table-load's): a
// matchmaking killed between CreateTable and writing the assignments leaves one.
int64_t OrphanTables(const std::string& url);
// Every staked seat of a finished game had its hold settled with the game (not
// released, nor held or attached forever), and no hold of a ticket is left open.
std::vector<std::string> HoldsSettled(const std::string& url);

// Every finished game's stored log, as a rule case (trix-game-cases), replays
// through trix-replay's engine to the result the table service recorded
// (trix-conformance-compare), and there are `n` of them (n < 0: any number). Its
// files go to `dir`.
::testing::AssertionResult GamesReplay(const std::string& url, const std::string& dir,
                                       int n);

// A seat client's result line (trix-bot's JSON: "table", "seat", "actions",
// "resubscribes"), from the files of `dir` whose names end in `suffix`.
struct SeatResult {
  std::string table;
  int seat = 0;
  int64_t actions = 0, resubscribes = 0;
};
std::vector<SeatResult> SeatResults(const std::string& dir, const std::string& suffix);
// Each seat's client entries in the log are at least its count of accepted actions
// (none missing) and at most one more per stream break (an action made durable
// whose answer the break swallowed); what is wrong, a line each. After an
// asynchronous failover, which may lose acknowledged actions, `rewound` names the
// tables the table service found shorter than acknowledged and rebuilt: a seat
// there missing actions is reported and counted in `*lost`, not failed.
std::vector<std::string> AcknowledgedKept(const std::string& url,
                                          const std::vector<SeatResult>& results,
                                          const std::set<std::string>& rewound = {},
                                          int64_t* lost = nullptr);

}  // namespace trix::fault

#endif  // TRIX_TESTS_FAULT_FAULT_CHECKS_H_
