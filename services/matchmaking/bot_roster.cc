#include "services/matchmaking/bot_roster.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

#include "google/protobuf/util/time_util.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/common/logging.h"
#include "services/matchmaking/lobby.h"

namespace trix::matchmaking {

std::string BotLevelName(v1::BotLevel level) {
  if (level == v1::BOT_LEVEL_UNSPECIFIED || !v1::BotLevel_IsValid(level)) return "";
  return absl::AsciiStrToLower(
      absl::StripPrefix(v1::BotLevel_Name(level), "BOT_LEVEL_"));
}

v1::BotLevel BotLevelOf(const std::string& name) {
  v1::BotLevel level = v1::BOT_LEVEL_UNSPECIFIED;
  if (name.empty() ||
      !v1::BotLevel_Parse(absl::StrCat("BOT_LEVEL_", absl::AsciiStrToUpper(name)), &level)) {
    return v1::BOT_LEVEL_UNSPECIFIED;
  }
  return level;
}

std::optional<int> MeanDisplayedRating(RatingsClient* ratings, const v1::Mode& mode,
                                       const std::vector<std::string>& players) {
  if (ratings == nullptr || players.empty()) return std::nullopt;
  v1::GetRatingsRequest request;
  *request.mutable_mode() = mode;
  for (const std::string& p : players) request.add_player_ids(p);
  absl::StatusOr<v1::GetRatingsResponse> read = ratings->GetRatings(request);
  if (!read.ok() || read->ratings_size() == 0) {
    service::LogWarn("players' ratings not read; bot fill ignores them",
                     {{"error", read.status().ToString()}});
    return std::nullopt;
  }
  int64_t sum = 0;
  for (const v1::Rating& r : read->ratings()) sum += r.display();
  return static_cast<int>(sum / read->ratings_size());
}

BotRoster::BotRoster(absl::Duration keep_alive_every, GameOver game_over,
                     BotSeatStore* store, SharedBotStreams* shared, BotQuota quota,
                     absl::Duration share_every)
    : keep_alive_every_(keep_alive_every),
      game_over_(std::move(game_over)),
      store_(store),
      shared_(shared),
      quota_(quota),
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

absl::Status BotRoster::CheckQuota(const std::string& bot_id, int capacity) const {
  int streams = 0, offered = capacity;
  for (const auto& s : streams_) {
    if (s->bot.bot_id != bot_id) continue;
    ++streams;
    offered += s->capacity;
  }
  if (streams >= quota_.max_streams) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "bot account ", bot_id, " has ", streams, " streams open here, its limit"));
  }
  if (offered > quota_.max_capacity) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "bot account ", bot_id, " would offer ", offered, " tables here, over its limit of ",
        quota_.max_capacity));
  }
  return absl::OkStatus();
}

absl::Status BotRoster::Connect(const BotAccount& bot, const std::string& key_hash,
                                int capacity, std::set<std::string> modes,
                                std::shared_ptr<Outbox> outbox,
                                const std::vector<AssignmentRow>& live) {
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = CheckQuota(bot.bot_id, capacity); !s.ok()) return s;
  }
  auto stream = std::make_unique<Stream>();
  stream->stream_id = service::NewUuid();
  stream->bot = bot;
  stream->key_hash = key_hash;
  stream->capacity = capacity;
  stream->modes = std::move(modes);
  stream->outbox = outbox;
  stream->tables = live;
  // Without its row the stream still plays this replica's seats; the other
  // replicas see it from the next heartbeat that can write it.
  absl::Status s = shared_->Open(stream->stream_id, bot, stream->modes, Room(*stream));
  if (!s.ok()) service::LogError("bot stream not shared", {{"error", s.ToString()}});
  absl::MutexLock lock(&mu_);
  // Checked again: another stream of the account may have connected meanwhile.
  if (absl::Status q = CheckQuota(bot.bot_id, capacity); !q.ok()) {
    (void)shared_->Close(stream->stream_id);
    return q;
  }
  for (const AssignmentRow& a : live) {
    v1::BotUpdate update;
    *update.mutable_assignment() = ToAssignment(a);
    outbox->Push(std::move(update));
  }
  streams_.push_back(std::move(stream));
  return absl::OkStatus();
}

void BotRoster::Disconnect(const std::shared_ptr<Outbox>& outbox) {
  std::string stream_id;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = streams_.begin(); it != streams_.end(); ++it) {
      if ((*it)->outbox == outbox) {
        stream_id = (*it)->stream_id;
        const std::string bot_id = (*it)->bot.bot_id;
        streams_.erase(it);
        if (std::none_of(streams_.begin(), streams_.end(),
                         [&](const auto& s) { return s->bot.bot_id == bot_id; })) {
          last_given_.erase(bot_id);
        }
        break;
      }
    }
  }
  // A row left behind (the database away) stops counting with its heartbeat.
  if (!stream_id.empty()) (void)shared_->Close(stream_id);
}

std::optional<BotSeat> BotRoster::Reserve(const v1::Mode& mode,
                                          const std::vector<std::string>& taken) {
  return Reserve(BotAsk{.mode = mode, .taken = taken});
}

