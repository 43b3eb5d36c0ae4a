// The bot processes connected to this replica (ServeBot streams): which bot
// account each serves, the modes it plays, how many tables it takes at once and
// how many it is playing. The matcher reserves a seat from it for each empty seat
// after the bot-fill wait; the seat's assignment then goes to a stream of that
// account. A table counts against a stream until its game is over (checked every
// `sweep_every`). Keep-alives go out every `keep_alive_every`.
#ifndef TRIX_SERVICES_MATCHMAKING_BOT_ROSTER_H_
#define TRIX_SERVICES_MATCHMAKING_BOT_ROSTER_H_

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/matchmaking/matcher.h"
#include "services/matchmaking/stream_outbox.h"
#include "services/matchmaking/ticket_store.h"
#include "trix/v1/matchmaking.pb.h"

namespace trix::matchmaking {

class BotRoster {
 public:
  using Outbox = StreamOutbox<v1::BotUpdate>;
  using GameOver = std::function<bool(const std::string& address, const std::string& table)>;

  BotRoster(absl::Duration keep_alive_every, GameOver game_over);
  ~BotRoster();
  void Start();
  void Stop();

  // A stream of `bot` playing `modes` (mode names) at up to `capacity` tables.
  // `live` are the account's assignments still on (sent again first).
  void Connect(const BotAccount& bot, int capacity, std::set<std::string> modes,
               std::shared_ptr<Outbox> outbox, const std::vector<AssignmentRow>& live);
  void Disconnect(const std::shared_ptr<Outbox>& outbox);
  std::optional<BotSeat> Reserve(const v1::Mode& mode, const std::vector<std::string>& taken);
  void Deliver(const std::vector<AssignmentRow>& rows);
  int connected() const;

 private:
  struct Stream {
    BotAccount bot;
    int capacity = 1;
    std::set<std::string> modes;
    std::shared_ptr<Outbox> outbox;
    int reserved = 0;
    std::vector<AssignmentRow> tables;
  };
  void Loop();

  const absl::Duration keep_alive_every_;
  GameOver game_over_;
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Stream>> streams_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_BOT_ROSTER_H_
