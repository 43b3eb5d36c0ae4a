#include "services/matchmaking/grpc_service.h"

#include <memory>

#include "google/protobuf/util/time_util.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/common/grpc_metadata.h"
#include "services/common/tls.h"
#include "services/common/logging.h"
#include "services/matchmaking/stream_outbox.h"

namespace trix::matchmaking {
namespace {

// A FindTable stream as the lobby sees it.
class FindTableSink : public TicketSink {
 public:
  explicit FindTableSink(std::shared_ptr<StreamOutbox<v1::MatchUpdate>> outbox)
      : outbox_(std::move(outbox)) {}
  void Queued(const v1::Queued& queued) override {
    v1::MatchUpdate u;
    *u.mutable_queued() = queued;
    outbox_->Push(std::move(u));
  }
  void Assigned(const v1::Assignment& assignment) override {
    v1::MatchUpdate u;
    *u.mutable_assignment() = assignment;
    outbox_->Push(std::move(u));
    outbox_->End(grpc::Status::OK);
  }
  void End(const absl::Status& status) override { outbox_->End(ToGrpcStatus(status)); }

 private:
  std::shared_ptr<StreamOutbox<v1::MatchUpdate>> outbox_;
};

template <typename Message>
grpc::ServerWriteReactor<Message>* Refuse(const absl::Status& s) {
  auto outbox = std::make_shared<StreamOutbox<Message>>();
  auto* reactor = new OutboxReactor<Message>(outbox, nullptr);
  outbox->End(ToGrpcStatus(s));
  return reactor;
}

grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context,
                                 const absl::Status& s) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(s));
  return reactor;
}

void ToParty(const PartyRow& row, v1::Party* party) {
  party->set_party_id(row.party_id);
  party->set_code(row.code);
  party->clear_members();
  for (const std::string& m : row.members) party->add_members(m);
  *party->mutable_expires() = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
      absl::ToUnixMicros(row.expires));
}

// Party codes: eight characters a person can read out (no 0/O or 1/I).
constexpr char kPartyCodeAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
constexpr size_t kPartyCodeLength = 8;

std::string PartyCode() {
  std::string code;
  uint64_t r = service::RandomUint64();
  for (size_t i = 0; i < kPartyCodeLength; ++i) {
    code += kPartyCodeAlphabet[r % 32];
    r /= 32;
  }
  return code;
}

// INVALID_ARGUMENT unless `code` could be one PartyCode() made (read out, it may
// come back in lower case).
absl::StatusOr<std::string> CheckPartyCode(const std::string& code) {
  const std::string upper = absl::AsciiStrToUpper(code);
  if (upper.size() != kPartyCodeLength ||
      upper.find_first_not_of(kPartyCodeAlphabet) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a party code is ", kPartyCodeLength, " characters of ", kPartyCodeAlphabet));
  }
  return upper;
}

const v1::Mode kAllModes[] = {
    [] { v1::Mode m; m.set_team(v1::TEAM_SOLO); m.set_format(v1::FORMAT_CLASSIC); return m; }(),
    [] { v1::Mode m; m.set_team(v1::TEAM_SOLO); m.set_format(v1::FORMAT_COMPLEX); return m; }(),
    [] { v1::Mode m; m.set_team(v1::TEAM_PARTNER); m.set_format(v1::FORMAT_CLASSIC); return m; }(),
    [] { v1::Mode m; m.set_team(v1::TEAM_PARTNER); m.set_format(v1::FORMAT_COMPLEX); return m; }(),
};

absl::Status CheckBotId(const std::string& bot_id) {
  if (bot_id.empty() || bot_id.size() > 128) {
    return absl::InvalidArgumentError("a bot_id (RegisterBot's answer) is required");
  }
  return absl::OkStatus();
}

