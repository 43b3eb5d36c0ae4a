#include "services/matchmaking/rooms/room_service.h"

#include <openssl/rand.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/matchmaking/bot_roster.h"

namespace trix::matchmaking {
namespace {

constexpr int kAttempts = 8;  // saves tried before a change gives up ABORTED

// The CreateTable request id of a room's game: asked again, the same table.
std::string GameRequestId(const std::string& room_id, int number) {
  return absl::StrCat("room-", room_id, "-", number);
}

// The HoldStake request id of a member's stake at one start of a game: a
// resumed start asks again for the same hold; a start undone and begun again
// (the same game number) holds anew.
std::string StakeRequestId(const RoomGame& game, const std::string& player_id) {
  return HoldRequestId(player_id, game.request_id,
                       absl::StrCat("start-", absl::ToUnixMicros(game.started)));
}

// The stakes of the starting game's members (none for a free room, nor for a
// bot or the autopilot).
std::vector<HoldIntent> StakeIntents(const Room& room) {
  std::vector<HoldIntent> intents;
  if (room.settings().stake == 0 || !room.game().has_value()) return intents;
  for (const GameSeat& seat : room.game()->seats) {
    if (!seat.member) continue;
    intents.push_back({.request_id = StakeRequestId(*room.game(), seat.player_id),
                       .player_id = seat.player_id,
                       .amount = room.settings().stake});
  }
  return intents;
}

// The member's consent to their stake's hold (SetReadyRequest.stake_consent).
std::string ConsentOf(const Room& room, const std::string& player_id) {
  for (const RoomMember& m : room.members()) {
    if (m.player_id == player_id) return m.consent;
  }
  return "";
}

// The hold of a member's stake at the starting (or started) game, with their
// consent: asked again, the same hold.
v1::HoldStakeRequest StakeRequest(const Room& room, const std::string& player_id) {
  v1::HoldStakeRequest request;
  request.set_request_id(StakeRequestId(*room.game(), player_id));
  request.set_player_id(player_id);
  request.set_amount(room.settings().stake);
  request.set_consent(ConsentOf(room, player_id));
  return request;
}

std::vector<std::string> RequestIds(const std::vector<HoldIntent>& intents) {
  std::vector<std::string> ids;
  for (const HoldIntent& i : intents) ids.push_back(i.request_id);
  return ids;
}

// Whether a refusal of the ratings service may pass (it is away or slow): the
// start waits and is resumed.
bool Passing(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s) || absl::IsAborted(s) ||
         absl::IsInternal(s);
}

}  // namespace

std::string NewRoomCode() {
  constexpr size_t kLetters = sizeof(kRoomCodeAlphabet) - 1;  // 31
  // Bytes past the last whole multiple of the alphabet are drawn again, so that
  // every character is as likely as any other.
  constexpr unsigned kUsable = 256 - 256 % kLetters;
  std::string code;
  while (code.size() < kRoomCodeLength) {
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof(bytes)) != 1) continue;
    for (unsigned char b : bytes) {
      if (b < kUsable && code.size() < kRoomCodeLength)
        code += kRoomCodeAlphabet[b % kLetters];
    }
  }
  return code;
}

absl::StatusOr<std::string> CheckRoomCode(const std::string& code) {
  const std::string upper = absl::AsciiStrToUpper(code);
  if (upper.size() != kRoomCodeLength ||
      upper.find_first_not_of(kRoomCodeAlphabet) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("an invite code is ", kRoomCodeLength,
                                                   " characters of ", kRoomCodeAlphabet));
  }
  return upper;
}

RoomService::RoomService(RoomsOptions options, RoomStore* store, TableClient* tables,
                         TableStates* games, const SeatTokens* tokens, BotLending bots,
                         RoomHolds holds)
    : options_(std::move(options)),
      store_(store),
      tables_(tables),
      games_(games),
      tokens_(tokens),
      bots_(std::move(bots)),
      holds_(holds) {}

