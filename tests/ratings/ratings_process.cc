#include "tests/ratings/ratings_process.h"

#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "nlohmann/json.hpp"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/read_file.h"

namespace trix::ratings {

namespace {

// The ports of the log's lines with message `msg`, one per start.
std::vector<int> LoggedPorts(const std::string& log, const std::string& msg = "serving") {
  std::istringstream lines(ReadFile(log));
  std::vector<int> ports;
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.value("msg", "") == msg) {
      ports.push_back(j.value("port", 0));
    }
  }
  return ports;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RatingsProcess>> RatingsProcess::Start(
    const std::string& database_url, const std::string& log,
    const std::vector<std::string>& extra_flags,
    const std::vector<std::pair<std::string, std::string>>& env) {
  const size_t starts = LoggedPorts(log).size();
  const size_t starts_metrics = LoggedPorts(log, "serving metrics").size();
  bots::ChildProcess::Options options;
  options.argv = {BuildPath("bin/ratings-service"), "--listen=127.0.0.1:0",
                  "--migrations_dir=" + SourcePath("migrations"), "--metrics_port=-1",
                  "--log_level=info"};
  options.argv.insert(options.argv.end(), extra_flags.begin(), extra_flags.end());
  options.env = {{"MAMLAKA_DATABASE_URL", database_url},
                 {"MAMLAKA_SERVICE_TOKEN", kTestServiceToken}};
  options.env.insert(options.env.end(), env.begin(), env.end());
  options.output_path = log;
  absl::StatusOr<std::unique_ptr<bots::ChildProcess>> child = bots::ChildProcess::Start(options);
  if (!child.ok()) return child.status();
  auto p = std::unique_ptr<RatingsProcess>(new RatingsProcess());
  p->process_ = *std::move(child);
  const absl::Time until = absl::Now() + absl::Seconds(30);
  // A restart appends to the same log: only a new "serving" line counts.
  while (LoggedPorts(log).size() <= starts) {
    if (p->process_->Poll() || absl::Now() > until) {
      return absl::UnavailableError(absl::StrCat("ratings-service did not start:\n", ReadFile(log)));
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  p->port_ = LoggedPorts(log).back();
  const std::vector<int> metrics = LoggedPorts(log, "serving metrics");
  if (metrics.size() > starts_metrics) p->metrics_port_ = metrics.back();
  p->channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", p->port_),
                                    grpc::InsecureChannelCredentials());
  p->stub_ = v1::RatingsService::NewStub(p->channel_);
  return p;
}

void RatingsProcess::Authorize(grpc::ClientContext& context) const {
  context.AddMetadata("authorization", absl::StrCat("Bearer ", kTestServiceToken));
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
}

grpc::Status RatingsProcess::Credit(const std::string& request_id,
                                    const std::string& player_id, int64_t amount) {
  grpc::ClientContext context;
  Authorize(context);
  v1::TransferRequest request;
  request.set_request_id(request_id);
  request.set_player_id(player_id);
  request.set_amount(amount);
  v1::TransferResponse response;
  return stub_->Credit(&context, request, &response);
}

grpc::Status RatingsProcess::GetBalance(const std::string& player_id, v1::Balance* balance) {
  grpc::ClientContext context;
  Authorize(context);
  v1::GetBalanceRequest request;
  request.set_player_id(player_id);
  return stub_->GetBalance(&context, request, balance);
}

}  // namespace trix::ratings
