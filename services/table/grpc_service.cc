#include "services/table/grpc_service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/rpc/status.pb.h"
#include "proto/wire/table_location.h"
#include "services/common/auth.h"
#include "services/common/grpc_metadata.h"
#include "services/common/tls.h"
#include "services/table/refusals.h"
#include "services/table/update_stream.h"

namespace trix::table {
namespace {

// A finished reply: the response (if OK) and the status, on the reactor.
template <typename T>
Reply<T> Finisher(grpc::CallbackServerContext* context, grpc::ServerUnaryReactor* reactor,
                  T* response) {
  return [context, reactor, response](absl::StatusOr<T> result) {
    if (result.ok()) *response = *std::move(result);
    const grpc::Status status = ToGrpcStatus(result.status());
    AddLocationMetadata(context, status);
    reactor->Finish(status);
  };
}

// The rate bucket of a call: its credential's name, or "" for a player or anyone.
std::string BucketOf(const absl::StatusOr<service::ServiceCaller>& backend) {
  return backend.ok() ? backend->name : "";
}

}  // namespace

TableGrpcService::TableGrpcService(TableHost* host, GrpcOptions options)
    : host_(host),
      options_(std::move(options)),
      seat_limiter_(options_.seat_rate),
      backend_limiter_(options_.backend_rate),
      peer_limiter_(options_.peer_rate),
      opening_(options_.subscribe_within, options_.max_waiting_play_streams) {}

absl::Status TableGrpcService::Screen(const std::string& peer_key) const {
  if (!peer_limiter_.Spent(peer_key)) return absl::OkStatus();
  return absl::ResourceExhaustedError("too many requests from this address; slow down");
}

absl::StatusOr<service::ServiceCaller> TableGrpcService::Backend(
    grpc::CallbackServerContext* context) const {
  if (options_.credentials == nullptr) {
    return absl::UnauthenticatedError("this instance trusts no service credential");
  }
  if (absl::Status s = Screen(service::PeerKey(context->peer())); !s.ok()) return s;
  return options_.credentials->Authenticate(
      service::ClientMetadata(*context, "authorization"),
      service::PeerCertificateNames(context->auth_context().get()));
}

absl::StatusOr<service::ServiceCaller> TableGrpcService::Require(
    grpc::CallbackServerContext* context, absl::string_view scope) const {
  if (options_.credentials == nullptr) {
    return absl::UnauthenticatedError("this instance trusts no service credential");
  }
  if (absl::Status s = Screen(service::PeerKey(context->peer())); !s.ok()) return s;
  return options_.credentials->Require(
      service::ClientMetadata(*context, "authorization"), scope,
      service::PeerCertificateNames(context->auth_context().get()));
}

bool TableGrpcService::SeesPrivateTables(
    const absl::StatusOr<service::ServiceCaller>& backend) {
  return backend.ok() &&
         (backend->Holds(service::kTablesRead) || backend->Holds(service::kTablesCreate));
}

absl::Status TableGrpcService::CheckRate(grpc::CallbackServerContext* context,
                                         const std::string& table_id,
                                         const std::string& seat_token,
                                         const std::string& backend) {
  return CheckRate(service::PeerKey(context->peer()), table_id, seat_token, backend);
}

absl::Status TableGrpcService::CheckRate(const std::string& peer_key,
                                         const std::string& table_id,
                                         const std::string& seat_token,
                                         const std::string& backend,
                                         std::string* seat_key) {
  if (!backend.empty()) {
    if (backend_limiter_.Allow(backend)) return absl::OkStatus();
    return absl::ResourceExhaustedError("too many requests from the backend; slow down");
  }
  std::string key;
  if (seat_key == nullptr) seat_key = &key;
  if (seat_key->empty() && !seat_token.empty() && !table_id.empty()) {
    if (absl::Status s = Screen(peer_key); !s.ok()) return s;
    if (absl::StatusOr<int> seat = host_->VerifySeat(table_id, seat_token); seat.ok()) {
      *seat_key = absl::StrCat(table_id, "/", *seat);
    }
  }
  if (!seat_key->empty()) {
    if (seat_limiter_.Allow(*seat_key)) return absl::OkStatus();
    return absl::ResourceExhaustedError("too many requests for this seat; slow down");
  }
  if (peer_limiter_.Allow(peer_key)) return absl::OkStatus();
  return absl::ResourceExhaustedError("too many requests from this address; slow down");
}

absl::Status TableGrpcService::CheckPlayerAccess(grpc::CallbackServerContext* context,
                                                 const std::string& player_id) const {
  if (options_.public_player_history) return absl::OkStatus();
  absl::StatusOr<service::ServiceCaller> backend = Backend(context);
  if (backend.ok()) return Require(context, service::kTablesRead).status();
  bool presented = false;
  const std::string bearer =
      service::BearerToken(service::ClientMetadata(*context, "authorization"));
  if (!bearer.empty() && options_.player_tokens != nullptr) {
    presented = true;
    absl::StatusOr<std::string> player = options_.player_tokens->PlayerOf(bearer);
    if (player.ok() && *player == player_id) return absl::OkStatus();
  }
  const std::string table_id = service::ClientMetadata(*context, "x-trix-table-id");
  const std::string seat_token = service::ClientMetadata(*context, "x-trix-seat-token");
  if (!table_id.empty() || !seat_token.empty()) {
    presented = true;
    absl::StatusOr<std::string> player = host_->PlayerOfSeat(table_id, seat_token);
    if (player.ok() && *player == player_id) return absl::OkStatus();
  }
  if (!presented && bearer.empty()) {
    return absl::UnauthenticatedError(
        "a player's tables and games are listed for a service credential with "
        "tables:read, the "
        "player's token, or one of the player's seat tokens (x-trix-table-id and "
        "x-trix-seat-token metadata)");
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "the credentials given do not prove player ", player_id.substr(0, 128)));
}

