#include "tests/load/metrics_scrape.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace trix::load {
namespace {

constexpr char kAppendBucket[] = "trix_table_append_seconds_bucket{le=\"";

absl::StatusOr<std::string> HttpGet(const std::string& address, const std::string& path) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("no port in ", address));
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string host = address.substr(0, colon);
  if (getaddrinfo(host.c_str(), address.substr(colon + 1).c_str(), &hints, &found) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", address));
  }
  const int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  const bool connected = fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0;
  freeaddrinfo(found);
  if (!connected) {
    if (fd >= 0) close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to ", address));
  }
  const std::string request =
      absl::StrCat("GET ", path, " HTTP/1.0\r\nHost: ", host, "\r\n\r\n");
  std::string response;
  if (send(fd, request.data(), request.size(), 0) ==
      static_cast<ssize_t>(request.size())) {
    char buffer[65536];
    for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) {
      response.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  const size_t body = response.find("\r\n\r\n");
  if (!absl::StartsWith(response, "HTTP/1.") || body == std::string::npos) {
    return absl::UnavailableError(absl::StrCat("no HTTP answer from ", address));
  }
  return response.substr(body + 4);
}

}  // namespace

MetricValues ParseMetrics(absl::string_view text) {
  MetricValues values;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    const size_t space = line.rfind(' ');
    if (space == absl::string_view::npos) continue;
    double value = 0;
    if (!absl::SimpleAtod(line.substr(space + 1), &value)) continue;
    values[std::string(line.substr(0, space))] = value;
  }
  return values;
}

absl::StatusOr<MetricValues> ScrapeMetrics(const std::string& address) {
  absl::StatusOr<std::string> body = HttpGet(address, "/metrics");
  if (!body.ok()) return body.status();
  return ParseMetrics(*body);
}

double Delta(const MetricValues& from, const MetricValues& to, const std::string& name) {
  auto get = [&](const MetricValues& m) {
    auto it = m.find(name);
    return it == m.end() ? 0.0 : it->second;
  };
  return get(to) - get(from);
}

AppendTimes AppendTimesBetween(const MetricValues& from, const MetricValues& to) {
  AppendTimes t;
  t.count = Delta(from, to, "trix_table_append_seconds_count");
  if (t.count <= 0) return t;
  t.mean_ms = Delta(from, to, "trix_table_append_seconds_sum") / t.count * 1000;
  // Cumulative buckets, by upper bound.
  std::vector<std::pair<double, double>> buckets;
  for (const auto& [name, value] : to) {
    absl::string_view rest = name;
    if (!absl::ConsumePrefix(&rest, kAppendBucket)) continue;
    double le = 0;
    const std::string bound(rest.substr(0, rest.find('"')));
    if (bound == "+Inf") {
      le = std::numeric_limits<double>::infinity();
    } else if (!absl::SimpleAtod(bound, &le)) {
      continue;
    }
    buckets.emplace_back(le, Delta(from, to, name));
  }
  std::sort(buckets.begin(), buckets.end());
  auto quantile = [&](double q) {
    for (const auto& [le, cumulative] : buckets) {
      if (cumulative >= q * t.count) return le * 1000;
    }
    return 0.0;
  };
  t.p50_le_ms = quantile(0.5);
  t.p99_le_ms = quantile(0.99);
  return t;
}

}  // namespace trix::load
