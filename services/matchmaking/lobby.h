// The lobby: everything between a player's FindTable stream and the matcher.
// It admits tickets (ratings looked up, stakes held, the player's older ticket
// superseded, all in batches on its own thread), keeps this replica's open streams
// by ticket, cancels a ticket whose stream closed (its hold is released through
// HoldReleases, hold_releases.h, as every hold that ends unplayed), hands out
// assignments — the matcher's, at once, and other replicas', found by polling the
// open streams' tickets — and answers GetAssignment. It knows nothing of gRPC: a
// stream is a TicketSink, the rows are a TicketStore's (store/ticket_store.h),
// the ratings service is a RatingsClient (clients/ratings_client.h) and the
// tables' states a TableStates (clients/table_states.h); lobby_test.cc runs it on
// in-memory fakes of each.
//
// A staked ticket's hold lives as long as the ticket: every `keep_holds_every`
// the holds of the waiting tickets whose streams are open here are kept
// (KeepHold), and a ticket whose hold is gone (released, past its TTL) ends
// FAILED_PRECONDITION. A player's newer staked ticket of the same stake carries
// the hold of the waiting ticket it supersedes instead of holding a second stake.
//
// Every `reconcile_every` (and at start) it reconciles the staked seats of games
// not known to be over with their tables: a live game's holds are attached (a
// process may have died between committing the seats and attaching them); the
// holds of a game over, voided or gone are released (HoldReleases::EndTable).
//
// Ratings are optional: without a RatingsClient every player counts as
// `default_rating` (provisional), and a staked request is FAILED_PRECONDITION.
#ifndef TRIX_SERVICES_MATCHMAKING_LOBBY_H_
#define TRIX_SERVICES_MATCHMAKING_LOBBY_H_

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/matchmaking/clients/ratings_client.h"
#include "services/matchmaking/clients/table_states.h"
#include "services/matchmaking/hold_releases.h"
#include "services/matchmaking/matcher.h"
#include "services/matchmaking/store/ticket_store.h"
#include "trix/v1/matchmaking.pb.h"

namespace trix::matchmaking {

// One open FindTable stream. Calls come from the lobby's threads; after
// Assigned() or End() no more calls come.
class TicketSink {
 public:
  virtual ~TicketSink() = default;
  virtual void Queued(const v1::Queued& queued) = 0;
  virtual void Assigned(const v1::Assignment& assignment) = 0;  // then OK
  virtual void End(const absl::Status& status) = 0;
};

struct LobbyOptions {
  std::vector<PoolSpec> pools;
  std::vector<int64_t> stake_levels;  // besides 0 (free)
  int default_rating = 1500;
  absl::Duration poll_every = absl::Milliseconds(100);   // other replicas' results
  absl::Duration update_every = absl::Seconds(1);        // Queued updates
  // FindTable requests waiting for the admission thread; more are
  // RESOURCE_EXHAUSTED at once.
  size_t max_admissions = 20000;
  // Ended tickets, finished assignments and expired parties are deleted this long
  // after they ended (TicketStore::SweepEnded), swept every `sweep_every`.
  absl::Duration keep_ended = absl::Hours(1);
  absl::Duration sweep_every = absl::Seconds(10);
  absl::Duration reconcile_every = absl::Seconds(30);
  // The holds of this replica's waiting staked tickets are kept (KeepHold) this
  // often: well within the ratings service's --held_hold_ttl (15 min).
  absl::Duration keep_holds_every = absl::Minutes(1);
};

v1::Assignment ToAssignment(const AssignmentRow& row);

class Lobby {
 public:
  // `ratings` may be null (see above); `tables` says whether a game is over;
  // `matcher` may be null (nothing is offered to a matcher, none is asked how
  // many wait). The lobby owns its clients.
  Lobby(LobbyOptions options, TicketStore* store, std::unique_ptr<RatingsClient> ratings,
        Matcher* matcher, HoldReleases* releases, std::unique_ptr<TableStates> tables);
  ~Lobby();
  void Start();
  void Stop();  // ends open streams UNAVAILABLE

  // Validates and queues; the sink hears the outcome (possibly before return).
  // `consent`: the player's own token, shown to the ratings service with a
  // stake's hold (HoldStakeRequest.consent); may be empty.
  void FindTable(const std::string& player_id, const v1::FindTableRequest& request,
                 std::shared_ptr<TicketSink> sink, std::string consent = "");
  // The sink's stream closed before its assignment: cancel its ticket.
  void Closed(const std::shared_ptr<TicketSink>& sink);
  // Committed assignments from this replica's matcher.
  void Deliver(const std::vector<AssignmentRow>& rows);
  absl::StatusOr<v1::Assignment> GetAssignment(const std::string& player_id);
  // The live assignments of a player or bot whose games are not over.
  absl::StatusOr<std::vector<AssignmentRow>> Live(const std::string& player_id);
  // Whether the game at that table is over (finished, voided or gone; asks its
  // table service; an instance that does not answer counts as not over).
  bool GameOver(const std::string& address, const std::string& table_id);
  TableEnd EndOf(const std::string& address, const std::string& table_id);

