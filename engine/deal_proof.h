// Deals anyone can verify. Before a game's first card is seen the table shows a
// commitment to its deal seed; when the game ends it reveals the seed and the
// salt, and anyone can recompute every deal's hands (engine::ShuffledHands) and
// check them against the game's record (trix-replay --verify-deals).
//
// Procedure "trix-deals-v1" (docs/deals.md says it in words):
//   commitment = lowercase hex of SHA-256("trix-deals-v1" || salt || seed as 8
//                bytes, big-endian), salt 32 random bytes;
//   deal i     = ShuffledHands(seed, i), i = 0, 1, ... in the order dealt.
//
//   const std::string c = DealCommitment(seed, salt);
//   absl::Status s = CheckDealCommitment(kDealProcedure, c, seed, salt);
#ifndef TRIX_ENGINE_DEAL_PROOF_H_
#define TRIX_ENGINE_DEAL_PROOF_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace trix::engine {

inline constexpr char kDealProcedure[] = "trix-deals-v1";
inline constexpr int kDealSaltBytes = 32;

// The commitment of procedure kDealProcedure.
std::string DealCommitment(uint64_t seed, absl::string_view salt);

// OK when `commitment` is what `procedure` commits to for this seed and salt;
// INVALID_ARGUMENT for an unknown procedure or a salt of the wrong size,
// FAILED_PRECONDITION when the commitment does not match.
absl::Status CheckDealCommitment(absl::string_view procedure, absl::string_view commitment,
                                 uint64_t seed, absl::string_view salt);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_DEAL_PROOF_H_