RoomService::~RoomService() { Stop(); }

constexpr int kStarters = 2;

void RoomService::Start() {
  thread_ = std::thread([this] { Loop(); });
  for (int i = 0; i < kStarters; ++i) starters_.emplace_back([this] { StartLoop(); });
}

void RoomService::StartGameLater(const std::string& room_id, const std::string& player_id,
                                 bool rematch,
                                 std::function<void(absl::StatusOr<Room>)> done) {
  absl::MutexLock lock(&mu_);
  if (stop_) {
    done(absl::UnavailableError("matchmaking is draining; retry"));
    return;
  }
  starts_.push_back([this, room_id, player_id, rematch, done = std::move(done)] {
    done(StartGame(room_id, player_id, rematch));
  });
}

void RoomService::StartLoop() {
  for (;;) {
    std::function<void()> job;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || !starts_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (starts_.empty()) return;  // stopped, nothing left
      job = std::move(starts_.front());
      starts_.pop_front();
    }
    job();
  }
}

void RoomService::Stop() {
  std::map<std::string, std::vector<Watcher>> watchers;
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    watchers.swap(watchers_);
  }
  if (thread_.joinable()) thread_.join();
  for (std::thread& t : starters_) t.join();
  starters_.clear();
  for (auto& [room, list] : watchers) {
    for (Watcher& w : list)
      w.sink->End(absl::UnavailableError("matchmaking is draining; watch again"));
  }
}

absl::StatusOr<Room> RoomService::Create(const RoomPlayer& owner,
                                         const v1::CreateRoomRequest& request) {
  if (absl::Status s =
          CheckStake(request.stake(), options_.stake_levels,
                     holds_.ratings != nullptr && holds_.releases != nullptr);
      !s.ok()) {
    return s;
  }
  RoomSettings settings{.mode = request.mode(),
                        .stake = request.stake(),
                        .unrated = request.unrated(),
                        .spectators = request.spectators(),
                        .empty_seats = request.empty_seats(),
                        .bot_level = request.bot_level()};
  if (!request.has_mode()) {
    settings.mode.set_team(v1::TEAM_PARTNER);
    settings.mode.set_format(v1::FORMAT_COMPLEX);
  }
  if (wire::ModeName(settings.mode) == "unknown") {
    return absl::InvalidArgumentError("unknown mode");
  }
  if (settings.empty_seats == v1::EMPTY_SEATS_UNSPECIFIED) {
    settings.empty_seats = v1::EMPTY_SEATS_BOTS;
  }
  if (!v1::EmptySeats_IsValid(settings.empty_seats)) {
    return absl::InvalidArgumentError("unknown empty_seats");
  }
  if (!v1::BotLevel_IsValid(settings.bot_level)) {
    return absl::InvalidArgumentError("unknown bot_level");
  }
  const absl::Time now = absl::Now();
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    Room room(service::NewUuid(), NewRoomCode(), now + options_.code_ttl, settings, owner,
              now);
    absl::Status s = store_->Create(room);
    if (s.ok()) return room;
    if (!absl::IsAlreadyExists(s)) return s;  // else a code taken: draw another
  }
  return absl::AbortedError("no free invite code; try again");
}

absl::StatusOr<Room> RoomService::Join(const RoomPlayer& player,
                                       const std::string& code) {
  absl::StatusOr<std::string> room_id = store_->RoomOfCode(code, absl::Now());
  if (!room_id.ok()) return room_id.status();
  return Update(*room_id, [&](Room& room) -> absl::StatusOr<bool> {
    if (room.IsMember(player.player_id)) return false;
    if (absl::Status s = room.Join(player); !s.ok()) return s;
    return true;
  });
}

absl::StatusOr<Room> RoomService::Change(
    const std::string& room_id, const std::string& player_id,
    const std::function<absl::Status(Room&)>& change) {
  return Update(room_id, [&](Room& room) -> absl::StatusOr<bool> {
    if (!room.IsMember(player_id)) {
      return absl::PermissionDeniedError("not a member of this room");
    }
    if (absl::Status s = change(room); !s.ok()) return s;
    return true;
  });
}

