// Runs the rule cases of the conformance format (shared/conformance/README.md): a
// deal case plays one contract from given hands; a game case plays a whole game
// and settles its stakes. Both drive the engine exactly as the table service does.
//
//   nlohmann::json result = RunCase(nlohmann::json::parse(line));
//   std::string out = RunCaseLine(line);  // never throws; bad input is an error result
#ifndef TRIX_ENGINE_REPLAY_CASE_RUNNER_H_
#define TRIX_ENGINE_REPLAY_CASE_RUNNER_H_

#include <string>

#include <nlohmann/json.hpp>

namespace trix::engine {

nlohmann::json RunCase(const nlohmann::json& rule_case);
// One input line to one output line (JSON, no trailing newline).
std::string RunCaseLine(const std::string& line);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_REPLAY_CASE_RUNNER_H_
