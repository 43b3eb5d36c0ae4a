// Log entries as game_log's columns: one binary array (pg/array.h) per column,
// so that one statement writes a whole batch of entries.
//
// Both statements that write the log take the six in the same order, last among
// their arguments: kInsertGames (a new game's first entries, game_store_sql.h) and
// log_append (log_writer.cc). Each adds its own column naming the entry's game.
//
//   LogEntryColumns entries;
//   for (const LogEntry& entry : game.entries) entries.Add(entry);
//   const LogEntryColumns::Arrays arrays = entries.Finish();
//   tx.exec_params(sql, ..., pqxx::prepare::make_dynamic_params(arrays));
#ifndef TRIX_SERVICES_TABLE_STORE_LOG_ENTRY_COLUMNS_H_
#define TRIX_SERVICES_TABLE_STORE_LOG_ENTRY_COLUMNS_H_

#include <array>
#include <pqxx/binarystring>

#include "services/pg/array.h"
#include "services/table/records.h"

namespace trix::table {

class LogEntryColumns {
 public:
  // idx int8[], seat int2[], request_id text[], payload bytea[], response bytea[],
  // time timestamptz[].
  using Arrays = std::array<pqxx::binarystring, 6>;

  void Add(const table::LogEntry& entry);
  Arrays Finish() const;

 private:
  pg::PgArray idx_{pg::PgType::kInt8}, seat_{pg::PgType::kInt2},
      request_id_{pg::PgType::kText}, payload_{pg::PgType::kBytea},
      response_{pg::PgType::kBytea}, time_{pg::PgType::kTimestampTz};
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_STORE_LOG_ENTRY_COLUMNS_H_
