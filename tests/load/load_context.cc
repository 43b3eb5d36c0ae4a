#include "tests/load/load_context.h"

namespace trix::load {

Counters::Snapshot Counters::Take() const {
  auto get = [](const std::atomic<int64_t>& a) { return a.load(); };
  return {get(tables_created), get(create_errors), get(games_ended),  get(acts_sent),
          get(acks),           get(act_rejected),  get(act_failed),   get(updates),
          get(events),         get(prompts),       get(snapshots),    get(stale_prompts),
          get(matched),        get(seq_gaps),      get(stream_errors),  get(reconnects),
          get(moves),          get(resent),        get(followed_acks)};
}

Counters::Snapshot Counters::Snapshot::operator-(const Snapshot& o) const {
  return {tables_created - o.tables_created,
          create_errors - o.create_errors,
          games_ended - o.games_ended,
          acts_sent - o.acts_sent,
          acks - o.acks,
          act_rejected - o.act_rejected,
          act_failed - o.act_failed,
          updates - o.updates,
          events - o.events,
          prompts - o.prompts,
          snapshots - o.snapshots,
          stale_prompts - o.stale_prompts,
          matched - o.matched,
          seq_gaps - o.seq_gaps,
          stream_errors - o.stream_errors,
          reconnects - o.reconnects,
          moves - o.moves,
          resent - o.resent,
          followed_acks - o.followed_acks};
}

}  // namespace trix::load
