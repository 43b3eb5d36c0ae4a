// matchmaking-soak: keeps N tables of people playing through matchmaking at human
// pace. 4 x N players each queue (FindTable), take the seat matchmaking assigns,
// play it with the load tool's seat player (tests/load/seat_player.h) on the
// table's Play stream, thinking --think per turn of their table (±50%), and when
// their game is over queue again. Tables are people only: the run starts no bot
// account (run_soak.sh sets matchmaking's bot fill wait beyond the run).
//
// The players arrive over --ramp (a table's four every ramp / tables), so that, as
// in a real population, games are in every phase at once: once the ramp is past
// the number of live tables and the spread of their logs' lengths hold steady, and
// memory can be compared over time. After --duration nobody queues again; the run
// waits (at most --wind_down) until every game under way has finished, so that the
// services can be seen giving their tables back.
//
//   matchmaking-soak --matchmaking=127.0.0.1:50053 --service_token=T --tables=1000
//                    --duration=10m --think=1s --ramp=5m
//
// Prints a progress line every 10 s ("live" counts the tables whose game is under
// way) and a summary at the end; "errors: N" counts every queue that ended without
// a seat, stream that broke, action refused or lost, and event number that
// skipped, and a wind-down that did not end in time. Exit status 1 when errors > 0.
#include <array>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "proto/wire/wire.h"
#include "services/common/config.h"
#include "tests/load/load_context.h"
#include "tests/load/pacer.h"
#include "tests/load/seat_player.h"
#include "trix/v1/matchmaking.grpc.pb.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::load {
namespace {

struct Flags {
  std::string matchmaking = "127.0.0.1:50053";
  std::string service_token;
  int tables = 1000;
  absl::Duration duration = absl::Minutes(10);
  absl::Duration think = absl::Seconds(1);
  absl::Duration ramp = absl::ZeroDuration();
  absl::Duration wind_down = absl::Minutes(15);
  std::string mode = "complex-solo";
  int channels = 4;
};

class Soak;

// One table matchmaking made: its seats are started as their players' assignments
// come in; each seat's player queues again once its stream is done.
class SoakTable : public SeatHost {
 public:
  SoakTable(Soak* soak, std::string id, v1::TableService::Stub* stub,
            absl::Duration think, uint64_t seed)
      : soak_(soak), id_(std::move(id)), stub_(stub), pacing_(think, seed), seed_(seed) {}

  void Seat(const v1::Assignment& a, int player);
  void Pace(std::function<void()> act) override;
  void OnGameEnded() override;
  void OnStreamDone(int seat, const grpc::Status& status) override;
  bool ended() const { return ended_.load(); }

 private:
  Soak* const soak_;
  const std::string id_;
  v1::TableService::Stub* const stub_;
  TurnPacing pacing_;
  const uint64_t seed_;
  absl::Mutex mu_;
  std::array<std::unique_ptr<SeatPlayer>, 4> seats_ ABSL_GUARDED_BY(mu_);
  std::array<int, 4> players_ ABSL_GUARDED_BY(mu_) = {-1, -1, -1, -1};
  std::atomic<bool> ended_{false};
};

// One player's FindTable stream.
class Ticket : public grpc::ClientReadReactor<v1::MatchUpdate> {
 public:
  Ticket(Soak* soak, int player, v1::FindTableRequest request);
  void OnReadDone(bool ok) override;
  void OnDone(const grpc::Status& s) override;

 private:
  Soak* const soak_;
  const int player_;
  grpc::ClientContext context_;
  v1::FindTableRequest request_;
  v1::MatchUpdate update_;
  bool seated_ = false;
};

// Sleeps until `when` (at once when it has passed).
void SleepUntil(absl::Time when) {
  absl::SleepFor(std::max(absl::ZeroDuration(), when - absl::Now()));
}

class Soak {
 public:
  explicit Soak(const Flags& flags)
      : flags_(flags), context_(LoadOptions{.service_token = flags.service_token}) {
    mode_ = wire::ModeFromName(flags.mode).value();
    for (int i = 0; i < flags.channels; ++i) {
      grpc::ChannelArguments args;
      args.SetInt("soak-channel", i);  // distinct connections
      matchmaking_.push_back(v1::MatchmakingService::NewStub(grpc::CreateCustomChannel(
          flags.matchmaking, grpc::InsecureChannelCredentials(), args)));
    }
  }

