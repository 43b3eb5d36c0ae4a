// TableHost: strands, commits, broadcasts, clocks, actions and streams. Creation,
// recovery and shutdown are in table_host_lifecycle.cc; history and listings in
// table_host_queries.cc.
#include "services/table/table_host.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/check.h"
#include "engine/observation.h"
#include "proto/wire/wire.h"
#include "services/common/auth.h"
#include "services/common/logging.h"
#include "services/table/refusals.h"
#include "services/table/slot.h"

namespace trix::table {

using service::LogWarn;

TableHost::TableHost(HostOptions options, TableStore* store,
                     prometheus::Registry* registry)
    : options_(std::move(options)),
      store_(store),
      metrics_(*registry),
      committer_(store, metrics_),
      fleet_(FleetOptions{options_.instance_name, options_.lease_ttl, options_.claim_batch,
                          options_.claim_room_share, options_.max_tables},
             store),
      adoptions_(AdoptionOptions{options_.max_adoptions, options_.max_waiting_adoptions,
                                 options_.unknown_table_memory, options_.max_unknown_tables},
                 metrics_),
      workers_("table", options_.worker_threads),
      io_("table-io", options_.io_threads, options_.max_queued_reads),
      timer_([this](const std::string& id) { OnClock(id); }),
      load_waits_([this](const std::string& id) { OnLoadWaitOver(id); }) {
  metrics_.capacity.Set(static_cast<double>(options_.max_tables));
  Advertise(options_.advertise_address);
}

TableHost::~TableHost() { Shutdown(); }

absl::Status TableHost::Available() const {
  if (draining_.load()) {
    return absl::UnavailableError(
        "the server is shutting down; retry on another instance");
  }
  if (!started_.load()) return absl::UnavailableError("the server is starting");
  return absl::OkStatus();
}

std::shared_ptr<Slot> TableHost::FindSlot(const std::string& table_id) const {
  absl::MutexLock lock(&mu_);
  auto it = slots_.find(table_id);
  return it == slots_.end() ? nullptr : it->second;
}

absl::StatusOr<int> TableHost::VerifySeat(const std::string& table_id,
                                          const std::string& seat_token) const {
  std::shared_ptr<Slot> slot = FindSlot(table_id);
  if (!slot || !slot->seats_known.load(std::memory_order_acquire)) {
    return absl::NotFoundError("the table is not hosted here");
  }
  if (seat_token.empty()) return absl::UnauthenticatedError("seat_token is required");
  const std::string hash = service::TokenHash(seat_token);
  int seat = -1;
  for (int s = 0; s < engine::kNumSeats; ++s) {
    if (service::ConstantTimeEquals(hash, slot->token_hashes[s])) seat = s;
  }
  if (seat < 0) return absl::PermissionDeniedError("not a seat token of this table");
  return seat;
}

absl::StatusOr<std::string> TableHost::PlayerOfSeat(const std::string& table_id,
                                                    const std::string& seat_token) const {
  absl::StatusOr<int> seat = VerifySeat(table_id, seat_token);
  if (!seat.ok()) return seat.status();
  std::shared_ptr<Slot> slot = FindSlot(table_id);
  if (!slot) return absl::NotFoundError("the table is not hosted here");
  return slot->player_ids[*seat];
}

size_t TableHost::table_count() const {
  absl::MutexLock lock(&mu_);
  return slots_.size();
}

// --- The strand -----------------------------------------------------------------
//
// Each table's commands run on its Strand (strand.h); the host posts them, drains
// the strand on the posting or completing thread, and loads the table when the
// strand asks for it.

void TableHost::Post(const std::shared_ptr<Slot>& slot, Command command, bool bounded) {
  Slot* const target = slot.get();  // alive while its strand runs or refuses
  Strand::Command run = [target, command = std::move(command)](const absl::Status& status) {
    command(*target, status);
  };
  const size_t bound =
      bounded ? options_.max_table_commands : std::numeric_limits<size_t>::max();
  switch (slot->strand.Post(run, bound, MayHold())) {
    case Strand::Placed::kFull:
      metrics_.refused_busy.Increment();
      return run(absl::ResourceExhaustedError(
          absl::StrCat("table ", slot->id, " has ", options_.max_table_commands,
                       " requests waiting; retry in a moment")));
    case Strand::Placed::kRefused:
      return run(LoadWaitOver(slot->id));
    case Strand::Placed::kFirstHeld:
      load_waits_.Schedule(slot->id, absl::Now() + options_.load_wait);
      return;
    case Strand::Placed::kHeld:
    case Strand::Placed::kQueued:
      return;
    case Strand::Placed::kStart:
      // An idle strand runs on the posting thread (a gRPC reaction, the clock, the
      // maintenance thread): a table's work is short and never blocks, and a
      // hand-off to a worker would cost more than the work (a futex wake and a
      // context switch per action).
      return Drain(slot);
  }
}

bool TableHost::MayHold() const {
  return options_.load_wait > absl::ZeroDuration() && !draining_.load();
}

void TableHost::PostRead(std::function<void()> read,
                         std::function<void(const absl::Status&)> refuse) {
  if (io_.TryPost(std::move(read))) return;
  metrics_.refused_busy.Increment();
  refuse(
      absl::UnavailableError(absl::StrCat("the server has ", options_.max_queued_reads,
                                          " database reads waiting; retry in a second")));
}

void TableHost::Complete(const std::shared_ptr<Slot>& slot,
                         std::function<void()> continuation, bool here) {
  if (!slot->strand.Complete(std::move(continuation))) return;
  // On the completing thread when it has nothing else waiting (a hand-off costs a
  // wake-up and a context switch per action); otherwise off it, so that the
  // store's writer gets back to committing.
  if (here) {
    Drain(slot);
  } else {
    workers_.Post([this, slot] { Drain(slot); });
  }
}

void TableHost::Drain(std::shared_ptr<Slot> slot) {
  // What the strand asks of its table: loaded from the store (a placeholder
  // adopts it) before the commands that need it.
  class Loader : public Strand::Owner {
   public:
    Loader(TableHost* host, std::shared_ptr<Slot> slot)
        : host_(host), slot_(std::move(slot)) {}
    bool Loaded() const override { return slot_->table != nullptr; }
    absl::Status NotLoaded() const override { return slot_->load_status; }
    bool MayLoad() const override { return !slot_->evicted; }
    void Load() override {
      if (!slot_->adopting) {
        host_->io_.Post([host = host_, slot = slot_] { host->Reload(slot); });
      } else if (slot_->claimed && slot_->claimed->ok()) {
        // Read already, by its claim round: replayed on a worker at once rather
        // than queued on the io pool behind the round's other reads.
        host_->workers_.Post([host = host_, slot = slot_] { host->AdoptRead(slot); });
      } else {
        host_->io_.Post([host = host_, slot = slot_] { host->AdoptOnCall(slot); });
      }
    }

   private:
    TableHost* const host_;
    const std::shared_ptr<Slot> slot_;
  };
  Loader loader(this, slot);
  slot->strand.Drain(loader);
}

void TableHost::Reload(std::shared_ptr<Slot> slot) {
  // On the io pool: a blocking read. The strand is suspended meanwhile.
  auto table =
      std::make_shared<absl::StatusOr<std::unique_ptr<Table>>>(committer_.Load(slot->id));
  // On the io thread, which may do the table's work itself.
  Complete(
      slot,
      [this, slot, table] {
        if (table->ok()) {
          slot->table = std::move(**table);
          metrics_.recovered.Increment();
          if (slot->acknowledged > slot->table->log_length()) {
            committer_.CountRewind(slot->id, slot->acknowledged, slot->table->log_length());
          }
          slot->acknowledged = slot->table->log_length();
          // The streams ran ahead of the log: each starts again from the log's view.
          if (slot->table->event_count() < slot->streamed) SendSnapshots(*slot);
          // An append reported as failed may still have been written: stream what the
          // log holds beyond what was sent.
          Broadcast(*slot);
          PlayDueMoves(slot, /*restart_clock=*/true);
          return;
        }
        if (absl::IsDataLoss(table->status())) {
          // The log no longer replays: hosting it on would renew its lease forever
          // and answer UNAVAILABLE to every call.
          return Quarantine(*slot, std::string(table->status().message()));
        }
        if (!absl::IsUnavailable(table->status())) {
          LogWarn("table reload failed",
                  {{"table", slot->id}, {"error", table->status().ToString()}});
        }
        slot->load_status = absl::UnavailableError(absl::StrCat(
            "table ", slot->id, " is unavailable: ", table->status().message()));
        // The commands waiting now get the error; the next one tries again.
        slot->strand.FailQueued();
      },
      /*here=*/true);
}

void TableHost::Commit(const std::shared_ptr<Slot>& slot, Step step,
                       std::function<void(const absl::Status&)> after) {
  if (step.empty()) {
    after(absl::OkStatus());
    return;
  }
  slot->strand.Suspend();
  const absl::Time start = absl::Now();
  committer_.Append(slot->id, std::move(step), [this, slot, after = std::move(after),
                                                start](const absl::Status& status,
                                                       bool here) mutable {
    Complete(
        slot,
        [this, slot, after = std::move(after), start, status] {
          metrics_.append_seconds.Observe(absl::ToDoubleSeconds(absl::Now() - start));
          if (!status.ok()) return CommitFailed(slot, status, after);
          // The answer before the broadcast: a Play stream stages it so that it rides
          // in the update that carries the action's events. Listings must already
          // show what it answers.
          slot->acknowledged = slot->table->log_length();
          UpdateListing(*slot);
          after(status);
          Broadcast(*slot);
          ScheduleClock(*slot);
        },
        here);
  });
}

void TableHost::CommitFailed(const std::shared_ptr<Slot>& slot, const absl::Status& status,
                             const std::function<void(const absl::Status&)>& after) {
  const Committer::Refusal refusal = committer_.Refused(slot->id, status);
  // Memory ran ahead of the log: drop it; the next command reloads.
  Unload(*slot);
  if (refusal == Committer::Refusal::kLeaseLost) return LoseLease(slot, status, after);
  after(absl::UnavailableError(absl::StrCat(
      "the action could not be saved; retry with the same request_id: ", status.message())));
  if (refusal == Committer::Refusal::kRewound) {
    // The log lost entries it had acknowledged (a failover to a replica that
    // lacked them): rebuild from what it holds now, without waiting for a call.
    return PlayDueMoves(slot, /*restart_clock=*/false);
  }
  if (refusal == Committer::Refusal::kMovedOn) {
    Evict(*slot, absl::UnavailableError(
                     absl::StrCat("table ", slot->id, " is no longer hosted here: ",
                                  status.message(), "; resume with after_seq")));
  }
}

void TableHost::Unload(Slot& slot) {
  slot.table.reset();
  slot.load_status = absl::UnavailableError("the table is being reloaded");
}

absl::Status TableHost::CheckStoredLogs() {
  std::vector<std::shared_ptr<Slot>> hosted;
  std::vector<std::string> ids;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, slot] : slots_) {
      if (!slot->hosted.load()) continue;
      hosted.push_back(slot);
      ids.push_back(id);
    }
  }
  absl::StatusOr<absl::flat_hash_map<std::string, int64_t>> lengths =
      committer_.StoredLengths(ids);
  if (!lengths.ok()) return lengths.status();
  for (const std::shared_ptr<Slot>& slot : hosted) {
    auto it = lengths->find(slot->id);
    if (it != lengths->end()) RebuildRewound(slot, it->second);
  }
  return absl::OkStatus();
}

