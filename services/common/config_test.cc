#include "services/common/config.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::service {
namespace {

using ::testing::HasSubstr;

struct Options {
  std::string listen = "0.0.0.0:50051";
  int port = 9464;
  int64_t big = 1;
  bool migrate_only = false;
  double rate = 50;
  absl::Duration ttl = absl::Seconds(10);
  std::string service_token;
};

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() : config_("table-service", "MAMLAKA_") {
    config_.Bind("listen", &o_.listen, "gRPC address");
    config_.Bind("port", &o_.port, "metrics port");
    config_.Bind("big", &o_.big, "a 64-bit number");
    config_.Bind("migrate_only", &o_.migrate_only, "migrate and exit");
    config_.Bind("rate", &o_.rate, "a rate");
    config_.Bind("ttl", &o_.ttl, "lease ttl");
    config_.Bind("service_token", &o_.service_token, "secret");
  }
  absl::Status Parse(std::vector<const char*> args,
                     std::map<std::string, std::string> env = {}) {
    args.insert(args.begin(), "table-service");
    return config_.Parse(static_cast<int>(args.size()), args.data(),
                         [env](const std::string& k) -> std::optional<std::string> {
                           auto it = env.find(k);
                           if (it == env.end()) return std::nullopt;
                           return it->second;
                         });
  }
  Options o_;
  Config config_;
};

TEST_F(ConfigTest, DefaultsStayWhenNothingIsGiven) {
  ASSERT_TRUE(Parse({}).ok());
  EXPECT_EQ(o_.listen, "0.0.0.0:50051");
  EXPECT_EQ(o_.ttl, absl::Seconds(10));
  EXPECT_FALSE(o_.migrate_only);
}

TEST_F(ConfigTest, FlagsInBothFormsAndBareBool) {
  ASSERT_TRUE(Parse({"--listen=127.0.0.1:1", "--port", "0", "--big=9000000000",
                     "--migrate_only", "--rate=2.5", "--ttl=250ms"})
                  .ok());
  EXPECT_EQ(o_.listen, "127.0.0.1:1");
  EXPECT_EQ(o_.port, 0);
  EXPECT_EQ(o_.big, 9000000000);
  EXPECT_TRUE(o_.migrate_only);
  EXPECT_EQ(o_.rate, 2.5);
  EXPECT_EQ(o_.ttl, absl::Milliseconds(250));
}

TEST_F(ConfigTest, EnvironmentSetsAndFlagWins) {
  ASSERT_TRUE(Parse({"--port=7"}, {{"MAMLAKA_PORT", "8"},
                                   {"MAMLAKA_LISTEN", "x:1"},
                                   {"MAMLAKA_MIGRATE_ONLY", "true"}})
                  .ok());
  EXPECT_EQ(o_.port, 7);
  EXPECT_EQ(o_.listen, "x:1");
  EXPECT_TRUE(o_.migrate_only);
}

TEST_F(ConfigTest, BadInputIsAnErrorNamingTheSetting) {
  absl::Status s = Parse({"--port=eight"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("--port"));
  EXPECT_EQ(Parse({"--nope=1"}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Parse({"--listen"}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Parse({"stray"}).code(), absl::StatusCode::kInvalidArgument);
  s = Parse({}, {{"MAMLAKA_TTL", "forever"}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("MAMLAKA_TTL"));
}

TEST_F(ConfigTest, HelpAndUsage) {
  ASSERT_TRUE(Parse({"--help"}).ok());
  EXPECT_TRUE(config_.help());
  EXPECT_THAT(config_.Usage(), HasSubstr("--ttl (MAMLAKA_TTL, default \"10s\")"));
}

TEST_F(ConfigTest, DescribeHidesSecrets) {
  ASSERT_TRUE(Parse({"--service_token=hunter2"}).ok());
  EXPECT_THAT(config_.Describe(), HasSubstr("service_token=<set>"));
  EXPECT_THAT(config_.Describe(), ::testing::Not(HasSubstr("hunter2")));
}

TEST_F(ConfigTest, CommandLineStopsOnHelpAndOnBadFlags) {
  const char* help[] = {"table-service", "--help"};
  EXPECT_EQ(config_.ParseCommandLine(2, help), 0);
  const char* bad[] = {"table-service", "--port=many"};
  EXPECT_EQ(config_.ParseCommandLine(2, bad), 2);
  const char* fine[] = {"table-service", "--port=7"};
  EXPECT_EQ(config_.ParseCommandLine(2, fine), std::nullopt);
  EXPECT_EQ(o_.port, 7);
}

}  // namespace
}  // namespace trix::service
