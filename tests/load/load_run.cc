#include "tests/load/load_run.h"

#include <chrono>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/rules.h"
#include "services/common/auth.h"
#include "services/common/tls.h"

namespace trix::load {

absl::Status CheckLoopback(const std::string& target) {
  std::string host;
  if (absl::StartsWith(target, "[")) {
    const size_t end = target.find(']');
    if (end != std::string::npos) host = target.substr(1, end - 1);
  } else {
    host = target.substr(0, target.rfind(':'));
  }
  const bool v4 = absl::StartsWith(host, "127.") &&
                  host.find_first_not_of("0123456789.") == std::string::npos;
  if (v4 || host == "localhost" || host == "::1") return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--target ", target,
                   " is not a loopback address (127.x.x.x, localhost, [::1]); "
                   "the load tool only loads this machine"));
}

absl::StatusOr<std::vector<v1::Mode>> ParseModes(const std::string& text) {
  std::vector<std::string> names;
  if (text == "mixed") {
    names = {"classic-solo", "classic-partner", "complex-solo", "complex-partner"};
  } else {
    names = {text};
  }
  std::vector<v1::Mode> modes;
  for (const std::string& name : names) {
    std::vector<std::string> parts = absl::StrSplit(name, '-');
    if (parts.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("unknown mode \"", name, "\""));
    }
    absl::StatusOr<engine::Format> format = engine::ParseFormat(parts[0]);
    absl::StatusOr<engine::Team> team = engine::ParseTeam(parts[1]);
    if (!format.ok() || !team.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown mode \"", name, "\""));
    }
    v1::Mode mode;
    mode.set_format(*format == engine::Format::kClassic ? v1::FORMAT_CLASSIC
                                                        : v1::FORMAT_COMPLEX);
    mode.set_team(*team == engine::Team::kSolo ? v1::TEAM_SOLO : v1::TEAM_PARTNER);
    modes.push_back(mode);
  }
  return modes;
}

LoadRun::LoadRun(LoadContext* context)
    : context_(context), run_key_(service::NewSeatToken().substr(0, 12)) {}

LoadRun::~LoadRun() = default;

absl::StatusOr<std::vector<std::string>> ParseTargets(const std::string& text) {
  std::vector<std::string> targets = absl::StrSplit(text, ',', absl::SkipWhitespace());
  if (targets.empty()) return absl::InvalidArgumentError("--target is required");
  for (std::string& target : targets) {
    target = std::string(absl::StripAsciiWhitespace(target));
    if (absl::Status s = CheckLoopback(target); !s.ok()) return s;
  }
  return targets;
}

std::unique_ptr<LoadRun::Channels> LoadRun::Connect(const std::string& address,
                                                    int count) const {
  auto out = std::make_unique<LoadRun::Channels>();
  for (int i = 0; i < std::max(1, count); ++i) {
    grpc::ChannelArguments args;
    // Each channel its own connection: gRPC would otherwise share one subchannel.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt("trix.load.channel", i);
    // A lean client: no per-call deadline or message-size filters. The tool is there
    // to load the server, and every call it makes costs the same two cores.
    args.SetInt(GRPC_ARG_MINIMAL_STACK, 1);
    auto channel = grpc::CreateCustomChannel(address, credentials_, args);
    out->stubs.push_back(v1::TableService::NewStub(channel));
    out->channels.push_back(std::move(channel));
  }
  return out;
}

absl::Status LoadRun::Start() {
  const LoadOptions& options = context_->options;
  absl::StatusOr<std::vector<v1::Mode>> modes = ParseModes(options.mode);
  if (!modes.ok()) return modes.status();
  modes_ = *std::move(modes);
  absl::StatusOr<std::vector<std::string>> targets = ParseTargets(options.target);
  if (!targets.ok()) return targets.status();
  targets_ = *std::move(targets);
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      service::ChannelCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  credentials_ = *std::move(credentials);
  for (const std::string& target : targets_) {
    std::unique_ptr<Channels> channels = Connect(target, options.channels);
    for (const auto& channel : channels->channels) {
      if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                     std::chrono::seconds(10))) {
        return absl::UnavailableError(absl::StrCat("cannot connect to ", target));
      }
    }
    absl::MutexLock lock(&channels_mu_);
    channels_[target] = std::move(channels);
  }
  std::vector<LoadTable*> creates;
  {
    absl::MutexLock lock(&mu_);
    for (int i = 0; i < options.tables; ++i) AddTable();
    creates = TakeCreates();
  }
  RunCreates(creates);
  return absl::OkStatus();
}

