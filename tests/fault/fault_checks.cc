#include "tests/fault/fault_checks.h"

#include <filesystem>
#include <fstream>
#include <memory>

#include "absl/strings/match.h"
#include "bots/common/child_process.h"
#include "engine/replay/case_runner.h"
#include "nlohmann/json.hpp"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/read_file.h"

namespace trix::fault {
namespace {

// The games matchmaking assigned seats at.
constexpr char kAssigned[] =
    "EXISTS (SELECT 1 FROM mm_assignments a WHERE a.table_id = g.id)";

}  // namespace

std::vector<std::string> NoneOf(const std::string& url, const Checks& checks) {
  std::vector<std::string> wrong;
  for (const auto& [description, sql] : checks) {
    const std::string n = Scalar(url, sql);
    if (n != "0") wrong.push_back(absl::StrCat(n, " ", description));
  }
  return wrong;
}

int RunToEnd(const bots::ChildProcess::Options& options, absl::Duration timeout) {
  auto child = bots::ChildProcess::Start(options);
  if (!child.ok()) return -1;
  absl::StatusOr<int> status = (*child)->Wait(timeout);
  return status.ok() ? *status : -1;
}

::testing::AssertionResult ExitsZero(bots::ChildProcess& process, absl::Duration within,
                                     const std::string& name, const std::string& log_path) {
  absl::StatusOr<int> status = process.Wait(within);
  if (status.ok() && *status == 0) return ::testing::AssertionSuccess();
  const std::string log = ReadFile(log_path);
  return ::testing::AssertionFailure()
         << name << ": "
         << (status.ok() ? absl::StrCat("exit ", *status)
                         : std::string(status.status().message()))
         << "\n"
         << log.substr(log.size() > 3000 ? log.size() - 3000 : 0);
}

std::vector<std::string> LedgerOnce(const std::string& url) {
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
  return NoneOf(url, checks);
}

std::vector<std::string> RatedOnce(const std::string& url) {
  return NoneOf(
      url,
      {{"finished games not applied once by the ratings service", R"sql(
        SELECT count(*) FROM games g
          LEFT JOIN game_results r ON r.game_id = g.id
          LEFT JOIN ratings.applied_games a ON a.game_id = g.id
        WHERE g.finished IS NOT NULL AND (r.consumed_at IS NULL OR a.game_id IS NULL
              OR (NOT a.rated AND a.settlement <> 'voided') OR a.outbox_id <> r.id))sql"},
       {"finished games without exactly one rating change per seat (none if voided)",
        R"sql(
        SELECT count(*) FROM games g JOIN ratings.applied_games a ON a.game_id = g.id
        WHERE g.finished IS NOT NULL
          AND (SELECT count(*) FROM ratings.rating_history h WHERE h.game_id = g.id)
              <> CASE WHEN a.settlement = 'voided' THEN 0 ELSE 4 END)sql"},
       {"rating changes of games that are not finished", R"sql(
        SELECT count(*) FROM ratings.rating_history h
          LEFT JOIN games g ON g.id = h.game_id WHERE g.finished IS NULL)sql"},
       {"rating changes that do not start where the last one ended", R"sql(
        SELECT count(*) FROM (
          SELECT mu_before, sigma_before,
                 lag(mu_after) OVER w AS mu, lag(sigma_after) OVER w AS sigma
          FROM ratings.rating_history
          WINDOW w AS (PARTITION BY player_id, mode ORDER BY outbox_id)) x
        WHERE mu IS NOT NULL AND (mu <> mu_before OR sigma <> sigma_before))sql"},
       {"ratings not where their last change ended, or not one change per game", R"sql(
        SELECT count(*) FROM ratings.player_ratings p
        WHERE p.games <> (SELECT count(*) FROM ratings.rating_history h
                          WHERE h.player_id = p.player_id AND h.mode = p.mode)
           OR NOT EXISTS (SELECT 1 FROM (
                SELECT h.mu_after, h.sigma_after FROM ratings.rating_history h
                WHERE h.player_id = p.player_id AND h.mode = p.mode
                ORDER BY h.outbox_id DESC LIMIT 1) l
              WHERE l.mu_after = p.mu AND l.sigma_after = p.sigma))sql"}});
}

::testing::AssertionResult WaitRated(const std::string& url, int seconds) {
  return WaitFor(
      [&] {
        return Scalar(
                   url,
                   "SELECT count(*) FROM game_results r JOIN games g ON g.id = r.game_id "
                   "WHERE r.consumed_at IS NULL") == "0";
      },
      seconds, "every finished game consumed by the ratings service");
}

::testing::AssertionResult GamesMade(const std::string& url, int n) {
  const std::string made =
      Scalar(url, absl::StrCat("SELECT count(*) FROM games g WHERE ", kAssigned));
  const std::string finished =
      Scalar(url, absl::StrCat("SELECT count(*) FROM games g WHERE ", kAssigned,
                               " AND finished IS NOT NULL"));
  if (made == absl::StrCat(n) && finished == made) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << made << " games made at assigned seats, "
                                       << finished << " finished; not " << n;
}

std::vector<std::string> AssignmentsKept(const std::string& url) {
  const std::string autopilot = "s.bot AND s.player_id LIKE 'autopilot-%'";
  const std::string autopilots = Scalar(
      url,
      absl::StrCat("SELECT count(*) FROM games g JOIN game_seats s ON s.game_id = g.id "
                   "WHERE ",
                   kAssigned, " AND ", autopilot));
  if (autopilots != "0") {
    std::cout
        << "  " << autopilots
        << " seats played by the autopilot (no bot was free when the table was made)"
        << std::endl;
  }
  return NoneOf(
      url,
      {{"matched tickets without their seat in mm_assignments", R"sql(
        SELECT count(*) FROM mm_tickets t WHERE t.status = 'matched'
          AND NOT EXISTS (SELECT 1 FROM mm_assignments a WHERE a.ticket_id = t.ticket_id))sql"},
       {"tickets of the run not matched",
        "SELECT count(*) FROM mm_tickets t WHERE t.status IN ('waiting', 'placing')"},
       {"game seats that are not what matchmaking assigned",
        absl::StrCat(
            "SELECT count(*) FROM games g JOIN game_seats s ON s.game_id = g.id "
            "LEFT JOIN mm_assignments a ON a.table_id = g.id AND a.seat = s.seat "
            "WHERE ",
            kAssigned, " AND CASE WHEN a.seat IS NULL THEN NOT (", autopilot,
            ") ELSE a.player_id IS DISTINCT FROM s.player_id "
            "OR a.bot IS DISTINCT FROM s.bot END")}});
}

int64_t OrphanTables(const std::string& url) {
  return std::stoll(Scalar(
      url, absl::StrCat("SELECT count(*) FROM games g WHERE NOT ", kAssigned, R"sql(
        AND NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id
                        AND (s.player_id LIKE 'flood-%' OR s.player_id LIKE 'load-%')))sql")));
}

std::vector<std::string> HoldsSettled(const std::string& url) {
  return NoneOf(
      url,
      {{"staked seats of finished games whose hold was not settled with the game",
        absl::StrCat("SELECT count(*) FROM games g JOIN game_seats s ON s.game_id = g.id "
                     "WHERE g.finished IS NOT NULL AND s.stake > 0 AND ",
                     kAssigned, R"sql(
          AND NOT EXISTS (SELECT 1 FROM ratings.holds h WHERE h.table_id = g.id
                          AND h.seat = s.seat AND h.player_id = s.player_id
                          AND h.state = 4))sql")},
       {"holds of the run's tickets still open", R"sql(
        SELECT count(*) FROM ratings.holds h JOIN mm_tickets t ON t.hold_id = h.hold_id
        WHERE h.state IN (1, 2))sql"}});
}

::testing::AssertionResult GamesReplay(const std::string& url, const std::string& dir,
                                       int n) {
  std::filesystem::create_directories(dir);
  const std::string cases = dir + "/cases.jsonl", recorded = dir + "/recorded.jsonl",
                    replayed = dir + "/replayed.jsonl";
  if (RunToEnd({.argv = {BuildPath("bin/trix-game-cases"), "--database_url=" + url,
                         "--cases=" + cases, "--expected=" + recorded},
                .output_path = dir + "/game-cases.out"}) != 0) {
    return ::testing::AssertionFailure()
           << "trix-game-cases: " << ReadFile(dir + "/game-cases.out");
  }
  std::ifstream in(cases);
  std::ofstream out(replayed);
  int games = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ++games;
    out << engine::RunCaseLine(line) << "\n";
  }
  out.close();
  if (n >= 0 && games != n)
    return ::testing::AssertionFailure() << games << " finished games, not " << n;
  if (RunToEnd({.argv = {BuildPath("bin/trix-conformance-compare"), recorded, replayed},
                .output_path = dir + "/compare.out"}) != 0) {
    return ::testing::AssertionFailure() << ReadFile(dir + "/compare.out").substr(0, 2000);
  }
  std::cout << "  " << games << " games replayed to their recorded results" << std::endl;
  return ::testing::AssertionSuccess();
}

std::vector<SeatResult> SeatResults(const std::string& dir, const std::string& suffix) {
  std::vector<SeatResult> results;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!absl::EndsWith(entry.path().filename().string(), suffix)) continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object() || !j.contains("actions") || !j.contains("table")) continue;
      results.push_back({j["table"].get<std::string>(), j["seat"].get<int>(),
                         j["actions"].get<int64_t>(),
                         j.value("resubscribes", int64_t{0})});
    }
  }
  return results;
}

std::vector<std::string> AcknowledgedKept(const std::string& url,
                                          const std::vector<SeatResult>& results,
                                          const std::set<std::string>& rewound,
                                          int64_t* lost) {
  std::vector<std::string> wrong;
  for (const SeatResult& r : results) {
    const int64_t logged = std::stoll(
        Scalar(url,
               "SELECT count(*) FROM game_log WHERE game_id = $1 AND seat = $2 AND "
               "request_id <> ''",
               r.table, r.seat));
    if (logged < r.actions && rewound.count(r.table) > 0) {
      std::cout << "  table " << r.table << " seat " << r.seat << ": "
                << r.actions - logged
                << " acknowledged actions lost; the table was rebuilt" << std::endl;
      if (lost != nullptr) *lost += r.actions - logged;
    } else if (logged < r.actions || logged > r.actions + r.resubscribes) {
      wrong.push_back(absl::StrCat("table ", r.table, " seat ", r.seat, ": ", r.actions,
                                   " acknowledged, ", logged, " in the log, ",
                                   r.resubscribes, " breaks"));
    }
  }
  return wrong;
}

}  // namespace trix::fault
