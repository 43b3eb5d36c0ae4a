// A finished game as the table service's outbox announces it (game_results.payload:
// a trix.v1.internal.FinishedGame, proto/trix/v1/outbox.proto, written when the
// table ends), read into values and checked, and the OpenSkill game it is rated
// as. A voided table's row (voided, a reason and no result) reads as a game with
// `voided` set: it is neither rated nor settled. A game created unrated
// (CreateTableRequest.unrated) reads with `unrated` set: it is settled as any
// other and rated for nobody.
//
// Solo modes are a four-player free-for-all ranked by place (tied totals share a
// place, so a tie is a tie); partner modes are two teams of two (seats 0+2 against
// 1+3) ranked by their places (a 0-0 draw puts both teams first: a tie). A seat
// whose player left early and was played by the autopilot is rated as the seat
// finished: the player's result is their seat's.
//
//   absl::StatusOr<FinishedGame> game = ParseFinishedGame(outbox_id, payload_json);
//   RatedGame g = RatedGameOf(*game);   // g.teams[t] = seat numbers, g.ranks[t]
#ifndef TRIX_SERVICES_RATINGS_GAME_RESULT_H_
#define TRIX_SERVICES_RATINGS_GAME_RESULT_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "engine/rules.h"

namespace trix::ratings {

inline constexpr int kSeats = 4;

// The four ladders, in the order of the API's modes (GetPlayerRatings answers in
// this order): classic-solo, classic-partner, complex-solo, complex-partner.
extern const std::array<const char*, 4> kModeNames;
bool IsPartnerMode(absl::string_view mode);
bool IsKnownMode(absl::string_view mode);

struct FinishedSeat {
  int seat = 0;
  std::string player_id;
  bool bot = false;
  int64_t stake = 0;
  int64_t total = 0;
  int place = 0;
  int64_t payout = 0;
};

struct FinishedGame {
  int64_t outbox_id = 0;
  std::string game_id;
  std::string mode;
  absl::Time finished;
  std::array<FinishedSeat, kSeats> seats;
  // Set when the payouts cannot be paid as given: a payout that is not a whole
  // number, negative, or that does not sum to the pot. The game is still rated.
  std::string money_problem;
  bool voided = false;
  std::string void_reason;
  bool unrated = false;  // created unrated: nobody's rating moves

  bool staked() const;
  // Whether the game moves its players' ratings: finished, and not unrated.
  bool rates() const;
  int64_t pot() const;
};

// INVALID_ARGUMENT for a payload that is not a finished game of a known mode with
// four seats 0..3 each with a player id and a place 1..4, nor a voided table of a
// known mode.
absl::StatusOr<FinishedGame> ParseFinishedGame(int64_t outbox_id, absl::string_view payload);

struct RatedGame {
  std::vector<std::vector<int>> teams;  // seats per team
  std::vector<double> ranks;            // one per team, lower is better
};
RatedGame RatedGameOf(const FinishedGame& game);

// The engine's variant of a known mode name ("complex-partner").
engine::Variant VariantOf(absl::string_view mode);

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_GAME_RESULT_H_
