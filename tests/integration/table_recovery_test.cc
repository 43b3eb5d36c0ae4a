// Recovery: a table survives its instance. Graceful: the instance drains and
// releases its leases, another takes the tables at once. Abrupt: the real
// table-service binary is killed with SIGKILL mid-game and started again with the
// same instance id and database; clients reconnect with after_seq and finish, and
// nothing that was acknowledged or streamed is lost.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/seat_client.h"
#include "tests/integration/service_fixture.h"
#include "tests/integration/visibility_check.h"

namespace trix::table {
namespace {

// A port nobody listens on right now.
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// build/bin/table-service as a child process, its output in a file.
class ChildService {
 public:
  ChildService(const std::vector<std::string>& args, const std::string& log) : log_(log) {
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::vector<char*> argv;
      std::string binary = TABLE_SERVICE_BINARY;
      argv.push_back(binary.data());
      std::vector<std::string> copy = args;
      for (std::string& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
  }
  ~ChildService() { Kill(); }
  void Kill() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  pid_t pid_ = -1;
  std::string log_;
};

bool WaitServing(const std::shared_ptr<grpc::Channel>& channel, absl::Duration timeout) {
  const absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    if (HealthStatus(channel, "trix.v1.TableService") == 1) return true;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return false;
}

class RecoveryTest : public TableServiceTest {
 protected:
  // Opens a playing client for each seat, retrying while the table is not yet
  // hosted (UNAVAILABLE: its lease has not lapsed and been claimed yet).
  std::unique_ptr<SeatClient> Reconnect(const std::shared_ptr<grpc::Channel>& channel,
                                        const v1::CreateTableResponse& table, int seat,
                                        uint64_t after_seq, uint64_t seed) {
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (absl::Now() < give_up) {
      auto client = std::make_unique<SeatClient>(channel, table.table_id(),
                                                 table.seat_tokens(seat), seat);
      client->Open(after_seq, seed);
      grpc::Status early = client->WaitDone(absl::Milliseconds(200));
      if (early.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
          !client->updates().empty()) {
        return client;  // open (or already through to the end)
      }
      EXPECT_EQ(early.error_code(), grpc::StatusCode::UNAVAILABLE)
          << early.error_message();
      absl::SleepFor(absl::Milliseconds(100));
    }
    ADD_FAILURE() << "seat " << seat << " could not reconnect";
    return nullptr;
  }

