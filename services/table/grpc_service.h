// The thin gRPC wiring of the table service: trix.v1.TableService on the callback
// API, so that thousands of open streams and pending answers hold no thread. Each
// handler checks what only the network layer knows (the service token in the
// metadata, the caller's rate), hands the request to TableHost, and turns its
// absl::Status into a grpc::Status; no game logic lives here.
//
// Streams: UpdateStream (Subscribe, Watch) and PlayStream (Play, which also reads
// the seat's actions) write through one bounded queue. The host pushes updates
// without waiting; a client that reads so slowly that more than `stream_buffer`
// live updates queue up is cut off with RESOURCE_EXHAUSTED (and can resume with
// after_seq), so one slow client never holds up a table.
//
//   TableGrpcService service(&host, options);
//   builder.RegisterService(&service);
#ifndef TRIX_SERVICES_TABLE_GRPC_SERVICE_H_
#define TRIX_SERVICES_TABLE_GRPC_SERVICE_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "services/common/auth.h"
#include "services/common/credentials.h"
#include "services/common/rate_limit.h"
#include "services/table/grpc_status.h"
#include "services/table/opening_deadlines.h"
#include "services/table/table_host.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::table {

struct GrpcOptions {
  // Trusted callers ("authorization: Bearer <token>" of a service credential)
  // and their scopes: CreateTable needs tables:create, VoidTable tables:void, a
  // listing of any player's tables or games tables:read; a table that is not
  // public is seen (GetTable, Subscribe, GetGameRecord) with tables:read or
  // tables:create (matchmaking follows the tables it made). Null trusts nobody.
  std::shared_ptr<const service::ServiceCredentials> credentials;
  // Rate limits key on a verified identity, never on what a caller merely sends
  // (docs: README, "Rate limits"). A call is counted against exactly one bucket:
  //   - a seat whose token this instance verified against the table it hosts
  //     (Act, Subscribe, Play's opening and each action, GetGameRecord): per
  //     seat, so a bot process playing many seats from one address has each
  //     seat's whole rate, and a flooding seat slows only its own table;
  //   - a service credential: one bucket per credential name, sized for
  //     matchmaking's CreateTable and listing traffic;
  //   - everything else (no token, a token that does not verify, a table not
  //     hosted here, public reads): per client address.
  // Before any token is verified the address's bucket is asked (not charged): an
  // address that has spent it is refused without a verification.
  service::RateLimit seat_rate{.per_second = 50, .burst = 100};
  service::RateLimit backend_rate{.per_second = 5000, .burst = 10000};
  service::RateLimit peer_rate{.per_second = 500, .burst = 1000};
  // Live updates a stream may queue before it is cut off.
  size_t stream_buffer = 1024;
  // The time a Play stream has, from its opening, to send its first message
  // (subscribe); later it is ended DEADLINE_EXCEEDED. Zero: no limit.
  absl::Duration subscribe_within = absl::Seconds(5);
  // Play streams that may wait for their first message at once, over every
  // connection; one more ends RESOURCE_EXHAUSTED at once. Zero: no limit.
  size_t max_waiting_play_streams = 4096;
  // Watch streams one client address may hold open at once (those of a service
  // credential with tables:watch are not counted); one more is RESOURCE_EXHAUSTED. Zero: no limit. The table's own
  // bound is HostOptions::max_spectators_per_table.
  size_t max_watches_per_peer = 16;

  // Who may read what (docs: README, "Who may read what"). A player's tables and
  // games (ListPlayerTables, ListPlayerGames) are listed for a credential with
  // tables:read, for the player with a player token that `player_tokens`
  // verifies ("authorization: Bearer <player token>"), and for the player with
  // one of their seat tokens at a table this instance hosts ("x-trix-table-id"
  // and "x-trix-seat-token" metadata); anyone else gets UNAUTHENTICATED (no
  // credentials) or PERMISSION_DENIED (another player's). true opens them to
  // anyone, as before this setting existed. Spectating is per table
  // (CreateTableRequest.public_spectating).
  bool public_player_history = false;
  std::shared_ptr<const service::PlayerTokenVerifier> player_tokens;
};

class TableGrpcService final : public v1::TableService::CallbackService {
 public:
  // `host` must outlive the service.
  TableGrpcService(TableHost* host, GrpcOptions options);