v1::TableService::Stub* LoadRun::StubFor(const std::string& address, size_t n) {
  absl::MutexLock lock(&channels_mu_);
  auto it = channels_.find(address);
  if (it == channels_.end()) {
    if (!CheckLoopback(address).ok()) return nullptr;
    it = channels_.emplace(address, Connect(address, context_->options.channels)).first;
  }
  const auto& stubs = it->second->stubs;
  return stubs[n % stubs.size()].get();
}

std::vector<v1::TableService::Stub*> LoadRun::target_stubs() {
  std::vector<v1::TableService::Stub*> out;
  for (const std::string& target : targets_) out.push_back(StubFor(target, 0));
  return out;
}

void LoadRun::AddTable() {
  const size_t n = tables_.size();
  const uint64_t seed = static_cast<uint64_t>(context_->options.seed) * 1000003u + n;
  tables_.push_back(std::make_unique<LoadTable>(this, context_, n,
                                                absl::StrCat("load-", run_key_, "-", n),
                                                modes_[n % modes_.size()], seed));
  to_create_.push_back(tables_.back().get());
}

std::vector<LoadTable*> LoadRun::TakeCreates() {
  std::vector<LoadTable*> out;
  while (!closing_ && !to_create_.empty() &&
         creating_ < context_->options.create_concurrency) {
    out.push_back(to_create_.front());
    to_create_.pop_front();
    ++creating_;
  }
  return out;
}

void LoadRun::RunCreates(const std::vector<LoadTable*>& tables) {
  for (LoadTable* table : tables) table->Create();
}

void LoadRun::OnCreated(LoadTable* table, bool ok) {
  bool start = false;
  std::vector<LoadTable*> creates;
  {
    absl::MutexLock lock(&mu_);
    --creating_;
    if (!ok) create_failed_ = true;
    if (ok && !closing_) {
      start = true;
      ++streaming_;
    }
    creates = TakeCreates();
  }
  if (start) table->StartSeats();
  RunCreates(creates);
}

void LoadRun::OnGameEnded(LoadTable* table) {
  std::vector<LoadTable*> creates;
  {
    absl::MutexLock lock(&mu_);
    if (closing_ || context_->stopping.load()) return;
    AddTable();  // keeps the number of tables in play
    creates = TakeCreates();
  }
  RunCreates(creates);
}

void LoadRun::OnStreamsClosed(LoadTable* table) {
  absl::MutexLock lock(&mu_);
  --streaming_;
}

bool LoadRun::WaitPlaying(absl::Duration timeout) {
  const int64_t want = context_->options.tables;
  absl::MutexLock lock(&mu_);
  auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return create_failed_ || streaming_ >= want;
  };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  return !create_failed_ && streaming_ >= want;
}

bool LoadRun::WaitGames(int64_t games, absl::Duration timeout) {
  const absl::Time end = absl::Now() + timeout;
  while (context_->counters.games_ended.load() < games) {
    if (absl::Now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

bool LoadRun::Stop(absl::Duration timeout) {
  context_->stopping.store(true);
  const absl::Time end = absl::Now() + timeout;
  while (context_->acts_in_flight.load() > 0) {
    if (absl::Now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

bool LoadRun::Close(absl::Duration timeout) {
  std::vector<LoadTable*> tables;
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;
    for (const auto& table : tables_) tables.push_back(table.get());
  }
  for (LoadTable* table : tables) table->Cancel();
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(this, &LoadRun::Quiet), timeout);
}

std::vector<const LoadTable*> LoadRun::tables() const {
  absl::MutexLock lock(&mu_);
  std::vector<const LoadTable*> out;
  for (const auto& table : tables_) {
    if (table->created()) out.push_back(table.get());
  }
  return out;
}

int64_t LoadRun::streaming_tables() const {
  absl::MutexLock lock(&mu_);
  return streaming_;
}

}  // namespace trix::load