absl::StatusOr<Room> RoomService::Update(
    const std::string& room_id, const std::function<absl::StatusOr<bool>(Room&)>& change,
    const RoomWrite& write) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    absl::StatusOr<Room> room = store_->Load(room_id);
    if (!room.ok()) return room.status();
    absl::StatusOr<bool> save = change(*room);
    if (!save.ok()) return save.status();
    if (!*save) return room;
    absl::Status s = store_->Save(*room, write);
    if (absl::IsAborted(s)) continue;  // another change came first: on top of it
    if (!s.ok()) return s;
    Publish(room_id, &*room);
    return room;
  }
  return absl::AbortedError("the room changed too often meanwhile; try again");
}

absl::StatusOr<Room> RoomService::StartGame(const std::string& room_id,
                                            const std::string& player_id, bool rematch) {
  int number = 0;
  absl::StatusOr<Room> claimed = Update(room_id, [&](Room& room) -> absl::StatusOr<bool> {
    absl::Status s = rematch ? room.CheckRematch(player_id) : room.CheckStart(player_id);
    if (!s.ok()) return s;
    number = (room.game().has_value() ? room.game()->number : 0) + 1;
    // In whole microseconds, as the store keeps it: the stakes' hold requests
    // are keyed by it (StakeRequestId).
    room.BeginGame(GameRequestId(room_id, number),
                   absl::FromUnixMicros(absl::ToUnixMicros(absl::Now())));
    return true;
  });
  if (!claimed.ok()) return claimed.status();
  return FinishStart(room_id, number);
}

// The starting game's empty seats to bots (when the room wants them and a bot
// stream has room) or the autopilot, unless planned already.
absl::StatusOr<Room> RoomService::PlanEmptySeats(const std::string& room_id, int number) {
  std::optional<std::array<GameSeat, kRoomSeats>> plan;
  return Update(room_id, [&](Room& room) -> absl::StatusOr<bool> {
    const std::optional<RoomGame>& game = room.game();
    if (!game.has_value() || game->number != number ||
        game->state != v1::ROOM_GAME_STARTING || game->planned) {
      return false;
    }
    if (!plan.has_value()) {  // once: the bots reserved are kept across retries
      plan = game->seats;
      const bool lend = room.settings().empty_seats == v1::EMPTY_SEATS_BOTS && bots_.reserve;
      BotAsk ask = lend ? BotAskFor(room) : BotAsk{};
      for (int s = 0; s < kRoomSeats; ++s) {
        GameSeat& seat = (*plan)[s];
        if (seat.member) continue;
        std::optional<BotSeat> bot;
        if (lend) bot = bots_.reserve(ask);
        if (bot.has_value()) {
          ask.taken.push_back(bot->bot_id);
          seat = {.player_id = bot->bot_id,
                  .display_name = bot->name,
                  .bot = true,
                  .bot_stream = bot->stream_id,
                  .bot_level = BotLevelOf(bot->level)};
        } else {
          seat = {.player_id = absl::StrCat("autopilot-", s),
                  .display_name = "Autopilot",
                  .bot = true,
                  .autopilot = true};
        }
      }
    }
    room.PlanSeats(*plan);
    return true;
  });
}

BotAsk RoomService::BotAskFor(const Room& room) const {
  BotAsk ask{.mode = room.settings().mode, .level = BotLevelName(room.settings().bot_level)};
  if (!ask.level.empty() || !bots_.people_rating) return ask;
  std::vector<std::string> people;
  for (const GameSeat& seat : room.game()->seats) {
    if (seat.member) people.push_back(seat.player_id);
  }
  ask.near_rating = bots_.people_rating(ask.mode, people);
  return ask;
}