  grpc::ServerUnaryReactor* CreateTable(grpc::CallbackServerContext* context,
                                        const v1::CreateTableRequest* request,
                                        v1::CreateTableResponse* response) override;
  grpc::ServerUnaryReactor* GetTable(grpc::CallbackServerContext* context,
                                     const v1::GetTableRequest* request,
                                     v1::TableView* response) override;
  grpc::ServerUnaryReactor* ListPlayerTables(
      grpc::CallbackServerContext* context, const v1::ListPlayerTablesRequest* request,
      v1::ListPlayerTablesResponse* response) override;
  grpc::ServerWriteReactor<v1::TableUpdate>* Subscribe(
      grpc::CallbackServerContext* context, const v1::SubscribeRequest* request) override;
  grpc::ServerWriteReactor<v1::TableUpdate>* Watch(
      grpc::CallbackServerContext* context, const v1::WatchRequest* request) override;
  grpc::ServerUnaryReactor* Act(grpc::CallbackServerContext* context,
                                const v1::ActRequest* request,
                                v1::ActResponse* response) override;
  grpc::ServerBidiReactor<v1::PlayRequest, v1::TableUpdate>* Play(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* GetGameRecord(grpc::CallbackServerContext* context,
                                          const v1::GetGameRecordRequest* request,
                                          v1::GameRecord* response) override;
  grpc::ServerUnaryReactor* ListPlayerGames(
      grpc::CallbackServerContext* context, const v1::ListPlayerGamesRequest* request,
      v1::ListPlayerGamesResponse* response) override;
  grpc::ServerUnaryReactor* VoidTable(grpc::CallbackServerContext* context,
                                      const v1::VoidTableRequest* request,
                                      v1::VoidTableResponse* response) override;
  grpc::ServerUnaryReactor* LocateTable(grpc::CallbackServerContext* context,
                                        const v1::LocateTableRequest* request,
                                        v1::TableLocation* response) override;

 private:
  // RESOURCE_EXHAUSTED when the caller's identity (see GrpcOptions) is over its
  // rate. `table_id` and `seat_token` name the seat to verify (either may be
  // empty); `backend` is the name of the service credential the call carried
  // (empty: none).
  absl::Status CheckRate(grpc::CallbackServerContext* context,
                         const std::string& table_id, const std::string& seat_token,
                         const std::string& backend = "");
  // `seat_key`, when given, remembers the verified seat's limiter key for the next
  // check of the same table and token (a Play stream's); empty until verified.
  absl::Status CheckRate(const std::string& peer_key, const std::string& table_id,
                         const std::string& seat_token, const std::string& backend,
                         std::string* seat_key = nullptr);
  // RESOURCE_EXHAUSTED when the address `peer_key` has spent its bucket: asked
  // before any token a call carries is verified, so that made-up tokens cost at
  // most the address's rate in verifications.
  absl::Status Screen(const std::string& peer_key) const;
  // The service credential the call carries, or UNAUTHENTICATED (RESOURCE_EXHAUSTED
  // when Screen refuses).
  absl::StatusOr<service::ServiceCaller> Backend(grpc::CallbackServerContext* context) const;
  // The credential's name when it holds `scope`; else the refusal naming the scope.
  absl::StatusOr<service::ServiceCaller> Require(grpc::CallbackServerContext* context,
                                                 absl::string_view scope) const;
  // Whether the caller is a backend that may see tables that are not public.
  static bool SeesPrivateTables(const absl::StatusOr<service::ServiceCaller>& backend);
  // Whether the caller may list `player_id`'s tables and games (see GrpcOptions).
  absl::Status CheckPlayerAccess(grpc::CallbackServerContext* context,
                                 const std::string& player_id) const;
  // `admitted` not OK: the stream ends with it at once. `on_done` runs when gRPC
  // is done with the stream.
  grpc::ServerWriteReactor<v1::TableUpdate>* OpenStream(
      grpc::CallbackServerContext* context, const std::string& table_id,
      const std::string& seat_token, bool spectator, uint64_t after_seq,
      const absl::Status& admitted = absl::OkStatus(),
      std::function<void()> on_done = nullptr);
  // Counts a Watch stream against its address (max_watches_per_peer) unless the
  // caller holds tables:watch: `release`
  // gives it back. RESOURCE_EXHAUSTED when the address holds its most.
  absl::Status AdmitWatch(grpc::CallbackServerContext* context,
                          std::function<void()>* release);
  // CheckRate, then CheckPlayerAccess.
  absl::Status CheckListing(grpc::CallbackServerContext* context,
                            const std::string& player_id);

  TableHost* const host_;
  const GrpcOptions options_;
  service::RateLimiter seat_limiter_;
  service::RateLimiter backend_limiter_;
  service::RateLimiter peer_limiter_;
  absl::Mutex watches_mu_;
  absl::flat_hash_map<std::string, size_t> watches_ ABSL_GUARDED_BY(watches_mu_);
  OpeningDeadlines opening_;  // Play streams' first messages
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_GRPC_SERVICE_H_
