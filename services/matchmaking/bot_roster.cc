#include "services/matchmaking/bot_roster.h"

#include <algorithm>

#include "google/protobuf/util/time_util.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/common/logging.h"
#include "services/matchmaking/lobby.h"

namespace trix::matchmaking {

BotRoster::BotRoster(absl::Duration keep_alive_every, GameOver game_over,
                     TicketStore* store, BotStreams* shared, absl::Duration share_every)
    : keep_alive_every_(keep_alive_every),
      game_over_(std::move(game_over)),
      store_(store),
      shared_(shared),
      share_every_(share_every) {}

BotRoster::~BotRoster() { Stop(); }

void BotRoster::Start() {
  thread_ = std::thread([this] { Loop(); });
}

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
  stream->stream_id = service::NewUuid();
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
  // Without its row the stream still plays this replica's seats; the other
  // replicas see it from the next heartbeat that can write it.
  absl::Status s = shared_->Open(stream->stream_id, bot, stream->modes, Room(*stream));
  if (!s.ok()) service::LogError("bot stream not shared", {{"error", s.ToString()}});
  absl::MutexLock lock(&mu_);
  streams_.push_back(std::move(stream));
}

void BotRoster::Disconnect(const std::shared_ptr<Outbox>& outbox) {
  std::string stream_id;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = streams_.begin(); it != streams_.end(); ++it) {
      if ((*it)->outbox == outbox) {
        stream_id = (*it)->stream_id;
        streams_.erase(it);
        break;
      }
    }
  }
  // A row left behind (the database away) stops counting with its heartbeat.
  if (!stream_id.empty()) (void)shared_->Close(stream_id);
}

std::optional<BotSeat> BotRoster::Reserve(const v1::Mode& mode,
                                          const std::vector<std::string>& taken) {
  const std::string name = wire::ModeName(mode);
  absl::ReleasableMutexLock lock(&mu_);
  Stream* best = nullptr;
  int best_room = 0;
  for (auto& s : streams_) {
    if (!s->modes.count(name)) continue;
    if (std::find(taken.begin(), taken.end(), s->bot.bot_id) != taken.end()) continue;
    int room = Room(*s);
    if (room > best_room) {
      best = s.get();
      best_room = room;
    }
  }
  if (best != nullptr) {
    ++best->reserved;
    return BotSeat{best->bot.bot_id, best->bot.name, best->stream_id};
  }
  lock.Release();
  absl::StatusOr<std::optional<BotSeat>> elsewhere =
      shared_->ReserveElsewhere(name, taken);
  if (!elsewhere.ok()) {
    service::LogError("no bot seat from other replicas",
                      {{"error", elsewhere.status().ToString()}});
    return std::nullopt;
  }
  return *elsewhere;
}

void BotRoster::Deliver(const std::vector<AssignmentRow>& rows) {
  absl::MutexLock lock(&mu_);
  for (const AssignmentRow& a : rows) {
    if (a.bot) DeliverOne(a, /*reserved_here=*/true);
  }
}

void BotRoster::DeliverOne(const AssignmentRow& a, bool reserved_here) {
  // The stream the seat was given to, if it is here (a seat given to another
  // replica's stream is that replica's to send); a seat given to no stream in
  // particular goes to any of the account's. Without one, the bot gets the seat
  // when it reconnects (ServeBot sends its live seats first).
  Stream* target = nullptr;
  bool sent = false;  // already (Share may find a seat before Deliver does)
  for (auto& s : streams_) {
    if (s->bot.bot_id != a.player_id) continue;
    for (const AssignmentRow& t : s->tables) sent |= t.table_id == a.table_id;
    if (s->stream_id == a.bot_stream || (a.bot_stream.empty() && target == nullptr)) {
      target = s.get();
    }
  }
  if (target == nullptr) return;
  if (reserved_here && target->reserved > 0) --target->reserved;
  if (sent) return;
  target->tables.push_back(a);
  v1::BotUpdate update;
  *update.mutable_assignment() = ToAssignment(a);
  target->outbox->Push(std::move(update));
}

void BotRoster::Loop() {
  absl::Time last_keep_alive = absl::Now();
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
      mu_.AwaitWithTimeout(absl::Condition(&stopped),
                           std::min(keep_alive_every_, share_every_));
      if (stop_) return;
    }
    Share();
    if (absl::Now() - last_keep_alive < keep_alive_every_) continue;
    last_keep_alive = absl::Now();
    {
      absl::MutexLock lock(&mu_);
      for (auto& s : streams_) {
        v1::BotUpdate update;
        *update.mutable_keep_alive()->mutable_time() =
            google::protobuf::util::TimeUtil::GetCurrentTime();
        s->outbox->Push(std::move(update));
      }
    }
    SweepFinishedGames();
  }
}

// Sends the seats other replicas gave this replica's accounts, then writes each
// stream's room (after, so that the room counts those seats).
void BotRoster::Share() {
  std::vector<std::string> streams;
  {
    absl::MutexLock lock(&mu_);
    for (auto& s : streams_) streams.push_back(s->stream_id);
  }
  if (streams.empty()) return;
  absl::StatusOr<std::vector<AssignmentRow>> live =
      store_->LiveAssignmentsOfStreams(streams);
  std::vector<std::pair<std::string, int>> rooms;
  {
    absl::MutexLock lock(&mu_);
    if (live.ok()) {
      for (const AssignmentRow& a : *live) DeliverOne(a, /*reserved_here=*/false);
    }
    for (auto& s : streams_) rooms.emplace_back(s->stream_id, Room(*s));
  }
  absl::Status s = live.ok() ? shared_->Heartbeat(rooms) : live.status();
  if (s.ok() != shared_ok_) {  // one line per change, not one per second
    shared_ok_ = s.ok();
    if (s.ok()) {
      service::LogInfo("bot streams shared again", {});
    } else {
      service::LogError("bot streams not shared", {{"error", s.ToString()}});
    }
  }
}

// Frees the streams' tables whose games are over, and marks their assignments
// finished so that Share does not send them again.
void BotRoster::SweepFinishedGames() {
  std::vector<std::pair<std::string, std::string>> tables;
  {
    absl::MutexLock lock(&mu_);
    for (auto& s : streams_) {
      for (const AssignmentRow& a : s->tables) tables.emplace_back(a.address, a.table_id);
    }
  }
  std::set<std::string> over;
  for (const auto& [address, table] : tables) {
    if (over.count(table) == 0 && game_over_(address, table) &&
        store_->MarkFinished(table).ok()) {
      over.insert(table);
    }
  }
  if (over.empty()) return;
  absl::MutexLock lock(&mu_);
  for (auto& s : streams_) {
    s->tables.erase(std::remove_if(s->tables.begin(), s->tables.end(),
                                   [&](const AssignmentRow& a) {
                                     return over.count(a.table_id) > 0;
                                   }),
                    s->tables.end());
  }
}

}  // namespace trix::matchmaking
