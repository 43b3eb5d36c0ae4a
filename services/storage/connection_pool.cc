#include "services/storage/connection_pool.h"

#include <libpq-fe.h>

#include <algorithm>
#include <pqxx/except>
#include <pqxx/nontransaction>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/storage/pg_status.h"

namespace trix::storage {

absl::StatusOr<std::string> ConnectionUrl(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    std::string message = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return absl::InvalidArgumentError(absl::StrCat("bad database url: ", message));
  }
  // Only options spelled out in the URL have values here: no environment, no
  // built-in defaults.
  absl::flat_hash_set<std::string> given;
  for (const PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val != nullptr) given.insert(option->keyword);
  }
  PQconninfoFree(options);

  constexpr std::pair<const char*, const char*> kDefaults[] = {
      {"connect_timeout", "5"},
      {"keepalives_idle", "30"},
      {"keepalives_interval", "10"},
      {"keepalives_count", "3"},
  };
  const bool uri =
      absl::StartsWith(url, "postgresql://") || absl::StartsWith(url, "postgres://");
  std::string out = url;
  bool has_query = uri && url.find('?') != std::string::npos;
  for (const auto& [key, value] : kDefaults) {
    if (given.contains(key)) continue;
    if (uri) {
      absl::StrAppend(&out, has_query ? "&" : "?", key, "=", value);
      has_query = true;
    } else {
      absl::StrAppend(&out, " ", key, "=", value);
    }
  }
  return out;
}

std::unique_ptr<pqxx::connection> Connect(const std::string& url,
                                          const std::string& application_name) {
  auto connection = std::make_unique<pqxx::connection>(url);
  // Deprecated because libpqxx 7 dropped reactivation altogether, which is the
  // behaviour we want from 6.4 too.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  connection->inhibit_reactivation(true);
#pragma GCC diagnostic pop
  pqxx::nontransaction tx(*connection);
  tx.exec_params("SELECT set_config('application_name', $1, false)", application_name);
  // Bounded transactions: a process frozen mid-transaction (SIGSTOP, a VM pause)
  // loses its session, and with it its row locks, well within a lease, so another
  // instance can claim its tables; no statement waits on a lock for long.
  tx.exec(
      "SELECT set_config('idle_in_transaction_session_timeout', '2s', false), "
      "set_config('lock_timeout', '2s', false), "
      "set_config('statement_timeout', '30s', false)");
  return connection;
}

ConnectionPool::ConnectionPool(std::string url, int size, std::string application_name)
    : url_(std::move(url)), size_(size), application_name_(std::move(application_name)) {}

std::unique_ptr<pqxx::connection> ConnectionPool::Acquire(bool* must_open) {
  std::unique_lock<std::mutex> lock(mu_);
  released_.wait(lock, [&] { return !idle_.empty() || open_ < size_; });
  if (!idle_.empty()) {
    std::unique_ptr<pqxx::connection> connection = std::move(idle_.back());
    idle_.pop_back();
    *must_open = false;
    return connection;
  }
  ++open_;  // reserve the slot; the caller opens the connection outside the lock
  *must_open = true;
  return nullptr;
}

void ConnectionPool::Release(std::unique_ptr<pqxx::connection> connection) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (connection != nullptr && connection->is_open()) {
      idle_.push_back(std::move(connection));
    } else {
      --open_;
    }
  }
  released_.notify_one();
  // A dropped connection closes here, outside the lock.
}

std::unique_ptr<pqxx::connection> ConnectionPool::Open() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const absl::Time now = absl::Now();
    if (now < retry_at_) {
      throw pqxx::broken_connection(
          absl::StrCat("the database is unreachable; the next connection attempt is in ",
                       absl::ToInt64Milliseconds(retry_at_ - now), " ms"));
    }
  }
  try {
    std::unique_ptr<pqxx::connection> connection = Connect(url_, application_name_);
    std::lock_guard<std::mutex> lock(mu_);
    backoff_.Reset();
    return connection;
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    retry_at_ = absl::Now() + backoff_.Failed();
    throw;
  }
}

absl::Status ConnectionPool::Run(
    absl::string_view context, absl::FunctionRef<absl::Status(pqxx::connection&)> work) {
  bool must_open = false;
  std::unique_ptr<pqxx::connection> connection = Acquire(&must_open);
  absl::Status status;
  try {
    if (must_open) connection = Open();
    status = work(*connection);
  } catch (...) {
    status = StatusFromException(context);
    // A server error can leave the socket fine (a constraint violation) or dead
    // (pg_terminate_backend reports 57P01 before closing): keep only the former.
    if (IsConnectionLost(status)) connection.reset();
  }
  Release(std::move(connection));
  return status;
}

int ConnectionPool::open_connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

}  // namespace trix::storage