void TableHost::RebuildRewound(const std::shared_ptr<Slot>& slot, int64_t stored) {
  Post(
      slot,
      [this, slot, stored](Slot& s, const absl::Status& status) {
        if (!status.ok() || !s.table || s.acknowledged <= stored) return;
        if (FindSlot(s.id) != slot) return;  // it left memory meanwhile
        // Ended here, running in the log: it is running again once reloaded.
        s.finished.store(false);
        Unload(s);
        PlayDueMoves(slot, /*restart_clock=*/false);
      },
      /*bounded=*/false);
}

void TableHost::SendSnapshots(Slot& slot) {
  Table& table = *slot.table;
  for (Slot::Subscriber& sub : slot.subscribers) {
    // A snapshot of the table as the log holds it, and a seat's prompt.
    absl::StatusOr<std::vector<v1::TableUpdate>> start = table.StreamStart(sub.viewer, 0);
    for (v1::TableUpdate& update : *start) {
      if (!sub.sink->Send(std::move(update), /*catch_up=*/true)) {
        sub.sink = nullptr;
        break;
      }
    }
  }
  slot.subscribers.erase(
      std::remove_if(slot.subscribers.begin(), slot.subscribers.end(),
                     [](const Slot::Subscriber& s) { return !s.sink; }),
      slot.subscribers.end());
  slot.streamed = table.event_count();
}

