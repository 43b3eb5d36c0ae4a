// Checks a game's deals against its record: the revealed seed and salt against
// the commitment shown before the first deal (engine/deal_proof.h), then every
// card the record shows in a seat's hand (its own hand, doubled cards, shown
// twos, every card played) against the hands that seed deals. The record is a
// trix.v1.GameRecord in protobuf's JSON mapping, as GetGameRecord's answer prints
// (lowerCamelCase or the proto's own field names).
//
//   absl::StatusOr<DealCheck> c = CheckDeals(nlohmann::json::parse(text));
#ifndef TRIX_ENGINE_REPLAY_DEAL_CHECK_H_
#define TRIX_ENGINE_REPLAY_DEAL_CHECK_H_

#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace trix::engine {

struct DealCheck {
  std::string game_id;
  int deals = 0;  // deals the record shows
  int cards = 0;  // cards checked against the hands their seed deals
};

// FAILED_PRECONDITION when a card or the commitment does not match, or the
// seed is not revealed yet; INVALID_ARGUMENT for a record this cannot read.
absl::StatusOr<DealCheck> CheckDeals(const nlohmann::json& record);

// One record (JSON text) to one result line: {"game_id", "verified", "deals",
// "cards"} or {"game_id", "verified": false, "error"}.
nlohmann::json CheckDealsLine(const std::string& text);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_REPLAY_DEAL_CHECK_H_
