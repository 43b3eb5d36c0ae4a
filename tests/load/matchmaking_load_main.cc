// matchmaking-load: keeps N simulated players queueing at a matchmaking service and
// reports tickets matched (and placed) per second and the time from the moment
// each table became possible (Assignment.possible, stamped by the matcher) to the
// assignment arriving at the player (p50/p99), plus queue-to-seat time.
//
//   matchmaking-load --matchmaking=127.0.0.1:50053 --service_token=...
//       --database_url=postgresql://... --players=2000 --duration=20s [--party_share=0.05]
//
// Each slot is one player (or, for --party_share of the players, a party of two
// playing complex partner) with
// a FindTable stream; once seated, the slot starts a new player (a seated player's
// next request would get its live seat back). Modes are mixed like a real lobby:
// half Quick Play (complex partner), the rest spread over the other three modes.
// Players are rated like a real population (rated_population.h): before the run
// the tool writes their rows into the ratings service's store at --database_url,
// and the matchmaking service reads them through the ratings service it is given.
// Without --database_url every player is a newcomer (one rating).
#include <atomic>
#include <deque>
#include <iostream>
#include <map>
#include <thread>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "services/common/config.h"
#include "services/common/service_main.h"
#include "services/common/tls.h"
#include "tests/load/latency.h"
#include "tests/load/rated_population.h"
#include "tests/load/void_tables.h"
#include "trix/v1/matchmaking.grpc.pb.h"

namespace trix::load {
namespace {

using google::protobuf::util::TimeUtil;

struct Flags {
  std::string matchmaking = "127.0.0.1:50053";
  std::string service_token;
  int players = 2000;
  absl::Duration duration = absl::Seconds(20);
  absl::Duration warmup = absl::Seconds(3);
  double party_share = 0.05;
  int channels = 4;
  std::string database_url;  // the ratings service's database; "": no ratings written
  int population = 0;        // players available; 0: 300 per queueing player
  double newcomer_share = 0.05;
  double provisional_share = 0.15;
  service::ChannelTls tls;
  std::shared_ptr<grpc::ChannelCredentials> credentials;  // made from `tls`
  bool keep_tables = false;  // leave the tables matchmaking created as they are
};

class Load;

// One player's FindTable stream.
class Ticket : public grpc::ClientReadReactor<v1::MatchUpdate> {
 public:
  Ticket(Load* load, int slot, v1::FindTableRequest request);
  void OnReadDone(bool ok) override;
  void OnDone(const grpc::Status& s) override;

 private:
  Load* const load_;
  const int slot_;
  grpc::ClientContext context_;
  v1::FindTableRequest request_;
  v1::MatchUpdate update_;
  absl::Time started_ = absl::Now();
};

class Load {
 public:
  explicit Load(const Flags& flags) : flags_(flags) {
    for (int i = 0; i < flags.channels; ++i) {
      grpc::ChannelArguments args;
      args.SetInt("load-channel", i);  // distinct connections
      stubs_.push_back(v1::MatchmakingService::NewStub(grpc::CreateCustomChannel(
          flags.matchmaking, flags.credentials, args)));
    }
  }

  void Run() {
    PopulationOptions options;
    const int population = flags_.population > 0 ? flags_.population : 300 * flags_.players;
    options.party_members = static_cast<int>(population * flags_.party_share);
    options.solo_members = population - options.party_members;
    options.newcomer_share = flags_.newcomer_share;
    options.provisional_share = flags_.provisional_share;
    people_ = MakePopulation(prefix_, options);
    if (flags_.database_url.empty()) {
      std::printf("no --database_url: no ratings written, every player is a newcomer\n");
    } else if (absl::Status s = WriteRatings(flags_.database_url, *people_); !s.ok()) {
      std::fprintf(stderr, "matchmaking-load: %s\n", std::string(s.message()).c_str());
      std::_Exit(1);
    } else {
      std::printf("population: %s\n", Describe(*people_).c_str());
    }
    // Party slots are started by their own thread (two unary calls each).
    party_slots_ = static_cast<int>(flags_.players * flags_.party_share / 2);
    for (int i = 0; i < party_slots_; ++i) party_pending_[-1 - i] = 0;
    std::thread parties([this] { PartyLoop(); });
    parties.detach();
    for (int slot = 0; slot < flags_.players - 2 * party_slots_; ++slot) StartSlot(slot);
    for (int i = 0; i < party_slots_; ++i) QueueParty(-1 - i);
    absl::SleepFor(flags_.warmup);
    int64_t start_count = matched_.load();
    measuring_ = true;
    absl::Time start = absl::Now();
    absl::SleepFor(flags_.duration);
    measuring_ = false;
    double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    int64_t matched = matched_.load() - start_count;
    stop_ = true;
    std::printf("players %d  party_share %.2f  duration %.1f s\n", flags_.players,
                flags_.party_share, seconds);
    std::printf("tickets matched and placed: %lld  (%.0f tickets/s)\n",
                static_cast<long long>(matched), matched / seconds);
    std::printf("group possible -> assignment at the player: %s\n",
                possible_.Summarize().Text().c_str());
    std::printf("queued -> assignment: %s\n", waited_.Summarize().Text().c_str());
    std::printf("errors: %lld\n", static_cast<long long>(errors_.load()));
    if (extra_players_ > 0) {
      std::printf("population exhausted: %lld players queued unrated (raise --population)\n",
                  static_cast<long long>(extra_players_.load()));
    }
    if (!flags_.keep_tables) VoidPlaced();
    std::fflush(stdout);
    std::_Exit(0);  // streams still open: no orderly teardown needed
  }

