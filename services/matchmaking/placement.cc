#include "services/matchmaking/placement.h"

#include <chrono>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"
#include "services/common/logging.h"

namespace trix::matchmaking {

bool ProvesNoTable(const absl::Status& failure) {
  switch (failure.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

Placement::Placement(TableInstances* instances, PlacementOptions options)
    : registry_(instances), options_(std::move(options)) {}

int64_t Placement::failures() const {
  absl::MutexLock lock(&mu_);
  return failures_;
}

void Placement::Refresh() {
  absl::StatusOr<std::vector<table::Instance>> live =
      registry_->Live(options_.stale_after);
  absl::MutexLock lock(&mu_);
  refreshed_ = absl::Now();
  if (!live.ok()) {
    service::LogWarn("cannot read table instances", {{"error", live.status().ToString()}});
    return;  // keep what we knew
  }
  instances_.clear();
  for (const table::Instance& i : *live) {
    instances_[i.instance_id] = {.address = i.state.address,
                                 .capacity = i.state.capacity,
                                 .load = i.state.live_tables};
  }
}

std::string Placement::Choose(const std::vector<std::string>& tried) {
  absl::MutexLock lock(&mu_);
  Instance* best = nullptr;
  for (auto& [id, instance] : instances_) {
    if (instance.load >= instance.capacity) continue;
    bool skip = false;
    for (const std::string& t : tried) skip |= t == instance.address;
    if (skip) continue;
    // Least loaded by the share of capacity in use.
    if (best == nullptr ||
        static_cast<int64_t>(instance.load) * best->capacity <
            static_cast<int64_t>(best->load) * instance.capacity) {
      best = &instance;
    }
  }
  if (best != nullptr) {
    ++best->load;
    return best->address;
  }
  if (!options_.fallback_address.empty()) {
    for (const std::string& t : tried) {
      if (t == options_.fallback_address) return "";
    }
    return options_.fallback_address;
  }
  return "";
}

v1::TableService::Stub* Placement::Stub(const std::string& address) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<v1::TableService::Stub>& stub = stubs_[address];
  if (!stub) {
    stub = v1::TableService::NewStub(
        grpc::CreateChannel(address, options_.credentials));
  }
  return stub.get();
}

absl::Status Placement::VoidTable(const std::string& address, const std::string& table_id,
                                  const std::string& reason) {
  v1::VoidTableRequest request;
  request.set_table_id(table_id);
  request.set_reason(reason);
  v1::VoidTableResponse response;
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + options_.service_token);
  context.set_deadline(std::chrono::system_clock::now() +
                       absl::ToChronoMilliseconds(options_.call_timeout));
  grpc::Status s = Stub(address)->VoidTable(&context, request, &response);
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

std::vector<Placed> Placement::CreateTables(
    const std::vector<v1::CreateTableRequest>& requests) {
  bool stale;
  {
    absl::MutexLock lock(&mu_);
    stale = absl::Now() - refreshed_ >= options_.refresh_every;
  }
  if (stale) Refresh();
  std::vector<Placed> placed(requests.size());
  std::vector<std::vector<std::string>> tried(requests.size());
  std::vector<size_t> pending;
  for (size_t i = 0; i < requests.size(); ++i) pending.push_back(i);
  // Per request, the first failure that may have made its table.
  std::vector<std::optional<Placed>> maybe_made(requests.size());
  for (int attempt = 0; attempt < options_.attempts && !pending.empty(); ++attempt) {
    CreateOnce(requests, pending, tried, placed);
    pending = ToTryAgain(pending, placed, maybe_made);
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    if (maybe_made[i]) placed[i] = *std::move(maybe_made[i]);
  }
  return placed;
}

void Placement::CreateOnce(const std::vector<v1::CreateTableRequest>& requests,
                           const std::vector<size_t>& pending,
                           std::vector<std::vector<std::string>>& tried,
                           std::vector<Placed>& placed) {
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  absl::BlockingCounter done(static_cast<int>(pending.size()));
  for (size_t i : pending) {
    std::string address = Choose(tried[i]);
    if (address.empty()) {
      placed[i].address.clear();  // none left; an earlier failure stands
      if (tried[i].empty()) {
        placed[i].status = absl::ResourceExhaustedError(
            "no live table-service instance has room for a new table");
      }
      done.DecrementCount();
      continue;
    }
    tried[i].push_back(address);
    placed[i].address = address;
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", "Bearer " + options_.service_token);
    context->set_deadline(std::chrono::system_clock::now() +
                          absl::ToChronoMilliseconds(options_.call_timeout));
    Stub(address)->async()->CreateTable(
        context.get(), &requests[i], &placed[i].response,
        [&placed, &done, i](grpc::Status s) {
          placed[i].status =
              s.ok() ? absl::OkStatus()
                     : absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                                    s.error_message());
          done.DecrementCount();
        });
    contexts.push_back(std::move(context));
  }
  done.Wait();
}

std::vector<size_t> Placement::ToTryAgain(const std::vector<size_t>& pending,
                                          const std::vector<Placed>& placed,
                                          std::vector<std::optional<Placed>>& maybe_made) {
  std::vector<size_t> failed;
  for (size_t i : pending) {
    if (placed[i].status.ok()) {
      maybe_made[i].reset();
      continue;
    }
    // Refusals of the request itself would fail anywhere; the rest may not.
    if (placed[i].status.code() == absl::StatusCode::kInvalidArgument ||
        placed[i].address.empty()) {
      continue;
    }
    if (!maybe_made[i] && !ProvesNoTable(placed[i].status)) {
      maybe_made[i] = placed[i];
    }
    service::LogWarn("table placement failed", {{"address", placed[i].address},
                                                {"error", placed[i].status.ToString()}});
    {
      absl::MutexLock lock(&mu_);
      ++failures_;
    }
    failed.push_back(i);
  }
  return failed;
}

}  // namespace trix::matchmaking
