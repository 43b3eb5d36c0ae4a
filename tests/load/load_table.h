// One table of the load tool: created with CreateTable (the service token as a
// bearer token, every clock long so that the server's autopilot never acts), then
// played by four SeatPlayers until its game ends. It reports to its LoadRun when it
// is created, when its game ends (the run then opens another table) and when its
// last stream is done.
//
//   LoadTable table(&run, &context, stub, /*number=*/7, mode);
//   table.Create();  // asynchronous; retries with the same request id
#ifndef TRIX_TESTS_LOAD_LOAD_TABLE_H_
#define TRIX_TESTS_LOAD_LOAD_TABLE_H_

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"
#include "tests/load/load_context.h"
#include "tests/load/pacer.h"
#include "tests/load/seat_player.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::load {

class LoadRun;

class LoadTable : public SeatHost {
 public:
  // `run`, `context` and `stub` must outlive the table. `request_id` keys the
  // CreateTable call (and its retries).
  LoadTable(LoadRun* run, LoadContext* context, v1::TableService::Stub* stub,
            std::string request_id, v1::Mode mode, uint64_t seed);
  ~LoadTable() override;

  void Create();
  // Starts the four seats' streams (the run calls it once the table is created).
  void StartSeats();
  void Cancel();

  // From the seats.
  void OnGameEnded() override;
  void OnStreamDone(int seat, const grpc::Status& status) override;
  // Runs `act` (sends a seat's action) at the table's next turn when the run is
  // paced (--rate), else at once.
  void Pace(std::function<void()> act) override;

  // Valid once created.
  const std::string& id() const { return id_; }
  const v1::Mode& mode() const { return mode_; }
  bool created() const { return created_.load(); }
  bool ended() const { return ended_.load(); }
  const SeatPlayer& seat(int s) const { return *seats_[s]; }

 private:
  void SendCreate();
  void OnCreateDone(const grpc::Status& status);

  LoadRun* const run_;
  LoadContext* const context_;
  v1::TableService::Stub* const stub_;
  const std::string request_id_;
  const v1::Mode mode_;
  const uint64_t seed_;

  std::unique_ptr<grpc::ClientContext> create_context_;
  v1::CreateTableRequest create_request_;
  v1::CreateTableResponse create_response_;
  int create_attempts_ = 0;
  std::unique_ptr<grpc::Alarm> pause_;

  std::optional<TurnPacing> pacing_;  // with --rate
  std::string id_;
  std::array<std::unique_ptr<SeatPlayer>, 4> seats_;
  std::atomic<bool> created_{false};
  std::atomic<bool> ended_{false};
  std::atomic<bool> cancelled_{false};
  std::atomic<int> open_streams_{0};
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_LOAD_TABLE_H_