// The modes a ServeBot stream plays: those it asks for, each one its account's;
// all of the account's when it asks for none.
absl::StatusOr<std::set<std::string>> ServedModes(const BotAccount& bot,
                                                  const v1::ServeBotRequest& request) {
  const std::set<std::string> modes(bot.modes.begin(), bot.modes.end());
  if (request.modes_size() == 0) return modes;
  std::set<std::string> asked;
  for (const v1::Mode& m : request.modes()) {
    std::string name = wire::ModeName(m);
    if (!modes.count(name)) {
      return absl::InvalidArgumentError(absl::StrCat("the bot account does not play ", name));
    }
    asked.insert(name);
  }
  return asked;
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

MatchmakingGrpcService::MatchmakingGrpcService(GrpcOptions options, const PlayerAuth* auth,
                                               Lobby* lobby, BotRoster* bots,
                                               TicketStore* store)
    : options_(options),
      auth_(auth),
      lobby_(lobby),
      bots_(bots),
      store_(store),
      player_limiter_(options_.player_rate),
      backend_limiter_(options_.backend_rate),
      peer_limiter_(options_.peer_rate) {}

absl::StatusOr<std::string> MatchmakingGrpcService::Player(
    grpc::CallbackServerContext* context, const std::string& player_id,
    std::string* consent) {
  if (!serving_) return absl::UnavailableError("matchmaking is not serving; retry");
  if (absl::Status s = Screen(context); !s.ok()) return s;
  const std::string authorization = service::ClientMetadata(*context, "authorization");
  absl::StatusOr<Caller> caller = auth_->Authenticate(
      authorization, service::PeerCertificateNames(context->auth_context().get()));
  if (absl::Status s = CheckRate(context, caller.ok() ? &*caller : nullptr); !s.ok()) {
    return s;
  }
  if (!caller.ok()) return caller.status();
  if (consent != nullptr) *consent = caller->service ? "" : service::BearerToken(authorization);
  return ActingFor(*caller, player_id);
}

absl::Status MatchmakingGrpcService::Operator(grpc::CallbackServerContext* context) {
  if (!serving_) return absl::UnavailableError("matchmaking is not serving; retry");
  if (absl::Status s = Screen(context); !s.ok()) return s;
  const std::string authorization = service::ClientMetadata(*context, "authorization");
  const std::vector<std::string> names =
      service::PeerCertificateNames(context->auth_context().get());
  absl::StatusOr<Caller> caller = auth_->Authenticate(authorization, names);
  if (absl::Status r = CheckRate(context, caller.ok() ? &*caller : nullptr); !r.ok()) {
    return r;
  }
  return auth_->CheckService(authorization, service::kBotsAdmin, names);
}

absl::Status MatchmakingGrpcService::Screen(grpc::CallbackServerContext* context) const {
  if (!peer_limiter_.Spent(service::PeerKey(context->peer()))) return absl::OkStatus();
  return absl::ResourceExhaustedError("too many calls from this address; slow down");
}

absl::Status MatchmakingGrpcService::CheckRate(grpc::CallbackServerContext* context,
                                               const Caller* caller) {
  if (caller == nullptr) {
    if (peer_limiter_.Allow(service::PeerKey(context->peer()))) return absl::OkStatus();
    return absl::ResourceExhaustedError("too many calls from this address; slow down");
  }
  if (caller->service) {
    if (backend_limiter_.Allow(caller->credential)) return absl::OkStatus();
    return absl::ResourceExhaustedError(
        absl::StrCat("too many calls from credential ", caller->credential, "; slow down"));
  }
  if (player_limiter_.Allow(caller->player_id)) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("too many calls for ", caller->player_id, "; slow down"));
}

absl::StatusOr<BotAccount> MatchmakingGrpcService::BotOfKey(const std::string& key) {
  const std::string hash = service::TokenHash(key);
  const absl::Status bad = absl::UnauthenticatedError("unknown or revoked bot key");
  const absl::Time now = absl::Now();
  auto expired = [&](const auto& entry) { return now - entry.second >= options_.bad_key_memory; };
  {
    absl::MutexLock lock(&bad_keys_mu_);
    auto it = bad_keys_.find(hash);
    if (it != bad_keys_.end() && !expired(*it)) return bad;
  }
  absl::StatusOr<BotAccount> bot = store_->BotByKeyHash(hash);
  if (!absl::IsNotFound(bot.status())) return bot;  // a bot, or the database away
  absl::MutexLock lock(&bad_keys_mu_);
  if (bad_keys_.size() >= options_.max_bad_keys) {
    absl::erase_if(bad_keys_, expired);
    if (bad_keys_.size() >= options_.max_bad_keys) bad_keys_.clear();
  }
  bad_keys_[hash] = now;
  return bad;
}

