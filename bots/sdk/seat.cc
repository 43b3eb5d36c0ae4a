#include "bots/sdk/seat.h"

#include <algorithm>
#include <iostream>
#include <random>
#include <utility>

#include <openssl/rand.h>

#include "absl/strings/str_cat.h"
#include "engine/deal_proof.h"
#include "absl/strings/str_format.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "proto/wire/table_location.h"
#include "services/common/backoff.h"

namespace trix::bots {
namespace {

absl::Status FromGrpc(const grpc::Status& s) {
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

// Failures after which the same request may simply be sent again.
bool Retryable(absl::StatusCode code) {
  return code == absl::StatusCode::kUnavailable ||
         code == absl::StatusCode::kDeadlineExceeded ||
         code == absl::StatusCode::kResourceExhausted ||
         code == absl::StatusCode::kAborted;
}

// Failures no retry can fix: the token is not this table's.
bool Refused(absl::StatusCode code) {
  return code == absl::StatusCode::kUnauthenticated ||
         code == absl::StatusCode::kPermissionDenied;
}

// How a stream may end that no new stream can fix: also an unknown table, or a
// quarantined one (a stream never ends FAILED_PRECONDITION otherwise).
bool StreamRefused(absl::StatusCode code) {
  return Refused(code) || code == absl::StatusCode::kNotFound ||
         code == absl::StatusCode::kFailedPrecondition;
}

std::chrono::system_clock::time_point ToChrono(absl::Time t) {
  return absl::ToChronoTime(t);
}

// The seat's seed for a table that deals from everyone's seeds: OpenSSL's
// cryptographic generator.
std::string SeatSeed() {
  std::string seed(engine::kSeatSeedBytes, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(seed.data()), engine::kSeatSeedBytes);
  return seed;
}

}  // namespace

std::shared_ptr<grpc::Channel> TableChannel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  grpc::ChannelArguments args;
  // Reconnect quickly after a server restart: gRPC's default backoff starts at 1 s
  // and grows to 2 min. (The "min" backoff is also the connect timeout: keep it.)
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(address, OrPlaintext(credentials), args);
}

std::shared_ptr<grpc::ChannelCredentials> OrPlaintext(
    const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  return credentials ? credentials : grpc::InsecureChannelCredentials();
}

Seat::Seat(std::shared_ptr<grpc::ChannelInterface> channel, SeatConfig config, Bot* bot)
    : home_(channel),
      channel_(channel),
      stub_(v1::TableService::NewStub(std::move(channel))),
      config_(std::move(config)),
      bot_(bot),
      act_backoff_(config_.backoff_initial, config_.backoff_max) {
  std::random_device device;
  const uint64_t r = (uint64_t{device()} << 32) ^ device();
  // Unique per process and seat, so that a restarted bot never reuses an id that
  // the server would answer from memory with an old action's answer.
  request_prefix_ = absl::StrFormat("%016x", r);
}

void Seat::Log(LogLevel level, absl::string_view message) const {
  if (config_.log) return config_.log(level, message);
  if (level >= LogLevel::kWarn) std::cerr << "trix bot: " << message << "\n";
}

SeatStats Seat::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void Seat::Stop() {
  stopped_.store(true);
  if (!stop_.HasBeenNotified()) stop_.Notify();
  absl::MutexLock lock(&mu_);
  if (stream_context_ != nullptr) stream_context_->TryCancel();
}

bool Seat::Sleep(absl::Duration duration) {
  if (duration > absl::ZeroDuration()) stop_.WaitForNotificationWithTimeout(duration);
  return !stopped_.load();
}

std::string Seat::NextRequestId() {
  return absl::StrCat(request_prefix_, "-", ++request_counter_);
}

absl::StatusOr<v1::GameResult> Seat::Play() {
  absl::Time last_progress = absl::Now();
  service::Backoff backoff(config_.backoff_initial, config_.backoff_max);
  absl::Status last_error = absl::UnavailableError("never connected");
  bool first = true;
  while (!stopped_.load()) {
    if (!first) {
      absl::MutexLock lock(&mu_);
      ++stats_.resubscribes;
    }
    first = false;
    StreamOutcome outcome = RunStream();
    switch (outcome.end) {
      case StreamEnd::kGameOver:
        return tracker_.state().result;
      case StreamEnd::kFatal:
        return outcome.status;
      case StreamEnd::kStopped:
        return absl::CancelledError("stopped");
      case StreamEnd::kResync:
      case StreamEnd::kReconnect:
        break;
    }
    if (!outcome.status.ok()) last_error = outcome.status;
    // The table lives elsewhere now: go there at once.
    if (outcome.moved && Sleep(config_.backoff_initial)) continue;
    const absl::Time now = absl::Now();
    if (outcome.progressed) {
      last_progress = now;
      backoff.Reset();
      // A resync after progress is routine (the game moved on): no pause.
      if (outcome.end == StreamEnd::kResync) continue;
    }
    if (now - last_progress > config_.give_up_after) {
      return absl::DeadlineExceededError(
          absl::StrCat("no progress for ", absl::FormatDuration(now - last_progress),
                       "; last error: ", last_error.ToString()));
    }
    // Jittered below the wait, never above: spreads the reconnects of many bots
    // after one server restart, and a seat is still back within backoff_max.
    const absl::Duration pause = service::Jittered(backoff.Failed(), 0.5, 1.0);
    Log(LogLevel::kInfo, absl::StrCat("resubscribing in ", absl::FormatDuration(pause),
                                      " after: ", last_error.ToString()));
    if (!Sleep(pause)) break;
  }
  return absl::CancelledError("stopped");
}

Seat::StreamOutcome Seat::RunStream() {
  grpc::ClientContext context;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_.load()) return {StreamEnd::kStopped, absl::OkStatus(), false};
    stream_context_ = &context;
  }
  // Cleared on every way out, before `context` goes away.
  struct Unregister {
    Seat* seat;
    ~Unregister() {
      absl::MutexLock lock(&seat->mu_);
      seat->stream_context_ = nullptr;
    }
  } unregister{this};

  const uint64_t after_seq =
      tracker_.started() && !force_snapshot_ ? tracker_.state().seq : 0;
  std::unique_ptr<PlayStream> stream = Subscribe(context, after_seq);
  bool progressed = false;
  v1::TableUpdate update;
  while (stream->Read(&update)) {
    progressed = true;
    if (std::optional<StreamOutcome> end = TakeUpdate(update, stream.get())) {
      // We leave the stream (our side).
      context.TryCancel();
      stream->Finish().IgnoreError();
      return *end;
    }
  }
  const grpc::Status finished = stream->Finish();
  if (stopped_.load()) return {StreamEnd::kStopped, absl::OkStatus(), progressed};
  StreamOutcome outcome = StreamClosed(FromGrpc(finished), after_seq, progressed);
  outcome.moved = outcome.end == StreamEnd::kReconnect && Follow(finished);
  return outcome;
}