absl::StatusOr<Room> RoomService::FinishStart(const std::string& room_id, int number) {
  absl::StatusOr<Room> room = PlanEmptySeats(room_id, number);
  if (!room.ok()) return room.status();
  const std::optional<RoomGame>& game = room->game();
  if (!game.has_value() || game->number != number ||
      game->state != v1::ROOM_GAME_STARTING) {
    return room;  // made meanwhile (the keeper, another replica)
  }
  absl::StatusOr<std::map<std::string, std::string>> held = HoldStakes(*room);
  if (!held.ok()) return held.status();
  std::vector<Placed> placed = tables_->CreateTables({TableRequest(*room)});
  const Placed& p = placed.front();
  if (!p.status.ok()) {
    service::LogWarn("a room's table was not made",
                     {{"room", room_id}, {"error", p.status.ToString()}});
    if (!ProvesNoTable(p.status)) {
      return absl::UnavailableError("the table is being made; watch the room");
    }
    UndoStart(*room, {}, *held);
    return absl::UnavailableError(absl::StrCat("no table instance could make the table (",
                                               p.status.message(), "); start again"));
  }
  service::Failpoint("rooms.after_create_table");
  absl::StatusOr<Room> saved = SaveCreated(*room, p);
  if (saved.ok()) AttachStakes(*saved);
  return saved;
}

absl::StatusOr<Room> RoomService::SaveCreated(const Room& room, const Placed& p) {
  const int number = room.game()->number;
  Room made = room;
  made.GameCreated(p.response.table_id(), p.address);
  const std::vector<AssignmentRow> rows = SeatRows(made);
  absl::StatusOr<Room> saved =
      Update(room.room_id(),
             [&](Room& r) -> absl::StatusOr<bool> {
               if (!r.game().has_value() || r.game()->number != number ||
                   r.game()->state != v1::ROOM_GAME_STARTING) {
                 return false;
               }
               r.GameCreated(p.response.table_id(), p.address);
               return true;
             },
             {.seats = rows});
  if (!saved.ok()) return saved.status();
  std::vector<AssignmentRow> bots;
  for (const AssignmentRow& a : rows) {
    if (a.bot) bots.push_back(a);
  }
  if (bots_.deliver && !bots.empty()) bots_.deliver(bots);
  return saved;
}

absl::StatusOr<std::map<std::string, std::string>> RoomService::HoldStakes(
    const Room& room) {
  std::map<std::string, std::string> held;
  const std::vector<HoldIntent> intents = StakeIntents(room);
  if (intents.empty()) return held;
  if (holds_.ratings == nullptr || holds_.releases == nullptr) {
    return absl::FailedPreconditionError("staking needs the ratings service");
  }
  // Recorded first: a hold whose start is never finished is given back.
  if (absl::Status s = holds_.releases->Expect(intents); !s.ok()) {
    return absl::UnavailableError(absl::StrCat("the stakes cannot be held now (",
                                               s.message(), "); watch the room"));
  }
  // Every member is asked, so that each refused member is named and every
  // request's outcome is known when the start is undone.
  std::vector<std::string> refused;
  absl::Status first;
  for (const HoldIntent& i : intents) {
    absl::StatusOr<v1::Hold> hold =
        HoldStake(*holds_.ratings, StakeRequest(room, i.player_id));
    if (hold.ok() && hold->state() != v1::HOLD_STATE_RELEASED) {
      held[i.request_id] = hold->hold_id();
      continue;
    }
    absl::Status s = hold.ok() ? absl::FailedPreconditionError(
                                     "the stake held for this start was given back")
                               : hold.status();
    if (Passing(s)) {  // the holds kept for the resumed start
      return absl::UnavailableError(
          absl::StrCat("the stakes are being held (", s.message(), "); watch the room"));
    }
    // The member's own refusal (the balance, their consent) names them.
    if (absl::IsFailedPrecondition(s) || absl::IsPermissionDenied(s)) {
      refused.push_back(i.player_id);
    }
    if (first.ok()) first = s;
  }
  if (first.ok()) return held;
  UndoStart(room, refused, held);
  if (refused.empty()) {
    return absl::InternalError(absl::StrCat("a stake cannot be held: ", first.message()));
  }
  return absl::Status(first.code(),
                      absl::StrCat(absl::StrJoin(refused, ", "), ": ", first.message()));
}

