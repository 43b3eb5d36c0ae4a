#include "services/pg/connection_pool.h"

#include <libpq-fe.h>
#include <sys/socket.h>

#include <algorithm>
#include <map>
#include <thread>
#include <pqxx/except>
#include <pqxx/nontransaction>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/common/logging.h"
#include "services/pg/status.h"

namespace trix::pg {

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
      {"connect_timeout", "3"},
      {"tcp_user_timeout", "5000"},
      {"keepalives_idle", "10"},
      {"keepalives_interval", "3"},
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

namespace {

// The sockets of the calls under a StallLimit, and one thread that shuts down
// those past their deadline. Shut down under the lock that ~StallLimit takes, so
// that no socket is touched once its call is over (its number may be reused).
class StallWatch {
 public:
  static StallWatch& Get() {
    static StallWatch* const watch = new StallWatch;  // never destroyed
    return *watch;
  }

  uint64_t Add(int socket, absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t id = ++next_id_;
    calls_.emplace(id, Call{socket, deadline, limit});
    // The watcher wakes at least every kIdleWake: a call due after its next wake
    // needs no wake-up now (a statement costs no thread switch).
    if (deadline < wakes_at_) changed_.notify_one();
    return id;
  }
  void Remove(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.erase(id);
  }

 private:
  struct Call {
    int socket;
    absl::Time deadline;
    absl::Duration limit;
  };
  static constexpr absl::Duration kIdleWake = absl::Seconds(1);

  StallWatch() { std::thread([this] { Run(); }).detach(); }

  absl::Time Earliest() const {
    absl::Time earliest = absl::InfiniteFuture();
    for (const auto& [id, call] : calls_) earliest = std::min(earliest, call.deadline);
    return earliest;
  }
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wakes_at_ = std::min(Earliest(), absl::Now() + kIdleWake);
      changed_.wait_until(lock, absl::ToChronoTime(wakes_at_));
      const absl::Time now = absl::Now();
      for (auto it = calls_.begin(); it != calls_.end();) {
        if (it->second.deadline > now) {
          ++it;
          continue;
        }
        shutdown(it->second.socket, SHUT_RDWR);
        service::LogWarn("a database call got no answer in time; its connection is cut",
                         {{"limit", absl::FormatDuration(it->second.limit)}});
        it = calls_.erase(it);
      }
    }
  }

  std::mutex mu_;
  std::condition_variable changed_;
  std::map<uint64_t, Call> calls_;
  uint64_t next_id_ = 0;
  absl::Time wakes_at_ = absl::InfinitePast();  // when the watcher wakes next
};

}  // namespace

StallLimit::StallLimit(const pqxx::connection_base& connection, absl::Duration limit) {
  const int socket = connection.sock();
  if (socket >= 0) id_ = StallWatch::Get().Add(socket, limit);
}

StallLimit::~StallLimit() {
  if (id_ != 0) StallWatch::Get().Remove(id_);
}

std::unique_ptr<pqxx::connection> Connect(const std::string& url,
                                          const std::string& application_name) {
  // An unparsable URL is left to libpq, whose exception says what is wrong.
  auto connection = std::make_unique<pqxx::connection>(ConnectionUrl(url).value_or(url));
  // Deprecated because libpqxx 7 dropped reactivation altogether, which is the
  // behaviour we want from 6.4 too.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  connection->inhibit_reactivation(true);
#pragma GCC diagnostic pop
  // The session's setup is bounded like any statement: a server that stops
  // answering between connect and setup would otherwise hold the caller forever
  // (a reconnect after a failover is exactly when that happens).
  const StallLimit limit(*connection, kStallLimit);
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
    : size_(size), dialer_(std::move(url), std::move(application_name)) {}

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

absl::Status ConnectionPool::Run(
    absl::string_view context, absl::FunctionRef<absl::Status(pqxx::connection&)> work) {
  bool must_open = false;
  std::unique_ptr<pqxx::connection> connection = Acquire(&must_open);
  absl::Status status;
  try {
    if (must_open) connection = dialer_.Open();
    const StallLimit limit(*connection, kStallLimit);
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

}  // namespace trix::pg