std::unique_ptr<Seat::PlayStream> Seat::Subscribe(grpc::ClientContext& context,
                                                  uint64_t after_seq) {
  // A channel that lost its server fails calls at once until it reconnects; give
  // it a moment to, rather than spin through failed streams.
  channel_->WaitForConnected(ToChrono(absl::Now() + absl::Seconds(1)));

  v1::PlayRequest open;
  v1::SubscribeRequest* subscribe = open.mutable_subscribe();
  subscribe->set_table_id(config_.table_id);
  subscribe->set_seat_token(config_.seat_token);
  subscribe->set_after_seq(after_seq);
  std::unique_ptr<PlayStream> stream = stub_->Play(&context);
  // An action sent on an earlier stream is answered on that stream or never: it is
  // sent again (same request id) if its decision comes back.
  in_flight_ = false;
  // A failed write means a broken stream: the next Read says so.
  stream->Write(open);
  return stream;
}

std::optional<Seat::StreamOutcome> Seat::TakeUpdate(const v1::TableUpdate& update,
                                                    PlayStream* stream) {
  // The bot hears of the snapshot and of each event as the tracker takes it in.
  absl::StatusOr<bool> fresh_prompt = tracker_.Apply(update, bot_);
  if (!fresh_prompt.ok()) return Resync(fresh_prompt.status());
  if (update.has_snapshot() || update.events_size() > 0) malformed_in_a_row_ = 0;
  if (update.has_snapshot()) {
    force_snapshot_ = false;
    // A snapshot behind our last answer (the table was rebuilt from a log that lost
    // it): its prompts are current again.
    acked_seq_ = std::min<uint64_t>(acked_seq_, update.snapshot().seq());
    absl::MutexLock lock(&mu_);
    ++stats_.snapshots;
  }
  // The results after the events: an accepted action's own event is in this
  // update, and so may be the next decision's prompt.
  for (const v1::ActResult& result : update.results()) {
    if (!in_flight_ || result.request_id() != unacknowledged_->request.request_id()) {
      continue;  // not the action we wait for (cannot happen: one at a time)
    }
    absl::Status status;
    switch (TakeResult(result, stream, &status)) {
      case Answered::kOk:
        break;
      case Answered::kReconnect:
        return StreamOutcome{StreamEnd::kReconnect, status, false};
      case Answered::kResync:
        return StreamOutcome{StreamEnd::kResync, status, true};
      case Answered::kFatal:
        return StreamOutcome{StreamEnd::kFatal, status, true};
    }
  }
  if (tracker_.state().game_over) {
    return StreamOutcome{StreamEnd::kGameOver, absl::OkStatus(), true};
  }
  if (MustAnswer()) Answer(stream);
  if (stopped_.load()) return StreamOutcome{StreamEnd::kStopped, absl::OkStatus(), true};
  return std::nullopt;
}