  // Nobody plays the tables the run's players were placed at: void them, so that
  // their table-service instances do not keep them.
  void VoidPlaced() {
    std::vector<std::pair<std::string, std::string>> tables;
    {
      absl::MutexLock lock(&placed_mu_);
      tables.assign(placed_.begin(), placed_.end());
    }
    const VoidCounts counts = VoidTables(tables, flags_.credentials, flags_.service_token,
                                         "the load run ended");
    std::printf("%s\n", counts.Text().c_str());
  }

  void QueueParty(int slot) {
    absl::MutexLock lock(&party_mu_);
    party_queue_.push_back(slot);
  }

  // A party of two: one creates it, the other joins with the code, both queue.
  void PartyLoop() {
    for (;;) {
      int slot;
      {
        absl::MutexLock lock(&party_mu_);
        auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(party_mu_) {
          return !party_queue_.empty();
        };
        party_mu_.Await(absl::Condition(&ready));
        slot = party_queue_.front();
        party_queue_.pop_front();
      }
      if (stop_) return;
      const std::string a = NextPlayer(people_->NextParty());
      const std::string b = NextPlayer(people_->NextParty());
      v1::Party party;
      grpc::ClientContext c1;
      c1.AddMetadata("authorization", "Bearer " + flags_.service_token);
      v1::CreatePartyRequest create;
      create.set_player_id(a);
      grpc::Status s = stub(0)->CreateParty(&c1, create, &party);
      v1::Party joined;
      if (s.ok()) {
        grpc::ClientContext c2;
        c2.AddMetadata("authorization", "Bearer " + flags_.service_token);
        v1::JoinPartyRequest join;
        join.set_player_id(b);
        join.set_code(party.code());
        s = stub(0)->JoinParty(&c2, join, &joined);
      }
      if (!s.ok()) {
        ++errors_;
        QueueParty(slot);
        continue;
      }
      party_pending_.at(slot) = 2;
      for (const std::string& player : {a, b}) {
        v1::FindTableRequest r;
        r.set_request_id("r");
        r.set_player_id(player);
        r.set_party_id(party.party_id());
        r.mutable_mode()->set_team(v1::TEAM_PARTNER);
        r.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
        new Ticket(this, slot, r);
      }
    }
  }

  void StartSlot(int slot) {
    if (stop_) return;
    if (slot < 0) {  // a party's slot: again once both members are done
      if (--party_pending_.at(slot) == 0) QueueParty(slot);
      return;
    }
    const Member* member = people_->NextSolo();
    v1::FindTableRequest r;
    r.set_request_id("r");
    r.set_player_id(NextPlayer(member));
    r.set_display_name(r.player_id());
    if (member != nullptr) {
      *r.mutable_mode() = member->mode;
    } else {
      r.mutable_mode()->set_team(v1::TEAM_PARTNER);
      r.mutable_mode()->set_format(v1::FORMAT_COMPLEX);
    }
    new Ticket(this, slot, r);
  }

  // The member's id, or a fresh unrated one once the population is exhausted.
  std::string NextPlayer(const Member* member) {
    if (member != nullptr) return member->player_id;
    return absl::StrCat(prefix_, "extra-", extra_players_++);
  }

