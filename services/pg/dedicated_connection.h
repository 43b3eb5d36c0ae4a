// Connections for one user of a database, and the one connection a long-running
// loop keeps to itself.
//
// Dialer opens connections (Connect(), connection_pool.h), but not while the
// backoff of a failed attempt lasts (100 ms, doubling per failure up to 5 s): a
// database that is down is not dialled once per request. The connection pool
// dials through one, and so does each DedicatedConnection.
//
// DedicatedConnection is the connection of the table's log writer, the matcher's
// pool session and the ratings outbox consumer: opened on first use, readied by
// `prepare` (prepared statements, session settings), dropped once lost, and opened
// again by the next use. It belongs to its loop's thread.
//
//   DedicatedConnection connection(url, "mamlaka writer", [](pqxx::connection& c) {
//     c.prepare("append", "SELECT ...");
//   });
//   try {
//     pqxx::work tx(connection.Get());
//     ...
//   } catch (...) {
//     connection.DropIfLost(StatusFromException("appending"));
//   }
#ifndef TRIX_SERVICES_PG_DEDICATED_CONNECTION_H_
#define TRIX_SERVICES_PG_DEDICATED_CONNECTION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <pqxx/connection>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "services/common/backoff.h"

namespace trix::pg {

class Dialer {
 public:
  Dialer(std::string url, std::string application_name);
  Dialer(const Dialer&) = delete;
  Dialer& operator=(const Dialer&) = delete;

  // A new connection, or pqxx::broken_connection at once while the backoff of the
  // last failed attempt lasts. Throws what libpqxx throws. Thread-safe.
  std::unique_ptr<pqxx::connection> Open();

  // Connection attempts made, failed ones included.
  int64_t attempts() const { return attempts_.load(); }

 private:
  const std::string url_;
  const std::string application_name_;
  std::atomic<int64_t> attempts_{0};
  std::mutex mu_;
  absl::Time retry_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  service::Backoff backoff_ ABSL_GUARDED_BY(mu_){absl::Milliseconds(100), absl::Seconds(5)};
};

class DedicatedConnection {
 public:
  using Prepare = std::function<void(pqxx::connection&)>;

  DedicatedConnection(std::string url, std::string application_name,
                      Prepare prepare = nullptr);
  DedicatedConnection(const DedicatedConnection&) = delete;
  DedicatedConnection& operator=(const DedicatedConnection&) = delete;

  // The open connection, opened (Dialer::Open) and readied first when there is
  // none. Throws what opening or `prepare` throws, and keeps no connection then.
  pqxx::connection& Get();

  // Whether, after `failure`, there is no usable connection: none, or one that
  // `failure` says was lost (IsConnectionLost), or one no longer open.
  bool Lost(const absl::Status& failure) const;
  // Drops the connection if Lost(failure); the next Get opens a new one.
  void DropIfLost(const absl::Status& failure) {
    if (Lost(failure)) Drop();
  }
  void Drop() { connection_.reset(); }

  bool connected() const { return connection_ != nullptr; }
  // Connection attempts made, failed ones included (any thread).
  int64_t attempts() const { return dialer_.attempts(); }

 private:
  Dialer dialer_;
  const Prepare prepare_;
  std::unique_ptr<pqxx::connection> connection_;
};

}  // namespace trix::pg

#endif  // TRIX_SERVICES_PG_DEDICATED_CONNECTION_H_
