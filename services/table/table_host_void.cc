// TableHost: VoidTable, ending a table that nobody should finish. The void is the
// table's last log entry, written with the game's end (no result) and the voided
// outbox row in one commit; only then are the seats told (TableVoided, and their
// streams end OK) and the caller answered. A quarantined table, which no instance
// may host (its log may not even replay), is voided in the store directly.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/logging.h"
#include "services/table/refusals.h"
#include "services/table/slot.h"
#include "services/table/table_host.h"

namespace trix::table {
namespace {

constexpr size_t kMaxVoidReasonBytes = 256;

absl::Status CheckVoid(const v1::VoidTableRequest& request) {
  if (absl::Status s = CheckTableId(request.table_id()); !s.ok()) return s;
  if (request.reason().empty()) {
    return absl::InvalidArgumentError(
        "reason is required: it tells the seats and the record why the table was voided");
  }
  if (request.reason().size() > kMaxVoidReasonBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reason is ", request.reason().size(), " bytes; at most ", kMaxVoidReasonBytes));
  }
  return absl::OkStatus();
}

v1::VoidTableResponse VoidAnswer(const std::string& table_id, absl::Time voided,
                                 bool already_voided) {
  v1::VoidTableResponse response;
  response.set_table_id(table_id);
  response.set_already_voided(already_voided);
  *response.mutable_voided() = TimeToProto(voided);
  return response;
}

// A stored game that has ended: voided before, or over with its result.
absl::StatusOr<v1::VoidTableResponse> EndedAnswer(const StoredGame& stored) {
  if (!ResultJsonVoided(stored.result) || stored.entries.empty()) {
    return absl::FailedPreconditionError(
        "the game is over: its result stands and it cannot be voided");
  }
  return VoidAnswer(stored.game.game_id, stored.entries.back().time,
                    /*already_voided=*/true);
}

}  // namespace

void TableHost::VoidTable(const v1::VoidTableRequest& request,
                          Reply<v1::VoidTableResponse> reply) {
  if (absl::Status s = Available(); !s.ok()) return reply(s);
  if (absl::Status s = CheckVoid(request); !s.ok()) return reply(s);
  // As for Act: judged only on a copy known to be current, and a table hosted
  // elsewhere is adopted or answered UNAVAILABLE with its location.
  WhenFresh([this, request, reply](const absl::Status& fresh) {
    if (!fresh.ok()) return reply(fresh);
    absl::Status refused;
    std::shared_ptr<Slot> slot = SlotFor(request.table_id(), /*for_call=*/true, &refused);
    if (!slot) return reply(refused);
    Post(slot, [this, slot, reason = request.reason(), reply](
                   Slot&, const absl::Status& status) {
      if (IsQuarantined(status)) return VoidQuarantined(slot->id, reason, reply);
      if (!status.ok()) return reply(status);
      VoidHosted(slot, reason, reply);
    });
  });
}

void TableHost::VoidHosted(const std::shared_ptr<Slot>& slot, const std::string& reason,
                           const Reply<v1::VoidTableResponse>& reply) {
  Table& table = *slot->table;
  if (table.voided()) {
    return reply(VoidAnswer(table.id(), *table.voided_at(), /*already_voided=*/true));
  }
  absl::StatusOr<Step> step = table.Void(reason, absl::Now());
  if (!step.ok()) return reply(step.status());
  Commit(slot, *std::move(step), [this, slot, reply](const absl::Status& done) {
    if (!done.ok()) return reply(done);
    metrics_.voided.Increment();
    service::LogInfo("table voided by request", {{"table", slot->id}});
    reply(VoidAnswer(slot->id, *slot->table->voided_at(), /*already_voided=*/false));
  });
}

void TableHost::VoidQuarantined(const std::string& table_id, const std::string& reason,
                                const Reply<v1::VoidTableResponse>& reply) {
  PostRead(
      [this, table_id, reason, reply] {
        absl::StatusOr<StoredGame> stored = store_->LoadGame(table_id);
        if (!stored.ok()) return reply(stored.status());
        if (stored->finished) return reply(EndedAnswer(*stored));
        Step step = Table::VoidStep(table_id, stored->game.mode, stored->game.seats, reason,
                                    static_cast<int64_t>(stored->entries.size()),
                                    absl::Now());
        const absl::Time voided = step.entries.back().time;
        AppendRequest request;
        request.game_id = table_id;
        request.entries = std::move(step.entries);
        request.end = std::move(step.end);
        if (absl::Status s = store_->VoidQuarantined(request); !s.ok()) {
          // Voided (or cleared and played on) meanwhile: say what it is now.
          stored = store_->LoadGame(table_id);
          if (stored.ok() && stored->finished) return reply(EndedAnswer(*stored));
          return reply(s);
        }
        metrics_.voided.Increment();
        service::LogInfo("quarantined table voided by request", {{"table", table_id}});
        reply(VoidAnswer(table_id, voided, /*already_voided=*/false));
      },
      [reply](const absl::Status& s) { reply(s); });
}

}  // namespace trix::table
