#include "tests/load/void_tables.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_format.h"
#include "grpcpp/grpcpp.h"
#include "proto/wire/table_location.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::load {
namespace {

// A refusal may name the table's instance; followed this many times at most.
constexpr int kMaxHops = 3;

class Stubs {
 public:
  explicit Stubs(std::shared_ptr<grpc::ChannelCredentials> credentials)
      : credentials_(std::move(credentials)) {}
  v1::TableService::Stub* At(const std::string& address) {
    std::unique_ptr<v1::TableService::Stub>& stub = stubs_[address];
    if (!stub)
      stub = v1::TableService::NewStub(grpc::CreateChannel(address, credentials_));
    return stub.get();
  }

 private:
  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  std::map<std::string, std::unique_ptr<v1::TableService::Stub>> stubs_;
};

grpc::Status VoidOne(Stubs& stubs, std::string address, const v1::VoidTableRequest& request,
                     const std::string& service_token, v1::VoidTableResponse* response) {
  grpc::Status status;
  for (int hop = 0; hop < kMaxHops; ++hop) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + service_token);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    status = stubs.At(address)->VoidTable(&context, request, response);
    std::optional<v1::TableLocation> where = wire::LocationFromStatus(status);
    if (status.ok() || !where || where->address().empty() || where->address() == address) {
      return status;
    }
    address = where->address();
  }
  return status;
}

}  // namespace

std::string VoidCounts::Text() const {
  return absl::StrFormat("tables voided: %d (already voided %d, finished %d, failed %d)",
                         voided, already, finished, failed);
}

VoidCounts VoidTables(const std::vector<std::pair<std::string, std::string>>& tables,
                      std::shared_ptr<grpc::ChannelCredentials> credentials,
                      const std::string& service_token, const std::string& reason) {
  Stubs stubs(std::move(credentials));
  VoidCounts counts;
  for (const auto& [table_id, address] : tables) {
    v1::VoidTableRequest request;
    request.set_table_id(table_id);
    request.set_reason(reason);
    v1::VoidTableResponse response;
    const grpc::Status s = VoidOne(stubs, address, request, service_token, &response);
    if (s.ok()) {
      ++(response.already_voided() ? counts.already : counts.voided);
    } else if (s.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      ++counts.finished;
    } else if (++counts.failed <= 5) {
      std::fprintf(stderr, "VoidTable %s at %s: %d %s\n", table_id.c_str(),
                   address.c_str(), s.error_code(), s.error_message().c_str());
    }
  }
  return counts;
}

void EndLoadTool(int exit_code) {
  std::fflush(nullptr);
  std::_Exit(exit_code);
}

}  // namespace trix::load
