#include "bots/common/lobby.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "bots/sdk/seat.h"
#include "grpcpp/security/credentials.h"

namespace trix::bots {
namespace {

absl::Status ToAbsl(const grpc::Status& s, absl::string_view call) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      absl::StrCat(call, ": ", s.error_message()));
}

std::shared_ptr<grpc::Channel> Channel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  return grpc::CreateChannel(address, OrPlaintext(credentials));
}

// Calls `call` until it stops answering UNAVAILABLE (a service still starting).
template <typename Call>
grpc::Status WhileStarting(Call call) {
  const absl::Time until = absl::Now() + absl::Seconds(60);
  grpc::Status s;
  do {
    s = call();
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE) return s;
    absl::SleepFor(absl::Milliseconds(250));
  } while (absl::Now() < until);
  return s;
}

}  // namespace

Lobby::Lobby(const std::string& matchmaking_address, const std::string& ratings_address,
             std::string service_token,
             const std::shared_ptr<grpc::ChannelCredentials>& credentials)
    : matchmaking_(v1::MatchmakingService::NewStub(Channel(matchmaking_address, credentials))),
      ratings_(v1::RatingsService::NewStub(Channel(ratings_address, credentials))),
      service_token_(std::move(service_token)) {}

std::unique_ptr<grpc::ClientContext> Lobby::Context(absl::Duration deadline) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->AddMetadata("authorization", "Bearer " + service_token_);
  context->set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  return context;
}

absl::StatusOr<v1::RegisterBotResponse> Lobby::RegisterBot(const std::string& name,
                                                           const std::string& owner,
                                                           v1::BotLevel level) {
  v1::RegisterBotRequest request;
  request.set_name(name);
  request.set_owner(owner);
  request.set_level(level);
  v1::RegisterBotResponse response;
  grpc::Status s = WhileStarting([&] {
    return matchmaking_->RegisterBot(Context(absl::Seconds(10)).get(), request, &response);
  });
  if (!s.ok()) return ToAbsl(s, "RegisterBot");
  return response;
}

absl::Status Lobby::Credit(const std::string& player_id, int64_t amount,
                           const std::string& request_id) {
  v1::TransferRequest request;
  request.set_request_id(request_id);
  request.set_player_id(player_id);
  request.set_amount(amount);
  request.set_reason("demo purchase");
  v1::TransferResponse response;
  return ToAbsl(WhileStarting([&] {
                  return ratings_->Credit(Context(absl::Seconds(10)).get(), request,
                                          &response);
                }),
                "Credit");
}

absl::StatusOr<std::string> Lobby::FormParty(const std::string& host,
                                             const std::string& guest) {
  v1::CreatePartyRequest create;
  create.set_player_id(host);
  v1::Party party;
  grpc::Status s = matchmaking_->CreateParty(Context(absl::Seconds(10)).get(), create, &party);
  if (!s.ok()) return ToAbsl(s, "CreateParty");
  v1::JoinPartyRequest join;
  join.set_player_id(guest);
  join.set_code(party.code());
  s = matchmaking_->JoinParty(Context(absl::Seconds(10)).get(), join, &party);
  if (!s.ok()) return ToAbsl(s, "JoinParty");
  return party.party_id();
}

absl::StatusOr<v1::Assignment> Lobby::FindTable(
    const v1::FindTableRequest& request,
    const std::function<void(const v1::Queued&)>& queued, absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  grpc::Status s;
  while (absl::Now() < until) {
    // A retry with the same request id resumes the ticket (or its assignment).
    std::unique_ptr<grpc::ClientContext> context = Context(until - absl::Now());
    auto reader = matchmaking_->FindTable(context.get(), request);
    v1::MatchUpdate update;
    while (reader->Read(&update)) {
      if (update.has_assignment()) {
        context->TryCancel();
        reader->Finish();
        return update.assignment();
      }
      if (update.has_queued()) queued(update.queued());
    }
    s = reader->Finish();
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    absl::SleepFor(absl::Milliseconds(250));
  }
  return ToAbsl(s.ok() ? grpc::Status(grpc::StatusCode::INTERNAL, "no assignment") : s,
                "FindTable");
}

absl::StatusOr<v1::Rating> Lobby::RatingOf(const std::string& player_id,
                                           const v1::Mode& mode) {
  v1::GetRatingsRequest request;
  *request.mutable_mode() = mode;
  request.add_player_ids(player_id);
  v1::GetRatingsResponse response;
  grpc::Status s = ratings_->GetRatings(Context(absl::Seconds(10)).get(), request, &response);
  if (!s.ok()) return ToAbsl(s, "GetRatings");
  if (response.ratings_size() != 1) return absl::InternalError("GetRatings: no rating");
  return response.ratings(0);
}

absl::StatusOr<v1::Balance> Lobby::BalanceOf(const std::string& player_id) {
  v1::GetBalanceRequest request;
  request.set_player_id(player_id);
  v1::Balance balance;
  grpc::Status s = ratings_->GetBalance(Context(absl::Seconds(10)).get(), request, &balance);
  if (!s.ok()) return ToAbsl(s, "GetBalance");
  return balance;
}

absl::StatusOr<v1::RatingChange> Lobby::WaitRated(const std::string& player_id,
                                                  const v1::Mode& mode,
                                                  const std::string& game_id,
                                                  absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  v1::GetRatingHistoryRequest request;
  request.set_player_id(player_id);
  *request.mutable_mode() = mode;
  request.set_page_size(5);
  while (true) {
    v1::GetRatingHistoryResponse response;
    grpc::Status s =
        ratings_->GetRatingHistory(Context(absl::Seconds(10)).get(), request, &response);
    if (!s.ok()) return ToAbsl(s, "GetRatingHistory");
    for (const v1::RatingChange& change : response.changes()) {
      if (change.game_id() == game_id) return change;
    }
    if (absl::Now() > until) return absl::DeadlineExceededError("not rated yet");
    absl::SleepFor(absl::Milliseconds(200));
  }
}

}  // namespace trix::bots
