// One table: the engine's Game, the four seats, the table's event list with every
// viewer's sequence numbers, the answers given to each seat's requests, and the
// decision clock. It is the synchronous, single-threaded core of the table service:
// no locks, no I/O, no gRPC; the host (table_host.h) serializes calls per table,
// writes each Step to the store, and streams the events once they are durable.
//
// Everything that changes a table is a log entry. A Step is the entries one call
// produced: the client's action, then the server's own moves that follow from it
// (the next deal, a left or autopilot seat's turn), each applied to the table as it is
// made. Restore() applies a stored log through the same ApplyEntry(), with the
// entries' own timestamps, so a table rebuilt on another instance has the very same
// events, sequence numbers and deadline.
//
// Visibility is the engine's: an engine event reaches viewer v only when
// engine::VisibleTo(event, v); snapshots come from engine::Observe. The table's own
// events (TurnStarted, SeatLeft) are public.
//
//   auto table = Table::Create(id, settings, seats);
//   Step first = table->Advance(absl::Now());        // deals the first deal
//   absl::StatusOr<Step> step = table->Act(seat, request, absl::Now());
//   std::vector<v1::Event> missed = table->EventsAfter(seat, after_seq).value();
//   std::vector<v1::TableUpdate> sent = table->StepUpdates(events_before, seat);
#ifndef TRIX_SERVICES_TABLE_TABLE_H_
#define TRIX_SERVICES_TABLE_TABLE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "engine/deal_proof.h"
#include "engine/game.h"
#include "engine/result.h"
#include "services/table/records.h"
#include "services/table/codec.h"

namespace trix::table {

// Viewers are seats 0..3 and engine::kSpectator; kViewers indexes them 0..4.
inline constexpr int kViewers = engine::kNumSeats + 1;

// The most events one TableUpdate carries, so that a message stays small however
// much a stream catches up on (a classic game has thousands of events).
inline constexpr size_t kMaxEventsPerUpdate = 256;

// Whether settings.autopilot_seats are distinct seats and leave one seat to a
// client; INVALID_ARGUMENT otherwise. Table::Create checks it.
absl::Status CheckAutopilotSeats(const v1::internal::TableSettings& settings);

// What one call added to the table, to be written to the store in one append.
struct Step {
  std::vector<LogEntry> entries;
  std::optional<absl::Time> deadline;   // the clock after these entries
  std::optional<GameEnd> end;  // set when these entries end the game
  v1::ActResponse response;             // Act's answer
  bool empty() const { return entries.empty(); }
};

// A stream resumed past its last event: OUT_OF_RANGE, telling the client to start
// again from a snapshot (after_seq 0). It happens when the stored log is shorter
// than what the stream was sent, after a failover that lost commits.
absl::Status BeyondStream(uint64_t after_seq, uint64_t last_seq);

class Table {
 public:
  // A new table with an empty log; Advance() then deals the first deal. Settings
  // must be resolved (every clock > 0) and valid.
  static absl::StatusOr<std::unique_ptr<Table>> Create(
      std::string id, v1::internal::TableSettings settings,
      std::array<SeatRecord, engine::kNumSeats> seats, absl::Time created);
  // Rebuilds a table from its stored game. A log that does not replay is DATA_LOSS.
  static absl::StatusOr<std::unique_ptr<Table>> Restore(
      const StoredGame& stored);

  // The seat `token` acts for: UNAUTHENTICATED when it is empty, PERMISSION_DENIED
  // when it is none of this table's tokens. Constant time per seat. Not const: it
  // remembers the tokens it verified (hashing one is most of the cost).
  absl::StatusOr<int> SeatOf(const std::string& token);
  // Whether a spectator may see this table: OK when it was created with
  // public_spectating or the caller is `trusted` (the backend), else
  // PERMISSION_DENIED.
  absl::Status CheckSpectator(bool trusted) const;
  // The answer already given to `seat`'s accepted request `request_id`, if any.
  // The table keeps only the seq of each answer and builds the answer from it.
  std::optional<v1::ActResponse> FindAnswer(int seat, const std::string& request_id) const;

  // A seat's action. A malformed request is INVALID_ARGUMENT; an action the rules
  // forbid now is FAILED_PRECONDITION with the engine's message. On error nothing
  // changed.
  absl::StatusOr<Step> Act(int seat, const v1::ActRequest& request, absl::Time now);
  // Ends the table with no result (VoidTable): one server entry that says why, with
  // the end that records it voided and the outbox row that tells the ratings
  // service so. FAILED_PRECONDITION when the game is over or already voided (the
  // host answers a repeated void from voided() first); nothing changed then.
  absl::StatusOr<Step> Void(const std::string& reason, absl::Time now);
  // What a void writes: the entry at `index` (a server entry that says why) and the
  // end (no result; the voided outbox row). Void's, and the host's for a
  // quarantined table, which cannot be rebuilt.
  static Step VoidStep(const std::string& id, const std::string& mode,
                       const std::array<SeatRecord, engine::kNumSeats>& seats,
                       const std::string& reason, int64_t index, absl::Time now);
  // The server's moves due at `now`: the autopilot for every seat whose clock ran
  // out, then deals and the turns of seats that left. Empty when nothing is due.
  Step Advance(absl::Time now);