Seat::StreamOutcome Seat::Resync(const absl::Status& error) {
  Log(LogLevel::kWarn, absl::StrCat("resyncing: ", error.ToString()));
  // A gap heals by resuming; anything else (or a gap that keeps coming back)
  // by starting over from a snapshot.
  force_snapshot_ =
      error.code() != absl::StatusCode::kOutOfRange || malformed_in_a_row_ > 0;
  if (++malformed_in_a_row_ > 5) {
    return {StreamEnd::kFatal,
            absl::DataLossError(absl::StrCat("the stream keeps sending updates "
                                             "that do not apply: ",
                                             error.message())),
            true};
  }
  return {StreamEnd::kResync, error, false};
}

bool Seat::Follow(const grpc::Status& status) {
  std::optional<v1::TableLocation> where = wire::LocationFromStatus(status);
  if (where && !where->address().empty() && where->address() != address_) {
    Log(LogLevel::kInfo, absl::StrCat("the table moved to ", where->address()));
    address_ = where->address();
    channel_ = TableChannel(address_, config_.credentials);
    stub_ = v1::TableService::NewStub(channel_);
    absl::MutexLock lock(&mu_);
    ++stats_.moves;
    return true;
  }
  if (!where && !address_.empty()) {
    // The instance we followed the table to is gone: back to the address we were
    // given (typically a load balancer), where any instance can answer.
    Log(LogLevel::kInfo, "the table's instance is gone; back to the first address");
    address_.clear();
    channel_ = home_;
    stub_ = v1::TableService::NewStub(channel_);
  }
  return false;
}

Seat::StreamOutcome Seat::StreamClosed(const absl::Status& status, uint64_t after_seq,
                                       bool progressed) {
  if (StreamRefused(status.code())) return {StreamEnd::kFatal, status, progressed};
  if (status.code() == absl::StatusCode::kOutOfRange ||
      status.code() == absl::StatusCode::kInvalidArgument) {
    // after_seq beyond what the server has (a failover lost the log's tail; older
    // servers said INVALID_ARGUMENT): start over from a snapshot.
    if (after_seq > 0) {
      force_snapshot_ = true;
      return {StreamEnd::kReconnect, status, progressed};
    }
    return {StreamEnd::kFatal, status, progressed};
  }
  // OK without GameEnded (the server closed early), UNAVAILABLE (restart, drain,
  // the table lives on another instance: Follow() goes there), RESOURCE_EXHAUSTED
  // (we fell behind), ...: resume; give_up_after bounds the attempts.
  return {
      StreamEnd::kReconnect,
      status.ok() ? absl::UnavailableError("the stream ended before the game") : status,
      progressed};
}

bool Seat::MustAnswer() const {
  const SeatOptions& options = tracker_.state().options;
  // A prompt made before our last action was applied is already answered.
  return !in_flight_ && options.pending && options.seq >= acked_seq_;
}

void Seat::Answer(PlayStream* stream) {
  const SeatState& state = tracker_.state();
  const SeatOptions& options = state.options;
  // Worth retrying while the decision's clock runs (and a little after: a server
  // that restarts rebuilds the clock), but never for long.
  const absl::Time now = absl::Now();
  const absl::Time retry_until =
      std::min(std::max(options.deadline + absl::Seconds(1), now + absl::Seconds(5)),
               now + absl::Seconds(30));
  if (unacknowledged_ && unacknowledged_->prompt_seq == options.seq) {
    // The same decision on a new stream: the same request id.
    unacknowledged_->retry_until = retry_until;
    {
      absl::MutexLock lock(&mu_);
      ++stats_.act_retries;
    }
    Log(LogLevel::kInfo,
        absl::StrCat("sending request ", unacknowledged_->request.request_id(),
                     " again on a new stream"));
    return SendAct(stream);
  }
  // Table id and seat token left empty: the stream's.
  v1::ActRequest request;
  request.set_request_id(NextRequestId());
  if (options.contribute_seed) {
    // The SDK's own answer: the seat's share of the deals' seed (docs/deals.md),
    // drawn here so that the server never chose it.
    request.mutable_contribute_seed()->set_seed(SeatSeed());
  } else {
    std::optional<Decision> decision = Choose(state);
    if (!decision) return;  // stopping; the stream loop notices
    FillAction(*decision, &request);
  }
  unacknowledged_ = Unacknowledged{options.seq, std::move(request), retry_until};
  act_backoff_.Reset();
  SendAct(stream);
}

