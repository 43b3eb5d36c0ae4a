#include "bots/sdk/seat.h"

#include <algorithm>
#include <iostream>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"

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

std::chrono::system_clock::time_point ToChrono(absl::Time t) {
  return absl::ToChronoTime(t);
}

}  // namespace

std::shared_ptr<grpc::Channel> TableChannel(const std::string& address) {
  grpc::ChannelArguments args;
  // Reconnect quickly after a server restart: gRPC's default backoff starts at 1 s
  // and grows to 2 min. (The "min" backoff is also the connect timeout: keep it.)
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

Seat::Seat(std::shared_ptr<grpc::ChannelInterface> channel, SeatConfig config, Bot* bot)
    : channel_(channel),
      stub_(v1::TableService::NewStub(std::move(channel))),
      config_(std::move(config)),
      bot_(bot) {
  std::random_device device;
  const uint64_t r = (uint64_t{device()} << 32) ^ device();
  // Unique per process and seat, so that a restarted bot never reuses an id that
  // the server would answer from memory with an old action's answer.
  request_prefix_ = absl::StrFormat("%016x", r);
  jitter_state_ = r | 1;
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
  if (act_context_ != nullptr) act_context_->TryCancel();
}

bool Seat::Sleep(absl::Duration duration) {
  if (duration > absl::ZeroDuration()) stop_.WaitForNotificationWithTimeout(duration);
  return !stopped_.load();
}

absl::Duration Seat::Jitter(absl::Duration d) {
  // xorshift: spreads the reconnects of many bots after one server restart.
  jitter_state_ ^= jitter_state_ << 13;
  jitter_state_ ^= jitter_state_ >> 7;
  jitter_state_ ^= jitter_state_ << 17;
  const double f = 0.5 + static_cast<double>(jitter_state_ % 1000) / 1000.0;
  return d * f;
}

std::string Seat::NextRequestId() {
  return absl::StrCat(request_prefix_, "-", ++request_counter_);
}

absl::StatusOr<v1::GameResult> Seat::Play() {
  absl::Time last_progress = absl::Now();
  absl::Duration backoff = config_.backoff_initial;
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
    const absl::Time now = absl::Now();
    if (outcome.progressed) {
      last_progress = now;
      backoff = config_.backoff_initial;
      // A resync after progress is routine (the game moved on): no pause.
      if (outcome.end == StreamEnd::kResync) continue;
    }
    if (now - last_progress > config_.give_up_after) {
      return absl::DeadlineExceededError(
          absl::StrCat("no progress for ", absl::FormatDuration(now - last_progress),
                       "; last error: ", last_error.ToString()));
    }
    const absl::Duration pause = Jitter(backoff);
    Log(LogLevel::kInfo, absl::StrCat("resubscribing in ", absl::FormatDuration(pause),
                                      " after: ", last_error.ToString()));
    if (!Sleep(pause)) break;
    backoff = std::min(backoff * 2, config_.backoff_max);
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

  // A channel that lost its server fails calls at once until it reconnects; give
  // it a moment to, rather than spin through failed subscriptions.
  channel_->WaitForConnected(ToChrono(absl::Now() + absl::Seconds(1)));

  v1::SubscribeRequest request;
  request.set_table_id(config_.table_id);
  request.set_seat_token(config_.seat_token);
  const uint64_t after_seq =
      tracker_.started() && !force_snapshot_ ? tracker_.state().seq : 0;
  request.set_after_seq(after_seq);
  std::unique_ptr<grpc::ClientReader<v1::TableUpdate>> reader =
      stub_->Subscribe(&context, request);

  // Leaves the stream (our side) and reports why.
  auto leave = [&](StreamOutcome outcome) {
    context.TryCancel();
    reader->Finish().IgnoreError();
    return outcome;
  };

  bool progressed = false;
  v1::TableUpdate update;
  while (reader->Read(&update)) {
    progressed = true;
    // The bot hears of the snapshot and of each event as the tracker takes it in.
    absl::StatusOr<bool> must_act = tracker_.Apply(update, bot_);
    if (!must_act.ok()) {
      Log(LogLevel::kWarn, absl::StrCat("resyncing: ", must_act.status().ToString()));
      // A gap heals by resuming; anything else (or a gap that keeps coming back)
      // by starting over from a snapshot.
      force_snapshot_ = must_act.status().code() != absl::StatusCode::kOutOfRange ||
                        malformed_in_a_row_ > 0;
      if (++malformed_in_a_row_ > 5) {
        return leave({StreamEnd::kFatal,
                      absl::DataLossError(absl::StrCat("the stream keeps sending updates "
                                                       "that do not apply: ",
                                                       must_act.status().message())),
                      true});
      }
      return leave({StreamEnd::kResync, must_act.status(), false});
    }
    if (update.has_snapshot() || update.events_size() > 0) malformed_in_a_row_ = 0;
    if (update.has_snapshot()) {
      force_snapshot_ = false;
      absl::MutexLock lock(&mu_);
      ++stats_.snapshots;
    }
    if (tracker_.state().game_over) {
      return leave({StreamEnd::kGameOver, absl::OkStatus(), true});
    }
    if (*must_act) {
      absl::Status fatal;
      switch (Answer(&fatal)) {
        case Answered::kOk:
          break;
        case Answered::kResync:
          return leave({StreamEnd::kResync, absl::OkStatus(), true});
        case Answered::kFatal:
          return leave({StreamEnd::kFatal, fatal, true});
      }
    }
    if (stopped_.load()) return leave({StreamEnd::kStopped, absl::OkStatus(), true});
  }
  const absl::Status status = FromGrpc(reader->Finish());
  if (stopped_.load()) return {StreamEnd::kStopped, absl::OkStatus(), progressed};
  return StreamClosed(status, after_seq, progressed);
}

Seat::StreamOutcome Seat::StreamClosed(const absl::Status& status, uint64_t after_seq,
                                       bool progressed) {
  if (Refused(status.code())) return {StreamEnd::kFatal, status, progressed};
  if (status.code() == absl::StatusCode::kInvalidArgument) {
    // after_seq beyond what the server has (it lost a tail?): start over.
    if (after_seq > 0) {
      force_snapshot_ = true;
      return {StreamEnd::kReconnect, status, progressed};
    }
    return {StreamEnd::kFatal, status, progressed};
  }
  // OK without GameEnded (the server closed early), UNAVAILABLE (restart, drain),
  // RESOURCE_EXHAUSTED (we fell behind), NOT_FOUND (the table is being taken over
  // by another instance), ...: resume; give_up_after bounds the attempts.
  return {
      StreamEnd::kReconnect,
      status.ok() ? absl::UnavailableError("the stream ended before the game") : status,
      progressed};
}

Seat::Answered Seat::Answer(absl::Status* fatal) {
  const SeatState& state = tracker_.state();
  const SeatOptions& options = state.options;
  // Made before our last action was applied; its events are on their way.
  if (options.seq < acked_seq_) return Answered::kOk;

  v1::ActRequest request;
  if (unacknowledged_ && unacknowledged_->prompt_seq == options.seq) {
    request = unacknowledged_->request;  // the same decision: the same request id
  } else {
    Decision decision;
    if (rejected_seq_ == options.seq) {
      // Refused once for this very decision: do not ask the bot to repeat itself.
      decision = FirstOption(options);
    } else {
      if (config_.think > absl::ZeroDuration() && !Sleep(config_.think)) {
        return Answered::kOk;  // stopping; the stream loop notices
      }
      decision = bot_->Decide(state);
      if (!IsAllowed(decision, options)) {
        Log(LogLevel::kWarn,
            absl::StrCat("the bot chose \"", DescribeDecision(decision),
                         "\", which is not an option; ", DescribeState(state)));
        absl::MutexLock lock(&mu_);
        ++stats_.replaced;
        decision = FirstOption(options);
      }
    }
    request.set_table_id(config_.table_id);
    request.set_seat_token(config_.seat_token);
    request.set_request_id(NextRequestId());
    FillAction(decision, &request);
    unacknowledged_ = Unacknowledged{options.seq, request};
  }

  // Worth retrying while the decision's clock runs (and a little after: a server
  // that restarts rebuilds the clock), but never for long.
  const absl::Time now = absl::Now();
  const absl::Time retry_until =
      std::min(std::max(options.deadline + absl::Seconds(1), now + absl::Seconds(5)),
               now + absl::Seconds(30));
  absl::StatusOr<v1::ActResponse> response = SendAct(request, retry_until);
  if (response.ok()) {
    acked_seq_ = response->seq();
    unacknowledged_.reset();
    absl::MutexLock lock(&mu_);
    ++stats_.actions;
    return Answered::kOk;
  }
  const absl::StatusCode code = response.status().code();
  if (Refused(code)) {
    *fatal = response.status();
    return Answered::kFatal;
  }
  if (code == absl::StatusCode::kFailedPrecondition ||
      code == absl::StatusCode::kInvalidArgument) {
    // Nothing changed on the server; the stream will show why (usually the
    // autopilot acted on an expired clock).
    Log(LogLevel::kInfo,
        absl::StrCat("action refused (", response.status().ToString(), "); resyncing"));
    unacknowledged_.reset();
    if (rejected_seq_ == options.seq) {
      ++rejected_count_;
    } else {
      rejected_seq_ = options.seq;
      rejected_count_ = 1;
    }
    {
      absl::MutexLock lock(&mu_);
      ++stats_.rejected;
    }
    // Even the first option refused: leave this decision to the autopilot.
    if (rejected_count_ > 2) acked_seq_ = options.seq + 1;
    return Answered::kResync;
  }
  // Unavailable for too long, or an unexpected failure: reconnect; the same
  // request is resent if the same decision comes back.
  Log(LogLevel::kWarn, absl::StrCat("action failed: ", response.status().ToString()));
  return Answered::kResync;
}

absl::StatusOr<v1::ActResponse> Seat::SendAct(const v1::ActRequest& request,
                                              absl::Time retry_until) {
  absl::Duration backoff = config_.backoff_initial;
  while (true) {
    grpc::ClientContext context;
    context.set_deadline(ToChrono(absl::Now() + config_.act_timeout));
    // While the server restarts, wait (within the deadline) for it to be back.
    context.set_wait_for_ready(true);
    {
      absl::MutexLock lock(&mu_);
      if (stopped_.load()) return absl::CancelledError("stopped");
      act_context_ = &context;
    }
    v1::ActResponse response;
    const absl::Status status = FromGrpc(stub_->Act(&context, request, &response));
    {
      absl::MutexLock lock(&mu_);
      act_context_ = nullptr;
    }
    if (status.ok()) return response;
    const absl::Duration pause = Jitter(backoff);
    if (!Retryable(status.code()) || absl::Now() + pause > retry_until ||
        stopped_.load()) {
      return status;
    }
    {
      absl::MutexLock lock(&mu_);
      ++stats_.act_retries;
    }
    Log(LogLevel::kInfo, absl::StrCat("retrying request ", request.request_id(),
                                      " after: ", status.ToString()));
    if (!Sleep(pause)) return absl::CancelledError("stopped");
    backoff = std::min(backoff * 2, config_.backoff_max);
  }
}

}  // namespace trix::bots