void TableHost::Broadcast(Slot& slot) {
  Table& table = *slot.table;
  for (Slot::Subscriber& sub : slot.subscribers) {
    // Everything since the last broadcast (one step, or after a reload what the log
    // held beyond it) in one update per viewer: per-message cost dominates.
    for (v1::TableUpdate& update : table.StepUpdates(slot.streamed, sub.viewer)) {
      if (!sub.sink->Send(std::move(update), /*catch_up=*/false)) {
        sub.sink = nullptr;
        break;
      }
    }
    if (sub.sink) sub.sink->Flush();
  }
  slot.streamed = table.event_count();
  slot.subscribers.erase(
      std::remove_if(slot.subscribers.begin(), slot.subscribers.end(),
                     [](const Slot::Subscriber& s) { return !s.sink; }),
      slot.subscribers.end());
  UpdateListing(slot);
  if (table.ended()) CloseStreams(slot, absl::OkStatus());
}

void TableHost::UpdateListing(Slot& slot) {
  const Table& table = *slot.table;
  slot.phase.store(static_cast<int>(wire::PhaseToProto(table.game().phase())));
  if (table.ended() && !slot.finished.load()) {
    slot.finished_at_us.store(absl::ToUnixMicros(absl::Now()));
    slot.finished.store(true);
    service::LogInfo(table.voided() ? "table voided" : "table finished",
                     {{"table", slot.id}, {"entries", table.log_length()}});
  }
}

