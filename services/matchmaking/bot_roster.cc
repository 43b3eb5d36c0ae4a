#include "services/matchmaking/bot_roster.h"

#include <algorithm>

#include "google/protobuf/util/time_util.h"
#include "proto/wire/wire.h"
#include "services/matchmaking/lobby.h"

namespace trix::matchmaking {

BotRoster::BotRoster(absl::Duration keep_alive_every, GameOver game_over)
    : keep_alive_every_(keep_alive_every), game_over_(std::move(game_over)) {}

BotRoster::~BotRoster() { Stop(); }

void BotRoster::Start() { thread_ = std::thread([this] { Loop(); }); }

void BotRoster::Stop() {
  std::vector<std::unique_ptr<Stream>> streams;
  {
    absl::MutexLock lock(&mu_);
    if (stop_) return;
    stop_ = true;
    streams.swap(streams_);
  }
  if (thread_.joinable()) thread_.join();
  for (auto& s : streams) {
    s->outbox->End(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                "matchmaking is draining; reconnect"));
  }
}

int BotRoster::connected() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(streams_.size());
}

void BotRoster::Connect(const BotAccount& bot, int capacity, std::set<std::string> modes,
                        std::shared_ptr<Outbox> outbox,
                        const std::vector<AssignmentRow>& live) {
  auto stream = std::make_unique<Stream>();
  stream->bot = bot;
  stream->capacity = capacity;
  stream->modes = std::move(modes);
  stream->outbox = outbox;
  for (const AssignmentRow& a : live) {
    v1::BotUpdate update;
    *update.mutable_assignment() = ToAssignment(a);
    outbox->Push(std::move(update));
    stream->tables.push_back(a);
  }
  absl::MutexLock lock(&mu_);
  streams_.push_back(std::move(stream));
}

void BotRoster::Disconnect(const std::shared_ptr<Outbox>& outbox) {
  absl::MutexLock lock(&mu_);
  for (auto it = streams_.begin(); it != streams_.end(); ++it) {
    if ((*it)->outbox == outbox) {
      streams_.erase(it);
      return;
    }
  }
}

std::optional<BotSeat> BotRoster::Reserve(const v1::Mode& mode,
                                          const std::vector<std::string>& taken) {
  const std::string name = wire::ModeName(mode);
  absl::MutexLock lock(&mu_);
  Stream* best = nullptr;
  int best_room = 0;
  for (auto& s : streams_) {
    if (!s->modes.count(name)) continue;
    if (std::find(taken.begin(), taken.end(), s->bot.bot_id) != taken.end()) continue;
    int room = s->capacity - s->reserved - static_cast<int>(s->tables.size());
    if (room > best_room) {
      best = s.get();
      best_room = room;
    }
  }
  if (best == nullptr) return std::nullopt;
  ++best->reserved;
  return BotSeat{best->bot.bot_id, best->bot.name};
}

void BotRoster::Deliver(const std::vector<AssignmentRow>& rows) {
  absl::MutexLock lock(&mu_);
  for (const AssignmentRow& a : rows) {
    if (!a.bot) continue;
    // The stream that reserved the seat if it is still here, else any of the
    // account's; with none, the bot gets the seat when it reconnects.
    Stream* target = nullptr;
    for (auto& s : streams_) {
      if (s->bot.bot_id != a.player_id) continue;
      if (target == nullptr || (s->reserved > 0 && target->reserved == 0)) {
        target = s.get();
      }
    }
    if (target == nullptr) continue;
    if (target->reserved > 0) --target->reserved;
    target->tables.push_back(a);
    v1::BotUpdate update;
    *update.mutable_assignment() = ToAssignment(a);
    target->outbox->Push(std::move(update));
  }
}

void BotRoster::Loop() {
  absl::Time last_keep_alive = absl::Now();
  for (;;) {
    std::vector<std::pair<std::string, std::string>> tables;
    {
      absl::MutexLock lock(&mu_);
      auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
      mu_.AwaitWithTimeout(absl::Condition(&stopped),
                           std::min(keep_alive_every_, absl::Seconds(1)));
      if (stop_) return;
      if (absl::Now() - last_keep_alive < keep_alive_every_) continue;
      {
        last_keep_alive = absl::Now();
        for (auto& s : streams_) {
          v1::BotUpdate update;
          *update.mutable_keep_alive()->mutable_time() =
              google::protobuf::util::TimeUtil::GetCurrentTime();
          s->outbox->Push(std::move(update));
        }
      }
      for (auto& s : streams_) {
        for (const AssignmentRow& a : s->tables) tables.emplace_back(a.address, a.table_id);
      }
    }
    std::set<std::string> over;
    for (const auto& [address, table] : tables) {
      if (game_over_(address, table)) over.insert(table);
    }
    if (over.empty()) continue;
    absl::MutexLock lock(&mu_);
    for (auto& s : streams_) {
      s->tables.erase(std::remove_if(s->tables.begin(), s->tables.end(),
                                     [&](const AssignmentRow& a) {
                                       return over.count(a.table_id) > 0;
                                     }),
                      s->tables.end());
    }
  }
}

}  // namespace trix::matchmaking