  int Run() {
    const absl::Time start = absl::Now();
    absl::Time report = start + absl::Seconds(10);
    for (int t = 0; t < flags_.tables; ++t) {  // a table's four players at a time
      SleepUntil(start + flags_.ramp * t / flags_.tables);
      for (int p = 4 * t; p < 4 * t + 4; ++p) Queue(p);
      if (absl::Now() >= report) {
        Report(absl::StrCat("t=", absl::ToInt64Seconds(report - start), "s"));
        report += absl::Seconds(10);
      }
    }
    for (; report <= start + flags_.duration; report += absl::Seconds(10)) {
      SleepUntil(report);
      Report(absl::StrCat("t=", absl::ToInt64Seconds(report - start), "s"));
    }
    winding_down_.store(true);  // nobody queues again; the games under way finish
    const absl::Time wind_down_end = absl::Now() + flags_.wind_down;
    while (LiveTables() > 0 && absl::Now() < wind_down_end) {
      absl::SleepFor(absl::Seconds(10));
      Report(
          absl::StrCat("t=", absl::ToInt64Seconds(absl::Now() - start), "s wind-down"));
    }
    if (LiveTables() > 0) {
      queue_errors.fetch_add(1);
      std::fprintf(stderr,
                   "matchmaking-soak: %zu games still under way after --wind_down\n",
                   LiveTables());
    }
    context_.stopping.store(true);
    const int64_t errors = Errors();
    Report("end");
    std::printf("errors: %lld\n", static_cast<long long>(errors));
    std::fflush(stdout);
    std::_Exit(errors == 0 ? 0 : 1);  // streams still open: no orderly teardown needed
  }

  void Queue(int player) {
    if (context_.stopping.load() || winding_down_.load()) return;
    v1::FindTableRequest r;
    r.set_request_id(absl::StrCat("q", queued_.fetch_add(1)));
    r.set_player_id(absl::StrCat("soak-", run_, "-", player));
    r.set_display_name(absl::StrCat("Player ", player));
    *r.mutable_mode() = mode_;
    new Ticket(this, player, std::move(r));
  }

  void Assigned(int player, const v1::Assignment& a) {
    seated_.fetch_add(1);
    SoakTable* table;
    {
      absl::MutexLock lock(&mu_);
      std::unique_ptr<SoakTable>& t = tables_[a.table_id()];
      if (!t) {
        t = std::make_unique<SoakTable>(this, a.table_id(), TableStub(a.address()),
                                        flags_.think, tables_.size());
      }
      table = t.get();
    }
    table->Seat(a, player);
  }

  void Error(const std::string& what, const grpc::Status& s) {
    if (++reported_ <= 10) {
      std::fprintf(stderr, "matchmaking-soak: %s: %d %s\n", what.c_str(), s.error_code(),
                   s.error_message().c_str());
    }
  }

  v1::MatchmakingService::Stub* matchmaking(int player) {
    return matchmaking_[player % matchmaking_.size()].get();
  }
  LoadContext* context() { return &context_; }
  Pacer& pacer() { return pacer_; }
  const Flags& flags() const { return flags_; }
  std::atomic<int64_t> queue_errors{0};
  std::atomic<int64_t> games_started{0};

 private:
  v1::TableService::Stub* TableStub(const std::string& address)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::unique_ptr<v1::TableService::Stub>& stub = table_stubs_[address];
    if (!stub) {
      stub = v1::TableService::NewStub(
          grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    }
    return stub.get();
  }

  size_t LiveTables() {
    absl::MutexLock lock(&mu_);
    size_t live = 0;
    for (const auto& [id, table] : tables_) live += table->ended() ? 0 : 1;
    return live;
  }

  int64_t Errors() const {
    const Counters& c = context_.counters;
    return queue_errors.load() + c.stream_errors.load() + c.act_rejected.load() +
           c.act_failed.load() + c.seq_gaps.load();
  }

  void Report(const std::string& when) {
    const Counters& c = context_.counters;
    size_t tables;
    {
      absl::MutexLock lock(&mu_);
      tables = tables_.size();
    }
    std::printf(
        "%s  seated %lld  tables %zu  live %zu  games ended %lld  actions acked %lld  "
        "errors %lld (queue %lld, stream %lld, refused %lld, lost %lld, seq gaps %lld)\n",
        when.c_str(), static_cast<long long>(seated_.load()), tables, LiveTables(),
        static_cast<long long>(c.games_ended.load()),
        static_cast<long long>(c.acks.load()), static_cast<long long>(Errors()),
        static_cast<long long>(queue_errors.load()),
        static_cast<long long>(c.stream_errors.load()),
        static_cast<long long>(c.act_rejected.load()),
        static_cast<long long>(c.act_failed.load()),
        static_cast<long long>(c.seq_gaps.load()));
    std::fflush(stdout);
  }

