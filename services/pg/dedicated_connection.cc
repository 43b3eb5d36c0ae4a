#include "services/pg/dedicated_connection.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/pg/connection_pool.h"
#include "services/pg/status.h"

namespace trix::pg {

Dialer::Dialer(std::string url, std::string application_name)
    : url_(std::move(url)), application_name_(std::move(application_name)) {}

std::unique_ptr<pqxx::connection> Dialer::Open() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const absl::Time now = absl::Now();
    if (now < retry_at_) {
      throw pqxx::broken_connection(
          absl::StrCat("the database is unreachable; the next connection attempt is in ",
                       absl::ToInt64Milliseconds(retry_at_ - now), " ms"));
    }
  }
  ++attempts_;
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

DedicatedConnection::DedicatedConnection(std::string url, std::string application_name,
                                         Prepare prepare)
    : dialer_(std::move(url), std::move(application_name)), prepare_(std::move(prepare)) {}

pqxx::connection& DedicatedConnection::Get() {
  if (connection_ == nullptr) {
    std::unique_ptr<pqxx::connection> connection = dialer_.Open();
    if (prepare_) prepare_(*connection);
    connection_ = std::move(connection);
  }
  return *connection_;
}

bool DedicatedConnection::Lost(const absl::Status& failure) const {
  return connection_ == nullptr || IsConnectionLost(failure) || !connection_->is_open();
}

}  // namespace trix::pg