  // Attaches staked holds of delivered seats; called with the matcher's rows.
  void AttachHolds(const std::vector<AssignmentRow>& rows);
  // The matcher's check before it makes a staked table (MatcherOptions::
  // check_holds): each ticket's hold is kept, and must be held.
  HoldCheck CheckHolds(const std::vector<std::string>& ticket_ids);
  // Cancels these waiting tickets, whose holds are gone, and ends their streams
  // FAILED_PRECONDITION (those open on another replica end there, cancelled).
  void EndUnheld(const std::vector<std::string>& ticket_ids);
  // The staked seats of games not known to be over against their tables (see
  // above; attaching is idempotent), and the ended tickets' holds.
  void Reconcile();
  // Keeps the holds of the waiting staked tickets whose streams are open here
  // and ends those whose hold is gone (see above).
  void KeepWaitingHolds();
  void Housekeeping();

 private:
  struct Pending {
    std::string player_id;
    v1::FindTableRequest request;
    std::shared_ptr<TicketSink> sink;
    const PoolSpec* spec = nullptr;
    TicketRow row;
    std::string hold_request;  // its stake hold's HoldStake request id
    bool own_hold = false;     // made for this ticket (RenewHold): its request's is over
    // The hold of the player's waiting ticket at another stake, which this one
    // superseded: released as this one's is held (HoldStakeRequest.replaces_hold_id).
    std::string replaces_hold;
    std::string consent;  // HoldStakeRequest.consent

  };
  struct Open {
    std::shared_ptr<TicketSink> sink;
    const PoolSpec* spec = nullptr;
    absl::Time queued;
    int rating = 0;
  };
  absl::Status Validate(Pending& p);
  void AdmitLoop();
  // Cancels the tickets of closed streams (kept to try again if it fails).
  void Cancel(const std::vector<std::string>& ticket_ids);
  void AdmitBatch(std::vector<Pending>& batch);
  // AdmitBatch's steps. SeatAgain: players whose game is still on get that seat
  // back, requests for a party they cannot queue with are refused; returns the
  // others.
  std::vector<Pending*> SeatAgain(std::vector<Pending>& batch);
  absl::Status CheckParty(const Pending& p);
  static void FillTicket(Pending& p);
  // Queues the admitted tickets (one transaction) and answers their streams.
  void Queue(const std::vector<Pending*>& admitted);
  void Answer(const Pending& p, const AdmitOutcome& o);
  void Rate(std::vector<Pending*>& batch);
  // Holds every staked ticket's stake (its hold recorded to be released unless
  // the ticket is queued), or takes over the hold of the waiting ticket it
  // supersedes (TakeOverHolds); ends the streams of those that cannot be held and
  // returns the others.
  std::vector<Pending*> HoldStakes(std::vector<Pending*>& queue);
  // HoldStake under p's hold_request: whether the hold is held (not over).
  absl::StatusOr<bool> HoldStake(Pending& p);
  // KeepHold: the hold's state, NOT_FOUND or FAILED_PRECONDITION when it is gone.
  absl::StatusOr<v1::HoldState> KeepHold(const std::string& hold_id);
  // Staked requests whose player's live ticket of the same stake (which this one
  // supersedes or resumes) carries a held hold take that hold over; returns the
  // others. A waiting ticket of another request at another stake is superseded
  // here, and its hold replaced by the new one (so that a balance that covers one
  // stake can change stakes).
  std::vector<Pending*> TakeOverHolds(const std::vector<Pending*>& staked);
  // A hold of the ticket's own (its request's is over), recorded first.
  absl::Status RenewHold(Pending& p);
  // After the admission: the holds the queued tickets carry are kept, the others
  // released (HoldReleases::Queued, NotQueued).
  void KeepHolds(const std::vector<Pending*>& admitted, const Admitted& result,
                 const std::set<std::string>& lost);
  // The seats of a table whose game ended (over, voided, gone) are finished and
  // their holds released.
  void EndTable(const std::string& table_id, TableEnd end);
  void SendQueued(const std::string& ticket_id, const Open& open);
  void PollLoop();
  // What became of these open streams' tickets elsewhere: matched (their seats
  // delivered), superseded or cancelled (their streams ended).
  void Follow(const std::vector<std::string>& ticket_ids);
  // Removes the open stream of `ticket_id` and returns its sink (or null).
  std::shared_ptr<TicketSink> Take(const std::string& ticket_id);

  const LobbyOptions options_;
  TicketStore* const store_;
  const std::unique_ptr<RatingsClient> ratings_;
  Matcher* const matcher_;
  HoldReleases* const releases_;
  const std::unique_ptr<TableStates> tables_;

  absl::Mutex mu_;
  std::deque<Pending> admissions_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> cancellations_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Open> open_ ABSL_GUARDED_BY(mu_);  // by ticket id
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread admit_thread_;
  std::thread poll_thread_;
  std::thread housekeeping_thread_;  // Reconcile() at start, then sweeps
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_LOBBY_H_
