#include "tests/integration/failover_check.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "proto/wire/table_location.h"
#include "tests/integration/visibility_check.h"

namespace trix::table {

bool WaitForAcks(const std::vector<std::unique_ptr<SeatClient>>& seats, int count) {
  for (int i = 0; i < 3000; ++i) {
    int n = 0;
    for (const auto& s : seats) n += static_cast<int>(s->acks().size());
    if (n >= count) return true;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return false;
}

std::vector<v1::Event> SeatEvents(v1::TableService::Stub& stub,
                                  const v1::CreateTableResponse& table, int seat) {
  v1::GetGameRecordRequest request;
  request.set_game_id(table.table_id());
  request.set_seat_token(table.seat_tokens(seat));
  v1::GameRecord record;
  grpc::ClientContext context;
  grpc::Status s = stub.GetGameRecord(&context, request, &record);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return {record.events().begin(), record.events().end()};
}

namespace {

void CheckAcks(const SeatClient& client, int seat, const std::vector<v1::Event>& record) {
  for (const SeatClient::Ack& ack : client.acks()) {
    ASSERT_LE(ack.response.seq(), record.size());
    if (!ack.request.has_play_card()) continue;
    bool found = false;
    for (uint64_t k = 0; k < ack.response.seq(); ++k) {
      const v1::Event& e = record[k];
      found |= e.has_card_played() && e.card_played().seat() == seat &&
               e.card_played().card() == ack.request.play_card().card();
    }
    EXPECT_TRUE(found) << "acknowledged " << ack.request.play_card().card();
  }
}

}  // namespace

void CheckNothingLost(v1::TableService::Stub& stub, const v1::CreateTableResponse& table,
                      int seat, const SeatClient& before, const SeatClient& after,
                      uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "seat " << seat);
  const std::vector<v1::Event> record = SeatEvents(stub, table, seat);
  std::vector<v1::Event> streamed = before.events();
  const std::vector<v1::Event> resumed = after.events();
  ASSERT_FALSE(resumed.empty());
  ASSERT_EQ(resumed.front().seq(), before.last_seq() + 1);
  streamed.insert(streamed.end(), resumed.begin(), resumed.end());
  const uint64_t first = streamed.front().seq();
  ASSERT_EQ(first - 1 + streamed.size(), record.size());
  for (size_t i = 0; i < streamed.size(); ++i) {
    ASSERT_EQ(streamed[i].SerializeAsString(), record[first - 1 + i].SerializeAsString())
        << "seq " << first + i;
  }
  EXPECT_TRUE(record.back().has_game_ended());
  CheckAcks(before, seat, record);
  CheckAcks(after, seat, record);
  std::vector<v1::TableUpdate> all = before.updates();
  for (const v1::TableUpdate& u : after.updates()) all.push_back(u);
  EXPECT_TRUE(FindLeaks(all, seat, seed).empty());
}

Followed FollowTable(const std::vector<std::string>& addresses,
                     const v1::CreateTableResponse& table, int seat, uint64_t after_seq,
                     uint64_t seed, bool strict, absl::Duration give_up) {
  Followed out;
  size_t next = seat % addresses.size();
  std::string target = addresses[next];
  for (const absl::Time until = absl::Now() + give_up; absl::Now() < until;) {
    auto client = std::make_unique<SeatClient>(
        grpc::CreateChannel(target, grpc::InsecureChannelCredentials()), table.table_id(),
        table.seat_tokens(seat), seat);
    client->Open(after_seq, seed);
    const grpc::Status early = client->WaitDone(absl::Milliseconds(300));
    if (early.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
        !client->updates().empty()) {
      out.client = std::move(client);  // open (or already through to the end)
      out.address = target;
      return out;
    }
    EXPECT_FALSE(strict) << "seat " << seat << " at " << target << ": "
                         << early.error_code() << " " << early.error_message();
    EXPECT_EQ(early.error_code(), grpc::StatusCode::UNAVAILABLE) << early.error_message();
    std::optional<v1::TableLocation> where = wire::LocationFromStatus(early);
    if (where && !where->address().empty() && where->address() != target) {
      ++out.hops;
      target = where->address();
    } else {
      next = (next + 1) % addresses.size();
      target = addresses[next];
      absl::SleepFor(absl::Milliseconds(100));
    }
  }
  ADD_FAILURE() << "seat " << seat << " could not reach its table";
  return out;
}

}  // namespace trix::table
