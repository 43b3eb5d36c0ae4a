// TableHost: creating tables, recovering them from the store, leases, maintenance
// and shutdown.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "engine/observation.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/common/failpoint.h"
#include "services/common/logging.h"
#include "services/table/refusals.h"
#include "services/table/slot.h"
#include "engine/deal_proof.h"
#include "services/table/table_host.h"

namespace trix::table {

using service::LogError;
using service::LogInfo;
using service::LogWarn;

namespace {

constexpr size_t kMaxIdBytes = 128;
constexpr size_t kMaxNameBytes = 64;

// A seat token its creator chose (SeatAssignment.seat_token); empty is fine.
absl::Status CheckChosenToken(const std::string& token) {
  if (token.empty()) return absl::OkStatus();
  if (token.size() < 32 || token.size() > 128) {
    return absl::InvalidArgumentError("must be 32 to 128 characters");
  }
  if (token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                              "0123456789-_") != std::string::npos) {
    return absl::InvalidArgumentError("may hold only A-Z, a-z, 0-9, - and _");
  }
  return absl::OkStatus();
}

// For the matchmaking test of a lost answer: the table is made (and its first
// deal committed) as usual, but its caller hears UNAVAILABLE.
Reply<v1::CreateTableResponse> LoseAnswer(Reply<v1::CreateTableResponse> reply) {
  return [reply = std::move(reply)](absl::StatusOr<v1::CreateTableResponse> answer) {
    if (!answer.ok()) return reply(std::move(answer));
    LogWarn("failpoint: CreateTable answer lost", {{"table", answer->table_id()}});
    reply(absl::UnavailableError("failpoint table.lose_create_answer"));
  };
}

// The game a checked CreateTable makes, and its answer's table id and seat tokens.
NewGame GameFor(const v1::CreateTableRequest& request,
                const v1::internal::TableSettings& settings, v1::CreateTableResponse& response) {
  NewGame game;
  game.game_id = service::NewUuid();
  game.request_id = request.request_id();
  game.mode = wire::ModeName(request.mode());
  game.config = settings.SerializeAsString();
  response.set_table_id(game.game_id);
  for (int s = 0; s < engine::kNumSeats; ++s) {
    const v1::SeatAssignment& seat = request.seats(s);
    // An autopilot seat's token is made (the store keeps every seat's hash) but
    // never handed out: nobody can act for that seat.
    const std::string token =
        seat.seat_token().empty() ? service::NewSeatToken() : seat.seat_token();
    response.add_seat_tokens(seat.autopilot() ? "" : token);
    game.seats[s] = {seat.player_id(), seat.display_name(), seat.bot() || seat.autopilot(),
                     seat.stake(), service::TokenHash(token)};
  }
  return game;
}

}  // namespace

// --- Start, maintenance, shutdown ---------------------------------------------------

absl::Status TableHost::Start() {
  if (started_.load()) return absl::OkStatus();
  if (absl::Status ready = store_->CheckReady(); !ready.ok()) return ready;
  if (absl::Status s = RenewHosted(/*refresh=*/false); !s.ok()) return s;
  Heartbeat();
  // Its own tables are hosted again before anyone is told SERVING.
  AdoptAtStart();
  started_.store(true);
  maintenance_ = std::thread([this] { MaintenanceLoop(); });
  LogInfo("table host started", {{"instance", options_.instance_id},
                                 {"tables", static_cast<int64_t>(table_count())}});
  return absl::OkStatus();
}

void TableHost::MaintenanceLoop() {
  // Jittered rounds: instances that came back together do not claim in lockstep.
  auto next = [this] {
    const double jitter =
        0.75 + 0.5 * static_cast<double>(service::RandomUint64() % 1000) / 1000;
    return options_.maintenance_every * jitter;
  };
  while (!stop_maintenance_.WaitForNotificationWithTimeout(next())) RunMaintenance();
}

