#include "services/common/health_port.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/health_check_service_server_builder_option.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/support/byte_buffer.h"

namespace trix::service {
namespace {

constexpr char kCheck[] = "/grpc.health.v1.Health/Check";

// One Check: the request read, asked of the main server, its answer written.
class Forward : public grpc::ServerGenericBidiReactor {
 public:
  Forward(grpc::GenericCallbackServerContext* context, grpc::GenericStub* main)
      : main_(main) {
    if (context->method() != kCheck) {
      Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                          absl::StrCat("the health port serves ", kCheck, " only")));
      return;
    }
    StartRead(&request_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no health check request"));
      return;
    }
    asked_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    main_->UnaryCall(&asked_, kCheck, grpc::StubOptions(), &request_, &response_,
                     [this](grpc::Status status) {
                       if (!status.ok()) return Finish(status);
                       StartWriteAndFinish(&response_, grpc::WriteOptions(),
                                           grpc::Status::OK);
                     });
  }
  void OnDone() override { delete this; }

 private:
  grpc::GenericStub* const main_;
  grpc::ClientContext asked_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
};

class Forwarding : public grpc::CallbackGenericService {
 public:
  explicit Forwarding(grpc::GenericStub* main) : main_(main) {}
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    return new Forward(context, main_);
  }

 private:
  grpc::GenericStub* const main_;
};

}  // namespace

HealthPort::HealthPort(grpc::Server* server)
    : main_(server->InProcessChannel(grpc::ChannelArguments())) {}

HealthPort::~HealthPort() {
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    server_->Wait();
  }
}

absl::StatusOr<std::unique_ptr<HealthPort>> HealthPort::Start(const std::string& address,
                                                              grpc::Server* server) {
  if (address.empty()) return nullptr;
  std::unique_ptr<HealthPort> health(new HealthPort(server));
  health->service_ = std::make_unique<Forwarding>(&health->main_);
  grpc::ServerBuilder builder;
  // No health service of its own (it would say SERVING whatever the server's is).
  builder.SetOption(std::make_unique<grpc::HealthCheckServiceServerBuilderOption>(nullptr));
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &health->port_);
  builder.RegisterCallbackGenericService(health->service_.get());
  health->server_ = builder.BuildAndStart();
  if (!health->server_ || health->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", address));
  }
  return health;
}

}  // namespace trix::service