  // Not OK once one of the server's own moves broke an engine invariant (the
  // engine refused its autopilot or deal: a bug, or a log that replays but is
  // inconsistent). The table is then untrustworthy: the host quarantines it
  // instead of writing anything more, and Act and Advance answer this status.
  const absl::Status& broken() const { return broken_; }
  void BreakForTesting(absl::string_view reason);

  const std::string& id() const { return id_; }
  const v1::internal::TableSettings& settings() const { return settings_; }
  const std::array<SeatRecord, engine::kNumSeats>& seats() const {
    return seats_;
  }
  // Whether the autopilot plays `seat`: it left, or it was created autopilot
  // (settings().autopilot_seats(); such a seat never has a SeatLeft event).
  bool left(int seat) const { return left_[seat]; }
  // The engine's game. It holds the events of the current deal only (those before
  // are forgotten as the table plays on): WholeGame() has them all.
  const engine::Game& game() const { return game_; }
  // The game with every event from the first deal on, replayed from its log.
  engine::Game WholeGame() const;
  bool over() const { return game_.phase() == engine::Phase::kGameOver; }
  // Voided (Void): ended with no result, in the phase it had. Nothing is played
  // after: Act is FAILED_PRECONDITION "table voided: <reason>", no clock runs.
  bool voided() const { return voided_at_.has_value(); }
  const std::string& void_reason() const { return void_reason_; }
  std::optional<absl::Time> voided_at() const { return voided_at_; }
  // Over or voided: nothing more happens at this table.
  bool ended() const { return over() || voided(); }
  std::optional<absl::Time> deadline() const { return deadline_; }
  int64_t log_length() const { return log_length_; }
  absl::Time created() const { return created_; }
  engine::GameResult Result() const;
  // The result on the wire (codec.h ResultToProto): the one form every API shows.
  v1::GameResult ResultProto() const;
  // The deal proof as everyone sees it: the commitment, and once the table ended
  // the seed and salt; unset for a table created before deal proofs.
  std::optional<v1::DealProof> DealProof() const;

  // Events, in table order; index i is the i-th event of the table. The table holds
  // those from the start of the current deal (of the deal current at its last Act
  // or Advance); an earlier one is rebuilt on demand by replaying the table's
  // entries (Rebuilt), with the very same content and seq.
  size_t event_count() const { return base_ + events_.size(); }
  // The i-th event as `viewer` receives it (with its seq), or nullopt when the
  // viewer may not see it.
  std::optional<v1::Event> EventFor(size_t i, int viewer) const;
  // The viewer's last sequence number.
  uint64_t last_seq(int viewer) const { return seq_totals_[ViewerIndex(viewer)]; }
  // The viewer's events with seq > after_seq; BeyondStream() past last_seq.
  absl::StatusOr<std::vector<v1::Event>> EventsAfter(int viewer,
                                                     uint64_t after_seq) const;
  // The bytes the event list's entries take (a vector's spare capacity aside):
  // the held events, kept once for every viewer, their seq marks, and the entries'
  // compact list that older events are rebuilt from. No viewer has a list of its own.
  size_t event_list_bytes() const;
  // The bytes the seats' answers take (the ids and their seqs, capacity included).
  size_t answer_bytes() const;
  // The table as `viewer` sees it now.
  v1::TableView View(int viewer) const;
  // The decision `seat` faces now, or nullopt when it has none (or left).
  std::optional<v1::Prompt> PromptFor(int seat) const;

  // What a viewer's stream carries for the events [from, event_count()), the ones
  // one step added: the viewer's events among them in one update (more only past
  // kMaxEventsPerUpdate) and a seat's prompt in the last. Nothing when the viewer
  // sees none of them: a prompt after nothing would tell a seat that another seat
  // made a secret move.
  std::vector<v1::TableUpdate> StepUpdates(size_t from, int viewer) const;
  // What a viewer's stream starts with: the snapshot (after_seq 0) or the events
  // after after_seq, in updates of at most kMaxEventsPerUpdate; a seat's prompt is
  // in the last, alone when nothing was missed (the seat asked by resuming, so it
  // learns nothing of other seats). BeyondStream() past last_seq.
  absl::StatusOr<std::vector<v1::TableUpdate>> StreamStart(int viewer,
                                                           uint64_t after_seq) const;