void TableHost::RunMaintenance() {
  if (draining_.load()) return;
  const bool ready = store_->CheckReady().ok();
  if (ready != store_ready_) {
    store_ready_ = ready;
    LogWarn(ready ? "the database is back" : "the database is unreachable");
    std::function<void(bool)> listener;
    {
      absl::MutexLock lock(&mu_);
      listener = readiness_listener_;
    }
    if (listener) listener(ready);
  }
  // Nothing to claim or renew without a database, and one line above says so
  // (rather than one per round per operation).
  if (!ready) {
    committer_.DoubtLogs();
    return;
  }
  // Renewal first: adoption never delays it (claims are bounded, and the
  // claimed tables load on the io pool).
  if (absl::Status s = RenewHosted(/*refresh=*/false); !s.ok()) {
    LogWarn("lease renewal failed", {{"error", s.ToString()}});
  }
  Heartbeat();
  ClaimRound();
  fleet_.ReleaseOwed([this](const std::string& id) { return FindSlot(id) != nullptr; });
  // A table the database holds as running after this instance saw it end (commits
  // lost in a failover of the database) is still this instance's: it is released
  // with the finished copy, and taken up again like a dead instance's table.
  const std::vector<std::string> dropped = DropExpired();
  fleet_.ReleaseLeases(dropped).IgnoreError();  // owed when refused
  if (committer_.TakeDoubt() && !CheckStoredLogs().ok()) committer_.DoubtLogs();
}

void TableHost::ClaimRound() {
  const int room = options_.max_tables - static_cast<int>(table_count());
  if (room <= 0) return;
  AdoptClaimed(fleet_.ClaimRound(room), nullptr);
}

void TableHost::ClaimRoundNow() {
  // A call just claimed a table nobody held: an instance died or left, and its
  // other tables are free too. They are claimed now, in one round, rather than at
  // the next maintenance round (up to lease_ttl/3 away), so that the seats coming
  // for them find them on their way (a placeholder to wait on) instead of each
  // adopting its own. One such round at a time.
  if (draining_.load() || claim_round_running_.exchange(true)) return;
  io_.Post([this] {
    ClaimRound();
    claim_round_running_.store(false);
  });
}

std::vector<std::string> TableHost::DropExpired() {
  const absl::Time now = absl::Now();
  // A leak for the soak to catch: finished tables leave the host but stay in memory.
  static auto* const leaked = service::FailpointArmed("table.leak_finished_tables")
                                  ? new std::vector<std::shared_ptr<Slot>>
                                  : nullptr;
  std::vector<std::string> dropped;
  absl::MutexLock lock(&mu_);
  absl::erase_if(slots_, [&](const auto& entry) {
    const Slot& slot = *entry.second;
    const bool done =
        slot.finished.load() &&
        absl::FromUnixMicros(slot.finished_at_us.load()) + options_.finished_linger < now;
    if (done && leaked != nullptr) leaked->push_back(entry.second);
    if (done) dropped.push_back(entry.first);
    return done;
  });
  metrics_.tables.Set(static_cast<double>(slots_.size()));
  absl::erase_if(create_answers_,
                 [&](const auto& entry) { return entry.second.expires < now; });
  adoptions_.DropExpired(now);
  return dropped;
}

absl::Status TableHost::AddSlot(std::unique_ptr<Table> table,
                                std::shared_ptr<Slot>* out) {
  auto slot = std::make_shared<Slot>(table->id());
  // Set up before the slot is published: from then on only its strand touches it.
  // Events already in the log were streamed by whoever wrote them; clients resume
  // with after_seq.
  slot->streamed = table->event_count();
  slot->acknowledged = table->log_length();
  for (int s = 0; s < engine::kNumSeats; ++s) {
    slot->token_hashes[s] = table->seats()[s].token_hash;
    slot->player_ids[s] = table->seats()[s].player_id;
  }
  slot->seats_known.store(true, std::memory_order_release);
  slot->phase.store(static_cast<int>(wire::PhaseToProto(table->game().phase())));
  slot->table = std::move(table);
  absl::MutexLock lock(&mu_);
  adoptions_.ForgetUnknown(slot->id);
  if (!slots_.emplace(slot->id, slot).second) {
    return absl::AlreadyExistsError(absl::StrCat("table ", slot->id, " is hosted"));
  }
  metrics_.tables.Set(static_cast<double>(slots_.size()));
  slot->hosted.store(true);
  *out = std::move(slot);
  return absl::OkStatus();
}

