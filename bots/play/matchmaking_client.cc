#include "bots/play/matchmaking_client.h"

#include <memory>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bots/sdk/seat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "proto/wire/wire.h"

namespace trix::bots {

std::string QueuedText(const v1::Queued& q) {
  return absl::StrCat("queued: ", q.pool_size(), " waiting · about ",
                      (q.estimated_wait_ms() + 999) / 1000, "s · rating window ±",
                      q.rating_window(), " · waited ", q.waited_ms() / 1000, "s");
}

TableFinder::TableFinder(MatchRequest request) : request_(std::move(request)) {
  if (request_.request_id.empty()) {
    std::random_device random;
    request_.request_id = absl::StrCat("play-", request_.player, "-",
                                       absl::Hex(uint64_t{random()} << 32 | random()));
  }
}

absl::StatusOr<v1::Assignment> TableFinder::Find(
    const std::function<void(const std::string&)>& news) {
  // UNAVAILABLE: the service starts or drains; the same request id resumes the
  // ticket (and its assignment, if made) on the next try.
  const absl::Time until = absl::Now() + absl::Seconds(60);
  while (true) {
    absl::StatusOr<v1::Assignment> seat = FindOnce(news);
    if (seat.ok() || !absl::IsUnavailable(seat.status()) || absl::Now() > until) return seat;
    news(absl::StrCat("matchmaking unavailable (", seat.status().message(),
                      "); trying again..."));
    absl::SleepFor(absl::Seconds(1));
    absl::MutexLock lock(&mu_);
    if (cancelled_) return absl::CancelledError("stopped looking for a table");
  }
}

absl::StatusOr<v1::Assignment> TableFinder::FindOnce(
    const std::function<void(const std::string&)>& news) {
  v1::FindTableRequest request;
  request.set_request_id(request_.request_id);
  request.set_player_id(request_.player);
  request.set_display_name(request_.display_name);
  request.set_stake(request_.stake);
  if (!request_.mode.empty()) {
    absl::StatusOr<v1::Mode> mode = wire::ModeFromName(request_.mode);
    if (!mode.ok()) return mode.status();
    *request.mutable_mode() = *mode;
  }
  auto stub = v1::MatchmakingService::NewStub(
      grpc::CreateChannel(request_.address, OrPlaintext(request_.credentials)));
  grpc::ClientContext context;
  if (!request_.bearer.empty()) {
    context.AddMetadata("authorization", absl::StrCat("Bearer ", request_.bearer));
  }
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return absl::CancelledError("stopped looking for a table");
    context_ = &context;
  }
  news(absl::StrCat("asking ", request_.address, " for a ",
                    request_.mode.empty() ? "Quick Play" : request_.mode, " table",
                    request_.stake ? absl::StrCat(" at stake ", request_.stake) : "",
                    " for ", request_.player, "..."));
  std::unique_ptr<grpc::ClientReader<v1::MatchUpdate>> reader =
      stub->FindTable(&context, request);
  v1::MatchUpdate update;
  std::optional<v1::Assignment> assignment;
  int last_window = -1;
  while (reader->Read(&update)) {
    if (update.has_assignment()) {
      assignment = update.assignment();
      news(absl::StrCat("seat ", assignment->seat(), " at table ", assignment->table_id(),
                        " (", assignment->address(), ")"));
      continue;  // the stream ends with OK after the assignment
    }
    if (update.has_queued()) {
      const v1::Queued& q = update.queued();
      std::string line = QueuedText(q);
      if (last_window >= 0 && q.rating_window() > last_window) {
        absl::StrAppend(&line, "   (widened)");
      }
      last_window = q.rating_window();
      news(line);
    }
  }
  const grpc::Status status = reader->Finish();
  {
    absl::MutexLock lock(&mu_);
    context_ = nullptr;
  }
  if (assignment) return *assignment;
  if (status.ok()) return absl::UnavailableError("the ticket's stream ended without a seat");
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

void TableFinder::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  if (context_) context_->TryCancel();
}

}  // namespace trix::bots
