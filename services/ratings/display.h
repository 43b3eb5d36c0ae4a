// What people see of a rating, and when it counts as settled.
//
// The displayed rating is OpenSkill's ordinal mu - 3 sigma on a familiar scale:
// display = round(1000 + 40 * (mu - 3 sigma)). A newcomer (mu 25, sigma 25/3) shows
// 1000; a player the model is sure is one beta (25/6) better than a newcomer shows
// about 1167. Because sigma shrinks with every game, a newcomer's display rises at
// first even with average results: that is the conservative estimate catching up.
// A player is provisional in a mode until they have played `provisional_games`
// rated games there (default 10).
#ifndef TRIX_SERVICES_RATINGS_DISPLAY_H_
#define TRIX_SERVICES_RATINGS_DISPLAY_H_

#include <cmath>
#include <cstdint>

#include "services/ratings/openskill.h"

namespace trix::ratings {

inline constexpr double kDisplayBase = 1000;
inline constexpr double kDisplayScale = 40;
inline constexpr int kDefaultProvisionalGames = 10;

inline int32_t DisplayOf(const Skill& s) {
  return static_cast<int32_t>(std::lround(kDisplayBase + kDisplayScale * Ordinal(s)));
}

}  // namespace trix::ratings

#endif  // TRIX_SERVICES_RATINGS_DISPLAY_H_
