#include "services/ratings/grpc_service.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/common/grpc_metadata.h"
#include "services/common/tls.h"

namespace trix::ratings {
namespace {

grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

void SetTime(absl::Time t, google::protobuf::Timestamp* out) {
  const int64_t us = absl::ToUnixMicros(t);
  out->set_seconds(us / 1000000);
  out->set_nanos(static_cast<int32_t>(us % 1000000) * 1000);
}

void ToProto(const PlayerRating& r, v1::Rating* out) {
  out->set_player_id(r.player_id);
  absl::StatusOr<v1::Mode> mode = wire::ModeFromName(r.mode);
  if (mode.ok()) *out->mutable_mode() = *mode;
  out->set_mu(r.skill.mu);
  out->set_sigma(r.skill.sigma);
  out->set_display(r.display);
  out->set_provisional(r.provisional);
  out->set_games(r.games);
}

void ToProto(const BalanceInfo& b, v1::Balance* out) {
  out->set_player_id(b.player_id);
  out->set_balance(b.balance);
  out->set_held(b.held);
  out->set_available(b.available());
}

void ToProto(const HoldInfo& h, v1::Hold* out) {
  out->set_hold_id(h.hold_id);
  out->set_player_id(h.player_id);
  out->set_amount(h.amount);
  out->set_state(static_cast<v1::HoldState>(h.state));
  if (h.state == HoldState::kAttached || h.state == HoldState::kSettled) {
    out->set_table_id(h.table_id);
    out->set_seat(h.seat);
  }
}

}  // namespace

std::string RatingsGrpcService::Identify(grpc::ServerContext* context,
                                         absl::string_view scope, Players players,
                                         const std::string& player_id,
                                         absl::Status* refusal,
                                         service::ServiceCaller* credential) const {
  const std::string authorization = service::ClientMetadata(*context, "authorization");
  absl::StatusOr<service::ServiceCaller> caller =
      access_.credentials
          ? access_.credentials->Authenticate(
                authorization, service::PeerCertificateNames(context->auth_context().get()))
                          : absl::UnauthenticatedError("no service credential is trusted");
  if (caller.ok()) {
    *refusal = caller->Allows(scope);
    if (credential != nullptr) *credential = *caller;
    return "credential:" + caller->name;
  }
  const std::string bearer = service::BearerToken(authorization);
  if (access_.player_tokens == nullptr || bearer.empty()) {
    *refusal = caller.status();
    return "";
  }
  absl::StatusOr<std::string> player = access_.player_tokens->PlayerOf(bearer);
  if (!player.ok()) {
    *refusal = player.status();
    return "";
  }
  if (players == Players::kNone ||
      (players == Players::kNamed && player_id != *player)) {
    *refusal = absl::PermissionDeniedError(absl::StrCat(
        "a player token reads only its own player's; this needs the scope ", scope));
  }
  return "player:" + *player;
}

absl::Status RatingsGrpcService::CheckConsent(const service::ServiceCaller& credential,
                                              const std::string& player_id,
                                              const std::string& consent) const {
  if (!credential.holds_need_consent) return absl::OkStatus();
  const std::string needs = absl::StrCat("the credential \"", credential.name,
                                         "\" holds a stake only with the player's consent: ");
  if (consent.empty()) {
    return absl::PermissionDeniedError(needs + "consent (the player's own token) is missing");
  }
  if (access_.player_tokens == nullptr) {
    return absl::PermissionDeniedError(
        needs + "this ratings service verifies no player tokens (--jwks_file)");
  }
  absl::StatusOr<std::string> player = access_.player_tokens->PlayerOf(consent);
  if (!player.ok()) {
    return absl::PermissionDeniedError(absl::StrCat(needs, player.status().message()));
  }
  if (*player != player_id) {
    return absl::PermissionDeniedError(needs + "the consent is another player's token");
  }
  return absl::OkStatus();
}

absl::Status RatingsGrpcService::Admit(grpc::ServerContext* context, const char* method,
                                       absl::string_view scope, Players players,
                                       const std::string& player_id,
                                       service::ServiceCaller* credential) {
  if (!ready_.load()) return absl::UnavailableError("the ratings service is not ready");
  // An address whose unidentified calls spent its bucket is refused before any
  // token is verified: bad tokens cost the service a bucket check, not a verify.
  if (peer_limiter_.Spent(service::PeerKey(context->peer()))) {
    metrics_->rate_limited.Add({{"method", method}, {"limit", "address"}}).Increment();
    return absl::ResourceExhaustedError("too many requests from this address; slow down");
  }
  absl::Status refusal;
  const std::string identity =
      Identify(context, scope, players, player_id, &refusal, credential);
  service::RateLimiter* limiter = &peer_limiter_;
  std::string bucket = identity;
  const char* limit = "address";
  if (absl::StartsWith(identity, "credential:")) {
    limiter = &credential_limiter_;
    limit = "credential";
  } else if (!identity.empty()) {
    limiter = &player_limiter_;
    limit = "player";
  } else {
    bucket = service::PeerKey(context->peer());
  }
  if (!limiter->Allow(bucket)) {
    metrics_->rate_limited.Add({{"method", method}, {"limit", limit}}).Increment();
    return absl::ResourceExhaustedError("too many requests; slow down");
  }
  return refusal;
}

grpc::Status RatingsGrpcService::GetPlayerRatings(grpc::ServerContext* context,
                                                  const v1::GetPlayerRatingsRequest* request,
                                                  v1::GetPlayerRatingsResponse* response) {
  if (absl::Status s = Admit(context, "GetPlayerRatings", service::kRatingsRead,
                             Players::kNamed, request->player_id());
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<std::vector<PlayerRating>> r = reader_->PlayerRatings(request->player_id());
  if (!r.ok()) return ToGrpc(r.status());
  for (const PlayerRating& p : *r) ToProto(p, response->add_ratings());
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::GetRatings(grpc::ServerContext* context,
                                            const v1::GetRatingsRequest* request,
                                            v1::GetRatingsResponse* response) {
  if (absl::Status s = Admit(context, "GetRatings", service::kRatingsRead); !s.ok()) {
    return ToGrpc(s);
  }
  std::vector<std::string> ids(request->player_ids().begin(), request->player_ids().end());
  absl::StatusOr<std::vector<PlayerRating>> r = reader_->Ratings(wire::ModeName(request->mode()), ids);
  if (!r.ok()) return ToGrpc(r.status());
  for (const PlayerRating& p : *r) ToProto(p, response->add_ratings());
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::GetLeaderboard(grpc::ServerContext* context,
                                                const v1::GetLeaderboardRequest* request,
                                                v1::GetLeaderboardResponse* response) {
  if (absl::Status s =
          Admit(context, "GetLeaderboard", service::kRatingsRead, Players::kAny);
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<LadderPage> page =
      reader_->Leaderboard(wire::ModeName(request->mode()), request->page_size(),
                           request->page_token(), request->include_provisional());
  if (!page.ok()) return ToGrpc(page.status());
  for (const LadderEntry& e : page->entries) {
    v1::LeaderboardEntry* out = response->add_entries();
    out->set_rank(e.rank);
    ToProto(e.rating, out->mutable_rating());
  }
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::GetRatingHistory(grpc::ServerContext* context,
                                                  const v1::GetRatingHistoryRequest* request,
                                                  v1::GetRatingHistoryResponse* response) {
  if (absl::Status s = Admit(context, "GetRatingHistory", service::kRatingsRead,
                             Players::kNamed, request->player_id());
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<HistoryPage> page =
      reader_->History(request->player_id(), wire::ModeName(request->mode()),
                       request->page_size(), request->page_token());
  if (!page.ok()) return ToGrpc(page.status());
  for (const HistoryEntry& e : page->changes) {
    v1::RatingChange* out = response->add_changes();
    out->set_game_id(e.game_id);
    SetTime(e.finished, out->mutable_finished());
    out->set_seat(e.seat);
    out->set_place(e.place);
    out->set_mu_before(e.before.mu);
    out->set_sigma_before(e.before.sigma);
    out->set_mu_after(e.after.mu);
    out->set_sigma_after(e.after.sigma);
    out->set_display_before(e.display_before);
    out->set_display_after(e.display_after);
  }
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::Transfer(grpc::ServerContext* context, EntryKind kind,
                                          const v1::TransferRequest* request,
                                          v1::TransferResponse* response) {
  if (absl::Status s = Admit(context, kind == EntryKind::kCredit ? "Credit" : "Debit",
                             service::kLedgerWrite);
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<trix::ratings::Transfer> t = ledger_->Move(
      kind, request->request_id(), request->player_id(), request->amount(), request->reason());
  if (!t.ok()) return ToGrpc(t.status());
  metrics_->ledger_entries.Add({{"kind", kind == EntryKind::kCredit ? "credit" : "debit"}})
      .Increment();
  response->set_entry_id(t->entry_id);
  ToProto(t->balance, response->mutable_balance());
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::Credit(grpc::ServerContext* context,
                                        const v1::TransferRequest* request,
                                        v1::TransferResponse* response) {
  return Transfer(context, EntryKind::kCredit, request, response);
}

grpc::Status RatingsGrpcService::Debit(grpc::ServerContext* context,
                                       const v1::TransferRequest* request,
                                       v1::TransferResponse* response) {
  return Transfer(context, EntryKind::kDebit, request, response);
}

grpc::Status RatingsGrpcService::GetBalance(grpc::ServerContext* context,
                                            const v1::GetBalanceRequest* request,
                                            v1::Balance* response) {
  if (absl::Status s = Admit(context, "GetBalance", service::kLedgerRead, Players::kNamed,
                             request->player_id());
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<BalanceInfo> b = ledger_->GetBalance(request->player_id());
  if (!b.ok()) return ToGrpc(b.status());
  ToProto(*b, response);
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::GetStatement(grpc::ServerContext* context,
                                              const v1::GetStatementRequest* request,
                                              v1::GetStatementResponse* response) {
  if (absl::Status s = Admit(context, "GetStatement", service::kLedgerRead,
                             Players::kNamed, request->player_id());
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<StatementPage> page =
      ledger_->GetStatement(request->player_id(), request->page_size(), request->page_token());
  if (!page.ok()) return ToGrpc(page.status());
  for (const StatementEntry& e : page->lines) {
    v1::StatementLine* out = response->add_lines();
    out->set_entry_id(e.entry_id);
    out->set_kind(static_cast<v1::EntryKind>(e.kind));
    out->set_amount(e.amount);
    out->set_balance_after(e.balance_after);
    out->set_game_id(e.game_id);
    out->set_reason(e.reason);
    SetTime(e.time, out->mutable_time());
  }
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::HoldStake(grpc::ServerContext* context,
                                           const v1::HoldStakeRequest* request,
                                           v1::Hold* response) {
  service::ServiceCaller credential;
  if (absl::Status s = Admit(context, "HoldStake", service::kLedgerHold, Players::kNone, "",
                             &credential);
      !s.ok()) {
    return ToGrpc(s);
  }
  if (absl::Status s = CheckConsent(credential, request->player_id(), request->consent());
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<HoldInfo> h =
      ledger_->HoldStake(request->request_id(), request->player_id(), request->amount(),
                         request->replaces_hold_id());
  if (!h.ok()) return ToGrpc(h.status());
  ToProto(*h, response);
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::ReleaseHold(grpc::ServerContext* context,
                                             const v1::ReleaseHoldRequest* request,
                                             v1::Hold* response) {
  if (absl::Status s = Admit(context, "ReleaseHold", service::kLedgerHold); !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<HoldInfo> h = ledger_->ReleaseHold(request->hold_id(), request->table_id());
  if (!h.ok()) return ToGrpc(h.status());
  ToProto(*h, response);
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::AttachHold(grpc::ServerContext* context,
                                            const v1::AttachHoldRequest* request,
                                            v1::Hold* response) {
  if (absl::Status s = Admit(context, "AttachHold", service::kLedgerHold); !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<HoldInfo> h =
      ledger_->AttachHold(request->hold_id(), request->table_id(), request->seat());
  if (!h.ok()) return ToGrpc(h.status());
  ToProto(*h, response);
  return grpc::Status::OK;
}

grpc::Status RatingsGrpcService::KeepHold(grpc::ServerContext* context,
                                          const v1::KeepHoldRequest* request,
                                          v1::Hold* response) {
  if (absl::Status s = Admit(context, "KeepHold", service::kLedgerHold); !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<HoldInfo> h = ledger_->KeepHold(request->hold_id());
  if (!h.ok()) return ToGrpc(h.status());
  ToProto(*h, response);
  return grpc::Status::OK;
}

}  // namespace trix::ratings