void TableHost::CloseStreams(Slot& slot, const absl::Status& status) {
  for (Slot::Subscriber& sub : slot.subscribers) {
    if (sub.sink) sub.sink->Close(status);
  }
  slot.subscribers.clear();
}

void TableHost::ScheduleClock(Slot& slot) {
  if (slot.table && slot.table->deadline())
    timer_.Schedule(slot.id, *slot.table->deadline());
}

void TableHost::OnClock(const std::string& table_id) {
  if (std::shared_ptr<Slot> slot = FindSlot(table_id))
    PlayDueMoves(slot, /*restart_clock=*/false);
}

void TableHost::PlayDueMoves(const std::shared_ptr<Slot>& slot, bool restart_clock) {
  Post(
      slot,
      [this, slot, restart_clock](Slot& s, const absl::Status& status) {
        if (!status.ok() || draining_.load()) return;
        // Only a table that was just loaded needs its clock scheduled here: a clock
        // that fired must not schedule itself again (every firing would add one).
        if (restart_clock) ScheduleClock(s);
        Step step = s.table->Advance(absl::Now());
        if (!s.table->broken().ok()) {
          return Quarantine(s, std::string(s.table->broken().message()));
        }
        Commit(slot, std::move(step), [](const absl::Status&) {});
      },
      /*bounded=*/false);
}

void TableHost::Forget(Slot& slot, const absl::Status& status) {
  {
    absl::MutexLock lock(&mu_);
    auto it = slots_.find(slot.id);
    if (it != slots_.end() && it->second.get() == &slot) slots_.erase(it);
    metrics_.tables.Set(static_cast<double>(slots_.size()));
  }
  slot.evicted = true;
  slot.hosted.store(false);
  slot.table.reset();
  slot.load_status = status;
  CloseStreams(slot, status);
}

void TableHost::Evict(Slot& slot, const absl::Status& status) {
  Forget(slot, status);
  // If the lease is still ours, make the table claimable at once (by us again, or
  // by another instance); if it is not, this fails harmlessly.
  const std::string id = slot.id;
  fleet_.OweReleases({id});
  io_.Post([this, id] { fleet_.Release(id); });
}

// --- Actions and streams ----------------------------------------------------------

void TableHost::Act(v1::ActRequest request, Reply<v1::ActResponse> reply) {
  ActOnStream(std::move(request),
              [reply = std::move(reply)](absl::StatusOr<v1::ActResponse> answer, bool) {
                reply(std::move(answer));
              });
}