std::optional<Decision> Seat::Choose(const SeatState& state) {
  const SeatOptions& options = state.options;
  // Refused once for this very decision: do not ask the bot to repeat itself.
  if (rejected_seq_ == options.seq) return FirstOption(options);
  if (config_.think > absl::ZeroDuration() && !Sleep(config_.think)) return std::nullopt;
  Decision decision = bot_->Decide(state);
  if (!IsAllowed(decision, options)) {
    // The bot author's bug, not the network's: an error they see, and a count.
    Log(LogLevel::kError,
        absl::StrCat("the bot chose \"", DescribeDecision(decision),
                     "\", which is not an option; ", DescribeState(state)));
    absl::MutexLock lock(&mu_);
    ++stats_.replaced;
    decision = FirstOption(options);
  }
  return decision;
}

void Seat::SendAct(PlayStream* stream) {
  v1::PlayRequest act;
  *act.mutable_act() = unacknowledged_->request;
  // A failed write means a broken stream: the next Read says so, and the action
  // goes again on the next stream if its decision is still open.
  in_flight_ = stream->Write(act);
}

Seat::Answered Seat::TakeResult(const v1::ActResult& result, PlayStream* stream,
                                absl::Status* status) {
  in_flight_ = false;
  const auto code = static_cast<absl::StatusCode>(result.code());
  if (code == absl::StatusCode::kOk) {
    acked_seq_ = result.seq();
    unacknowledged_.reset();
    absl::MutexLock lock(&mu_);
    ++stats_.actions;
    return Answered::kOk;
  }
  *status = absl::Status(code, result.message());
  if (Refused(code)) return Answered::kFatal;
  if (code == absl::StatusCode::kFailedPrecondition ||
      code == absl::StatusCode::kInvalidArgument) {
    TakeRefusal(*status);
    *status = absl::OkStatus();
    return Answered::kOk;
  }
  if (Retryable(code)) return RetryAct(result, stream, status);
  // An unexpected failure: a new stream; the same request goes again if the same
  // decision comes back.
  Log(LogLevel::kWarn, absl::StrCat("action failed: ", status->ToString()));
  return Answered::kResync;
}

void Seat::TakeRefusal(const absl::Status& status) {
  // Nothing changed on the server, and the stream has already brought what did
  // (usually the autopilot's move on an expired clock): the seat answers the
  // decision it faces now, if any.
  Log(LogLevel::kInfo, absl::StrCat("action refused: ", status.ToString()));
  const uint64_t prompt_seq = unacknowledged_->prompt_seq;
  unacknowledged_.reset();
  if (rejected_seq_ == prompt_seq) {
    ++rejected_count_;
  } else {
    rejected_seq_ = prompt_seq;
    rejected_count_ = 1;
  }
  {
    absl::MutexLock lock(&mu_);
    ++stats_.rejected;
  }
  // Even the first option refused: leave this decision to the autopilot.
  if (rejected_count_ > 2) acked_seq_ = prompt_seq + 1;
}

Seat::Answered Seat::RetryAct(const v1::ActResult& result, PlayStream* stream,
                              absl::Status* status) {
  const absl::Duration pause = service::Jittered(act_backoff_.next());
  if (absl::Now() + pause > unacknowledged_->retry_until) {
    // Unavailable for too long: a new stream, after a pause; the same request
    // goes again if the same decision comes back.
    Log(LogLevel::kWarn, absl::StrCat("action failed: ", status->ToString()));
    return Answered::kReconnect;
  }
  Log(LogLevel::kInfo, absl::StrCat("retrying request ", result.request_id(),
                                    " after: ", status->ToString()));
  if (!Sleep(pause)) return Answered::kOk;  // stopping; the stream loop notices
  act_backoff_.Failed();
  {
    absl::MutexLock lock(&mu_);
    ++stats_.act_retries;
  }
  SendAct(stream);
  *status = absl::OkStatus();
  return Answered::kOk;
}

}  // namespace trix::bots
