#include "tests/integration/service_process.h"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/common/testing/read_file.h"
#include "tests/integration/service_fixture.h"

namespace trix::table {
namespace {

}  // namespace

std::unique_ptr<ServiceProcess> ServiceProcess::Start(const Options& options) {
  std::unique_ptr<ServiceProcess> p(new ServiceProcess(options));
  const std::string port_file =
      absl::StrCat(options.dir, "/", options.instance_id, ".port");
  unlink(port_file.c_str());
  bots::ChildProcess::Options child;
  child.argv = {options.binary,
                absl::StrCat("--listen=127.0.0.1:", options.port),
                "--port_file=" + port_file,
                "--instance_id=" + options.instance_id,
                "--migrations_dir=" + options.migrations_dir,
                "--lease_ttl=" + options.lease_ttl,
                "--metrics_port=-1",
                "--log_level=info",
                "--seat_rate=1000",
                "--seat_burst=1000",
                "--peer_rate=100000",
                "--peer_burst=100000"};
  for (const std::string& flag : options.extra) child.argv.push_back(flag);
  child.env = {{"MAMLAKA_DATABASE_URL", options.db_url},
               {"MAMLAKA_SERVICE_TOKEN", kServiceToken}};
  child.env.insert(child.env.end(), options.env.begin(), options.env.end());
  child.output_path = p->LogPath();
  absl::StatusOr<std::unique_ptr<bots::ChildProcess>> started =
      bots::ChildProcess::Start(child);
  if (!started.ok()) return nullptr;
  p->child_ = *std::move(started);
  for (const absl::Time until = absl::Now() + absl::Seconds(30); absl::Now() < until;) {
    std::ifstream in(port_file);
    if (in >> p->port_ && p->port_ > 0) return p;
    if (p->child_->Poll()) break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return nullptr;
}

std::unique_ptr<ServiceProcess> ServiceProcess::StartServing(const Options& options) {
  std::unique_ptr<ServiceProcess> p = Start(options);
  if (p == nullptr) {
    ADD_FAILURE() << options.instance_id << ": the table service did not start";
  } else if (!p->WaitServing(absl::Seconds(30))) {
    ADD_FAILURE() << options.instance_id << ": not SERVING within 30 s\n" << p->Log();
    p.reset();
  }
  return p;
}

ServiceProcess::~ServiceProcess() { Kill(); }

v1::CreateTableResponse ServiceProcess::CreateTable(
    const v1::CreateTableRequest& request) const {
  v1::CreateTableResponse table;
  grpc::ClientContext context;
  context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
  grpc::Status s = v1::TableService::NewStub(NewChannel())->CreateTable(&context, request, &table);
  EXPECT_TRUE(s.ok()) << s.error_message() << Log();
  return table;
}

std::shared_ptr<grpc::Channel> ServiceProcess::NewChannel() const {
  return grpc::CreateChannel(address(), grpc::InsecureChannelCredentials());
}

bool ServiceProcess::WaitServing(absl::Duration timeout) const {
  auto channel = NewChannel();
  for (const absl::Time until = absl::Now() + timeout; absl::Now() < until;) {
    if (HealthStatus(channel, "trix.v1.TableService") == 1) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

bool ServiceProcess::Running() const { return child_ && !child_->Poll().has_value(); }

void ServiceProcess::Kill() {
  if (!child_) return;
  child_->Signal(SIGCONT);  // a paused process dies as well
  child_->Signal(SIGKILL);
  child_->Wait(absl::Seconds(10)).IgnoreError();
  child_.reset();
}

void ServiceProcess::Pause() { child_->Signal(SIGSTOP); }
void ServiceProcess::Resume() { child_->Signal(SIGCONT); }

std::string ServiceProcess::LogPath() const {
  return absl::StrCat(options_.dir, "/", options_.instance_id, ".log");
}

std::string ServiceProcess::Log() const { return ReadFile(LogPath()); }

}  // namespace trix::table
