// How a table's game stands, as its table service says (GetTable): what the
// lobby asks before it seats a player again or finishes a staked seat, and how
// a room learns its game's end and result.
// GrpcTableStates in production (grpc_table_states.h: a stub per table
// instance), a fake in the lobby's tests.
//
//   if (tables->EndOf(address, table_id) == TableEnd::kOver) ...
#ifndef TRIX_SERVICES_MATCHMAKING_CLIENTS_TABLE_STATES_H_
#define TRIX_SERVICES_MATCHMAKING_CLIENTS_TABLE_STATES_H_

#include <string>

#include "trix/v1/table.pb.h"

namespace trix::matchmaking {

// How a table's game stands.
enum class TableEnd {
  kLive,
  kOver,     // finished with a result
  kVoided,   // ended by VoidTable: no result
  kGone,     // NOT_FOUND: no such table (anymore)
  kUnknown,  // no answer
};

// A table's game: how it stands, and its result once it is over.
struct TableGame {
  TableEnd end = TableEnd::kUnknown;
  v1::GameResult result;  // when kOver
};

class TableStates {
 public:
  virtual ~TableStates() = default;
  virtual TableGame GameAt(const std::string& address, const std::string& table_id) = 0;
  TableEnd EndOf(const std::string& address, const std::string& table_id) {
    return GameAt(address, table_id).end;
  }
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_CLIENTS_TABLE_STATES_H_
