// TLS on the table service's port, over real connections: a self-signed
// certificate made by the openssl command in the test, a TLS client that trusts
// exactly it, a plaintext client that is refused, and a certificate replaced on
// disk that new connections then get without a restart. Then certificates from
// throwaway CAs (scripts/make-certs.sh): a client trusting another CA is refused,
// and with --tls_client_ca (mutual TLS) only a client presenting a certificate of
// that CA is served. The clients are made by services/common/tls.h, as every
// client of the deployment's is.
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/read_file.h"
#include "services/common/tls.h"
#include "tests/integration/service_fixture.h"

namespace trix::table {
namespace {

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

  // scripts/make-certs.sh: `name`.crt/.key under `ca`/ in the test's folder,
  // signed by that folder's CA (made at its first use).
  std::string MakeSigned(const std::string& ca, const std::string& name) {
    const std::string command =
        absl::StrCat(SourcePath("scripts/make-certs.sh"), " ", dir_, "/", ca, " ", name,
                     " localhost 127.0.0.1");
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return absl::StrCat(dir_, "/", ca, "/", name);
  }
  // A client made the way the deployment's are: trusting `ca`'s CA, presenting
  // `client` (a MakeSigned path, or none).
  std::shared_ptr<grpc::Channel> Client(const std::string& ca,
                                        const std::string& client = "") {
    service::ChannelTls tls{.enabled = true,
                            .ca_file = absl::StrCat(dir_, "/", ca, "/ca.crt")};
    if (!client.empty()) {
      tls.client_cert_file = client + ".crt";
      tls.client_key_file = client + ".key";
    }
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        service::ChannelCredentials(tls);
    EXPECT_TRUE(credentials.ok()) << credentials.status();
    grpc::ChannelArguments args;
    args.SetInt("grpc.use_local_subchannel_pool", 1);
    return grpc::CreateCustomChannel(absl::StrCat("localhost:", service_->port()),
                                     *credentials, args);
  }
  // The service on `server` (a MakeSigned path), mutual TLS with `client_ca`.
  void StartSigned(const std::string& server, const std::string& client_ca = "") {
    ServiceOptions options = DefaultServiceOptions();
    options.server.tls = {.cert_file = server + ".crt",
                          .key_file = server + ".key",
                          .client_ca_file = client_ca.empty()
                                                ? ""
                                                : absl::StrCat(dir_, "/", client_ca,
                                                               "/ca.crt")};
    StartService(options);
  }

