// The bot processes connected to this replica (ServeBot streams): which bot
// account each serves, the modes it plays, how many tables it takes at once and
// how many it is playing. The matcher reserves a seat from it for each empty seat
// after the bot-fill wait; the seat's assignment then goes to a stream of that
// account. When no stream here has room, the seat is taken from a stream on
// another replica (store/postgres_bot_streams.h), whose roster finds the assignment in
// PostgreSQL (it reads its accounts' live assignments every `share_every`) and
// sends it. A table counts against a stream until its game is over (checked every
// `keep_alive_every`, when keep-alives go out).
//
// Bot fill is spread over the accounts: a seat goes to the account given one
// least recently (then to its stream with the fewest tables relative to its
// capacity), so that an account offering more room than the others does not take
// every bot seat. Each account has at most `BotQuota::max_streams` streams and
// `max_capacity` tables offered on this replica.
//
// Bot fill by rating: when the ask names the table's human players' mean rating
// (BotAsk::near_rating), the seat goes, among this replica's accounts with room,
// to the one whose displayed rating in the mode is nearest it; accounts equally
// near (and every account when no rating is known) are ordered as above. An
// account's rating not read yet counts as farther than any known one. The ratings
// come from the ratings service (SetRatings), read for the connected accounts in
// the background every `refresh` and cached, so that a reservation never waits
// on it. An ask for a level (BotAsk::level, a room's choice) is served only by
// accounts of that level: this replica's first, then another replica's
// (SharedBotStreams::ReserveElsewhere with the level).
#ifndef TRIX_SERVICES_MATCHMAKING_BOT_ROSTER_H_
#define TRIX_SERVICES_MATCHMAKING_BOT_ROSTER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/matchmaking/clients/ratings_client.h"
#include "services/matchmaking/matcher.h"
#include "services/matchmaking/store/bot_store.h"
#include "services/matchmaking/stream_outbox.h"
#include "services/matchmaking/ticket_store.h"
#include "trix/v1/matchmaking.pb.h"

namespace trix::matchmaking {

// How a bot account's level is stored and asked for: "beginner", "casual",
// "strong", "expert", or "" for BOT_LEVEL_UNSPECIFIED.
std::string BotLevelName(v1::BotLevel level);
// The level BotLevelName names; UNSPECIFIED for "" or a name it never gives.
v1::BotLevel BotLevelOf(const std::string& name);

// The mean displayed rating of `players` in `mode`, which bot fill seats the bots
// nearest to (BotAsk::near_rating); nullopt without a ratings service or when it
// did not answer.
std::optional<int> MeanDisplayedRating(RatingsClient* ratings, const v1::Mode& mode,
                                       const std::vector<std::string>& players);

struct BotQuota {
  int max_streams = 16;     // ServeBot streams of one account on one replica
  int max_capacity = 1000;  // tables they offer together
};

class BotRoster {
 public:
  using Outbox = StreamOutbox<v1::BotUpdate>;
  using GameOver =
      std::function<bool(const std::string& address, const std::string& table)>;

  // `shared` records this replica's streams for the others and lends seats of
  // theirs; `store` reads and finishes the accounts' assignments.
  BotRoster(absl::Duration keep_alive_every, GameOver game_over, BotSeatStore* store,
            SharedBotStreams* shared, BotQuota quota = {},
            absl::Duration share_every = absl::Seconds(1));
  ~BotRoster();
  void Start();
  void Stop();

  // A stream of `bot`, which proved the key whose hash is `key_hash`, playing
  // `modes` (mode names) at up to `capacity` tables. `live` are the account's
  // assignments still on (sent again first). RESOURCE_EXHAUSTED past the account's
  // quota. Once the account is revoked or its key rotated, the stream ends
  // UNAUTHENTICATED at the roster's next look (every `share_every`) and is given
  // no more seats.
  absl::Status Connect(const BotAccount& bot, const std::string& key_hash, int capacity,
                       std::set<std::string> modes, std::shared_ptr<Outbox> outbox,
                       const std::vector<AssignmentRow>& live);
  void Disconnect(const std::shared_ptr<Outbox>& outbox);
  std::optional<BotSeat> Reserve(const v1::Mode& mode,
                                 const std::vector<std::string>& taken);
  std::optional<BotSeat> Reserve(const BotAsk& ask);
  // Reads the connected accounts' ratings from `ratings` every `refresh` (call
  // before Start; without it bot fill ignores ratings).
  void SetRatings(RatingsClient* ratings, absl::Duration refresh = absl::Seconds(30));
  // Reads the ratings now (the background loop's step, for tests).
  void RefreshRatings();
  void Deliver(const std::vector<AssignmentRow>& rows);
  int connected() const;

 private:
  struct Stream {
    std::string stream_id;  // its row in mm_bot_streams
    BotAccount bot;
    std::string key_hash;  // of the key it proved
    int capacity = 1;
    std::set<std::string> modes;
    std::shared_ptr<Outbox> outbox;
    int reserved = 0;
    std::vector<AssignmentRow> tables;
  };
  static int InPlay(const Stream& s) {
    return s.reserved + static_cast<int>(s.tables.size());
  }
  static int Room(const Stream& s) { return s.capacity - InPlay(s); }
  // Whether bot fill prefers `a` to `b` (see above).
  bool Before(const Stream& a, const Stream& b) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The same, nearest `ask.near_rating` first.
  bool BeforeFor(const BotAsk& ask, const std::string& mode, const Stream& a,
                 const Stream& b) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // How far `s`'s account's rating in `mode` is from `rating`; max when unknown.
  int64_t Distance(const Stream& s, const std::string& mode, int rating) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckQuota(const std::string& bot_id, int capacity) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends `a` to the stream here it was given to (else another of its account's),
  // unless one already has its table; `reserved_here`: this replica's matcher
  // reserved the seat, which is no longer pending.
  void DeliverOne(const AssignmentRow& a, bool reserved_here)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Loop();
  void Share();
  // Ends the streams whose account was revoked or whose key was rotated.
  void EndRevoked();
  // Takes the streams that `keys` (KeysInForce) no longer back out of streams_.
  std::vector<std::unique_ptr<Stream>> TakeRevoked(
      const std::map<std::string, std::string>& keys) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SweepFinishedGames();

  const absl::Duration keep_alive_every_;
  GameOver game_over_;
  BotSeatStore* const store_;
  SharedBotStreams* const shared_;
  const BotQuota quota_;
  const absl::Duration share_every_;
  bool shared_ok_ = true;  // the last Share wrote the rows (Loop only)
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Stream>> streams_ ABSL_GUARDED_BY(mu_);
  // When each connected account was last given a seat (a count of seats given).
  std::map<std::string, uint64_t> last_given_ ABSL_GUARDED_BY(mu_);
  // Displayed ratings of the connected accounts, by (bot id, mode name).
  std::map<std::pair<std::string, std::string>, int> ratings_ ABSL_GUARDED_BY(mu_);
  RatingsClient* ratings_client_ = nullptr;
  absl::Duration ratings_every_ = absl::Seconds(30);
  absl::Time ratings_read_ = absl::InfinitePast();  // Loop only
  uint64_t given_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_BOT_ROSTER_H_
