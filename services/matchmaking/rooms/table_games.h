// How a room's game stands at its table, as the table service says: the lobby's
// way of learning that a table ended (GetTable with matchmaking's table
// credential, which may read tables not open to spectators), with the result.
// An interface so that the room service's tests can end games themselves.
#ifndef TRIX_SERVICES_MATCHMAKING_ROOMS_TABLE_GAMES_H_
#define TRIX_SERVICES_MATCHMAKING_ROOMS_TABLE_GAMES_H_

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "services/matchmaking/lobby.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::matchmaking {

struct GameEnd {
  TableEnd end = TableEnd::kUnknown;
  v1::GameResult result;  // when kOver
};

class TableGames {
 public:
  virtual ~TableGames() = default;
  virtual GameEnd EndOf(const std::string& address, const std::string& table_id) = 0;
};

class GrpcTableGames : public TableGames {
 public:
  GrpcTableGames(std::string table_token, std::shared_ptr<grpc::ChannelCredentials> dial)
      : token_(std::move(table_token)), dial_(std::move(dial)) {}
  GameEnd EndOf(const std::string& address, const std::string& table_id) override;

 private:
  v1::TableService::Stub* Stub(const std::string& address);

  const std::string token_;
  const std::shared_ptr<grpc::ChannelCredentials> dial_;
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<v1::TableService::Stub>> stubs_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_ROOMS_TABLE_GAMES_H_