grpc::ServerWriteReactor<v1::MatchUpdate>* MatchmakingGrpcService::FindTable(
    grpc::CallbackServerContext* context, const v1::FindTableRequest* request) {
  std::string consent;
  absl::StatusOr<std::string> player = Player(context, request->player_id(), &consent);
  if (!player.ok()) return Refuse<v1::MatchUpdate>(player.status());
  if (consent.empty()) consent = request->stake_consent();  // a service caller's
  auto outbox = std::make_shared<StreamOutbox<v1::MatchUpdate>>(options_.stream_buffer);
  auto sink = std::make_shared<FindTableSink>(outbox);
  Lobby* lobby = lobby_;
  std::weak_ptr<TicketSink> weak = sink;
  auto* reactor = new OutboxReactor<v1::MatchUpdate>(outbox, [lobby, weak] {
    if (std::shared_ptr<TicketSink> s = weak.lock()) lobby->Closed(s);
  });
  lobby_->FindTable(*player, *request, sink, consent);
  return reactor;
}

grpc::ServerUnaryReactor* MatchmakingGrpcService::GetAssignment(
    grpc::CallbackServerContext* context, const v1::GetAssignmentRequest* request,
    v1::Assignment* response) {
  absl::StatusOr<std::string> player = Player(context, request->player_id());
  if (!player.ok()) return Finish(context, player.status());
  absl::StatusOr<v1::Assignment> a = lobby_->GetAssignment(*player);
  if (a.ok()) *response = *a;
  return Finish(context, a.status());
}

grpc::ServerUnaryReactor* MatchmakingGrpcService::CreateParty(
    grpc::CallbackServerContext* context, const v1::CreatePartyRequest* request,
    v1::Party* response) {
  absl::StatusOr<std::string> player = Player(context, request->player_id());
  if (!player.ok()) return Finish(context, player.status());
  PartyRow row{.party_id = service::NewUuid(),
               .code = PartyCode(),
               .members = {*player},
               .expires = absl::Now() + options_.party_ttl};
  absl::Status s = store_->CreateParty(row);
  if (s.ok()) ToParty(row, response);
  return Finish(context, s);
}

grpc::ServerUnaryReactor* MatchmakingGrpcService::JoinParty(
    grpc::CallbackServerContext* context, const v1::JoinPartyRequest* request,
    v1::Party* response) {
  absl::StatusOr<std::string> player = Player(context, request->player_id());
  if (!player.ok()) return Finish(context, player.status());
  absl::StatusOr<std::string> code = CheckPartyCode(request->code());
  if (!code.ok()) return Finish(context, code.status());
  absl::StatusOr<PartyRow> party = store_->JoinParty(*code, *player);
  if (party.ok()) ToParty(*party, response);
  return Finish(context, party.status());
}

grpc::ServerUnaryReactor* MatchmakingGrpcService::LeaveParty(
    grpc::CallbackServerContext* context, const v1::LeavePartyRequest* request,
    v1::LeavePartyResponse*) {
  absl::StatusOr<std::string> player = Player(context, request->player_id());
  if (!player.ok()) return Finish(context, player.status());
  if (request->party_id().empty() || request->party_id().size() > 128) {
    return Finish(context, absl::InvalidArgumentError("a party_id is required"));
  }
  return Finish(context, store_->LeaveParty(request->party_id(), *player));
}

grpc::ServerUnaryReactor* MatchmakingGrpcService::RegisterBot(
    grpc::CallbackServerContext* context, const v1::RegisterBotRequest* request,
    v1::RegisterBotResponse* response) {
  if (absl::Status s = Operator(context); !s.ok()) return Finish(context, s);
  if (request->name().empty() || request->name().size() > 64) {
    return Finish(context, absl::InvalidArgumentError("a bot name (1-64 characters) is required"));
  }
  if (request->owner().size() > 128) {
    return Finish(context, absl::InvalidArgumentError("owner is longer than 128 bytes"));
  }
  if (!v1::BotLevel_IsValid(request->level())) {
    return Finish(context, absl::InvalidArgumentError("unknown bot level"));
  }
  BotAccount bot{.bot_id = "bot-" + service::NewUuid(),
                 .name = request->name(),
                 .owner = request->owner(),
                 .level = BotLevelName(request->level())};
  for (const v1::Mode& m : request->modes()) {
    std::string name = wire::ModeName(m);
    if (name == "unknown") return Finish(context, absl::InvalidArgumentError("unknown mode"));
    bot.modes.push_back(name);
  }
  if (bot.modes.empty()) {
    for (const v1::Mode& m : kAllModes) bot.modes.push_back(wire::ModeName(m));
  }
  const std::string key = service::NewSeatToken();
  absl::Status s = store_->RegisterBot(bot, service::TokenHash(key));
  if (s.ok()) {
    response->set_bot_id(bot.bot_id);
    response->set_key(key);
    response->set_level(request->level());
  }
  return Finish(context, s);
}

