// The arena's report of a match, as text for people and as JSON for scripts: per
// strategy the mean points per seat and per game with 95% confidence intervals,
// A's margin over B, the same per contract and for the contract-choice (owned
// deals) and doubling figures, and decision times p50/p95/p99 per kind of decision.
//
//   std::cout << ReportText(*report);
//   std::cout << ReportJson(*report).dump(2);
#ifndef TRIX_BOTS_ARENA_ARENA_REPORT_H_
#define TRIX_BOTS_ARENA_ARENA_REPORT_H_

#include <string>
#include <vector>

#include "bots/arena/arena.h"
#include "nlohmann/json.hpp"

namespace trix::arena {

// The figures worth reporting in the match's mode: points, owned deals, doubling,
// then the contracts its format plays.
std::vector<Figure> ReportedFigures(const MatchReport& report);

std::string ReportText(const MatchReport& report);
nlohmann::json ReportJson(const MatchReport& report);

// Writes a report's JSON, indented, to the file at `path` (trix-arena's and
// trix-service-match's --json); false, after saying so on stderr as `program`,
// when it cannot be written.
bool WriteReportJson(const nlohmann::json& json, const std::string& path,
                     const std::string& program);

}  // namespace trix::arena

#endif  // TRIX_BOTS_ARENA_ARENA_REPORT_H_
