#include "tests/load/durability.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "tests/load/seat_policy.h"

namespace trix::load {
namespace {

// The game's record as `seat` may see it, from any of `stubs` (starting at the
// seat's own, so that the seats of a game spread over a fleet).
grpc::Status FetchRecord(const LoadTable& table, int seat,
                         const std::vector<v1::TableService::Stub*>& stubs,
                         v1::GameRecord* record) {
  v1::GetGameRecordRequest request;
  request.set_game_id(table.id());
  request.set_seat_token(table.seat(seat).token());
  grpc::Status status;
  for (size_t attempt = 0; attempt < 5 + stubs.size(); ++attempt) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::TableService::Stub* stub =
        stubs[(static_cast<size_t>(seat) + attempt) % stubs.size()];
    status = stub->GetGameRecord(&context, request, record);
    if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED &&
        status.error_code() != grpc::StatusCode::UNAVAILABLE) {
      break;
    }
    // The next instance at once (one of a fleet may be gone); a pause once all
    // of them refused.
    if ((attempt + 1) % stubs.size() == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  return status;
}

// One seat of one game, checked against its record.
void CheckSeat(const LoadTable& table, int seat,
               const std::vector<v1::TableService::Stub*>& stubs,
               DurabilityReport& report) {
  v1::GameRecord record;
  const grpc::Status status = FetchRecord(table, seat, stubs, &record);
  if (!status.ok()) {
    ++report.record_errors;
    if (report.first_problem.empty()) {
      report.first_problem = absl::StrCat("GetGameRecord ", table.id(), " seat ", seat,
                                          ": ", status.error_message());
    }
    return;
  }
  std::vector<Expected> logged;
  for (const v1::Event& event : record.events()) {
    if (std::optional<Expected> own = OwnDecision(event, seat)) logged.push_back(*own);
  }
  // Walk both in order. An action the server refused is not in the log, so the
  // walk skips it; when the seat then sent the same decision again, only the
  // second one can be the logged one.
  const std::vector<SeatPlayer::SentAction> sent = table.seat(seat).sent();
  size_t j = 0;
  for (size_t i = 0; i < sent.size(); ++i) {
    const bool repeated_next =
        !sent[i].acked && i + 1 < sent.size() && sent[i + 1].expected == sent[i].expected;
    const bool in_log =
        !repeated_next && j < logged.size() && logged[j] == sent[i].expected;
    if (in_log) ++j;
    if (!sent[i].acked) {
      report.unacked_logged += in_log ? 1 : 0;
      continue;
    }
    ++report.acked;
    if (in_log) {
      ++report.found;
      continue;
    }
    ++report.missing;
    if (report.first_problem.empty()) {
      report.first_problem =
          absl::StrCat("table ", table.id(), " seat ", seat, " action ", i, " (",
                       sent[i].expected.Text(), ", request ", sent[i].request_id,
                       ") was acknowledged but is not in the log");
    }
  }
  report.foreign += static_cast<int64_t>(logged.size() - j);
}

}  // namespace

std::string DurabilityReport::Json() const {
  return absl::StrFormat(
      "{\"games\":%d,\"acked\":%d,\"found\":%d,\"missing\":%d,\"unacked_logged\":%d,"
      "\"foreign\":%d,\"record_errors\":%d,\"ok\":%s}",
      games, acked, found, missing, unacked_logged, foreign, record_errors,
      ok() ? "true" : "false");
}

DurabilityReport CheckDurability(const std::vector<const LoadTable*>& tables,
                                 const std::vector<v1::TableService::Stub*>& stubs,
                                 int max_games, int threads) {
  std::vector<const LoadTable*> chosen;
  const size_t n = tables.size();
  const size_t want = max_games < 0 ? n : std::min(n, static_cast<size_t>(max_games));
  for (size_t k = 0; k < want; ++k) chosen.push_back(tables[k * n / want]);

  absl::Mutex mu;
  DurabilityReport total;
  total.games = static_cast<int64_t>(chosen.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < std::max(1, threads); ++t) {
    workers.emplace_back([&] {
      DurabilityReport mine;
      for (size_t i; (i = next.fetch_add(1)) < chosen.size();) {
        for (int seat = 0; seat < 4; ++seat) CheckSeat(*chosen[i], seat, stubs, mine);
      }
      absl::MutexLock lock(&mu);
      total.acked += mine.acked;
      total.found += mine.found;
      total.missing += mine.missing;
      total.unacked_logged += mine.unacked_logged;
      total.foreign += mine.foreign;
      total.record_errors += mine.record_errors;
      if (total.first_problem.empty()) total.first_problem = mine.first_problem;
    });
  }
  for (std::thread& worker : workers) worker.join();
  return total;
}

}  // namespace trix::load