namespace {

// A refused action carries the seat's current prompt again (refusals.h).
absl::Status Refused(const absl::Status& status, const Table& table, int seat) {
  std::optional<v1::Prompt> prompt = table.PromptFor(seat);
  return prompt ? WithPrompt(status, *prompt) : status;
}

// Sends a new stream its start: a snapshot, or the events after `after_seq`.
absl::Status StartStream(const Table& table, int viewer, uint64_t after_seq,
                         UpdateSink& sink) {
  absl::StatusOr<std::vector<v1::TableUpdate>> start =
      table.StreamStart(viewer, after_seq);
  if (!start.ok()) return start.status();
  for (v1::TableUpdate& update : *start) {
    if (!sink.Send(std::move(update), /*catch_up=*/true)) break;
  }
  return absl::OkStatus();
}

}  // namespace

void TableHost::ActOnStream(v1::ActRequest request, ActReply reply) {
  if (absl::Status s = Available(); !s.ok()) return reply(s, false);
  if (request.seat_token().empty()) {
    return reply(absl::UnauthenticatedError("seat_token is required"), false);
  }
  if (absl::Status s = CheckTableId(request.table_id()); !s.ok()) return reply(s, false);
  // Nothing is judged on a copy that may be stale. The request and reply move
  // along (each step runs once): no copy per action.
  WhenFresh([this, request = std::move(request),
             reply = std::move(reply)](const absl::Status& fresh) mutable {
    if (!fresh.ok()) return reply(fresh, false);
    absl::Status refused;
    std::shared_ptr<Slot> slot = SlotFor(request.table_id(), /*for_call=*/true, &refused);
    if (!slot) return reply(refused, false);
    Post(slot, [this, slot, request = std::move(request),
                reply = std::move(reply)](Slot& s, const absl::Status& status) {
      if (!status.ok()) {
        metrics_.actions_failed.Increment();
        return reply(status, false);
      }
      Judge(slot, request, reply);
    });
  });
}

void TableHost::Judge(const std::shared_ptr<Slot>& slot, const v1::ActRequest& request,
                      const ActReply& reply) {
  Table& table = *slot->table;
  absl::StatusOr<int> seat = table.SeatOf(request.seat_token());
  if (!seat.ok()) {
    metrics_.actions_rejected.Increment();
    return reply(seat.status(), false);
  }
  if (const std::optional<v1::ActResponse> answer = table.FindAnswer(*seat, request.request_id())) {
    metrics_.actions_duplicate.Increment();
    return reply(*answer, false);
  }
  absl::StatusOr<Step> step = table.Act(*seat, request, absl::Now());
  if (!table.broken().ok()) {
    const std::string reason(table.broken().message());
    Quarantine(*slot, reason);
    return reply(QuarantinedError(reason), false);
  }
  if (!step.ok()) {
    metrics_.actions_rejected.Increment();
    return reply(Refused(step.status(), table, *seat), false);
  }
  // An accepted action's step is never empty (it holds the action), so Commit
  // broadcasts it once durable.
  const v1::ActResponse response = step->response;
  Commit(slot, *std::move(step), [this, reply, response](const absl::Status& done) {
    if (done.ok()) {
      metrics_.actions_ok.Increment();
      reply(response, true);
    } else {
      metrics_.actions_failed.Increment();
      reply(done, false);
    }
  });
}

void TableHost::GetTable(const v1::GetTableRequest& request, Reply<v1::TableView> reply,
                         bool trusted) {
  if (absl::Status s = Available(); !s.ok()) return reply(s);
  if (absl::Status s = CheckTableId(request.table_id()); !s.ok()) return reply(s);
  std::shared_ptr<Slot> slot = FindSlot(request.table_id());
  if (!slot) return ViewFromStore(request.table_id(), reply, trusted);
  WhenFresh([this, slot, reply, trusted](const absl::Status& fresh) {
    // Not (or no longer) hosted here: the log says all.
    if (!fresh.ok()) return ViewFromStore(slot->id, reply, trusted);
    Post(slot, [this, reply, trusted](Slot& s, const absl::Status& status) {
      if (absl::IsResourceExhausted(status)) return reply(status);  // the table is flooded
      if (!status.ok()) return ViewFromStore(s.id, reply, trusted);
      if (absl::Status c = s.table->CheckSpectator(trusted); !c.ok()) return reply(c);
      reply(s.table->View(engine::kSpectator));
    });
  });
}