void RoomService::UndoStart(const Room& room, const std::vector<std::string>& unready,
                            const std::map<std::string, std::string>& held) {
  const int number = room.game()->number;
  absl::StatusOr<Room> undone =
      Update(room.room_id(), [&](Room& r) -> absl::StatusOr<bool> {
        if (!r.game().has_value() || r.game()->number != number ||
            r.game()->state != v1::ROOM_GAME_STARTING) {
          return false;
        }
        r.CancelStart();
        for (const std::string& player : unready) {
          if (r.IsMember(player)) (void)r.SetReady(player, false);
        }
        return true;
      });
  if (!undone.ok()) {
    service::LogWarn("a room's start was not undone",
                     {{"room", room.room_id()}, {"error", undone.status().ToString()}});
  }
  std::vector<std::string> given = GiveBack(held);
  // A member refused holds nothing under their request.
  for (const std::string& player : unready) {
    given.push_back(StakeRequestId(*room.game(), player));
  }
  std::vector<std::string> rest;
  for (const std::string& id : RequestIds(StakeIntents(room))) {
    if (std::find(given.begin(), given.end(), id) == given.end()) rest.push_back(id);
  }
  // Nothing left of those; the others (a hold not given back now, a refusal
  // that is not the member's) due now, asked for again under their request and
  // retried until done, whatever became of the room's save.
  if (!given.empty()) (void)holds_.releases->Queued(given);
  if (rest.empty()) return;
  if (absl::Status s = holds_.releases->NotQueued(rest); !s.ok()) {
    service::LogWarn("a room's stakes are given back after the admission grace",
                     {{"room", room.room_id()}, {"error", s.ToString()}});
  }
}

std::vector<std::string> RoomService::GiveBack(
    const std::map<std::string, std::string>& held) {
  std::vector<std::string> given;
  for (const auto& [request_id, hold_id] : held) {
    if (holds_.ratings->ReleaseHold(hold_id, "").ok()) given.push_back(request_id);
  }
  return given;
}

void RoomService::AttachStakes(const Room& room) {
  const std::optional<RoomGame>& game = room.game();
  if (room.settings().stake == 0 || holds_.ratings == nullptr || !game.has_value() ||
      game->state != v1::ROOM_GAME_PLAYING || game->stakes_attached) {
    return;
  }
  const std::vector<HoldIntent> intents = StakeIntents(room);
  for (int s = 0; s < kRoomSeats; ++s) {
    const GameSeat& seat = game->seats[s];
    if (!seat.member) continue;
    // The start's own request: the same hold.
    absl::StatusOr<v1::Hold> hold =
        holds_.ratings->HoldStake(StakeRequest(room, seat.player_id));
    absl::Status a = hold.ok()
                         ? holds_.ratings->AttachHold(hold->hold_id(), game->table_id, s)
                         : hold.status();
    if (!a.ok() && Passing(a)) {
      service::LogWarn("cannot attach a room's stake hold; the keeper tries again",
                       {{"room", room.room_id()},
                        {"player", seat.player_id},
                        {"error", a.ToString()}});
      return;
    }
    if (!a.ok()) {  // given back meanwhile: that seat plays unstaked
      service::LogError("a room's stake hold cannot be attached",
                        {{"room", room.room_id()},
                         {"player", seat.player_id},
                         {"error", a.ToString()}});
    }
  }
  (void)holds_.releases->Queued(RequestIds(intents));  // carried by the seats now
  const std::string table = game->table_id;
  (void)Update(room.room_id(), [&](Room& r) -> absl::StatusOr<bool> {
    if (!r.game().has_value() || r.game()->table_id != table) return false;
    r.MarkStakesAttached();
    return true;
  });
}