  void Seated(int slot, const v1::Assignment& a, absl::Time started) {
    absl::Time now = absl::Now();
    {
      absl::MutexLock lock(&placed_mu_);
      placed_.emplace(a.table_id(), a.address());
    }
    if (measuring_) {
      ++matched_;
      possible_.Add(now - absl::FromUnixMicros(TimeUtil::TimestampToMicroseconds(a.possible())));
      waited_.Add(now - started);
    } else if (!stop_) {
      ++matched_;
    }
  }
  void Ended(int slot, const grpc::Status& s) {
    if (!s.ok()) {
      if (++errors_ <= 5) {
        std::fprintf(stderr, "ticket ended: %d %s\n", s.error_code(),
                     s.error_message().c_str());
      }
    }
    StartSlot(slot);
  }

  v1::MatchmakingService::Stub* stub(int slot) {
    return stubs_[static_cast<size_t>(slot < 0 ? -slot : slot) % stubs_.size()].get();
  }
  const Flags& flags() const { return flags_; }

 private:
  const Flags flags_;
  std::vector<std::unique_ptr<v1::MatchmakingService::Stub>> stubs_;
  // Fresh players per run.
  const std::string prefix_ = absl::StrCat("load-", absl::ToUnixMillis(absl::Now()), "-");
  std::unique_ptr<Population> people_;
  std::atomic<int64_t> extra_players_{0};
  std::atomic<int64_t> matched_{0};
  std::atomic<int64_t> errors_{0};
  std::atomic<bool> measuring_{false};
  std::atomic<bool> stop_{false};
  int party_slots_ = 0;
  absl::Mutex party_mu_;
  std::deque<int> party_queue_ ABSL_GUARDED_BY(party_mu_);
  std::map<int, std::atomic<int>> party_pending_;  // filled before any stream starts
  LatencyLog possible_;
  LatencyLog waited_;
  absl::Mutex placed_mu_;
  std::map<std::string, std::string> placed_ ABSL_GUARDED_BY(placed_mu_);  // id -> address
};

Ticket::Ticket(Load* load, int slot, v1::FindTableRequest request)
    : load_(load), slot_(slot), request_(std::move(request)) {
  context_.AddMetadata("authorization", "Bearer " + load->flags().service_token);
  load->stub(slot)->async()->FindTable(&context_, &request_, this);
  StartRead(&update_);
  StartCall();
}

void Ticket::OnReadDone(bool ok) {
  if (!ok) return;
  if (update_.has_assignment()) load_->Seated(slot_, update_.assignment(), started_);
  StartRead(&update_);
}

void Ticket::OnDone(const grpc::Status& s) {
  load_->Ended(slot_, s);
  delete this;
}

int Run(int argc, char** argv) {
  Flags f;
  service::Config config("matchmaking-load", "MAMLAKA_LOAD_");
  config.Bind("matchmaking", &f.matchmaking, "matchmaking service host:port");
  config.Bind("service_token", &f.service_token, "the service token");
  config.Bind("players", &f.players, "simulated players queueing at once");
  config.Bind("duration", &f.duration, "how long to measure");
  config.Bind("warmup", &f.warmup, "how long to run before measuring");
  config.Bind("party_share", &f.party_share, "share of players queueing as parties of two");
  config.Bind("channels", &f.channels, "gRPC connections to spread the streams over");
  config.Bind("database_url", &f.database_url,
              "PostgreSQL of the ratings service: the players' ratings are written there");
  config.Bind("population", &f.population, "players available; 0: 300 per --players");
  config.Bind("newcomer_share", &f.newcomer_share, "share of players with no rating yet");
  config.Bind("provisional_share", &f.provisional_share,
              "share of players still provisional (the rest are established)");
  service::BindChannelTlsFlags(config, &f.tls);
  config.Bind("keep_tables", &f.keep_tables,
              "leave the tables the players were placed at, for investigation (default: "
              "void them at the end; the service token must be the table service's too)");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) return *exit_code;
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      service::ChannelCredentials(f.tls);
  if (!credentials.ok()) {
    std::cerr << "matchmaking-load: " << credentials.status().message() << "\n";
    return 2;
  }
  f.credentials = *credentials;
  Load load(f);
  load.Run();
  return 0;
}

}  // namespace
}  // namespace trix::load

int main(int argc, char** argv) { trix::load::EndLoadTool(trix::load::Run(argc, argv)); }
