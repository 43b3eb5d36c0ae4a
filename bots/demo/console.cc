#include "bots/demo/console.h"

#include <array>
#include <atomic>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bots/common/bot_program.h"
#include "bots/common/table_printer.h"
#include "engine/replay/deal_check.h"
#include "google/protobuf/util/json_util.h"
#include "bots/sdk/seat.h"
#include "proto/wire/table_location.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::bots {
namespace {

absl::Mutex output_mu;
std::atomic<bool> stopping{false};

// The check line of a result, and whether every check held.
bool CheckResult(const v1::GameResult& r, bool partner, int64_t pot,
                 std::vector<std::string>& lines) {
  int sum = 0;
  bool places_ok = r.places_size() == 4;
  for (int i = 0; i < 4; ++i) {
    sum += r.totals(i);
    int better = 0;
    for (int j = 0; j < 4; ++j) better += r.totals(j) > r.totals(i);
    places_ok = places_ok && (partner || r.places(i) == better + 1);
  }
  int64_t paid = 0;
  for (int64_t p : r.payouts()) paid += p;
  const bool pot_ok = paid == pot;
  lines.push_back(absl::StrCat(
      "  check: totals sum to ", sum, sum == 0 ? " ✓" : " ✗",
      partner ? "" : (places_ok ? ", places follow totals ✓" : ", places ✗"),
      pot > 0 ? (pot_ok ? ", payouts share the pot ✓" : ", payouts ✗") : ""));
  return sum == 0 && places_ok && pot_ok;
}

}  // namespace

void Say(const std::vector<std::string>& lines) {
  absl::MutexLock lock(&output_mu);
  for (const std::string& line : lines) std::cout << line << "\n";
  std::cout.flush();
}

void Say(const std::string& line) { Say(std::vector<std::string>{line}); }

std::shared_ptr<grpc::ClientContext> TableWatch::NextCall(
    const std::string& service_token) {
  auto context = std::make_shared<grpc::ClientContext>();
  if (!service_token.empty()) {
    context->AddMetadata("authorization", "Bearer " + service_token);
  }
  absl::MutexLock lock(&mu_);
  if (stopped_ || stopping.load()) return nullptr;
  call_ = context;
  return context;
}

void TableWatch::Follow(const std::string& address, const std::string& table_id,
                        const std::string& service_token) {
  const std::shared_ptr<grpc::Channel> given = TableChannel(address, credentials_);
  std::unique_ptr<v1::TableService::Stub> stub = v1::TableService::NewStub(given);
  TablePrinter printer;
  for (int attempt = 0; !printer.over() && attempt < 100; ++attempt) {
    std::shared_ptr<grpc::ClientContext> context = NextCall(service_token);
    if (context == nullptr) return;
    v1::WatchRequest request;
    request.set_table_id(table_id);
    request.set_after_seq(printer.seq());
    auto reader = stub->Watch(context.get(), request);
    v1::TableUpdate update;
    while (reader->Read(&update)) Say(printer.Lines(update));
    const grpc::Status status = reader->Finish();
    if (std::optional<v1::TableLocation> where = wire::LocationFromStatus(status);
        where && !where->address().empty()) {
      stub = v1::TableService::NewStub(TableChannel(where->address(), credentials_));
    } else {
      stub = v1::TableService::NewStub(given);
    }
    if (!printer.over() && !Stopping()) {
      Say(absl::StrCat("   (watch stream ended: ", status.error_message(),
                       "; resuming after event ", printer.seq(), ")"));
      absl::SleepFor(absl::Milliseconds(500));
    }
  }
}

void TableWatch::Stop() {
  absl::MutexLock lock(&mu_);
  stopped_ = true;
  if (call_) call_->TryCancel();
}

void StopOnSignal(const service::StopSignals& signals, TableWatch* watch) {
  bots::StopOnSignal(signals, [watch] {
    stopping.store(true);
    watch->Stop();
  });
}

bool Stopping() { return stopping.load(); }

namespace {

// The game's deals against the commitment its table showed before the first card
// (docs/deals.md), as trix-replay --verify-deals checks them.
bool CheckDeals(const v1::GameRecord& record, std::vector<std::string>& lines) {
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(record, &json).ok()) return false;
  absl::StatusOr<engine::DealCheck> c = engine::CheckDeals(nlohmann::json::parse(json));
  if (!c.ok()) {
    lines.push_back(absl::StrCat("  deals NOT verified: ", c.status().message()));
    return false;
  }
  lines.push_back(absl::StrCat("  deals verified: ", c->deals,
                               " deals, as committed before the first card (",
                               record.deal_proof().commitment().substr(0, 12), "…)"));
  return true;
}

}  // namespace

bool ReportGame(
    const absl::StatusOr<v1::GameRecord>& record, std::string title,
    const std::function<std::string(int seat, const v1::SeatAssignment&)>& seat_name) {
  if (!record.ok()) {
    Say({title, absl::StrCat("  no record: ", record.status().message())});
    return false;
  }
  const v1::GameResult& r = record->result();
  if (r.totals_size() != 4) {
    Say({title, "  not finished"});
    return false;
  }
  std::array<std::string, 4> names;
  int64_t pot = 0;
  for (int i = 0; i < 4 && i < record->seats_size(); ++i) {
    names[i] = seat_name(i, record->seats(i));
    pot += record->seats(i).stake();
  }
  if (pot > 0) absl::StrAppend(&title, "  pot ", pot);
  std::vector<std::string> lines = {title};
  const bool partner = record->mode().team() == v1::TEAM_PARTNER;
  for (std::string& l : TablePrinter::ResultLines(r, names, partner)) lines.push_back(l);
  bool ok = CheckResult(r, partner, pot, lines);
  ok = CheckDeals(*record, lines) && ok;
  Say(lines);
  return ok;
}

}  // namespace trix::bots
