// What both demos (trix-demo through matchmaking, trix-table-demo on one table
// service) do at the terminal: print lines whole from any thread (Say), follow one
// table live through its Watch stream (TableWatch), show a finished game's record
// with its checks (ReportGame), and turn Ctrl-C or SIGTERM into a stop that every
// loop of the demo sees (StopOnSignal, Stopping).
//
//   TableWatch watch;
//   const service::StopSignals signals;  // before any thread starts
//   StopOnSignal(signals, &watch);
//   std::thread watcher([&] { watch.Follow(address, table_id, service_token); });
//   ...
//   watcher.join();
//   auto name = [](int seat, const v1::SeatAssignment& s) { return s.display_name(); };
//   ok = ReportGame(record, "Game 1  complex-solo", name) && ok;
#ifndef TRIX_BOTS_DEMO_CONSOLE_H_
#define TRIX_BOTS_DEMO_CONSOLE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/client_context.h"
#include "grpcpp/security/credentials.h"
#include "services/common/service_main.h"
#include "trix/v1/table.pb.h"

namespace trix::bots {

namespace v1 = ::trix::v1;

// Prints the lines to stdout together (no other thread's line comes between).
void Say(const std::vector<std::string>& lines);
void Say(const std::string& line);

// A table's stream printed as it happens (TablePrinter).
class TableWatch {
 public:
  // Dials with `credentials` (null: plaintext).
  explicit TableWatch(std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr)
      : credentials_(std::move(credentials)) {}
  // Prints the stream of `table_id` at `address` until the game ends, Stop is
  // called or 100 streams broke: as the backend when `service_token` is set
  // (matchmaking's tables are not open to spectators), as a spectator otherwise.
  // A broken stream resumes after its last event, at the instance a refusal
  // names, or else at `address` again.
  void Follow(const std::string& address, const std::string& table_id,
              const std::string& service_token);
  // From any thread: ends the stream under way and Follow.
  void Stop();

 private:
  // The next stream's context, or null once stopped.
  std::shared_ptr<grpc::ClientContext> NextCall(const std::string& service_token);

  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  absl::Mutex mu_;
  std::shared_ptr<grpc::ClientContext> call_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

// Starts a thread that waits for one of `signals`: then Stopping() is true and
// `watch` is stopped. Call once, from the main thread.
void StopOnSignal(const service::StopSignals& signals, TableWatch* watch);
bool Stopping();

// Says a finished game's record under `title` (its pot added when staked): each
// seat, named by `seat_name`, with its total, place or team and payout; then the
// checks: the totals sum to zero, solo places follow the totals, the payouts share
// the pot exactly, and the deals are the ones the table committed to before the
// first card (docs/deals.md). False when the record is an error, unfinished or
// inconsistent.
bool ReportGame(
    const absl::StatusOr<v1::GameRecord>& record, std::string title,
    const std::function<std::string(int seat, const v1::SeatAssignment&)>& seat_name);

}  // namespace trix::bots

#endif  // TRIX_BOTS_DEMO_CONSOLE_H_
