// TLS on the table service's port, over real connections: a self-signed
// certificate made by the openssl command in the test, a TLS client that trusts
// exactly it, a plaintext client that is refused, and a certificate replaced on
// disk that new connections then get without a restart.
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "tests/integration/service_fixture.h"

namespace trix::table {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TlsTest : public TableServiceTest {
 protected:
  void SetUp() override {
    TableServiceTest::SetUp();
    char pattern[] = "/tmp/mamlaka-tls-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override {
    TableServiceTest::TearDown();
    std::system(absl::StrCat("rm -rf ", dir_).c_str());
  }
  // A new self-signed certificate for localhost and 127.0.0.1 with its key,
  // written to `name`.crt / `name`.key; returns the certificate's PEM.
  std::string MakeCertificate(const std::string& name, const std::string& cn) {
    const std::string command =
        absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=", cn,
                     " -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout ", dir_,
                     "/", name, ".key -out ", dir_, "/", name, ".crt 2>/dev/null");
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return ReadFile(absl::StrCat(dir_, "/", name, ".crt"));
  }
  // Moves `name`'s files into the place the server reads, each file at once.
  void Install(const std::string& name) {
    for (const char* ext : {".key", ".crt"}) {
      const std::string from = absl::StrCat(dir_, "/", name, ext);
      const std::string to = absl::StrCat(dir_, "/server", ext);
      ASSERT_EQ(std::rename(from.c_str(), to.c_str()), 0) << from;
    }
  }
  std::shared_ptr<grpc::Channel> TlsChannel(const std::string& root_pem) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = root_pem;
    grpc::ChannelArguments args;
    args.SetInt("grpc.use_local_subchannel_pool", 1);
    return grpc::CreateCustomChannel(absl::StrCat("localhost:", service_->port()),
                                     grpc::SslCredentials(ssl), args);
  }

  std::string dir_;
};

TEST_F(TlsTest, ServesTlsWithTheCertificateOnDiskAndPicksUpANewOne) {
  const std::string first = MakeCertificate("first", "first");
  Install("first");
  ServiceOptions options = DefaultServiceOptions();
  options.server.tls_cert_file = dir_ + "/server.crt";
  options.server.tls_key_file = dir_ + "/server.key";
  options.server.tls_refresh = absl::Seconds(1);
  StartService(options);

  // A client that trusts the certificate is served; plaintext is not.
  EXPECT_EQ(HealthStatus(TlsChannel(first), ""), 1);
  EXPECT_EQ(HealthStatus(NewChannel(), ""), -1);
  // A real call over TLS.
  std::unique_ptr<v1::TableService::Stub> stub =
      v1::TableService::NewStub(TlsChannel(first));
  grpc::ClientContext context;
  context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
  v1::CreateTableResponse created;
  ASSERT_TRUE(
      stub->CreateTable(&context,
                        CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 5),
                        &created)
          .ok());

  // Renewed on disk: new connections get the new certificate, without a restart.
  const std::string second = MakeCertificate("second", "second");
  Install("second");
  bool renewed = false;
  for (int i = 0; i < 100 && !renewed; ++i) {
    renewed = HealthStatus(TlsChannel(second), "") == 1;
    if (!renewed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(renewed) << "the renewed certificate was never served";
  EXPECT_EQ(HealthStatus(TlsChannel(first), ""), -1)
      << "a client trusting only the old certificate still connects";
}

TEST_F(TlsTest, ACertificateWithoutAKeyIsRefusedAtStart) {
  MakeCertificate("lonely", "lonely");
  ServiceOptions options = DefaultServiceOptions();
  options.server.tls_cert_file = dir_ + "/lonely.crt";
  StopService();
  absl::StatusOr<std::unique_ptr<InProcessService>> started =
      InProcessService::Start(db_->url(), options);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trix::table