void TableHost::Shutdown() {
  if (draining_.exchange(true)) return;
  stop_maintenance_.Notify();
  if (maintenance_.joinable()) maintenance_.join();
  if (started_.load()) Heartbeat();  // draining: no new tables placed here
  timer_.Stop();
  load_waits_.Stop();
  std::vector<std::shared_ptr<Slot>> slots;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, slot] : slots_) slots.push_back(slot);
  }
  // Calls waiting for a table still being read go elsewhere now.
  for (const std::shared_ptr<Slot>& slot : slots) {
    RefuseHeld(*slot, absl::InfiniteFuture(),
               absl::UnavailableError("the server is shutting down; retry on another instance"));
  }
  // Each table's queued commands and in-flight append finish first; then its
  // streams end, telling clients to resume elsewhere.
  struct Drained {
    absl::Mutex mu;
    size_t left ABSL_GUARDED_BY(mu);
  };
  auto drained = std::make_shared<Drained>();
  drained->left = slots.size();
  for (const std::shared_ptr<Slot>& slot : slots) {
    Post(
        slot,
        [this, drained](Slot& s, const absl::Status&) {
          CloseStreams(s, absl::UnavailableError(
                              "the server is shutting down; resume with after_seq"));
          absl::MutexLock lock(&drained->mu);
          --drained->left;
        },
        /*bounded=*/false);
  }
  {
    // A store that no longer answers must not keep the process from exiting.
    absl::MutexLock lock(&drained->mu);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(drained->mu) {
      return drained->left == 0;
    };
    if (!drained->mu.AwaitWithTimeout(absl::Condition(&done), options_.drain_timeout)) {
      LogWarn("shutdown: appends still in flight", {{"tables", drained->left}});
    }
  }
  std::vector<std::string> running;
  for (const std::shared_ptr<Slot>& slot : slots) {
    if (started_.load() && !slot->finished.load()) running.push_back(slot->id);
  }
  // Owed when refused, but no round follows to release them: they lapse.
  if (absl::Status released = fleet_.ReleaseLeases(running); !released.ok()) {
    LogWarn("shutdown: leases not released; they lapse instead",
            {{"tables", static_cast<int64_t>(running.size())},
             {"error", released.ToString()}});
  }
  workers_.Stop();
  io_.Stop();
  LogInfo("table host stopped", {{"tables", static_cast<int64_t>(slots.size())}});
}

// --- CreateTable ------------------------------------------------------------------

absl::Status TableHost::ResolveSettings(const v1::CreateTableRequest& request,
                                        v1::internal::TableSettings* settings) const {
  *settings->mutable_mode() = request.mode();
  *settings->mutable_rules() = request.rules();
  if (absl::StatusOr<engine::Rules> rules =
          wire::RulesFromProto(request.mode(), request.rules());
      !rules.ok()) {
    return rules.status();
  }
  v1::Clocks* clocks = settings->mutable_clocks();
  auto resolve = [&](int32_t asked, int fallback, const char* name,
                     void (v1::Clocks::*set)(int32_t)) -> absl::Status {
    if (asked < 0 || asked > options_.max_clock_ms) {
      return absl::InvalidArgumentError(absl::StrCat(
          "clocks.", name, " must be 0 (the default) to ", options_.max_clock_ms));
    }
    (clocks->*set)(asked == 0 ? fallback : asked);
    return absl::OkStatus();
  };
  const v1::Clocks& asked = request.clocks();
  if (absl::Status s = resolve(asked.contract_ms(), options_.default_contract_ms,
                               "contract_ms", &v1::Clocks::set_contract_ms);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = resolve(asked.doubling_ms(), options_.default_doubling_ms,
                               "doubling_ms", &v1::Clocks::set_doubling_ms);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = resolve(asked.card_ms(), options_.default_card_ms, "card_ms",
                               &v1::Clocks::set_card_ms);
      !s.ok()) {
    return s;
  }
  settings->set_seed(request.has_seed() ? request.seed() : service::RandomUint64());
  settings->set_seed_chosen(request.has_seed());
  settings->set_deal_salt(service::RandomBytes(engine::kDealSaltBytes));
  settings->set_public_spectating(request.public_spectating());
  settings->set_seat_seeds(request.seat_seeds());
  settings->set_unrated(request.unrated());
  for (int s = 0; s < request.seats_size(); ++s) {
    if (request.seats(s).autopilot()) settings->add_autopilot_seats(s);
  }
  return CheckAutopilotSeats(*settings);
}