v1::CreateTableRequest RoomService::TableRequest(const Room& room) const {
  const RoomGame& game = *room.game();
  v1::CreateTableRequest request;
  request.set_request_id(game.request_id);
  *request.mutable_mode() = room.settings().mode;
  if (options_.clocks.card_ms() > 0) *request.mutable_clocks() = options_.clocks;
  request.set_public_spectating(room.settings().spectators);
  request.set_unrated(room.settings().unrated);
  for (int s = 0; s < kRoomSeats; ++s) {
    const GameSeat& plan = game.seats[s];
    v1::SeatAssignment* seat = request.add_seats();
    seat->set_player_id(plan.player_id);
    seat->set_display_name(plan.display_name);
    seat->set_bot(plan.bot);
    seat->set_autopilot(plan.autopilot);
    if (plan.member) seat->set_stake(room.settings().stake);  // bots never stake
    // Derived from the request id: asked again, the same tokens (seat_tokens.h).
    if (!plan.autopilot) seat->set_seat_token(tokens_->For(game.request_id, s));
  }
  return request;
}

std::vector<AssignmentRow> RoomService::SeatRows(const Room& room) const {
  const RoomGame& game = *room.game();
  std::vector<AssignmentRow> rows;
  const absl::Time now = absl::Now();
  for (int s = 0; s < kRoomSeats; ++s) {
    const GameSeat& plan = game.seats[s];
    if (plan.autopilot) continue;
    rows.push_back({.table_id = game.table_id,
                    .seat = s,
                    .player_id = plan.player_id,
                    .bot = plan.bot,
                    .address = game.address,
                    .seat_token = tokens_->For(game.request_id, s),
                    .placement_id = game.request_id,
                    .team = room.settings().mode.team(),
                    .format = room.settings().mode.format(),
                    .possible = now,
                    .matched = now,
                    .bot_stream = plan.bot_stream});
  }
  return rows;
}

v1::RoomState RoomService::View(const Room& room, const std::string& player_id) const {
  v1::RoomState state;
  room.ToProto(&state);
  const std::optional<RoomGame>& game = room.game();
  if (!game.has_value() || game->state != v1::ROOM_GAME_PLAYING) return state;
  for (int s = 0; s < kRoomSeats; ++s) {
    const GameSeat& seat = game->seats[s];
    if (!seat.member || seat.player_id != player_id) continue;
    v1::RoomAssignment* a = state.mutable_assignment();
    a->set_game(game->number);
    a->set_table_id(game->table_id);
    a->set_address(game->address);
    a->set_seat(s);
    a->set_seat_token(tokens_->For(game->request_id, s));
  }
  return state;
}

absl::Status RoomService::Watch(const std::string& room_id, const std::string& player_id,
                                std::shared_ptr<RoomSink> sink) {
  absl::StatusOr<Room> room = store_->Load(room_id);
  if (!room.ok()) return room.status();
  if (!room->IsMember(player_id)) {
    return absl::PermissionDeniedError("not a member of this room");
  }
  absl::MutexLock lock(&mu_);
  if (stop_) return absl::UnavailableError("matchmaking is draining; watch again");
  sink->Send(View(*room, player_id));
  watchers_[room_id].push_back({player_id, std::move(sink), room->version()});
  return absl::OkStatus();
}

void RoomService::Unwatch(const std::shared_ptr<RoomSink>& sink) {
  absl::MutexLock lock(&mu_);
  for (auto it = watchers_.begin(); it != watchers_.end();) {
    std::vector<Watcher>& list = it->second;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const Watcher& w) { return w.sink == sink; }),
               list.end());
    it = list.empty() ? watchers_.erase(it) : std::next(it);
  }
}

