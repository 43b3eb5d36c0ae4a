// The leak check of the integration tests: given the table's seed (so the true
// hands of every deal are known, engine::ShuffledHands), it reads everything one
// viewer's stream delivered and reports every card the viewer was shown that it
// may not see — another seat's card that was not yet played, doubled-and-revealed
// or shown as a partner-Trix 2.
//
//   std::vector<std::string> leaks = FindLeaks(client.updates(), seat, seed);
//   EXPECT_TRUE(leaks.empty()) << leaks.front();
#ifndef TRIX_TESTS_INTEGRATION_VISIBILITY_CHECK_H_
#define TRIX_TESTS_INTEGRATION_VISIBILITY_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "trix/v1/table.pb.h"

namespace trix::table {

// `viewer`: the seat, or -1 for a spectator. An empty result means no leak.
std::vector<std::string> FindLeaks(const std::vector<v1::TableUpdate>& updates,
                                   int viewer, uint64_t seed);

}  // namespace trix::table

#endif  // TRIX_TESTS_INTEGRATION_VISIBILITY_CHECK_H_
