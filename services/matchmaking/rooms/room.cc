#include "services/matchmaking/rooms/room.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/time_util.h"
#include "nlohmann/json.hpp"

namespace trix::matchmaking {
namespace {

using google::protobuf::util::TimeUtil;
using nlohmann::json;

google::protobuf::Timestamp Stamp(absl::Time t) {
  return TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

absl::Status CheckSeat(int seat) {
  if (seat < 0 || seat >= kRoomSeats) {
    return absl::InvalidArgumentError("a seat is 0..3");
  }
  return absl::OkStatus();
}

const absl::Status kGameOn =
    absl::FailedPreconditionError("a game is being played; wait for its end");

void Reset(v1::Series& series) {
  series.Clear();
  for (int s = 0; s < kRoomSeats; ++s) {
    series.add_seat_wins(0);
    series.add_totals(0);
  }
}

json SeatJson(const GameSeat& s) {
  return {{"player", s.player_id}, {"name", s.display_name},   {"member", s.member},
          {"bot", s.bot},          {"autopilot", s.autopilot}, {"stream", s.bot_stream},
          {"level", s.bot_level}};
}

// A bot level as stored (absent in rooms stored before levels: unspecified).
v1::BotLevel LevelOfJson(const json& j) {
  return static_cast<v1::BotLevel>(j.value("level", 0));
}

GameSeat SeatOfJson(const json& j) {
  return {.player_id = j.at("player"),
          .display_name = j.at("name"),
          .member = j.at("member"),
          .bot = j.at("bot"),
          .autopilot = j.at("autopilot"),
          .bot_stream = j.at("stream"),
          .bot_level = LevelOfJson(j)};
}

}  // namespace

Room::Room(std::string room_id, std::string code, absl::Time code_expires,
           RoomSettings settings, const RoomPlayer& owner, absl::Time now)
    : room_id_(std::move(room_id)),
      code_(std::move(code)),
      code_expires_(code_expires),
      settings_(std::move(settings)),
      owner_(owner.player_id) {
  (void)now;
  members_.push_back({owner.player_id, owner.display_name, false});
  seats_[0] = owner.player_id;
  Reset(series_);
  if (settings_.mode.team() == v1::TEAM_PARTNER) {
    series_.add_team_wins(0);
    series_.add_team_wins(0);
  }
}

bool Room::IsMember(const std::string& player_id) const {
  return std::any_of(members_.begin(), members_.end(),
                     [&](const RoomMember& m) { return m.player_id == player_id; });
}

RoomMember* Room::Member(const std::string& player_id) {
  for (RoomMember& m : members_) {
    if (m.player_id == player_id) return &m;
  }
  return nullptr;
}

int Room::SeatOf(const std::string& player_id) const {
  for (int s = 0; s < kRoomSeats; ++s) {
    if (seats_[s] == player_id) return s;
  }
  return -1;
}

bool Room::playing() const {
  return game_.has_value() && game_->state != v1::ROOM_GAME_OVER;
}

absl::Status Room::Join(const RoomPlayer& player) {
  if (IsMember(player.player_id)) return absl::OkStatus();
  if (members_.size() >= kRoomMaxMembers) {
    return absl::FailedPreconditionError("the room is full");
  }
  members_.push_back({player.player_id, player.display_name, false});
  if (owner_.empty()) owner_ = player.player_id;  // a room left empty, joined again
  for (std::string& seat : seats_) {
    if (seat.empty()) {
      seat = player.player_id;
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status Room::Leave(const std::string& player_id) {
  auto it = std::find_if(members_.begin(), members_.end(),
                         [&](const RoomMember& m) { return m.player_id == player_id; });
  if (it == members_.end()) return absl::NotFoundError("not a member of this room");
  members_.erase(it);
  if (int seat = SeatOf(player_id); seat >= 0) seats_[seat].clear();
  if (owner_ == player_id) owner_ = members_.empty() ? "" : members_.front().player_id;
  return absl::OkStatus();
}

absl::Status Room::TakeSeat(const std::string& player_id, int seat) {
  if (seat != -1) {
    if (absl::Status s = CheckSeat(seat); !s.ok()) return s;
  }
  RoomMember* member = Member(player_id);
  if (member == nullptr) return absl::PermissionDeniedError("not a member of this room");
  if (playing()) return kGameOn;
  const int from = SeatOf(player_id);
  if (seat == from) return absl::OkStatus();
  if (seat >= 0 && !seats_[seat].empty()) {
    return absl::FailedPreconditionError(absl::StrCat("seat ", seat, " is taken"));
  }
  if (from >= 0) seats_[from].clear();
  if (seat >= 0) seats_[seat] = player_id;
  member->ready = false;
  return absl::OkStatus();
}

absl::Status Room::SwapSeats(const std::string& player_id, int seat_a, int seat_b) {
  if (absl::Status s = CheckSeat(seat_a); !s.ok()) return s;
  if (absl::Status s = CheckSeat(seat_b); !s.ok()) return s;
  if (seat_a == seat_b) return absl::InvalidArgumentError("swap two different seats");
  if (!IsMember(player_id))
    return absl::PermissionDeniedError("not a member of this room");
  if (player_id != owner_ && seats_[seat_a] != player_id && seats_[seat_b] != player_id) {
    return absl::PermissionDeniedError("only the owner swaps seats that are not theirs");
  }
  if (playing()) return kGameOn;
  std::swap(seats_[seat_a], seats_[seat_b]);
  for (int seat : {seat_a, seat_b}) {
    if (RoomMember* m = Member(seats_[seat]); m != nullptr) m->ready = false;
  }
  return absl::OkStatus();
}

absl::Status Room::SetReady(const std::string& player_id, bool ready,
                            const std::string& consent) {
  RoomMember* member = Member(player_id);
  if (member == nullptr) return absl::PermissionDeniedError("not a member of this room");
  if (ready && SeatOf(player_id) < 0) {
    return absl::FailedPreconditionError("take a seat first");
  }
  member->ready = ready;
  if (!ready || settings_.stake == 0) {
    member->consent.clear();
  } else if (!consent.empty()) {
    member->consent = consent;
  }
  return absl::OkStatus();
}

absl::Status Room::Kick(const std::string& owner, const std::string& member) {
  if (!IsMember(owner)) return absl::PermissionDeniedError("not a member of this room");
  if (owner != owner_) return absl::PermissionDeniedError("only the room's owner kicks");
  if (member == owner)
    return absl::InvalidArgumentError("the owner leaves with LeaveRoom");
  if (!IsMember(member))
    return absl::NotFoundError(absl::StrCat(member, " is not a member"));
  return Leave(member);
}

absl::Status Room::CheckRematch(const std::string& player_id) const {
  if (!IsMember(player_id))
    return absl::PermissionDeniedError("not a member of this room");
  if (!game_.has_value()) {
    return absl::FailedPreconditionError("no game yet: start the first with StartGame");
  }
  if (game_->state == v1::ROOM_GAME_STARTING) {
    return absl::FailedPreconditionError("the game is starting already");
  }
  if (playing()) return kGameOn;
  if (SeatOf(player_id) < 0) return absl::FailedPreconditionError("take a seat first");
  int seated = 0;
  for (const std::string& seat : seats_) seated += seat.empty() ? 0 : 1;
  if (settings_.empty_seats == v1::EMPTY_SEATS_WAIT && seated < kRoomSeats) {
    return absl::FailedPreconditionError("the room waits for four players");
  }
  return absl::OkStatus();
}

absl::Status Room::CheckStart(const std::string& player_id) const {
  if (!IsMember(player_id))
    return absl::PermissionDeniedError("not a member of this room");
  if (game_.has_value() && game_->state == v1::ROOM_GAME_STARTING) {
    return absl::FailedPreconditionError("the game is starting already");
  }
  if (playing()) return kGameOn;
  if (SeatOf(player_id) < 0) return absl::FailedPreconditionError("take a seat first");
  int seated = 0;
  for (const RoomMember& m : members_) {
    if (SeatOf(m.player_id) < 0) continue;
    ++seated;
    if (!m.ready) {
      return absl::FailedPreconditionError(absl::StrCat(m.player_id, " is not ready"));
    }
  }
  if (settings_.empty_seats == v1::EMPTY_SEATS_WAIT && seated < kRoomSeats) {
    return absl::FailedPreconditionError("the room waits for four players");
  }
  return absl::OkStatus();
}

void Room::BeginGame(const std::string& request_id, absl::Time now) {
  RoomGame game{.number = (game_.has_value() ? game_->number : 0) + 1,
                .request_id = request_id,
                .started = now};
  for (int s = 0; s < kRoomSeats; ++s) {
    const RoomMember* m = Member(seats_[s]);
    if (m == nullptr) continue;
    game.seats[s] = {
        .player_id = m->player_id, .display_name = m->display_name, .member = true};
  }
  game_ = std::move(game);
}

void Room::PlanSeats(const std::array<GameSeat, kRoomSeats>& seats) {
  if (!game_.has_value()) return;
  game_->seats = seats;
  game_->planned = true;
}

void Room::GameCreated(const std::string& table_id, const std::string& address) {
  if (!game_.has_value() || game_->state != v1::ROOM_GAME_STARTING) return;
  game_->state = v1::ROOM_GAME_PLAYING;
  game_->table_id = table_id;
  game_->address = address;
  for (RoomMember& m : members_) m.ready = false;  // ready again for the next game
}

void Room::MarkStakesAttached() {
  if (game_.has_value() && game_->state == v1::ROOM_GAME_PLAYING)
    game_->stakes_attached = true;
}

void Room::CancelStart() {
  if (!game_.has_value() || game_->state != v1::ROOM_GAME_STARTING) return;
  game_.reset();
  const int last = series_.games_size();
  if (last == 0) return;
  // The game before, as it ended (its table and players are in the series).
  const v1::SeriesGame& g = series_.games(last - 1);
  RoomGame before{
      .number = g.number(), .state = v1::ROOM_GAME_OVER, .table_id = g.table_id()};
  for (int s = 0; s < kRoomSeats && s < g.players_size(); ++s) {
    before.seats[s].player_id = g.players(s);
  }
  game_ = std::move(before);
}

bool Room::GameEnded(const std::string& table_id, const v1::GameResult* result) {
  if (!game_.has_value() || game_->state != v1::ROOM_GAME_PLAYING ||
      game_->table_id != table_id) {
    return false;
  }
  game_->state = v1::ROOM_GAME_OVER;
  v1::SeriesGame* g = series_.add_games();
  g->set_number(game_->number);
  g->set_table_id(table_id);
  for (const GameSeat& s : game_->seats) g->add_players(s.player_id);
  g->set_unrated(settings_.unrated);
  if (result == nullptr) {
    g->set_voided(true);
    return true;
  }
  *g->mutable_result() = *result;
  Score(*result);
  return true;
}

void Room::Score(const v1::GameResult& result) {
  series_.set_games_played(series_.games_played() + 1);
  const bool partner = settings_.mode.team() == v1::TEAM_PARTNER;
  for (int s = 0; s < kRoomSeats; ++s) {
    if (s < result.totals_size())
      series_.set_totals(s, series_.totals(s) + result.totals(s));
    bool won = partner ? result.has_winner_team() && result.winner_team() == s % 2
                       : s < result.places_size() && result.places(s) == 1;
    if (won) series_.set_seat_wins(s, series_.seat_wins(s) + 1);
  }
  if (partner && result.has_winner_team() && result.winner_team() >= 0 &&
      result.winner_team() < series_.team_wins_size()) {
    const int t = result.winner_team();
    series_.set_team_wins(t, series_.team_wins(t) + 1);
  }
}

void Room::ToProto(v1::RoomState* state) const {
  state->set_room_id(room_id_);
  state->set_code(code_);
  *state->mutable_code_expires() = Stamp(code_expires_);
  state->set_owner(owner_);
  *state->mutable_mode() = settings_.mode;
  state->set_stake(settings_.stake);
  state->set_unrated(settings_.unrated);
  state->set_spectators(settings_.spectators);
  state->set_empty_seats(settings_.empty_seats);
  state->set_bot_level(settings_.bot_level);
  for (const RoomMember& m : members_) {
    v1::RoomMember* out = state->add_members();
    out->set_player_id(m.player_id);
    out->set_display_name(m.display_name);
    out->set_seat(SeatOf(m.player_id));
    out->set_ready(m.ready);
  }
  for (int s = 0; s < kRoomSeats; ++s) {
    v1::RoomSeat* seat = state->add_seats();
    seat->set_seat(s);
    seat->set_player_id(seats_[s]);
    for (const RoomMember& m : members_) {
      if (m.player_id == seats_[s]) seat->set_display_name(m.display_name);
    }
  }
  state->set_version(version_);
  if (game_.has_value()) {
    v1::RoomGame* g = state->mutable_game();
    g->set_number(game_->number);
    g->set_state(game_->state);
    g->set_table_id(game_->table_id);
    g->set_address(game_->address);
    for (int s = 0; s < kRoomSeats; ++s) {
      v1::RoomSeat* seat = g->add_seats();
      seat->set_seat(s);
      seat->set_player_id(game_->seats[s].player_id);
      seat->set_display_name(game_->seats[s].display_name);
      seat->set_bot(game_->seats[s].bot);
      seat->set_autopilot(game_->seats[s].autopilot);
      seat->set_bot_level(game_->seats[s].bot_level);
    }
  }
  *state->mutable_series() = series_;
}

std::string Room::Serialize() const {
  json j = {{"room", room_id_},
            {"code", code_},
            {"code_expires", absl::ToUnixMicros(code_expires_)},
            {"team", settings_.mode.team()},
            {"format", settings_.mode.format()},
            {"stake", settings_.stake},
            {"unrated", settings_.unrated},
            {"spectators", settings_.spectators},
            {"empty_seats", settings_.empty_seats},
            {"level", settings_.bot_level},
            {"owner", owner_},
            {"seats", seats_}};
  j["members"] = json::array();
  for (const RoomMember& m : members_) {
    json member = {{"player", m.player_id}, {"name", m.display_name}, {"ready", m.ready}};
    if (!m.consent.empty()) member["consent"] = m.consent;
    j["members"].push_back(member);
  }
  if (game_.has_value()) {
    json g = {{"number", game_->number},
              {"state", game_->state},
              {"request", game_->request_id},
              {"planned", game_->planned},
              {"stakes_attached", game_->stakes_attached},
              {"table", game_->table_id},
              {"address", game_->address},
              {"started", absl::ToUnixMicros(game_->started)}};
    g["seats"] = json::array();
    for (const GameSeat& s : game_->seats) g["seats"].push_back(SeatJson(s));
    j["game"] = g;
  }
  std::string series;
  (void)google::protobuf::util::MessageToJsonString(series_, &series);
  j["series"] = series;
  return j.dump();
}

absl::StatusOr<Room> Room::Parse(const std::string& text) {
  try {
    const json j = json::parse(text);
    Room r;
    r.room_id_ = j.at("room");
    r.code_ = j.at("code");
    r.code_expires_ = absl::FromUnixMicros(j.at("code_expires").get<int64_t>());
    r.settings_.mode.set_team(static_cast<v1::Team>(j.at("team").get<int>()));
    r.settings_.mode.set_format(static_cast<v1::Format>(j.at("format").get<int>()));
    r.settings_.stake = j.at("stake");
    r.settings_.unrated = j.at("unrated");
    r.settings_.spectators = j.at("spectators");
    r.settings_.empty_seats = static_cast<v1::EmptySeats>(j.at("empty_seats").get<int>());
    r.settings_.bot_level = LevelOfJson(j);
    r.owner_ = j.at("owner");
    r.seats_ = j.at("seats").get<std::array<std::string, kRoomSeats>>();
    for (const json& m : j.at("members")) {
      r.members_.push_back(
          {m.at("player"), m.at("name"), m.at("ready"), m.value("consent", "")});
    }
    if (j.contains("game")) {
      const json& g = j.at("game");
      RoomGame game{.number = g.at("number"),
                    .state = static_cast<v1::RoomGameState>(g.at("state").get<int>()),
                    .request_id = g.at("request"),
                    .planned = g.at("planned"),
                    .stakes_attached = g.value("stakes_attached", false),
                    .table_id = g.at("table"),
                    .address = g.at("address"),
                    .started = absl::FromUnixMicros(g.at("started").get<int64_t>())};
      for (int s = 0; s < kRoomSeats; ++s)
        game.seats[s] = SeatOfJson(g.at("seats").at(s));
      r.game_ = std::move(game);
    }
    if (!google::protobuf::util::JsonStringToMessage(j.at("series").get<std::string>(),
                                                     &r.series_)
             .ok()) {
      return absl::DataLossError("a stored room's series does not parse");
    }
    return r;
  } catch (const std::exception& e) {
    return absl::DataLossError(absl::StrCat("a stored room does not parse: ", e.what()));
  }
}

}  // namespace trix::matchmaking
