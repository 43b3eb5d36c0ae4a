#include "services/common/metrics.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/counter.h"

namespace trix::service {
namespace {

using ::testing::HasSubstr;

TEST(MetricsTest, UnservedRegistryCounts) {
  auto metrics = Metrics::Start("127.0.0.1", -1);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ((*metrics)->port(), -1);
  auto& family = prometheus::BuildCounter().Name("x_total").Help("x").Register(
      (*metrics)->registry());
  family.Add({}).Increment();
  EXPECT_EQ(family.Add({}).Value(), 1);
}

// GET /metrics over a plain TCP connection to 127.0.0.1:port; the whole answer
// (status line, headers, body), or "" when the connection fails.
std::string Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0) {
    const std::string request =
        "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (send(fd, request.data(), request.size(), 0) ==
        static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) {
        answer.append(buffer, static_cast<size_t>(n));
      }
    }
  }
  close(fd);
  return answer;
}

TEST(MetricsTest, ServesTheRegistryOverHttpOnTheGivenAddress) {
  auto metrics = Metrics::Start("127.0.0.1", 0);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_GT((*metrics)->port(), 0);
  auto& family = prometheus::BuildCounter()
                     .Name("trix_test_scrapes_total")
                     .Help("scraped")
                     .Register((*metrics)->registry());
  family.Add({{"kind", "http"}}).Increment(3);
  const std::string answer = Scrape((*metrics)->port());
  EXPECT_THAT(answer, HasSubstr("200 OK"));
  EXPECT_THAT(answer, HasSubstr("trix_test_scrapes_total{kind=\"http\"} 3"));
}

// A connection that sends half a request and then nothing (a slow or stuck
// client) does not keep the next scrape waiting.
TEST(MetricsTest, AStuckConnectionDoesNotBlockAScrape) {
  auto metrics = Metrics::Start("127.0.0.1", 0);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  const int stuck = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(stuck, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>((*metrics)->port()));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(stuck, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
  const std::string half = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  ASSERT_EQ(send(stuck, half.data(), half.size(), 0), static_cast<ssize_t>(half.size()));

  const auto start = std::chrono::steady_clock::now();
  const std::string answer = Scrape((*metrics)->port());
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(answer, HasSubstr("200 OK"));
  // A scrape alone takes up to 2 s here; behind the stuck connection it would
  // wait for its request timeout (5 s) first.
  EXPECT_LT(took, std::chrono::seconds(4)) << "the scrape waited for the stuck connection";
  close(stuck);
}

TEST(MetricsTest, AnAddressInUseIsAnError) {
  auto first = Metrics::Start("127.0.0.1", 0);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Metrics::Start("127.0.0.1", (*first)->port());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
}

TEST(MetricsAddressTest, SplitsHostAndPort) {
  EXPECT_EQ(ParseMetricsAddress("127.0.0.1:9464").value(),
            (std::pair<std::string, int>{"127.0.0.1", 9464}));
  EXPECT_EQ(ParseMetricsAddress("[::1]:0").value(),
            (std::pair<std::string, int>{"[::1]", 0}));
  EXPECT_EQ(ParseMetricsAddress("0.0.0.0:-1").value(),
            (std::pair<std::string, int>{"0.0.0.0", -1}));
  EXPECT_EQ(ParseMetricsAddress("9464").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseMetricsAddress("host:port").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MetricsTest, BucketsAscend) {
  const auto buckets = Metrics::LatencyBuckets();
  ASSERT_GT(buckets.size(), 10u);
  for (size_t i = 1; i < buckets.size(); ++i) EXPECT_GT(buckets[i], buckets[i - 1]);
}

}  // namespace
}  // namespace trix::service
