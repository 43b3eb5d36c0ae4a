// A practice table for trix-play: opened on a table service with the service token
// (as a game's backend would), the person in seat 0 and the SDK's heuristic bot
// playing seats 1-3 in this process. For trying Mamlaka locally without
// matchmaking (scripts/run-local.sh --play).
//
//   absl::StatusOr<PracticeTable> table = OpenPractice(address, token, options);
//   table->bots.Start();   // seats 1-3
//   ... play seat 0 with table->table_id, table->seat_token ...
//   table->bots.Stop();
#ifndef TRIX_BOTS_PLAY_PRACTICE_H_
#define TRIX_BOTS_PLAY_PRACTICE_H_

#include <array>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "bots/sdk/seat.h"

namespace trix::bots {

struct PracticeOptions {
  std::string mode = "complex-solo";
  int kingdoms = 4;
  std::string name = "You";
  // The table service's channels (the person's and the bots'); null: plaintext.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
};

// Seats 1-3, each played by a heuristic bot on its own thread.
class PracticeBots {
 public:
  PracticeBots() = default;
  ~PracticeBots() { Stop(); }
  void Start(const std::string& address, const std::string& table_id,
             const std::array<std::string, 4>& tokens,
             const std::shared_ptr<grpc::ChannelCredentials>& credentials);
  // Stops the seats still playing and waits for their threads.
  void Stop();

 private:
  std::array<std::unique_ptr<Bot>, 4> bots_;
  std::array<std::unique_ptr<Seat>, 4> seats_;
  std::array<std::thread, 4> threads_;
};

struct PracticeTable {
  std::string table_id;
  std::array<std::string, 4> seat_tokens;
};

absl::StatusOr<PracticeTable> OpenPractice(const std::string& address,
                                           const std::string& service_token,
                                           const PracticeOptions& options);

}  // namespace trix::bots

#endif  // TRIX_BOTS_PLAY_PRACTICE_H_
