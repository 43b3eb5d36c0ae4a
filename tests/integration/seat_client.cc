#include "tests/integration/seat_client.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/random.h"
#include "services/table/testing/table_client.h"

namespace trix::table {
namespace {

std::string UniquePrefix(int seat) {
  static std::atomic<int> counter{0};
  return absl::StrCat("s", seat, "-c", counter.fetch_add(1), "-");
}

}  // namespace

SeatClient::SeatClient(std::shared_ptr<grpc::Channel> channel, std::string table_id,
                       std::string token, int seat)
    : channel_(std::move(channel)),
      stub_(v1::TableService::NewStub(channel_)),
      table_id_(std::move(table_id)),
      token_(std::move(token)),
      seat_(seat),
      id_prefix_(UniquePrefix(seat)) {}

SeatClient::~SeatClient() { Close(); }

void SeatClient::Open(uint64_t after_seq, std::optional<uint64_t> play_seed) {
  thread_ = std::thread([this, after_seq, play_seed] { Read(after_seq, play_seed); });
}

void SeatClient::OpenPlay(uint64_t after_seq, std::optional<uint64_t> play_seed) {
  v1::PlayRequest first;
  first.mutable_subscribe()->set_table_id(table_id_);
  first.mutable_subscribe()->set_seat_token(token_);
  first.mutable_subscribe()->set_after_seq(after_seq);
  thread_ = std::thread([this, first, play_seed] { Play(first, play_seed); });
}

void SeatClient::OpenPlayWith(v1::PlayRequest first) {
  thread_ = std::thread([this, first] { Play(first, std::nullopt); });
}

bool SeatClient::Write(const v1::PlayRequest& request) {
  absl::MutexLock lock(&write_mu_);
  return play_ != nullptr && play_->Write(request);
}

void SeatClient::WritesDone() {
  absl::MutexLock lock(&write_mu_);
  if (play_ != nullptr) play_->WritesDone();
}

void SeatClient::Close() {
  {
    absl::MutexLock lock(&mu_);
    if (context_ != nullptr) context_->TryCancel();
  }
  if (thread_.joinable()) thread_.join();
}

void SeatClient::Read(uint64_t after_seq, std::optional<uint64_t> play_seed) {
  grpc::ClientContext context;
  {
    absl::MutexLock lock(&mu_);
    context_ = &context;
  }
  std::unique_ptr<grpc::ClientReader<v1::TableUpdate>> reader;
  if (seat_ >= 0) {
    v1::SubscribeRequest request;
    request.set_table_id(table_id_);
    request.set_seat_token(token_);
    request.set_after_seq(after_seq);
    reader = stub_->Subscribe(&context, request);
  } else {
    v1::WatchRequest request;
    request.set_table_id(table_id_);
    request.set_after_seq(after_seq);
    reader = stub_->Watch(&context, request);
  }
  engine::Rng rng(play_seed.value_or(0));
  int acted = 0;
  v1::TableUpdate update;
  while (reader->Read(&update)) {
    Record(update);
    if (!play_seed || !update.has_prompt()) continue;
    v1::ActRequest act = RandomAction(update.prompt(), rng);
    act.set_table_id(table_id_);
    act.set_seat_token(token_);
    act.set_request_id(absl::StrCat(id_prefix_, acted++));
    v1::ActResponse response;
    grpc::ClientContext act_context;
    act_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    grpc::Status s = stub_->Act(&act_context, act, &response);
    absl::MutexLock lock(&mu_);
    if (s.ok()) {
      acks_.push_back({act, response});
    } else {
      act_errors_.push_back(s);
    }
  }
  grpc::Status status = reader->Finish();
  absl::MutexLock lock(&mu_);
  context_ = nullptr;
  done_ = status;
}

void SeatClient::Play(v1::PlayRequest first, std::optional<uint64_t> play_seed) {
  grpc::ClientContext context;
  {
    absl::MutexLock lock(&mu_);
    context_ = &context;
  }
  std::unique_ptr<grpc::ClientReaderWriter<v1::PlayRequest, v1::TableUpdate>> stream =
      stub_->Play(&context);
  {
    absl::MutexLock lock(&write_mu_);
    play_ = stream.get();
    play_->Write(first);
  }
  engine::Rng rng(play_seed.value_or(0));
  int acted = 0;
  v1::TableUpdate update;
  while (stream->Read(&update)) {
    Record(update);
    if (!play_seed || !update.has_prompt()) continue;
    v1::PlayRequest request;
    *request.mutable_act() = RandomAction(update.prompt(), rng);
    request.mutable_act()->set_request_id(absl::StrCat(id_prefix_, acted++));
    {
      absl::MutexLock lock(&mu_);
      sent_.push_back(request.act());
    }
    absl::MutexLock lock(&write_mu_);
    play_->Write(request);
  }
  {
    absl::MutexLock lock(&write_mu_);
    play_ = nullptr;
  }
  grpc::Status status = stream->Finish();
  absl::MutexLock lock(&mu_);
  context_ = nullptr;
  done_ = status;
}

void SeatClient::Record(const v1::TableUpdate& update) {
  absl::MutexLock lock(&mu_);
  updates_.push_back(update);
  for (const v1::ActResult& result : update.results()) {
    results_.push_back(result);
    auto it = std::find_if(sent_.begin(), sent_.end(), [&](const v1::ActRequest& a) {
      return a.request_id() == result.request_id();
    });
    if (it == sent_.end()) continue;  // written by the test, not by the player
    if (result.code() == 0) {
      v1::ActResponse response;
      response.set_seq(result.seq());
      acks_.push_back({*it, response});
    } else {
      act_errors_.emplace_back(static_cast<grpc::StatusCode>(result.code()),
                               result.message());
    }
    sent_.erase(it);
  }
}

std::vector<v1::ActResult> SeatClient::results() const {
  absl::MutexLock lock(&mu_);
  return results_;
}

std::optional<v1::ActResult> SeatClient::WaitResult(const std::string& request_id,
                                                    absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto find = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> const v1::ActResult* {
    for (const v1::ActResult& r : results_) {
      if (r.request_id() == request_id) return &r;
    }
    return nullptr;
  };
  auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return find() != nullptr || done_.has_value();
  };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  if (const v1::ActResult* r = find()) return *r;
  return std::nullopt;
}

