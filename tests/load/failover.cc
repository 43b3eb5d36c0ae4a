#include "tests/load/failover.h"

#include <signal.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace trix::load {
namespace {

int SignalNumber(const std::string& name) {
  if (name == "KILL") return SIGKILL;
  if (name == "TERM") return SIGTERM;
  return 0;
}

// "14: 3, 4: 1" (text) or "\"14\":3,\"4\":1" (the members of a JSON object).
std::string RefusedText(const std::vector<std::pair<int, int64_t>>& refused, bool json) {
  std::vector<std::string> parts;
  for (const auto& [code, count] : refused) {
    parts.push_back(json ? absl::StrFormat("\"%d\":%d", code, count)
                         : absl::StrFormat("%d: %d", code, count));
  }
  return absl::StrJoin(parts, json ? "," : ", ");
}

}  // namespace

absl::Status CheckFailover(const FailoverOptions& options, absl::Duration window) {
  if (options.pid == 0) return absl::OkStatus();
  if (options.pid < 0) {
    return absl::InvalidArgumentError("--fleet_kill_pid must be a process id");
  }
  if (SignalNumber(options.signal) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--fleet_signal is KILL or TERM, not \"", options.signal, "\""));
  }
  if (options.after <= absl::ZeroDuration() || options.bound <= absl::ZeroDuration() ||
      options.after + options.bound > window) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--duration (", absl::FormatDuration(window), ") must hold --fleet_kill_after (",
        absl::FormatDuration(options.after), ") and --fleet_bound (",
        absl::FormatDuration(options.bound), ") after it, both positive"));
  }
  return absl::OkStatus();
}

absl::Status CauseFailure(const FailoverOptions& options, LoadContext& context,
                          absl::Time* at) {
  *at = absl::Now();
  context.MarkFailure(Clock::now());
  if (kill(options.pid, SignalNumber(options.signal)) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot signal process ", options.pid, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

FailoverFigures MeasureFailover(const std::vector<const LoadTable*>& tables,
                                const LoadContext& context, absl::Duration bound,
                                absl::Time at) {
  FailoverFigures f;
  f.at = at;
  f.bound = bound;
  const Clock::time_point failure = context.failure();
  LatencyLog update, back;
  for (const LoadTable* table : tables) {
    if (table->created_at() >= failure) continue;  // started after the failure
    const std::optional<Clock::time_point> acked = table->first_ack_after_failure();
    // A game whose last action was answered before the failure had nothing left
    // to play.
    if (table->ended() && !acked) continue;
    ++f.tables;
    if (std::optional<Clock::time_point> u = table->first_update_after_failure()) {
      update.Add(absl::FromChrono(*u - failure));
    }
    if (acked) back.Add(absl::FromChrono(*acked - failure));
    if (!acked || absl::FromChrono(*acked - failure) > bound) ++f.late;
  }
  f.update = update.Summarize();
  f.back = back.Summarize();
  for (int code = 1; code < LoadContext::kCodes; ++code) {
    if (const int64_t n = context.refused(code); n > 0) f.refused.emplace_back(code, n);
  }
  return f;
}

std::string FailoverFigures::Text() const {
  return absl::StrFormat(
      "  failover           %d tables in play at the failure; back in play (first "
      "accepted action) %s; first update %s; %d not back within %s%s; refused "
      "meanwhile by gRPC code: %s\n",
      tables, back.Text(), update.Text(), late, absl::FormatDuration(bound),
      late > 0 ? " (FAILED)" : "", refused.empty() ? "none" : RefusedText(refused, false));
}

std::string FailoverFigures::Json() const {
  return absl::StrFormat(
      "{\"at_unix_ms\":%d,\"tables\":%d,\"back\":%s,\"first_update\":%s,\"late\":%d,\"bound_s\":%.3f,"
      "\"refused\":{%s}}",
      absl::ToUnixMillis(at), tables, back.Json(), update.Json(), late, absl::ToDoubleSeconds(bound),
      RefusedText(refused, true));
}

}  // namespace trix::load