  std::vector<v1::Event> Record(v1::TableService::Stub& stub,
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

  // Everything seat `s` saw before and after, and every acknowledged action, is in
  // the record; the two streams together are exactly the record.
  void CheckNothingLost(v1::TableService::Stub& stub,
                        const v1::CreateTableResponse& table, int seat,
                        const SeatClient& before, const SeatClient& after,
                        uint64_t seed) {
    SCOPED_TRACE(testing::Message() << "seat " << seat);
    const std::vector<v1::Event> record = Record(stub, table, seat);
    std::vector<v1::Event> streamed = before.events();
    const std::vector<v1::Event> resumed = after.events();
    ASSERT_FALSE(resumed.empty());
    ASSERT_EQ(resumed.front().seq(), before.last_seq() + 1);
    streamed.insert(streamed.end(), resumed.begin(), resumed.end());
    const uint64_t first = streamed.front().seq();
    ASSERT_EQ(first - 1 + streamed.size(), record.size());
    for (size_t i = 0; i < streamed.size(); ++i) {
      ASSERT_EQ(streamed[i].SerializeAsString(),
                record[first - 1 + i].SerializeAsString())
          << "seq " << first + i;
    }
    EXPECT_TRUE(record.back().has_game_ended());
    for (const SeatClient* client : {&before, &after}) {
      for (const SeatClient::Ack& ack : client->acks()) {
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
    std::vector<v1::TableUpdate> all = before.updates();
    for (const v1::TableUpdate& u : after.updates()) all.push_back(u);
    EXPECT_TRUE(FindLeaks(all, seat, seed).empty());
  }
};

// Waits until the seats together have `count` acknowledged actions.
bool WaitForAcks(const std::vector<std::unique_ptr<SeatClient>>& seats, int count) {
  for (int i = 0; i < 3000; ++i) {
    int n = 0;
    for (const auto& s : seats) n += static_cast<int>(s->acks().size());
    if (n >= count) return true;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return false;
}

TEST_F(RecoveryTest, AnotherInstanceTakesOverAfterAGracefulShutdown) {
  const uint64_t seed = 81;
  v1::CreateTableResponse table = CreateTable(
      MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), seed, 0, /*kingdoms=*/2);
  std::vector<std::unique_ptr<SeatClient>> before;
  for (int s = 0; s < 4; ++s) {
    before.push_back(std::make_unique<SeatClient>(NewChannel(), table.table_id(),
                                                  table.seat_tokens(s), s));
    before.back()->Open(0, seed + s);
  }
  ASSERT_TRUE(WaitForAcks(before, 30));
  StartService(DefaultServiceOptions("it-2"));  // drains it-1, which releases its lease
  for (auto& client : before) {
    EXPECT_EQ(client->WaitDone(absl::Seconds(10)).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }
  std::vector<std::unique_ptr<SeatClient>> after;
  for (int s = 0; s < 4; ++s) {
    after.push_back(
        Reconnect(NewChannel(), table, s, before[s]->last_seq(), seed + 10 + s));
    ASSERT_NE(after.back(), nullptr);
  }
  for (auto& client : after) ASSERT_TRUE(client->WaitDone(absl::Seconds(60)).ok());
  for (int s = 0; s < 4; ++s) {
    CheckNothingLost(*stub_, table, s, *before[s], *after[s], seed);
  }
}

TEST_F(RecoveryTest, KillNineMidGameLosesNothingAcknowledged) {
  StopService();  // this test runs the real binary instead
  const int port = FreePort();
  const std::string address = absl::StrCat("127.0.0.1:", port);
  const std::string log =
      absl::StrCat(::testing::TempDir(), "table-service-", port, ".log");
  const std::vector<std::string> args = {absl::StrCat("--listen=", address),
                                         "--database_url=" + db_->url(),
                                         "--instance_id=kill-nine",
                                         absl::StrCat("--service_token=", kServiceToken),
                                         "--migrations_dir=" MIGRATIONS_DIR,
                                         "--lease_ttl=1s",
                                         "--metrics_port=-1",
                                         "--log_level=warn",
                                         "--seat_rate=1000",
                                         "--seat_burst=1000"};
  auto first = std::make_unique<ChildService>(args, log);
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  ASSERT_TRUE(WaitServing(channel, absl::Seconds(30))) << first->Log();
  auto stub = v1::TableService::NewStub(channel);

  const uint64_t seed = 82;
  v1::CreateTableRequest create = CreateRequest(
      MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX), seed, 0, /*kingdoms=*/2);
  v1::CreateTableResponse table;
  {
    grpc::ClientContext context;
    context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
    ASSERT_TRUE(stub->CreateTable(&context, create, &table).ok()) << first->Log();
  }
  std::vector<std::unique_ptr<SeatClient>> before;
  for (int s = 0; s < 4; ++s) {
    before.push_back(std::make_unique<SeatClient>(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
        table.table_id(), table.seat_tokens(s), s));
    before.back()->Open(0, seed + s);
  }
  ASSERT_TRUE(WaitForAcks(before, 40));
  first->Kill();  // SIGKILL: no drain, no lease release, appends in flight cut off
  for (auto& client : before) {
    EXPECT_EQ(client->WaitDone(absl::Seconds(10)).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }

  auto second = std::make_unique<ChildService>(args, log);
  ASSERT_TRUE(WaitServing(channel, absl::Seconds(30))) << second->Log();
  std::vector<std::unique_ptr<SeatClient>> after;
  for (int s = 0; s < 4; ++s) {
    after.push_back(
        Reconnect(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()), table,
                  s, before[s]->last_seq(), seed + 10 + s));
    ASSERT_NE(after.back(), nullptr) << second->Log();
  }
  for (auto& client : after) {
    grpc::Status end = client->WaitDone(absl::Seconds(60));
    ASSERT_TRUE(end.ok()) << end.error_message() << "\n" << second->Log();
  }
  for (int s = 0; s < 4; ++s) {
    CheckNothingLost(*stub, table, s, *before[s], *after[s], seed);
  }
  second->Kill();
}

}  // namespace
}  // namespace trix::table