std::optional<BotSeat> BotRoster::Reserve(const BotAsk& ask) {
  const std::string name = wire::ModeName(ask.mode);
  const std::vector<std::string>& taken = ask.taken;
  absl::ReleasableMutexLock lock(&mu_);
  Stream* best = nullptr;
  for (auto& s : streams_) {
    if (!s->modes.count(name) || Room(*s) <= 0) continue;
    if (!ask.level.empty() && s->bot.level != ask.level) continue;
    if (std::find(taken.begin(), taken.end(), s->bot.bot_id) != taken.end()) continue;
    if (best == nullptr || BeforeFor(ask, name, *s, *best)) best = s.get();
  }
  if (best != nullptr) {
    ++best->reserved;
    last_given_[best->bot.bot_id] = ++given_;
    return BotSeat{best->bot.bot_id, best->bot.name, best->stream_id, best->bot.level};
  }
  lock.Release();
  absl::StatusOr<std::optional<BotSeat>> elsewhere =
      shared_->ReserveElsewhere(name, taken, ask.level);
  if (!elsewhere.ok()) {
    service::LogError("no bot seat from other replicas",
                      {{"error", elsewhere.status().ToString()}});
    return std::nullopt;
  }
  return *elsewhere;
}

bool BotRoster::Before(const Stream& a, const Stream& b) const {
  auto given = [this](const Stream& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = last_given_.find(s.bot.bot_id);
    return it == last_given_.end() ? uint64_t{0} : it->second;
  };
  if (given(a) != given(b)) return given(a) < given(b);
  // The fewer tables in play for its capacity (a / ca < b / cb, without division).
  return int64_t{InPlay(a)} * b.capacity < int64_t{InPlay(b)} * a.capacity;
}

bool BotRoster::BeforeFor(const BotAsk& ask, const std::string& mode, const Stream& a,
                          const Stream& b) const {
  if (ask.near_rating) {
    const int64_t da = Distance(a, mode, *ask.near_rating);
    const int64_t db = Distance(b, mode, *ask.near_rating);
    if (da != db) return da < db;
  }
  return Before(a, b);
}

int64_t BotRoster::Distance(const Stream& s, const std::string& mode, int rating) const {
  auto it = ratings_.find({s.bot.bot_id, mode});
  if (it == ratings_.end()) return std::numeric_limits<int64_t>::max();
  return std::abs(int64_t{it->second} - rating);
}

void BotRoster::SetRatings(RatingsClient* ratings, absl::Duration refresh) {
  ratings_client_ = ratings;
  ratings_every_ = refresh;
}

void BotRoster::RefreshRatings() {
  if (ratings_client_ == nullptr) return;
  std::map<std::string, std::set<std::string>> accounts;  // by mode name
  {
    absl::MutexLock lock(&mu_);
    for (const auto& s : streams_) {
      for (const std::string& mode : s->modes) accounts[mode].insert(s->bot.bot_id);
    }
  }
  std::map<std::pair<std::string, std::string>, int> read;
  for (const auto& [mode, ids] : accounts) {
    v1::GetRatingsRequest request;
    absl::StatusOr<v1::Mode> m = wire::ModeFromName(mode);
    if (!m.ok()) continue;
    *request.mutable_mode() = *m;
    for (const std::string& id : ids) request.add_player_ids(id);
    absl::StatusOr<v1::GetRatingsResponse> r = ratings_client_->GetRatings(request);
    if (!r.ok()) {
      service::LogWarn("bot ratings not read; bot fill keeps the last ones",
                       {{"mode", mode}, {"error", r.status().ToString()}});
      return;
    }
    for (const v1::Rating& rating : r->ratings()) {
      read[{rating.player_id(), mode}] = rating.display();
    }
  }
  absl::MutexLock lock(&mu_);
  ratings_ = std::move(read);
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
    EndRevoked();
    Share();
    if (absl::Now() - ratings_read_ >= ratings_every_) {
      ratings_read_ = absl::Now();
      RefreshRatings();
    }
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

void BotRoster::EndRevoked() {
  std::vector<std::string> bots;
  {
    absl::MutexLock lock(&mu_);
    for (auto& s : streams_) bots.push_back(s->bot.bot_id);
  }
  if (bots.empty()) return;
  absl::StatusOr<std::map<std::string, std::string>> keys = shared_->KeysInForce(bots);
  if (!keys.ok()) return;  // the database away: Share says so
  std::vector<std::unique_ptr<Stream>> revoked;
  {
    absl::MutexLock lock(&mu_);
    revoked = TakeRevoked(*keys);
  }
  for (auto& s : revoked) {
    const bool rotated = keys->count(s->bot.bot_id) > 0;
    service::LogInfo("bot stream ended: key no longer valid",
                     {{"bot", s->bot.bot_id}, {"why", rotated ? "rotated" : "revoked"}});
    s->outbox->End(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                rotated ? "the bot key was rotated; reconnect with the new key"
                                        : "the bot account was revoked"));
    (void)shared_->Close(s->stream_id);
  }
}

std::vector<std::unique_ptr<BotRoster::Stream>> BotRoster::TakeRevoked(
    const std::map<std::string, std::string>& keys) {
  std::vector<std::unique_ptr<Stream>> revoked;
  auto backed = [&](const std::unique_ptr<Stream>& s) {
    auto it = keys.find(s->bot.bot_id);
    return it != keys.end() && it->second == s->key_hash;
  };
  auto cut = std::stable_partition(streams_.begin(), streams_.end(), backed);
  for (auto it = cut; it != streams_.end(); ++it) revoked.push_back(std::move(*it));
  streams_.erase(cut, streams_.end());
  for (const auto& gone : revoked) {
    if (std::none_of(streams_.begin(), streams_.end(),
                     [&](const auto& s) { return s->bot.bot_id == gone->bot.bot_id; })) {
      last_given_.erase(gone->bot.bot_id);
    }
  }
  return revoked;
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
