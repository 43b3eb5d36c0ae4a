// The checks of the failover tests: a seat's streams before and after its table
// moved (or its instance restarted) together are exactly the game's record, every
// acknowledged action is in it, and nothing leaked; and helpers to wait for
// progress and to follow a table to wherever it lives now.
//
//   ASSERT_TRUE(WaitForAcks(seats, 30));
//   ... the instance dies ...
//   Followed after = FollowTable(addresses, table, seat, before->last_seq(), seed);
//   CheckNothingLost(*stub, table, seat, *before, *after.client, seed);
#ifndef TRIX_TESTS_INTEGRATION_FAILOVER_CHECK_H_
#define TRIX_TESTS_INTEGRATION_FAILOVER_CHECK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "tests/integration/seat_client.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::table {

// Waits until the seats together have `count` acknowledged actions.
bool WaitForAcks(const std::vector<std::unique_ptr<SeatClient>>& seats, int count);

// The seat's record as its token sees it.
std::vector<v1::Event> SeatEvents(v1::TableService::Stub& stub,
                                  const v1::CreateTableResponse& table, int seat);

// Everything seat `seat` saw before and after, and every acknowledged action, is in
// the record; the two streams together are exactly the record.
void CheckNothingLost(v1::TableService::Stub& stub, const v1::CreateTableResponse& table,
                      int seat, const SeatClient& before, const SeatClient& after,
                      uint64_t seed);

struct Followed {
  std::unique_ptr<SeatClient> client;  // null when it never got through
  std::string address;                 // where its stream is open
  int hops = 0;                        // refusals that named another instance
};

// Opens the seat's stream (resuming after `after_seq`, playing with `seed`) where
// the table lives: starts at addresses[seat % size], follows the location in a
// refusal's details, and tries the next address when one does not answer. With
// `strict`, the first attempt must succeed.
Followed FollowTable(const std::vector<std::string>& addresses,
                     const v1::CreateTableResponse& table, int seat, uint64_t after_seq,
                     uint64_t seed, bool strict = false,
                     absl::Duration give_up = absl::Seconds(30));

}  // namespace trix::table

#endif  // TRIX_TESTS_INTEGRATION_FAILOVER_CHECK_H_
