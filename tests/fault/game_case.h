// A finished game as the database holds it, turned into a rule case of the
// conformance format (tests/conformance/README.md), so that trix-replay's engine
// replays the game's stored log on its own; and the result the table service
// recorded for it (its game_results row), as the expected line that
// trix-conformance-compare checks trix-replay's answer against.
//
// The case is read from the log, not from the service's account of it: each deal's
// hands from its DEAL action (not from the seed), the contract its owner chose (the
// last of a kingdom is chosen by the engine and not logged: it is the one left),
// each seat's last doubling selection, and every card played, in log order.
//
//   absl::StatusOr<nlohmann::json> c = GameCase(stored_game);
//   absl::StatusOr<nlohmann::json> want = RecordedResult(game_id, outbox_payload);
#ifndef TRIX_TESTS_FAULT_GAME_CASE_H_
#define TRIX_TESTS_FAULT_GAME_CASE_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "services/table/store/game_store.h"

namespace trix::fault {

// DATA_LOSS when the config or a log entry is not the table service's format.
absl::StatusOr<nlohmann::json> GameCase(const table::StoredGame& game);

// The expected result line: totals, then places (solo) or team totals and the
// winner (partner; null on a draw), and the whole units paid (payouts_paid).
// DATA_LOSS when the payload is not the table service's outbox record of
// `game_id`, or when its per-seat lines disagree with its result.
absl::StatusOr<nlohmann::json> RecordedResult(const std::string& game_id,
                                              const std::string& outbox_payload);

}  // namespace trix::fault

#endif  // TRIX_TESTS_FAULT_GAME_CASE_H_
