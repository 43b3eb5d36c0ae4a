// The group-commit writer behind GameStore::Append: one thread, one connection,
// every append waiting at the moment written in one transaction.
//
// Why: a commit waits for the server's WAL flush, and a thousand tables each
// flushing alone would spend their time waiting on the disk. Here, while one batch
// commits, the next one queues; the writer then takes up to max_batch requests
// and writes them together, so the flush is shared and the batch grows with load.
//
// One statement per batch: a call of the PL/pgSQL function log_append
// (migrations/0006_log_append_function.sql) outside any explicit transaction, so
// a batch costs one round trip and its own implicit transaction. It
//   1. locks the batch's games (FOR NO KEY UPDATE, in id order, so two writers or a
//      lease renewal never deadlock) and reads each one's lease, end and log length;
//   2. checks each request in queue order: the game exists, this instance holds its
//      unexpired lease, it has not ended, and the entries continue its log exactly
//      (the writer itself checks beforehand what needs no database: consecutive
//      indexes, seats); a request that fails a check is answered with that error
//      and skipped, and nothing of it is written;
//   3. inserts every entry of the accepted requests, sets each game's deadline and
//      log length, and for games that ended sets result, seat totals and places
//      and inserts the outbox row;
//   4. commits (the statement's end), and the writer answers every request.
// A batch of one request that does not end its game, nearly every batch at the
// pace people play, is instead one prepared statement doing the same (the UPDATE
// of its game checks lease, end and index; the INSERT of its entries follows); if
// it is refused, log_append is called as above to say why.
// If the batch fails anyway (a constraint the checks do not cover, bad JSON), each
// request is retried in its own transaction, in order, so only the bad one fails.
// If the connection broke, the writer reconnects and retries the batch once; if the
// break came after the call was sent, it first looks which requests landed. Requests for
// one game are written in the order they were queued: the queue is FIFO and
// batches and retries keep its order.
//
// Bounds: at most max_queued appends wait; one more is answered UNAVAILABLE at
// once ("retry shortly"). While the database is unreachable the writer does not
// reconnect for every batch: after a failed attempt it waits 100 ms, doubling up
// to 5 s, and answers the batches in between UNAVAILABLE without trying.
#ifndef TRIX_SERVICES_TABLE_STORE_LOG_WRITER_H_
#define TRIX_SERVICES_TABLE_STORE_LOG_WRITER_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <pqxx/connection>
#include <pqxx/result>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "services/pg/dedicated_connection.h"
#include "services/table/store/game_store.h"

namespace trix::table {

class LogWriter {
 public:
  LogWriter(std::string url, std::string instance_id, int max_batch,
            int max_queued = 50000);
  // Writes everything queued, then stops the thread.
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  void Append(table::AppendRequest request, std::function<void(absl::Status)> done);
  AppendStats stats() const;
  // True when appends wait for the next batch: then a caller answering on the
  // writer's thread should hand its work to another thread.
  bool busy() const;

 private:
  struct Pending {
    table::AppendRequest request;
    std::function<void(absl::Status)> done;
    absl::Status status;
  };
  // What one transaction attempt did.
  struct Attempt {
    absl::Status status;             // of the transaction as a whole
    bool in_doubt = false;           // the connection broke after the call was sent
    std::vector<Pending*> accepted;  // the requests it sent (then: wrote)
  };

  void Run();
  void Write(std::vector<Pending>& batch);
  // Writes `group` with the retries described above; sets each request's status
  // and returns the transaction's.
  absl::Status WriteGroup(const std::vector<Pending*>& group);
  // One call of log_append for `group`'s well-formed requests.
  Attempt WriteOnce(const std::vector<Pending*>& group);
  // Sets each sent request's status from log_append's rows and keeps in
  // attempt.accepted only the ones written; throws when the rows do not match.
  void Answer(const pqxx::result& rows, Attempt& attempt);
  // After an in-doubt call: marks OK the attempt's requests whose entries reached
  // the database and returns the others.
  std::vector<Pending*> Landed(const Attempt& attempt);

  const std::string instance_id_;
  const int max_batch_;
  const int max_queued_;
  // With the three statements prepared; the writer thread's only (its backoff
  // after a failed connection attempt: 100 ms doubling to 5 s).
  pg::DedicatedConnection connection_;

  mutable std::mutex mu_;
  std::condition_variable queued_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  AppendStats stats_;

  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_STORE_LOG_WRITER_H_
