#include "bots/sdk/bot_account.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "services/common/backoff.h"

namespace trix::bots {
namespace {

bool Refused(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED ||
         code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::INVALID_ARGUMENT ||
         code == grpc::StatusCode::NOT_FOUND;
}

std::string GameKey(const v1::Assignment& a) {
  return absl::StrCat(a.table_id(), "/", a.seat());
}

}  // namespace

BotAccount::BotAccount(BotAccountConfig config, BotFactory make_bot, GameDone done)
    : config_(std::move(config)), make_bot_(std::move(make_bot)), done_(std::move(done)) {}

BotAccount::~BotAccount() {
  Stop();
  absl::MutexLock lock(&mu_);
  for (auto& [key, game] : games_) {
    if (game->thread.joinable()) game->thread.join();
  }
}

void BotAccount::Stop() {
  stopped_ = true;
  if (!stop_.HasBeenNotified()) stop_.Notify();
  absl::MutexLock lock(&mu_);
  if (stream_context_ != nullptr) stream_context_->TryCancel();
  for (auto& [key, game] : games_) game->seat->Stop();
}

int BotAccount::live_seats() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(std::count_if(games_.begin(), games_.end(),
                                        [](const auto& g) { return !g.second->done; }));
}

absl::Status BotAccount::Serve() {
  service::Backoff backoff(absl::Milliseconds(200), config_.backoff_max);
  while (!stopped_) {
    bool progressed = false;
    absl::Status status = RunStream(&progressed);
    if (stopped_) break;
    if (Refused(static_cast<grpc::StatusCode>(status.code()))) return status;
    if (progressed) backoff.Reset();
    Log(LogLevel::kWarn, absl::StrCat("bot stream ended (", status.ToString(),
                                      "); reconnecting"));
    if (stop_.WaitForNotificationWithTimeout(service::Jittered(backoff.Failed()))) break;
  }
  absl::MutexLock lock(&mu_);
  for (auto& [key, game] : games_) game->seat->Stop();
  for (auto& [key, game] : games_) {
    if (game->thread.joinable()) game->thread.join();
  }
  games_.clear();
  return absl::OkStatus();
}

absl::Status BotAccount::RunStream(bool* progressed) {
  auto stub = v1::MatchmakingService::NewStub(grpc::CreateChannel(
      config_.matchmaking_address, OrPlaintext(config_.seat.credentials)));
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + config_.bot_key);
  v1::ServeBotRequest request;
  request.set_capacity(config_.capacity);
  for (const v1::Mode& mode : config_.modes) *request.add_modes() = mode;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return absl::CancelledError("stopped");
    stream_context_ = &context;
  }
  std::unique_ptr<grpc::ClientReader<v1::BotUpdate>> reader =
      stub->ServeBot(&context, request);
  v1::BotUpdate update;
  while (reader->Read(&update)) {
    *progressed = true;
    if (update.has_assignment()) Start(update.assignment());
  }
  const grpc::Status status = reader->Finish();
  absl::MutexLock lock(&mu_);
  stream_context_ = nullptr;
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

void BotAccount::Start(const v1::Assignment& assignment) {
  absl::MutexLock lock(&mu_);
  JoinFinished();
  const std::string key = GameKey(assignment);
  if (games_.count(key) != 0) return;  // delivered again after a reconnect
  auto game = std::make_unique<Game>();
  game->bot = make_bot_(assignment);
  SeatConfig seat_config = config_.seat;
  seat_config.table_id = assignment.table_id();
  seat_config.seat_token = assignment.seat_token();
  game->seat = std::make_unique<Seat>(
      TableChannel(assignment.address(), seat_config.credentials), seat_config,
      game->bot.get());
  Game* g = game.get();
  g->thread = std::thread([this, g, assignment] {
    absl::StatusOr<v1::GameResult> result = g->seat->Play();
    if (result.ok()) ++games_finished_;
    if (!result.ok() && !stopped_) {
      Log(LogLevel::kError, absl::StrCat("table ", assignment.table_id(), " seat ",
                                         assignment.seat(), ": ",
                                         result.status().ToString()));
    }
    if (done_) done_(assignment, result, g->seat->stats());
    g->done = true;
  });
  games_[key] = std::move(game);
}

void BotAccount::JoinFinished() {
  for (auto it = games_.begin(); it != games_.end();) {
    if (it->second->done) {
      it->second->thread.join();
      it = games_.erase(it);
    } else {
      ++it;
    }
  }
}

void BotAccount::Log(LogLevel level, absl::string_view message) const {
  if (config_.seat.log) {
    config_.seat.log(level, message);
  } else if (level >= LogLevel::kWarn) {
    std::cerr << "bot account: " << message << "\n";
  }
}

}  // namespace trix::bots