 private:
  // A table-level event (not the engine's); always public.
  struct ServiceEvent {
    enum Kind : uint8_t { kTurnStarted, kSeatLeft, kVoided, kSeedContributed } kind =
        kTurnStarted;
    int8_t deal = -1;  // when it happened
    int8_t kingdom = 0;
    int8_t seat = -1;      // SeatLeft, SeedContributed
    uint8_t seats = 0;     // TurnStarted: bit s = seat s must act
    // TurnStarted: the phase it times; its deadline is the event's time plus
    // ClockFor(clock), as UpdateClock set it.
    engine::Phase clock = engine::Phase::kPlaying;
  };
  // One event of the table in 8 bytes: when it happened (microseconds since the
  // epoch) above who may see it (bit ViewerIndex(v)) and whether it is a service
  // event. Which engine or service event it is follows from the order: the block
  // marks count the engine events before each block (IndexOf). A classic game has
  // thousands of events and a process hosts thousands of tables.
  class EventRef {
   public:
    EventRef(int64_t time_us, uint8_t visible, bool service)
        : bits_(static_cast<uint64_t>(time_us) << 8 | uint64_t{service} << kViewers |
                visible) {}
    int64_t time_us() const { return static_cast<int64_t>(bits_) >> 8; }
    uint8_t visible() const { return bits_ & ((1 << kViewers) - 1); }
    bool service() const { return (bits_ >> kViewers) & 1; }

   private:
    uint64_t bits_;
  };
  // Seq numbers come from the one event list: every kSeqBlock events, seq_marks_
  // holds each viewer's count of the events before them (and the engine's events
  // among them); within a block the rest is counted from the events' bits.
  static constexpr size_t kSeqBlock = 64;
  using ViewerCounts = std::array<uint32_t, kViewers>;
  struct BlockMark {
    ViewerCounts seqs;
    uint32_t engine_events;
  };

  Table(std::string id, v1::internal::TableSettings settings, engine::Rules rules,
        std::array<SeatRecord, engine::kNumSeats> seats, absl::Time created);
  // What kind of entry an EntryHead records.
  enum EntryKind : uint8_t { kActions, kLeave, kSeed, kVoid };
  // Notes an applied entry in entry_log_: its kind, seat, engine actions and time.
  void NoteEntry(EntryKind kind, int seat, int actions);
  // This table as it would be had it held every event: a new table that holds all,
  // with every entry applied again from entry_log_ and the game's log (a whole game
  // takes well under a millisecond). Only the events are read from it.
  std::unique_ptr<Table> Rebuilt() const;
  // Stops holding the events before the current deal's (and the engine's): at the
  // start of a step, when the events of the steps before were streamed.
  void ForgetPast();
  // The viewer's events after its seen-th, kMaxEventsPerUpdate per update; from a
  // rebuilt table when they start before the held ones.
  std::vector<v1::TableUpdate> UpdatesAfter(uint64_t seen, int viewer) const;
  // Where a viewer's events are listed: its seat, or after the seats for spectators.
  static int ViewerIndex(int viewer) { return viewer < 0 ? engine::kNumSeats : viewer; }
  // Indexes below are the table's (event_count()); events_ holds those from base_.
  // The viewer's events among the table's [0, i), i >= base_: the seq of its last
  // event before i.
  uint64_t SeqBefore(size_t i, int viewer_index) const;
  // Where the viewer's events after its seen-th start: the i with SeqBefore(i) ==
  // seen and none of its events in between. base seq <= seen <= last_seq.
  size_t StartAfter(uint64_t seen, int viewer_index) const;
  // Which event the table's i-th is: its index in the game's events (>= 0), or ~
  // its index among the table's service events (service_events_ holds those from
  // base_).
  int64_t IndexOf(size_t i) const;
  // events_[i] on the wire, numbered `seq`.
  v1::Event EventProto(size_t i, uint64_t seq) const;
  // The viewer's events in events_[from, end), numbered on from `seen`
  // (= SeqBefore(from)), kMaxEventsPerUpdate per update.
  std::vector<v1::TableUpdate> EventUpdates(size_t from, uint64_t seen, int viewer) const;

