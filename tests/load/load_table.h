// One table of the load tool: created with CreateTable (the service token as a
// bearer token, every clock long so that the server's autopilot never acts) on one
// of the run's targets (the next one when it does not answer), then played by four
// SeatPlayers until its game ends. It reports to its LoadRun when it
// is created, when its game ends (the run then opens another table) and when its
// last stream is done.
//
//   LoadTable table(&run, &context, /*number=*/7, request_id, mode, seed);
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
  // `run` and `context` must outlive the table. `number` picks its target and
  // channel; `request_id` keys the CreateTable call (and its retries).
  LoadTable(LoadRun* run, LoadContext* context, size_t number, std::string request_id,
            v1::Mode mode, uint64_t seed);
  ~LoadTable() override;

  void Create();
  // Starts the four seats' streams (the run calls it once the table is created).
  void StartSeats();
  void Cancel();

  // From the seats.
  void OnGameEnded() override;
  void OnStreamDone(int seat, const grpc::Status& status) override;
  // From the fleet's failure on (LoadContext::MarkFailure), the first of each.
  void OnUpdate(Clock::time_point now) override { MarkAfterFailure(first_update_, now); }
  void OnAccepted(Clock::time_point now) override { MarkAfterFailure(first_ack_, now); }
  // Runs `act` (sends a seat's action) at the table's next turn when the run is
  // paced (--rate), else at once.
  void Pace(std::function<void()> act) override;
  // The run's targets; their stubs (and those of where tables moved).
  std::vector<std::string> Targets() const override;
  v1::TableService::Stub* StubFor(const std::string& address) override;

  // Valid once created.
  const std::string& id() const { return id_; }
  const v1::Mode& mode() const { return mode_; }
  bool created() const { return created_.load(); }
  bool ended() const { return ended_.load(); }
  const SeatPlayer& seat(int s) const { return *seats_[s]; }
  // When it was created, and its first update and first accepted action at or
  // after the failure; nullopt: none (yet).
  Clock::time_point created_at() const { return At(created_at_); }
  std::optional<Clock::time_point> first_update_after_failure() const;
  std::optional<Clock::time_point> first_ack_after_failure() const;

 private:
  void SendCreate();
  void OnCreateDone(const grpc::Status& status);
  void MarkAfterFailure(std::atomic<int64_t>& first, Clock::time_point now);
  static Clock::time_point At(const std::atomic<int64_t>& ticks) {
    return Clock::time_point(Clock::duration(ticks.load()));
  }

  LoadRun* const run_;
  LoadContext* const context_;
  const size_t number_;
  size_t target_;  // the index of the target it is created on
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
  std::atomic<int64_t> created_at_{0};  // clock ticks; 0: none
  std::atomic<int64_t> first_update_{0};
  std::atomic<int64_t> first_ack_{0};
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_LOAD_TABLE_H_
