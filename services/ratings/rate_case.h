// One line of trix-rate: a rating case as JSON in, its result as JSON out, for
// checking this implementation against other OpenSkill implementations.
//
//   in:  {"id": "g1", "teams": [[{"mu": 25, "sigma": 8.33}], [{}]], "ranks": [1, 2],
//         "options": {"tau": 0, "limit_sigma": false, "mu": 25, "sigma": 8.33,
//                     "beta": 4.16, "kappa": 0.0001, "balance": false}}
//   out: {"id":"g1","teams":[[{"mu":27.63...,"sigma":8.06...}],[...]]}
//
// "scores" (higher is better) may replace "ranks"; a player without mu or sigma has
// the options' (or OpenSkill's default) mu and sigma. Numbers are printed with 17
// significant digits, so a double round-trips exactly. A line that cannot be rated
// gives {"id": <its id or null>, "error": "<why>"}.
#ifndef TRIX_SERVICES_RATINGS_RATE_CASE_H_
#define TRIX_SERVICES_RATINGS_RATE_CASE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace trix::ratings {

// The output line (without a newline) for one input line. Never throws.
std::string RateCaseLine(absl::string_view line);

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_RATE_CASE_H_