  const Flags flags_;
  LoadContext context_;
  Pacer pacer_;
  v1::Mode mode_;
  std::vector<std::unique_ptr<v1::MatchmakingService::Stub>> matchmaking_;
  const int64_t run_ = absl::ToUnixMillis(absl::Now());  // fresh players per run
  std::atomic<bool> winding_down_{false};
  std::atomic<int64_t> queued_{0};
  std::atomic<int64_t> seated_{0};
  std::atomic<int> reported_{0};
  absl::Mutex mu_;
  // Kept to the end of the run: a seat's reactions may run until its stream is done.
  std::map<std::string, std::unique_ptr<SoakTable>> tables_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<v1::TableService::Stub>> table_stubs_
      ABSL_GUARDED_BY(mu_);
};

void SoakTable::Seat(const v1::Assignment& a, int player) {
  const int s = a.seat();
  if (s < 0 || s > 3) return soak_->Error("an assignment to no seat", grpc::Status());
  SeatPlayer* seat;
  {
    absl::MutexLock lock(&mu_);
    if (seats_[s]) return soak_->Error("a seat assigned twice", grpc::Status());
    players_[s] = player;
    seats_[s] = std::make_unique<SeatPlayer>(soak_->context(), this, stub_, id_, s,
                                             a.seat_token(), seed_ * 4 + s);
    seat = seats_[s].get();
  }
  seat->Start();
}

void SoakTable::Pace(std::function<void()> act) {
  soak_->pacer().At(pacing_.Next(Clock::now()), std::move(act));
}

void SoakTable::OnGameEnded() {
  if (!ended_.exchange(true)) soak_->context()->counters.games_ended.fetch_add(1);
}

void SoakTable::OnStreamDone(int seat, const grpc::Status& status) {
  if (!status.ok() && !soak_->context()->stopping.load()) {
    soak_->context()->counters.stream_errors.fetch_add(1);
    soak_->Error(absl::StrCat("table ", id_, " seat ", seat, " stream"), status);
  }
  int player;
  {
    absl::MutexLock lock(&mu_);
    player = players_[seat];
  }
  soak_->Queue(player);  // the game is over (or lost): queue again
}

Ticket::Ticket(Soak* soak, int player, v1::FindTableRequest request)
    : soak_(soak), player_(player), request_(std::move(request)) {
  context_.AddMetadata("authorization", "Bearer " + soak->flags().service_token);
  soak->matchmaking(player)->async()->FindTable(&context_, &request_, this);
  StartRead(&update_);
  StartCall();
}

void Ticket::OnReadDone(bool ok) {
  if (!ok) return;
  if (update_.has_assignment() && !seated_) {
    seated_ = true;
    soak_->Assigned(player_, update_.assignment());
    context_.TryCancel();  // the seat is taken: the queue's stream is done
    return;
  }
  StartRead(&update_);
}

void Ticket::OnDone(const grpc::Status& s) {
  if (!seated_ && !soak_->context()->stopping.load()) {
    soak_->queue_errors.fetch_add(1);
    soak_->Error("FindTable ended without a seat", s);
    soak_->Queue(player_);
  }
  delete this;
}

int Run(int argc, char** argv) {
  Flags f;
  service::Config config("matchmaking-soak", "MAMLAKA_SOAK_");
  config.Bind("matchmaking", &f.matchmaking, "matchmaking service host:port");
  config.Bind("service_token", &f.service_token, "the service token");
  config.Bind("tables", &f.tables, "tables of four people kept playing (4 x players)");
  config.Bind("duration", &f.duration, "how long to run");
  config.Bind("think", &f.think, "how long a table's player thinks per turn (±50%)");
  config.Bind("ramp", &f.ramp, "the players arrive over this long (0: all at once)");
  config.Bind("wind_down", &f.wind_down,
              "after --duration, how long the games under way may take to finish");
  config.Bind("mode", &f.mode, "the mode everyone queues for");
  config.Bind("channels", &f.channels, "gRPC connections to matchmaking");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv))
    return *exit_code;
  if (!wire::ModeFromName(f.mode).ok() || f.tables < 1 || f.channels < 1 ||
      f.ramp < absl::ZeroDuration() || f.ramp > f.duration) {
    std::fprintf(stderr,
                 "matchmaking-soak: bad --mode, --tables, --channels or --ramp (at most "
                 "--duration)\n");
    return 2;
  }
  Soak soak(f);
  return soak.Run();
}

}  // namespace
}  // namespace trix::load

int main(int argc, char** argv) { return trix::load::Run(argc, argv); }