  // Applies one entry (live or replayed): its engine actions, a leave, the events
  // they make and the clock. On error the table may be part-changed: live callers
  // check the action first; Restore() drops the table. `actions`: the record's
  // actions as they were encoded into it (a live entry: not decoded again);
  // empty: decoded from the record (a replayed one).
  absl::Status ApplyEntry(int seat, const v1::internal::LogRecord& record,
                          absl::Time time, absl::Span<const engine::Action> actions = {});
  // One of an entry's engine actions, by `seat` (a deal: by nobody).
  absl::Status ApplyAction(int seat, const engine::Action& action);
  // Builds, applies and adds to `step` a server entry.
  void AddServerEntry(int seat, const engine::Action& action, absl::Time now, Step& step);
  // Deals and left seats' turns until a present seat must act or the game is over.
  void RunServerMoves(absl::Time now, Step& step);
  // Records in `step` the clock it leaves running and, when the step ended the
  // game (it was not over before), the game's end: result row and outbox.
  void AddClockAndEnd(Step& step, bool was_over) const;
  void Break(absl::string_view what, const absl::Status& status);
  // Once the table ended its lists grow no more: their spare capacity (up to half
  // of each) is given back.
  void ShrinkLists();
  // ApplyEntry of a void entry.
  absl::Status ApplyVoid(int seat, const v1::internal::LogRecord& record);
  // A table with seat_seeds, before its first deal (docs/deals.md): whether the
  // table still waits for `seat`'s seed, for any seat's, whether `seat` may
  // contribute now (FAILED_PRECONDITION saying why not), ApplyEntry of a seed, and
  // the seed the deals come from (the committed one mixed with the seats').
  bool WaitsForSeed(int seat) const;
  bool SeedingOpen() const;
  absl::Status CheckSeed(int seat, absl::Time now) const;
  absl::Status ApplySeed(int seat, const v1::internal::LogRecord& record);
  uint64_t DealSeed() const;
  absl::Status VoidedError() const;
  void AddEngineEvent(uint8_t visible);
  void AddServiceEvent(ServiceEvent event);
  void AddEvent(EventRef ref);
  void UpdateClock(absl::Time time);
  absl::Duration ClockFor(engine::Phase phase) const;
  // The log record of `seat`'s request, and its engine actions in `actions`.
  absl::StatusOr<v1::internal::LogRecord> RecordFor(int seat, const v1::ActRequest& request,
                                                    std::vector<engine::Action>* actions) const;

  const std::string id_;
  const v1::internal::TableSettings settings_;
  const std::array<SeatRecord, engine::kNumSeats> seats_;
  const absl::Time created_;
  engine::Game game_;
  std::array<bool, engine::kNumSeats> left_{};
  // The seats' seeds, for a table with seat_seeds; the seeding clock ran out.
  std::unique_ptr<engine::SeatSeeds> seat_seeds_;
  bool seeding_over_ = false;
  int64_t log_length_ = 0;
  absl::Time entry_time_;  // of the entry being applied: its events' time

  // The held events: the table's from base_ on, and the engine's from
  // game_.events_forgotten() on (the engine's before base_).
  std::vector<EventRef> events_;
  std::vector<ServiceEvent> service_events_;
  size_t base_ = 0;
  ViewerCounts base_seqs_{};  // each viewer's events before base_
  bool hold_all_ = false;     // a Rebuilt() table forgets nothing
  // Where the current deal's events start: the table's index and the engine's.
  size_t deal_start_ = 0;
  size_t deal_start_engine_ = 0;
  size_t engine_events_seen_ = 0;
  // seq_marks_[b].seqs[ViewerIndex(v)]: viewer v's events before events_[b * kSeqBlock].
  std::vector<BlockMark> seq_marks_;
  ViewerCounts seq_totals_{};  // each viewer's events: its last seq
  // Every applied entry in 2 bytes or so: a head (EntryKind, seat + 1, the number
  // of its engine actions) and its time, a zigzag varint of microseconds since the
  // entry before. With game_.log(), the seats' seeds and the void reason, it is
  // what Rebuilt() applies again.
  std::string entry_log_;
  int64_t last_entry_us_ = 0;

  // The clock: which decision it times (phase, deal, seat, cards played) and when
  // it runs out.
  std::array<int, 4> turn_key_{-1, -1, -1, -1};
  std::optional<absl::Time> deadline_;
  absl::Status broken_;
  std::string void_reason_;
  std::optional<absl::Time> voided_at_;

  // A seat's accepted request ids and the seq each was answered (an answer is its
  // seq: ActResponse has nothing else). Every id is kept for the table's life (a
  // repeated id is answered the same however late), back to back in one string:
  // its length in a byte (an id is at most 128 bytes), the id, and its seq as a
  // zigzag varint of the difference from the seat's answer before (a byte, as a
  // seat's seq grows by a few events an action). The id's length and 2 bytes an
  // action, where a hash map of strings took over 40.
  class SeatAnswers {
   public:
    void Add(absl::string_view request_id, uint32_t seq);
    // The seq of the last answer to `request_id`, if any.
    std::optional<uint32_t> Find(absl::string_view request_id) const;
    size_t bytes() const;
    void ShrinkToFit();

   private:
    std::string answers_;
    uint32_t last_seq_ = 0;  // of the last answer added
  };
  std::array<SeatAnswers, engine::kNumSeats> answers_;
  // Each seat's token once SeatOf has verified it against the seat's hash.
  std::array<std::string, engine::kNumSeats> verified_tokens_;
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_TABLE_H_
