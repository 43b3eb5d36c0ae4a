// The real build/bin/ratings-service as a child process of a test, on a port the
// kernel picks (read back from its "serving" log line), with a stub that presents
// the service token.
//
//   auto ratings = RatingsProcess::Start(db->url(), dir);
//   grpc::ClientContext context;
//   (*ratings)->Authorize(context);
//   (*ratings)->stub().GetBalance(&context, request, &balance);
#ifndef TRIX_TESTS_RATINGS_RATINGS_PROCESS_H_
#define TRIX_TESTS_RATINGS_RATINGS_PROCESS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "bots/common/child_process.h"
#include "grpcpp/grpcpp.h"
#include "trix/v1/ratings.grpc.pb.h"

namespace trix::ratings {

inline constexpr char kTestServiceToken[] = "ratings-test-token";

class RatingsProcess {
 public:
  // Starts the binary and waits until it serves. `log` collects its output; `env`
  // is added to its environment (e.g. MAMLAKA_FAILPOINTS).
  static absl::StatusOr<std::unique_ptr<RatingsProcess>> Start(
      const std::string& database_url, const std::string& log,
      const std::vector<std::string>& extra_flags = {},
      const std::vector<std::pair<std::string, std::string>>& env = {});

  v1::RatingsService::Stub& stub() { return *stub_; }
  void Authorize(grpc::ClientContext& context) const;
  // Credit and GetBalance with the service token, for tests that set up money.
  grpc::Status Credit(const std::string& request_id, const std::string& player_id,
                      int64_t amount);
  grpc::Status GetBalance(const std::string& player_id, v1::Balance* balance);
  bots::ChildProcess& process() { return *process_; }
  int port() const { return port_; }
  // The metrics port it chose (started with --metrics_port=0), or 0.
  int metrics_port() const { return metrics_port_; }

 private:
  std::unique_ptr<bots::ChildProcess> process_;
  int port_ = 0;
  int metrics_port_ = 0;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::RatingsService::Stub> stub_;
};

}  // namespace trix::ratings

#endif  // TRIX_TESTS_RATINGS_RATINGS_PROCESS_H_
