// Deals anyone can verify. Before a game's first card is seen the table shows a
// commitment to its deal seed; when the game ends it reveals the seed and the
// salt, and anyone can recompute every deal's hands (engine::ShuffledHands) and
// check them against the game's record (trix-replay --verify-deals).
//
// Procedure "trix-deals-v1" (docs/deals.md says it in words):
//   commitment = lowercase hex of SHA-256("trix-deals-v1" || salt || seed as 8
//                bytes, big-endian), salt 32 random bytes;
//   deal i     = ShuffledHands(seed, i), i = 0, 1, ... in the order dealt.
// Procedure "trix-deals-v2", a table whose seats contribute seeds before the
// first deal: the commitment is v1's with the name "trix-deals-v2", and deal i is
// ShuffledHands(SeatSeededDealSeed(seed, salt, seat_seeds), i), so that neither
// the server nor any one seat chooses the deals.
//
//   const std::string c = DealCommitment(seed, salt);
//   absl::Status s = CheckDealCommitment(kDealProcedure, c, seed, salt);
//   absl::StatusOr<uint64_t> d = DealSeed(procedure, seed, salt, seat_seeds);
#ifndef TRIX_ENGINE_DEAL_PROOF_H_
#define TRIX_ENGINE_DEAL_PROOF_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trix::engine {

inline constexpr char kDealProcedure[] = "trix-deals-v1";
inline constexpr char kSeatSeededDealProcedure[] = "trix-deals-v2";
inline constexpr int kDealSaltBytes = 32;
inline constexpr int kSeatSeedBytes = 32;

// Each seat's contribution, seat 0..3: kSeatSeedBytes bytes, or empty for a seat
// that contributed none (autopilot, left, or out of time).
using SeatSeeds = std::array<std::string, 4>;

// The commitment `procedure` (either of the two above) makes to seed and salt.
std::string DealCommitment(uint64_t seed, absl::string_view salt,
                           absl::string_view procedure = kDealProcedure);

// OK when `commitment` is what `procedure` commits to for this seed and salt;
// INVALID_ARGUMENT for an unknown procedure or a salt of the wrong size,
// FAILED_PRECONDITION when the commitment does not match.
absl::Status CheckDealCommitment(absl::string_view procedure, absl::string_view commitment,
                                 uint64_t seed, absl::string_view salt);

// trix-deals-v2's deal seed: the first 8 bytes, big-endian, of SHA-256(
// "trix-deals-v2 deal" || salt || seed as 8 bytes big-endian || for each seat
// 0..3 one byte, its contribution's length (0 or 32), then the contribution).
uint64_t SeatSeededDealSeed(uint64_t seed, absl::string_view salt,
                            const SeatSeeds& seat_seeds);

// The seed the deals of `procedure` come from. INVALID_ARGUMENT for an unknown
// procedure, or a contribution that is neither empty nor kSeatSeedBytes long.
absl::StatusOr<uint64_t> DealSeed(absl::string_view procedure, uint64_t seed,
                                  absl::string_view salt, const SeatSeeds& seat_seeds);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_DEAL_PROOF_H_