absl::Status TableGrpcService::CheckListing(grpc::CallbackServerContext* context,
                                            const std::string& player_id) {
  if (absl::Status s = CheckRate(context, "", "", BucketOf(Backend(context))); !s.ok()) {
    return s;
  }
  return CheckPlayerAccess(context, player_id);
}

grpc::ServerUnaryReactor* TableGrpcService::CreateTable(
    grpc::CallbackServerContext* context, const v1::CreateTableRequest* request,
    v1::CreateTableResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<service::ServiceCaller> creator = Require(context, service::kTablesCreate);
  absl::Status allowed = creator.status();
  if (allowed.ok()) allowed = CheckRate(context, "", "", creator->name);
  if (!allowed.ok()) {
    reactor->Finish(ToGrpcStatus(allowed));
    return reactor;
  }
  host_->CreateTable(*request, Finisher(context, reactor, response));
  return reactor;
}

grpc::ServerUnaryReactor* TableGrpcService::VoidTable(
    grpc::CallbackServerContext* context, const v1::VoidTableRequest* request,
    v1::VoidTableResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<service::ServiceCaller> voider = Require(context, service::kTablesVoid);
  absl::Status allowed = voider.status();
  if (allowed.ok()) allowed = CheckRate(context, "", "", voider->name);
  if (!allowed.ok()) {
    reactor->Finish(ToGrpcStatus(allowed));
    return reactor;
  }
  host_->VoidTable(*request, Finisher(context, reactor, response));
  return reactor;
}

grpc::ServerUnaryReactor* TableGrpcService::GetTable(grpc::CallbackServerContext* context,
                                                     const v1::GetTableRequest* request,
                                                     v1::TableView* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::StatusOr<service::ServiceCaller> backend = Backend(context);
  if (absl::Status s = CheckRate(context, "", "", BucketOf(backend)); !s.ok()) {
    reactor->Finish(ToGrpcStatus(s));
    return reactor;
  }
  host_->GetTable(*request, Finisher(context, reactor, response),
                  /*trusted=*/SeesPrivateTables(backend));
  return reactor;
}

grpc::ServerUnaryReactor* TableGrpcService::ListPlayerTables(
    grpc::CallbackServerContext* context, const v1::ListPlayerTablesRequest* request,
    v1::ListPlayerTablesResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::Status s = CheckListing(context, request->player_id()); !s.ok()) {
    reactor->Finish(ToGrpcStatus(s));
    return reactor;
  }
  host_->ListPlayerTables(*request, Finisher(context, reactor, response));
  return reactor;
}

grpc::ServerUnaryReactor* TableGrpcService::Act(grpc::CallbackServerContext* context,
                                                const v1::ActRequest* request,
                                                v1::ActResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::Status s = CheckRate(context, request->table_id(), request->seat_token());
      !s.ok()) {
    reactor->Finish(ToGrpcStatus(s));
    return reactor;
  }
  host_->Act(*request, Finisher(context, reactor, response));
  return reactor;
}