absl::Status TableHost::CheckCreate(const v1::CreateTableRequest& request) const {
  if (request.request_id().empty()) {
    return absl::InvalidArgumentError("request_id is required");
  }
  if (request.request_id().size() > kMaxIdBytes) {
    return absl::InvalidArgumentError("request_id is longer than 128 bytes");
  }
  if (request.seats_size() != engine::kNumSeats) {
    return absl::InvalidArgumentError(
        absl::StrCat("a table needs exactly 4 seats, not ", request.seats_size()));
  }
  absl::flat_hash_set<std::string> people;
  for (int s = 0; s < engine::kNumSeats; ++s) {
    const v1::SeatAssignment& seat = request.seats(s);
    const std::string at = absl::StrCat("seats[", s, "]");
    if (seat.player_id().empty() || seat.player_id().size() > kMaxIdBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".player_id is required (at most 128 bytes)"));
    }
    if (seat.display_name().size() > kMaxNameBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".display_name is longer than 64 bytes"));
    }
    const int64_t max_stake = std::min(options_.max_stake, engine::kMaxStake);
    if (seat.stake() < 0 || seat.stake() > max_stake) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".stake must be 0 to ", max_stake, " units"));
    }
    if (seat.autopilot() && seat.stake() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ": an autopilot seat never stakes (nobody plays it to win or lose)"));
    }
    if (seat.bot() && seat.stake() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(at, ": bots never stake"));
    }
    if (absl::Status s = CheckChosenToken(seat.seat_token()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(at, ".seat_token ", s.message()));
    }
    if (seat.autopilot() && !seat.seat_token().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": an autopilot seat has no seat_token"));
    }
    // One person, one seat; a bot account may fill several.
    if (!seat.bot() && !seat.autopilot() && !people.insert(seat.player_id()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": player ", seat.player_id(), " already has a seat"));
    }
  }
  return absl::OkStatus();
}

namespace {

absl::Status RepeatDiffers(const std::string& request_id, const std::string& table_id) {
  return absl::AlreadyExistsError(absl::StrCat(
      "request_id \"", request_id, "\" already created table ", table_id,
      " from another request (its mode, seats or stakes differ); a repeat must be the "
      "same request"));
}

}  // namespace

bool TableHost::AnswerByTokens(const std::string& existing,
                               const v1::CreateTableRequest& request,
                               const v1::CreateTableResponse& asked,
                               Reply<v1::CreateTableResponse>& reply) {
  absl::StatusOr<StoredGame> stored = store_->LoadGame(existing);
  if (!stored.ok()) return false;
  for (int s = 0; s < engine::kNumSeats; ++s) {
    if (asked.seat_tokens(s).empty()) continue;  // an autopilot seat: nobody's token
    if (stored->game.seats[s].token_hash != service::TokenHash(asked.seat_tokens(s))) {
      return false;
    }
  }
  bool same = stored->game.mode == wire::ModeName(request.mode());
  for (int s = 0; s < engine::kNumSeats; ++s) {
    same = same && stored->game.seats[s].player_id == request.seats(s).player_id() &&
           stored->game.seats[s].stake == request.seats(s).stake();
  }
  if (!same) {
    reply(RepeatDiffers(request.request_id(), existing));
    return true;
  }
  v1::CreateTableResponse response = asked;
  response.set_table_id(existing);
  reply(response);
  return true;
}