  std::string dir_;
};

TEST_F(TlsTest, ServesTlsWithTheCertificateOnDiskAndPicksUpANewOne) {
  const std::string first = MakeCertificate("first", "first");
  Install("first");
  ServiceOptions options = DefaultServiceOptions();
  options.server.tls.cert_file = dir_ + "/server.crt";
  options.server.tls.key_file = dir_ + "/server.key";
  options.server.tls.refresh = absl::Seconds(1);
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
  options.server.tls.cert_file = dir_ + "/lonely.crt";
  StopService();
  absl::StatusOr<std::unique_ptr<InProcessService>> started =
      InProcessService::Start(db_->url(), options);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(TlsTest, AClientTrustingAnotherCaIsRefused) {
  StartSigned(MakeSigned("ours", "table"));
  MakeSigned("theirs", "other");
  EXPECT_EQ(HealthStatus(Client("ours"), ""), 1);
  EXPECT_EQ(HealthStatus(Client("theirs"), ""), -1)
      << "a client that does not trust the server's CA connected";
  EXPECT_EQ(HealthStatus(NewChannel(), ""), -1) << "plaintext was served";
}

TEST_F(TlsTest, TheServerNameMustBeInItsCertificate) {
  StartSigned(MakeSigned("ours", "table"));
  auto credentials = service::ChannelCredentials(
      {.enabled = true, .ca_file = dir_ + "/ours/ca.crt"});
  ASSERT_TRUE(credentials.ok());
  // The same listener, by a name its certificate (table, localhost, 127.0.0.1)
  // does not hold.
  grpc::ChannelArguments args;
  args.SetInt("grpc.use_local_subchannel_pool", 1);
  args.SetSslTargetNameOverride("elsewhere.example");
  EXPECT_EQ(HealthStatus(grpc::CreateCustomChannel(
                             absl::StrCat("127.0.0.1:", service_->port()), *credentials,
                             args),
                         ""),
            -1)
      << "a certificate for other names was accepted";
  EXPECT_EQ(HealthStatus(Client("ours"), ""), 1);
}

TEST_F(TlsTest, MutualTlsServesOnlyClientsWithACertificateOfItsClientCa) {
  StartSigned(MakeSigned("ours", "table"), "ours");
  const std::string matchmaking = MakeSigned("ours", "matchmaking");
  const std::string stranger = MakeSigned("theirs", "stranger");

  EXPECT_EQ(HealthStatus(Client("ours", matchmaking), ""), 1);
  EXPECT_EQ(HealthStatus(Client("ours"), ""), -1)
      << "a client without a certificate was served";
  EXPECT_EQ(HealthStatus(Client("ours", stranger), ""), -1)
      << "a client with another CA's certificate was served";
  EXPECT_EQ(HealthStatus(NewChannel(), ""), -1) << "plaintext was served";

  // A real call with the client certificate.
  std::unique_ptr<v1::TableService::Stub> stub =
      v1::TableService::NewStub(Client("ours", matchmaking));
  grpc::ClientContext context;
  context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
  v1::CreateTableResponse created;
  EXPECT_TRUE(
      stub->CreateTable(&context,
                        CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 5),
                        &created)
          .ok());
}

// Under mutual TLS a credential bound to a client certificate: matchmaking's token
// opens tables only on a connection with matchmaking's certificate; the same token
// from another client of the same CA (a stolen token) is UNAUTHENTICATED.
TEST_F(TlsTest, ACredentialBoundToACertificateIsRefusedWithoutIt) {
  const std::string credentials = dir_ + "/credentials.json";
  WriteCredentialsFile(credentials, {{.name = "matchmaking-tables",
                                      .token = kMatchmakingTableToken,
                                      .scopes = MatchmakingTableScopes(),
                                      .client_cert = "matchmaking"}});
  ServiceOptions options = DefaultServiceOptions();
  const std::string server = MakeSigned("ours", "table");
  options.server.tls = {.cert_file = server + ".crt",
                        .key_file = server + ".key",
                        .client_ca_file = dir_ + "/ours/ca.crt"};
  auto loaded = service::ServiceCredentials::Load({.file = credentials});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  options.server.grpc.credentials = *loaded;
  StartService(options);
  const std::string matchmaking = MakeSigned("ours", "matchmaking");
  const std::string intruder = MakeSigned("ours", "intruder");
  auto create = [&](const std::string& client) {
    std::unique_ptr<v1::TableService::Stub> stub =
        v1::TableService::NewStub(Client("ours", client));
    grpc::ClientContext context;
    context.AddMetadata("authorization", std::string("Bearer ") + kMatchmakingTableToken);
    v1::CreateTableResponse created;
    return stub->CreateTable(
        &context, CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 5), &created);
  };
  grpc::Status ok = create(matchmaking);
  EXPECT_TRUE(ok.ok()) << ok.error_message();
  grpc::Status stolen = create(intruder);
  EXPECT_EQ(stolen.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(stolen.error_message(), ::testing::HasSubstr("bound to the client certificate"));
}

TEST_F(TlsTest, AClientCaWithoutACertificateIsRefusedAtStart) {
  ServiceOptions options = DefaultServiceOptions();
  options.server.tls.client_ca_file = MakeSigned("ours", "table") + ".crt";
  StopService();
  absl::StatusOr<std::unique_ptr<InProcessService>> started =
      InProcessService::Start(db_->url(), options);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.status().code(), absl::StatusCode::kInvalidArgument);
}

// Kubernetes' gRPC probes cannot speak TLS: the health port answers them in
// plaintext with the TLS server's own health, and serves nothing else.
TEST_F(TlsTest, TheHealthPortAnswersChecksWithTheServersHealthAndNothingElse) {
  ServiceOptions options = DefaultServiceOptions();
  const std::string server = MakeSigned("ours", "table");
  options.server.tls = {.cert_file = server + ".crt",
                        .key_file = server + ".key",
                        .client_ca_file = dir_ + "/ours/ca.crt",
                        .health_address = "127.0.0.1:0"};
  StartService(options);
  ASSERT_GT(service_->server().health_port(), 0);
  const std::shared_ptr<grpc::Channel> health = grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", service_->server().health_port()),
      grpc::InsecureChannelCredentials());
  EXPECT_EQ(HealthStatus(health, ""), 1);
  EXPECT_EQ(HealthStatus(health, "trix.v1.TableService"), 1);
  service_->server().SetServing(false);
  EXPECT_EQ(HealthStatus(health, ""), 2) << "the health port did not follow the server";
  EXPECT_EQ(HealthStatus(health, "trix.v1.TableService"), 2);
  service_->server().SetServing(true);
  EXPECT_EQ(HealthStatus(health, ""), 1);

  // The API is not served there.
  grpc::ClientContext context;
  context.AddMetadata("authorization", std::string("Bearer ") + kServiceToken);
  v1::CreateTableResponse created;
  const grpc::Status s = v1::TableService::NewStub(health)->CreateTable(
      &context, CreateRequest(MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX), 5), &created);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED) << s.error_message();
  // And the service port itself still wants TLS.
  EXPECT_EQ(HealthStatus(NewChannel(), ""), -1);
}

TEST(ChannelTlsTest, AClientCertificateWithoutItsKeyIsAnError) {
  auto credentials = service::ChannelCredentials(
      {.enabled = true, .client_cert_file = "/dev/null"});
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kInvalidArgument);
  credentials = service::ChannelCredentials({.ca_file = "/nonexistent/ca.crt"});
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(credentials.status().message()),
              ::testing::HasSubstr("/nonexistent/ca.crt"));
}

}  // namespace
}  // namespace trix::table