grpc::ServerBidiReactor<v1::PlayRequest, v1::TableUpdate>* TableGrpcService::Play(
    grpc::CallbackServerContext* context) {
  // The peer's address once, not per action; the seat once verified (a stream's
  // table and token never change, and a table's seats never do), not per action:
  // verifying hashes the token.
  return new PlayStream(
      context, host_, options_.stream_buffer, &host_->metrics(),
      [this, peer = service::PeerKey(context->peer()), seat_key = std::string()](
          const std::string& table_id, const std::string& seat_token) mutable {
        return CheckRate(peer, table_id, seat_token, /*backend=*/"", &seat_key);
      },
      &opening_);
}

grpc::ServerUnaryReactor* TableGrpcService::GetGameRecord(
    grpc::CallbackServerContext* context, const v1::GetGameRecordRequest* request,
    v1::GameRecord* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::StatusOr<service::ServiceCaller> backend = Backend(context);
  if (absl::Status s = CheckRate(context, request->game_id(), request->seat_token(),
                                 BucketOf(backend));
      !s.ok()) {
    reactor->Finish(ToGrpcStatus(s));
    return reactor;
  }
  host_->GetGameRecord(*request, Finisher(context, reactor, response),
                       /*trusted=*/SeesPrivateTables(backend));
  return reactor;
}

grpc::ServerUnaryReactor* TableGrpcService::ListPlayerGames(
    grpc::CallbackServerContext* context, const v1::ListPlayerGamesRequest* request,
    v1::ListPlayerGamesResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::Status s = CheckListing(context, request->player_id()); !s.ok()) {
    reactor->Finish(ToGrpcStatus(s));
    return reactor;
  }
  host_->ListPlayerGames(*request, Finisher(context, reactor, response));
  return reactor;
}

grpc::ServerUnaryReactor* TableGrpcService::LocateTable(
    grpc::CallbackServerContext* context, const v1::LocateTableRequest* request,
    v1::TableLocation* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::Status s = CheckRate(context, "", "", BucketOf(Backend(context))); !s.ok()) {
    reactor->Finish(ToGrpcStatus(s));
    return reactor;
  }
  host_->LocateTable(*request, Finisher(context, reactor, response));
  return reactor;
}

absl::Status TableGrpcService::AdmitWatch(grpc::CallbackServerContext* context,
                                          std::function<void()>* release) {
  if (options_.max_watches_per_peer == 0 || Require(context, service::kTablesWatch).ok()) {
    return absl::OkStatus();
  }
  std::string peer = service::PeerKey(context->peer());
  absl::MutexLock lock(&watches_mu_);
  size_t& open = watches_[peer];
  if (open >= options_.max_watches_per_peer) {
    return absl::ResourceExhaustedError(
        absl::StrCat("this address has ", open,
                     " Watch streams open, the most it may; close one first"));
  }
  ++open;
  *release = [this, peer = std::move(peer)] {
    absl::MutexLock lock(&watches_mu_);
    auto it = watches_.find(peer);
    if (it != watches_.end() && --it->second == 0) watches_.erase(it);
  };
  return absl::OkStatus();
}

grpc::ServerWriteReactor<v1::TableUpdate>* TableGrpcService::OpenStream(
    grpc::CallbackServerContext* context, const std::string& table_id,
    const std::string& seat_token, bool spectator, uint64_t after_seq,
    const absl::Status& admitted, std::function<void()> on_done) {
  auto* stream = new UpdateStream(context, options_.stream_buffer, &host_->metrics(),
                                  std::move(on_done));
  std::shared_ptr<StreamSink> sink = stream->sink();
  if (!admitted.ok()) {
    sink->Close(admitted);
    return stream;
  }
  if (absl::Status s = CheckRate(context, table_id, seat_token); !s.ok()) {
    sink->Close(s);
    return stream;
  }
  host_->Subscribe(table_id, seat_token, spectator, after_seq, std::move(sink),
                   /*trusted=*/SeesPrivateTables(Backend(context)));
  return stream;
}

grpc::ServerWriteReactor<v1::TableUpdate>* TableGrpcService::Subscribe(
    grpc::CallbackServerContext* context, const v1::SubscribeRequest* request) {
  return OpenStream(context, request->table_id(), request->seat_token(),
                    /*spectator=*/false, request->after_seq());
}

grpc::ServerWriteReactor<v1::TableUpdate>* TableGrpcService::Watch(
    grpc::CallbackServerContext* context, const v1::WatchRequest* request) {
  std::function<void()> release;
  const absl::Status admitted = AdmitWatch(context, &release);
  return OpenStream(context, request->table_id(), "", /*spectator=*/true,
                    request->after_seq(), admitted, std::move(release));
}

}  // namespace trix::table