bool TableHost::AnswerRepeat(const v1::CreateTableRequest& request,
                             Reply<v1::CreateTableResponse>& reply) {
  v1::CreateTableResponse response;
  {
    absl::MutexLock lock(&mu_);
    auto it = create_answers_.find(request.request_id());
    if (it == create_answers_.end()) return false;
    if (!google::protobuf::util::MessageDifferencer::Equals(it->second.request, request)) {
      reply(RepeatDiffers(request.request_id(), it->second.response.table_id()));
      return true;
    }
    response = it->second.response;
  }
  std::shared_ptr<Slot> slot = FindSlot(response.table_id());
  if (!slot) {
    reply(response);
    return true;
  }
  Post(slot, [response, reply](Slot& s, const absl::Status& status) mutable {
    if (status.ok()) *response.mutable_table() = s.table->View(engine::kSpectator);
    reply(response);
  });
  return true;
}

void TableHost::CreateTable(const v1::CreateTableRequest& request,
                            Reply<v1::CreateTableResponse> reply) {
  if (service::FailpointFires("table.lose_create_answer")) reply = LoseAnswer(std::move(reply));
  if (absl::Status s = Available(); !s.ok()) return reply(s);
  if (absl::Status s = CheckCreate(request); !s.ok()) return reply(s);
  if (AnswerRepeat(request, reply)) return;
  v1::internal::TableSettings settings;
  if (absl::Status s = ResolveSettings(request, &settings); !s.ok()) return reply(s);
  if (table_count() >= static_cast<size_t>(options_.max_tables)) {
    return reply(
        absl::ResourceExhaustedError("this instance hosts its maximum of tables"));
  }

  v1::CreateTableResponse response;
  NewGame game = GameFor(request, settings, response);
  absl::StatusOr<std::unique_ptr<Table>> table =
      Table::Create(game.game_id, settings, game.seats, absl::Now());
  if (!table.ok()) return reply(table.status());
  // The first deal is the log's first entries, written with the game: one commit
  // makes the table.
  Step first = (*table)->Advance(absl::Now());
  if (!(*table)->broken().ok()) {
    LogError("a new table cannot deal", {{"table", game.game_id},
                                         {"error", (*table)->broken().ToString()}});
    return reply(absl::InternalError(absl::StrCat(
        "the new table could not deal its first deal: ", (*table)->broken().message())));
  }
  game.entries = std::move(first.entries);
  game.deadline = first.deadline;
  // CreateGame is a blocking write: off the caller's thread.
  auto refuse = [reply](const absl::Status& s) { reply(s); };
  PostRead(
      [this, request, game = std::move(game),
       table = std::make_shared<std::unique_ptr<Table>>(*std::move(table)),
       response = std::move(response), reply = std::move(reply)]() mutable {
        CreateStored(std::move(request), std::move(game), std::move(*table),
                     std::move(response), std::move(reply));
      },
      std::move(refuse));
}

void TableHost::CreateStored(v1::CreateTableRequest request, NewGame game,
                             std::unique_ptr<Table> table,
                             v1::CreateTableResponse response,
                             Reply<v1::CreateTableResponse> reply) {
  std::string existing;
  absl::Status created = store_->CreateGame(game, &existing);
  if (created.code() == absl::StatusCode::kAlreadyExists) {
    if (AnswerRepeat(request, reply)) return;
    if (AnswerByTokens(existing, request, response, reply)) return;
    return reply(absl::AlreadyExistsError(
        absl::StrCat("table ", existing,
                     " was already created by this request_id; its seat tokens "
                     "are handed out once and no longer known to this instance")));
  }
  if (!created.ok()) return reply(created);
  {
    absl::MutexLock lock(&mu_);
    create_answers_[request.request_id()] = {request, response,
                                             absl::Now() + options_.create_answer_memory};
  }
  std::shared_ptr<Slot> slot;
  if (absl::Status s = AddSlot(std::move(table), &slot); !s.ok()) return reply(s);
  LogInfo("table created", {{"table", game.game_id}, {"mode", game.mode}});
  Post(slot, [this, slot, response, reply](Slot& s, const absl::Status& status) mutable {
    if (!status.ok()) return reply(status);
    ScheduleClock(s);
    *response.mutable_table() = s.table->View(engine::kSpectator);
    reply(response);
  });
}

}  // namespace trix::table