void TableHost::ViewFromStore(const std::string& table_id, Reply<v1::TableView> reply,
                              bool trusted) {
  PostRead(
      [this, table_id, reply, trusted] {
        absl::StatusOr<std::unique_ptr<Table>> table = committer_.Load(table_id);
        if (!table.ok()) return reply(table.status());
        if (absl::Status c = (*table)->CheckSpectator(trusted); !c.ok()) return reply(c);
        reply((*table)->View(engine::kSpectator));
      },
      [reply](const absl::Status& s) { reply(s); });
}

void TableHost::Subscribe(const std::string& table_id, const std::string& seat_token,
                          bool spectator, uint64_t after_seq,
                          std::shared_ptr<UpdateSink> sink, bool trusted) {
  if (absl::Status s = Available(); !s.ok()) return sink->Close(s);
  if (!spectator && seat_token.empty()) {
    return sink->Close(absl::UnauthenticatedError("seat_token is required"));
  }
  if (absl::Status s = CheckTableId(table_id); !s.ok()) return sink->Close(s);
  WhenFresh([this, table_id, seat_token, spectator, after_seq, sink,
             trusted](const absl::Status& fresh) {
    if (!fresh.ok()) return sink->Close(fresh);
    absl::Status refused;
    std::shared_ptr<Slot> slot = SlotFor(table_id, /*for_call=*/true, &refused);
    if (!slot) return sink->Close(refused);
    Post(slot, [this, seat_token, spectator, after_seq, sink, trusted](
                   Slot& s, const absl::Status& status) {
      if (!status.ok()) return sink->Close(status);
      OpenStream(s, seat_token, spectator, after_seq, sink, trusted);
    });
  });
}

void TableHost::OpenStream(Slot& slot, const std::string& seat_token, bool spectator,
                           uint64_t after_seq, const std::shared_ptr<UpdateSink>& sink,
                           bool trusted) {
  Table& table = *slot.table;
  int viewer = engine::kSpectator;
  if (spectator) {
    if (absl::Status c = table.CheckSpectator(trusted); !c.ok()) return sink->Close(c);
    if (absl::Status room = RoomForSpectator(slot); !room.ok()) return sink->Close(room);
  } else {
    absl::StatusOr<int> seat = table.SeatOf(seat_token);
    if (!seat.ok()) return sink->Close(seat.status());
    viewer = *seat;
  }
  if (absl::Status started = StartStream(table, viewer, after_seq, *sink);
      !started.ok()) {
    return sink->Close(started);
  }
  sink->Opened();
  if (table.ended()) return sink->Close(absl::OkStatus());
  if (viewer != engine::kSpectator) ReplaceSeatStream(slot, viewer);
  slot.subscribers.push_back({viewer, sink});
}

absl::Status TableHost::RoomForSpectator(Slot& slot) {
  if (options_.max_spectators_per_table == 0) return absl::OkStatus();
  slot.subscribers.erase(
      std::remove_if(slot.subscribers.begin(), slot.subscribers.end(),
                     [](const Slot::Subscriber& s) { return s.sink->Ended(); }),
      slot.subscribers.end());
  const size_t watching =
      std::count_if(slot.subscribers.begin(), slot.subscribers.end(),
                    [](const Slot::Subscriber& s) { return s.viewer == engine::kSpectator; });
  if (watching < options_.max_spectators_per_table) return absl::OkStatus();
  metrics_.refused_busy.Increment();
  return absl::ResourceExhaustedError(
      absl::StrCat("table ", slot.id, " has ", watching,
                   " spectators, the most it takes; watch again later"));
}

void TableHost::ReplaceSeatStream(Slot& slot, int seat) {
  for (Slot::Subscriber& sub : slot.subscribers) {
    if (sub.viewer != seat) continue;
    sub.sink->Close(absl::AbortedError(absl::StrCat(
        "replaced by a newer stream for seat ", seat, " of table ", slot.id)));
    sub.sink = nullptr;
  }
  slot.subscribers.erase(
      std::remove_if(slot.subscribers.begin(), slot.subscribers.end(),
                     [](const Slot::Subscriber& s) { return !s.sink; }),
      slot.subscribers.end());
}

}  // namespace trix::table