void RoomService::Publish(const std::string& room_id, const Room* room) {
  absl::MutexLock lock(&mu_);
  auto it = watchers_.find(room_id);
  if (it == watchers_.end()) return;
  std::vector<Watcher>& list = it->second;
  for (auto w = list.begin(); w != list.end();) {
    if (room == nullptr || !room->IsMember(w->player_id)) {
      w->sink->End(room == nullptr
                       ? absl::NotFoundError("the room expired")
                       : absl::PermissionDeniedError("no longer a member of this room"));
      w = list.erase(w);
      continue;
    }
    if (room->version() > w->version) {
      w->version = room->version();
      w->sink->Send(View(*room, w->player_id));
    }
    ++w;
  }
  if (list.empty()) watchers_.erase(it);
}

void RoomService::KeepGame(const std::string& room_id) {
  absl::StatusOr<Room> room = store_->Load(room_id);
  if (!room.ok() || !room->game().has_value()) return;
  const RoomGame game = *room->game();
  if (game.state == v1::ROOM_GAME_STARTING) {
    if (absl::Now() - game.started >= options_.resume_after) {
      (void)FinishStart(room_id, game.number);  // asked again: the same table
    }
    return;
  }
  if (game.state != v1::ROOM_GAME_PLAYING) return;
  AttachStakes(*room);  // those a start could not attach
  const TableGame end = games_->GameAt(game.address, game.table_id);
  if (end.end == TableEnd::kLive || end.end == TableEnd::kUnknown) return;
  absl::StatusOr<Room> ended =
      Update(room_id,
             [&](Room& r) -> absl::StatusOr<bool> {
               return r.GameEnded(game.table_id,
                                  end.end == TableEnd::kOver ? &end.result : nullptr);
             },
             {.finished_table = game.table_id});
  if (!ended.ok()) {
    service::LogWarn("a room's game end was not recorded",
                     {{"room", room_id}, {"error", ended.status().ToString()}});
    return;
  }
  if (end.end != TableEnd::kOver) ReleaseStakes(*room);  // settled otherwise
}

void RoomService::ReleaseStakes(const Room& room) {
  const std::optional<RoomGame>& game = room.game();
  if (room.settings().stake == 0 || holds_.ratings == nullptr || !game.has_value())
    return;
  for (const GameSeat& seat : game->seats) {
    if (!seat.member) continue;
    absl::StatusOr<v1::Hold> hold =
        holds_.ratings->HoldStake(StakeRequest(room, seat.player_id));
    absl::Status s = hold.ok()
                         ? holds_.ratings->ReleaseHold(hold->hold_id(), game->table_id)
                         : hold.status();
    if (!s.ok()) {
      service::LogWarn("a voided room game's stake is given back by its TTL",
                       {{"room", room.room_id()},
                        {"player", seat.player_id},
                        {"error", s.ToString()}});
    }
  }
}

void RoomService::Keep() {
  absl::StatusOr<std::vector<std::string>> playing = store_->Playing();
  if (playing.ok()) {
    for (const std::string& room_id : *playing) KeepGame(room_id);
  }
  std::vector<std::string> watched;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [room_id, list] : watchers_) watched.push_back(room_id);
  }
  // Changes made on other replicas reach this one's watchers.
  for (const std::string& room_id : watched) {
    absl::StatusOr<Room> room = store_->Load(room_id);
    if (room.ok()) {
      Publish(room_id, &*room);
    } else if (absl::IsNotFound(room.status())) {
      Publish(room_id, nullptr);
    }
  }
  absl::StatusOr<int> gone = store_->ExpireIdle(absl::Now() - options_.idle_ttl);
  if (gone.ok() && *gone > 0) service::LogInfo("idle rooms expired", {{"rooms", *gone}});
}

void RoomService::Loop() {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
      mu_.AwaitWithTimeout(absl::Condition(&stopped), options_.check_every);
      if (stop_) return;
    }
    Keep();
  }
}

}  // namespace trix::matchmaking
