// The players of matchmaking-load, rated like a real population: most are
// established in their mode, some are still provisional, a few are newcomers with
// no rating yet. Their rating rows are written into the ratings service's own
// store (ratings.player_ratings, the rows its GetRatings reads) before the run, so
// that matchmaking reads them through the real ratings service, as in production.
//
// On the ratings service's scale (services/ratings/display.h: display = 1000 +
// 40 (mu - 3 sigma), a newcomer shows 1000): an established player (at least
// kDefaultProvisionalGames games) shows a rating ~ N(1500, 250) with a settled
// sigma; a provisional one (1 to 9 games) has mu ~ N(25, 3) and a wide sigma, so it
// shows about 1000 to 1300; a newcomer has no row (the service's newcomer rating).
//
//   std::unique_ptr<Population> people = MakePopulation("load-17-", options);
//   absl::Status s = WriteRatings(database_url, *people);
//   const Member* next = people->NextSolo();   // nullptr once all have queued
#ifndef TRIX_TESTS_LOAD_RATED_POPULATION_H_
#define TRIX_TESTS_LOAD_RATED_POPULATION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trix/v1/common.pb.h"

namespace trix::load {

struct PopulationOptions {
  int solo_members = 100000;   // queue alone, in a mode of the lobby's mix
  int party_members = 5000;    // queue in parties of two (complex partner)
  double newcomer_share = 0.05;
  double provisional_share = 0.15;  // the rest is established
  double established_mean = 1500;   // displayed rating
  double established_spread = 250;
  uint64_t seed = 42;
};

struct MemberRating {
  double mu = 0;
  double sigma = 0;
  int32_t display = 0;
  int32_t games = 0;
};

struct Member {
  std::string player_id;
  v1::Mode mode;
  std::optional<MemberRating> rating;  // none: a newcomer
};

class Population {
 public:
  // The next member not yet handed out, or nullptr once all were.
  const Member* NextSolo();
  const Member* NextParty();

  std::vector<Member> solo;
  std::vector<Member> party;

 private:
  std::atomic<size_t> next_solo_{0};
  std::atomic<size_t> next_party_{0};
};

std::unique_ptr<Population> MakePopulation(const std::string& id_prefix,
                                           const PopulationOptions& options);

// Writes every rated member's row; INTERNAL with the database's message on error.
absl::Status WriteRatings(const std::string& database_url, const Population& people);

// "established 80.1% (mean 1502, sd 249), provisional 14.9%, newcomers 5.0%".
std::string Describe(const Population& people);

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_RATED_POPULATION_H_
