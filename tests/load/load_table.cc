#include "tests/load/load_table.h"

#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tests/load/load_run.h"

namespace trix::load {
namespace {

constexpr int kMaxCreateAttempts = 10;
constexpr auto kCreatePause = std::chrono::milliseconds(200);

void ReportStreamError(const std::string& table_id, int seat,
                       const grpc::Status& status) {
  static std::atomic<int> printed{0};
  if (printed.fetch_add(1) >= 10) return;
  std::fprintf(stderr, "table-load: stream of table %s seat %d ended: %d %s\n",
               table_id.c_str(), seat, static_cast<int>(status.error_code()),
               status.error_message().c_str());
}

}  // namespace

LoadTable::LoadTable(LoadRun* run, LoadContext* context, size_t number,
                     std::string request_id, v1::Mode mode, uint64_t seed)
    : run_(run),
      context_(context),
      number_(number),
      target_(context->options.create_targets > 0
                  ? number % static_cast<size_t>(context->options.create_targets)
                  : number),
      request_id_(std::move(request_id)),
      mode_(std::move(mode)),
      seed_(seed) {
  const LoadOptions& options = context_->options;
  if (options.rate > 0) {
    // Each table offers its share of the rate: one action every tables/rate s.
    pacing_.emplace(absl::Seconds(options.tables / options.rate), seed);
  }
}

LoadTable::~LoadTable() = default;

void LoadTable::Create() {
  create_request_.set_request_id(request_id_);
  *create_request_.mutable_mode() = mode_;
  v1::Clocks* clocks = create_request_.mutable_clocks();
  clocks->set_contract_ms(context_->options.clock_ms);
  clocks->set_doubling_ms(context_->options.clock_ms);
  clocks->set_card_ms(context_->options.clock_ms);
  for (int s = 0; s < 4; ++s) {
    v1::SeatAssignment* seat = create_request_.add_seats();
    seat->set_player_id(absl::StrCat(request_id_, "-p", s));
    seat->set_display_name(absl::StrCat("load ", s));
    seat->set_bot(true);
  }
  create_request_.set_seed(seed_);
  SendCreate();
}

void LoadTable::SendCreate() {
  create_context_ = std::make_unique<grpc::ClientContext>();
  create_context_->AddMetadata("authorization",
                               absl::StrCat("Bearer ", context_->options.service_token));
  create_context_->set_deadline(std::chrono::system_clock::now() +
                                std::chrono::seconds(30));
  const std::vector<std::string>& targets = run_->targets();
  v1::TableService::Stub* stub = StubFor(targets[target_ % targets.size()]);
  stub->async()->CreateTable(create_context_.get(), &create_request_, &create_response_,
                             [this](grpc::Status status) { OnCreateDone(status); });
}

void LoadTable::OnCreateDone(const grpc::Status& status) {
  if (status.ok() && create_response_.seat_tokens_size() == 4) {
    id_ = create_response_.table_id();
    const std::string& address = run_->targets()[target_ % run_->targets().size()];
    for (int s = 0; s < 4; ++s) {
      seats_[s] = std::make_unique<SeatPlayer>(
          context_, this, StubFor(address), id_, s, create_response_.seat_tokens(s),
          seed_ * 4 + static_cast<uint64_t>(s), address);
    }
    created_at_.store(Clock::now().time_since_epoch().count());
    created_.store(true);
    context_->counters.tables_created.fetch_add(1);
    return run_->OnCreated(this, true);
  }
  context_->counters.create_errors.fetch_add(1);
  context_->CountRefused(status.error_code(), Clock::now());
  const bool retry = !status.ok() && ++create_attempts_ < kMaxCreateAttempts &&
                     !context_->stopping.load() &&
                     status.error_code() != grpc::StatusCode::UNAUTHENTICATED &&
                     status.error_code() != grpc::StatusCode::PERMISSION_DENIED &&
                     status.error_code() != grpc::StatusCode::INVALID_ARGUMENT;
  std::fprintf(stderr, "table-load: CreateTable %s: %d %s%s\n", request_id_.c_str(),
               static_cast<int>(status.error_code()), status.error_message().c_str(),
               retry ? " (retrying)" : "");
  if (!retry) return run_->OnCreated(this, false);
  // An instance that does not answer: the next one (of a fleet).
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    ++target_;
  }
  // Same request id: a create that did land is answered again, not made twice.
  pause_ = std::make_unique<grpc::Alarm>();
  pause_->Set(std::chrono::system_clock::now() + kCreatePause,
              [this](bool) { SendCreate(); });
}

void LoadTable::MarkAfterFailure(std::atomic<int64_t>& first, Clock::time_point now) {
  if (first.load(std::memory_order_relaxed) != 0) return;
  int64_t none = 0;
  first.compare_exchange_strong(none, now.time_since_epoch().count());
}

std::optional<Clock::time_point> LoadTable::first_update_after_failure() const {
  if (first_update_.load() == 0) return std::nullopt;
  return At(first_update_);
}

std::optional<Clock::time_point> LoadTable::first_ack_after_failure() const {
  if (first_ack_.load() == 0) return std::nullopt;
  return At(first_ack_);
}

void LoadTable::StartSeats() {
  open_streams_.store(4);
  for (auto& seat : seats_) seat->Start();
}

void LoadTable::Cancel() {
  cancelled_.store(true);
  if (!created_.load()) return;
  for (auto& seat : seats_) seat->Cancel();
}

void LoadTable::OnGameEnded() {
  if (ended_.exchange(true)) return;  // every seat sees GameEnded
  context_->counters.games_ended.fetch_add(1);
  run_->OnGameEnded(this);
}

void LoadTable::Pace(std::function<void()> act) {
  if (!pacing_) return act();
  run_->pacer().At(pacing_->Next(Clock::now()), std::move(act));
}

std::vector<std::string> LoadTable::Targets() const { return run_->targets(); }

v1::TableService::Stub* LoadTable::StubFor(const std::string& address) {
  return run_->StubFor(address, number_ / run_->targets().size());
}

void LoadTable::OnStreamDone(int seat, const grpc::Status& status) {
  // A stream ends OK after GameEnded, CANCELLED when we close it; anything else
  // (RESOURCE_EXHAUSTED: we read too slowly; UNAVAILABLE) is a finding.
  if (!status.ok() && !cancelled_.load()) {
    context_->counters.stream_errors.fetch_add(1);
    ReportStreamError(id_, seat, status);
  }
  if (open_streams_.fetch_sub(1) == 1) run_->OnStreamsClosed(this);
}

}  // namespace trix::load
