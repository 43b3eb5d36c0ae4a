// The server side's refusals: what ServerCredentials will not start with.
#include "services/common/tls.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::service {
namespace {

using ::testing::HasSubstr;

TEST(ServerTlsTest, NoCertificateIsPlaintextUnlessTlsIsRequired) {
  EXPECT_TRUE(ServerCredentials({}).ok());
  const absl::Status refused = ServerCredentials({.require = true}).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.message()), HasSubstr("--require_tls"));
  EXPECT_THAT(std::string(refused.message()), HasSubstr("--tls_cert, --tls_key"));
}

TEST(ServerTlsTest, HalfACertificateOrAClientCaAloneIsRefused) {
  EXPECT_EQ(ServerCredentials({.cert_file = "tls.crt"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ServerCredentials({.client_ca_file = "ca.crt"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  const absl::Status missing =
      ServerCredentials({.cert_file = "/nonexistent/tls.crt", .key_file = "/nonexistent/tls.key",
                         .require = true})
          .status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trix::service