grpc::Status SeatClient::WaitDone(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return done_.has_value(); };
  if (!mu_.AwaitWithTimeout(absl::Condition(&done), timeout)) {
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "stream still open");
  }
  return *done_;
}

bool SeatClient::WaitUntil(std::function<bool(const std::vector<v1::TableUpdate>&)> ready,
                           absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return ready(updates_) || done_.has_value();
  };
  mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
  return ready(updates_);
}

std::vector<v1::TableUpdate> SeatClient::updates() const {
  absl::MutexLock lock(&mu_);
  return updates_;
}

std::vector<v1::Event> SeatClient::events() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::Event> out;
  for (const v1::TableUpdate& u : updates_) {
    out.insert(out.end(), u.events().begin(), u.events().end());
  }
  return out;
}

uint64_t SeatClient::last_seq() const {
  absl::MutexLock lock(&mu_);
  for (auto it = updates_.rbegin(); it != updates_.rend(); ++it) {
    if (it->events_size() > 0) return it->events(it->events_size() - 1).seq();
    if (it->has_snapshot()) return it->snapshot().seq();
  }
  return 0;
}

std::vector<SeatClient::Ack> SeatClient::acks() const {
  absl::MutexLock lock(&mu_);
  return acks_;
}

std::vector<grpc::Status> SeatClient::act_errors() const {
  absl::MutexLock lock(&mu_);
  return act_errors_;
}

}  // namespace trix::table