grpc::ServerUnaryReactor* MatchmakingGrpcService::RotateBotKey(
    grpc::CallbackServerContext* context, const v1::RotateBotKeyRequest* request,
    v1::RegisterBotResponse* response) {
  if (absl::Status s = Operator(context); !s.ok()) return Finish(context, s);
  if (absl::Status s = CheckBotId(request->bot_id()); !s.ok()) return Finish(context, s);
  const std::string key = service::NewSeatToken();
  absl::StatusOr<BotAccount> bot = store_->SetBotKey(request->bot_id(), service::TokenHash(key));
  if (bot.ok()) {
    response->set_bot_id(bot->bot_id);
    response->set_key(key);
    response->set_level(BotLevelOf(bot->level));
  }
  return Finish(context, bot.status());
}

grpc::ServerUnaryReactor* MatchmakingGrpcService::RevokeBot(
    grpc::CallbackServerContext* context, const v1::RevokeBotRequest* request,
    v1::RevokeBotResponse*) {
  if (absl::Status s = Operator(context); !s.ok()) return Finish(context, s);
  if (absl::Status s = CheckBotId(request->bot_id()); !s.ok()) return Finish(context, s);
  return Finish(context, store_->RevokeBot(request->bot_id()));
}

grpc::ServerWriteReactor<v1::BotUpdate>* MatchmakingGrpcService::ServeBot(
    grpc::CallbackServerContext* context, const v1::ServeBotRequest* request) {
  if (!serving_) {
    return Refuse<v1::BotUpdate>(absl::UnavailableError("matchmaking is not serving; retry"));
  }
  // Before anything is looked up: a flood of made-up keys costs one bucket each.
  if (absl::Status s = CheckRate(context, nullptr); !s.ok()) return Refuse<v1::BotUpdate>(s);
  std::string key = service::BearerToken(service::ClientMetadata(*context, "authorization"));
  if (key.empty()) {
    return Refuse<v1::BotUpdate>(
        absl::UnauthenticatedError("missing \"authorization: Bearer <bot key>\""));
  }
  if (request->capacity() < 1 || request->capacity() > options_.max_bot_capacity) {
    return Refuse<v1::BotUpdate>(absl::InvalidArgumentError(
        absl::StrCat("capacity must be 1..", options_.max_bot_capacity)));
  }
  absl::StatusOr<BotAccount> bot = BotOfKey(key);
  if (!bot.ok()) return Refuse<v1::BotUpdate>(bot.status());
  const Caller account{.player_id = bot->bot_id};
  if (absl::Status s = CheckRate(context, &account); !s.ok()) return Refuse<v1::BotUpdate>(s);
  absl::StatusOr<std::set<std::string>> modes = ServedModes(*bot, *request);
  if (!modes.ok()) return Refuse<v1::BotUpdate>(modes.status());
  absl::StatusOr<std::vector<AssignmentRow>> live = lobby_->Live(bot->bot_id);
  if (!live.ok()) return Refuse<v1::BotUpdate>(live.status());
  // The account's live seats, sent first, do not count against the buffer.
  auto outbox =
      std::make_shared<StreamOutbox<v1::BotUpdate>>(options_.stream_buffer + live->size());
  BotRoster* bots = bots_;
  std::weak_ptr<StreamOutbox<v1::BotUpdate>> weak = outbox;
  auto* reactor = new OutboxReactor<v1::BotUpdate>(outbox, [bots, weak] {
    if (auto o = weak.lock()) bots->Disconnect(o);
  });
  if (absl::Status s = bots_->Connect(*bot, service::TokenHash(key), request->capacity(),
                                     *std::move(modes), outbox, *live);
      !s.ok()) {
    outbox->End(ToGrpcStatus(s));
    return reactor;
  }
  service::LogInfo("bot connected", {{"bot", bot->bot_id}, {"capacity", request->capacity()}});
  return reactor;
}

}  // namespace trix::matchmaking
