// The checks the fault tests share: a wait for a condition that fails with what
// was awaited, one value read from the database, and the ledger's check after a
// fault (the SQL of end_checks.sh's ledger_once, which the shell scenarios and the
// soak run use).
//
//   EXPECT_TRUE(WaitFor([&] { return Playing(); }, 30, "the game is on"));
//   EXPECT_THAT(LedgerOnce(db_->url()), IsEmpty());
#ifndef TRIX_TESTS_FAULT_FAULT_CHECKS_H_
#define TRIX_TESTS_FAULT_FAULT_CHECKS_H_

#include <functional>
#include <iostream>
#include <pqxx/pqxx>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
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

// The first column of the query's first row; "" when there is no row or it is
// NULL. `params` are $1, $2, ...
template <typename... Params>
std::string Scalar(const std::string& url, const std::string& sql, Params&&... params) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  pqxx::result r = tx.exec_params(sql, std::forward<Params>(params)...);
  return r.empty() || r[0][0].is_null() ? "" : r[0][0].as<std::string>();
}

// The ledger after a fault: it sums to zero and every balance is the sum of its
// lines; a settled game moved its stakes and payouts in one stake and one payout
// entry that net each staker exactly payout - stake and leave the pot empty, with
// no hold left attached to its seats; an unheld game (staked seats without their
// hold) moved nothing or one such pair, its pot empty; an unstaked or unsettled
// game moved nothing. What is wrong, one line each ("3 accounts whose ..."); empty
// when all is well. Every finished game of the database counts: it is the test's own.
inline std::vector<std::string> LedgerOnce(const std::string& url) {
  const std::vector<std::pair<std::string, std::string>> checks = {
      {"units the ledger's lines are off zero (in absolute value)", R"sql(
        SELECT abs(coalesce(sum(amount), 0)) FROM ratings.lines)sql"},
      {"accounts whose balance is not the sum of their lines", R"sql(
        SELECT count(*) FROM ratings.accounts a
        WHERE a.balance <> (SELECT coalesce(sum(amount), 0) FROM ratings.lines l
                            WHERE l.account_id = a.account_id))sql"},
      {"staked games recorded as unstaked, or unstaked games as staked", R"sql(
        SELECT count(*) FROM games g JOIN ratings.applied_games a ON a.game_id = g.id
        WHERE g.finished IS NOT NULL AND (a.settlement = 'unstaked') <>
              ((SELECT sum(stake) FROM game_seats s WHERE s.game_id = g.id) = 0))sql"},
      {"games whose money did not move exactly once (or moved when it must not)", R"sql(
        SELECT count(*) FROM games g JOIN ratings.applied_games a ON a.game_id = g.id
        WHERE g.finished IS NOT NULL AND CASE a.settlement
          WHEN 'settled' THEN
            (SELECT count(*) FROM ratings.entries e WHERE e.game_id = g.id AND e.kind = 3) <> 1
            OR (SELECT count(*) FROM ratings.entries e WHERE e.game_id = g.id AND e.kind = 4) <> 1
            OR (SELECT count(*) FROM ratings.entries e WHERE e.game_id = g.id) <> 2
            OR coalesce((SELECT balance FROM ratings.accounts
                         WHERE account_id = 'pot:' || g.id), 0) <> 0
            OR EXISTS (SELECT 1 FROM ratings.holds h WHERE h.table_id = g.id AND h.state = 2)
          WHEN 'unheld' THEN
            (SELECT count(*) FROM ratings.entries e WHERE e.game_id = g.id) NOT IN (0, 2)
            OR coalesce((SELECT balance FROM ratings.accounts
                         WHERE account_id = 'pot:' || g.id), 0) <> 0
            OR EXISTS (SELECT 1 FROM ratings.holds h WHERE h.table_id = g.id AND h.state = 2)
          ELSE EXISTS (SELECT 1 FROM ratings.entries e WHERE e.game_id = g.id) END)sql"},
      {"stakers of settled games not netted exactly payout - stake", R"sql(
        SELECT count(*) FROM games g
          JOIN ratings.applied_games a ON a.game_id = g.id AND a.settlement = 'settled'
          JOIN game_seats s ON s.game_id = g.id AND NOT s.bot
        WHERE g.finished IS NOT NULL
          AND (SELECT coalesce(sum(l.amount), 0) FROM ratings.lines l
               JOIN ratings.entries e USING (entry_id)
               WHERE e.game_id = g.id AND l.account_id = 'player:' || s.player_id)
              <> (g.result -> 'payouts' ->> s.seat::int)::bigint - s.stake)sql"}};
  std::vector<std::string> wrong;
  for (const auto& [description, sql] : checks) {
    const std::string n = Scalar(url, sql);
    if (n != "0") wrong.push_back(absl::StrCat(n, " ", description));
  }
  return wrong;
}

}  // namespace trix::fault

#endif  // TRIX_TESTS_FAULT_FAULT_CHECKS_H_
