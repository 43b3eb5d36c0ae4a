// TableHost: game records and a player's tables and games. These read the store
// (blocking), so they run on the io pool, never on a table's strand. The history
// (a game's record, a player's finished games) is read with the store's history
// reads, which may come from a standby; a player's live tables from the primary.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/observation.h"
#include "services/table/refusals.h"
#include "services/table/slot.h"
#include "services/table/table_host.h"

namespace trix::table {
namespace {

constexpr int kDefaultPage = 20;
constexpr int kMaxPage = 100;

absl::Status CheckPlayerId(const std::string& player_id) {
  if (player_id.empty() || player_id.size() > 128) {
    return absl::InvalidArgumentError("player_id is required (at most 128 bytes)");
  }
  return absl::OkStatus();
}

}  // namespace

void TableHost::ListPlayerTables(const v1::ListPlayerTablesRequest& request,
                                 Reply<v1::ListPlayerTablesResponse> reply) {
  if (absl::Status s = Available(); !s.ok()) return reply(s);
  if (absl::Status s = CheckPlayerId(request.player_id()); !s.ok()) return reply(s);
  PostRead(
      [this, player_id = request.player_id(), reply] {
        absl::StatusOr<std::vector<GameListing>> listings =
            store_->ListActive(player_id);
        if (!listings.ok()) return reply(listings.status());
        v1::ListPlayerTablesResponse response;
        for (const GameListing& listing : *listings) {
          v1::TableSummary* summary = response.add_tables();
          summary->set_table_id(listing.game_id);
          *summary->mutable_mode() = ModeFromStoredName(listing.mode);
          summary->set_seat(listing.seat);
          *summary->mutable_created() = TimeToProto(listing.created);
          // Known only for the tables hosted here; elsewhere it stays unspecified.
          if (std::shared_ptr<Slot> slot = FindSlot(listing.game_id)) {
            summary->set_phase(static_cast<v1::Phase>(slot->phase.load()));
          }
        }
        reply(std::move(response));
      },
      [reply](const absl::Status& s) { reply(s); });
}

void TableHost::ListPlayerGames(const v1::ListPlayerGamesRequest& request,
                                Reply<v1::ListPlayerGamesResponse> reply) {
  if (absl::Status s = Available(); !s.ok()) return reply(s);
  if (absl::Status s = CheckPlayerId(request.player_id()); !s.ok()) return reply(s);
  if (request.page_size() < 0) {
    return reply(absl::InvalidArgumentError("page_size is negative"));
  }
  const int page =
      request.page_size() == 0 ? kDefaultPage : std::min(request.page_size(), kMaxPage);
  PostRead(
      [this, request, page, reply] {
        // One more than the page tells whether another page follows.
        absl::StatusOr<std::vector<GameListing>> listings =
            store_->ListFinished(request.player_id(), page + 1, request.page_token());
        if (!listings.ok()) return reply(listings.status());
        v1::ListPlayerGamesResponse response;
        const int shown = std::min<int>(page, static_cast<int>(listings->size()));
        for (int i = 0; i < shown; ++i) {
          const GameListing& listing = (*listings)[i];
          v1::GameSummary* summary = response.add_games();
          summary->set_game_id(listing.game_id);
          *summary->mutable_mode() = ModeFromStoredName(listing.mode);
          summary->set_seat(listing.seat);
          summary->set_total(listing.total);
          summary->set_place(listing.place);
          summary->set_unrated(ResultJsonUnrated(listing.result));
          if (ResultJsonVoided(listing.result)) {
            summary->set_voided(true);
          } else if (absl::StatusOr<v1::GameResult> result =
                         ResultFromJson(listing.result);
                     result.ok()) {
            *summary->mutable_result() = *std::move(result);
          }
          if (listing.finished)
            *summary->mutable_finished() = TimeToProto(*listing.finished);
        }
        if (static_cast<int>(listings->size()) > page) {
          response.set_next_page_token((*listings)[shown - 1].cursor);
        }
        reply(std::move(response));
      },
      [reply](const absl::Status& s) { reply(s); });
}

void TableHost::GetGameRecord(const v1::GetGameRecordRequest& request,
                              Reply<v1::GameRecord> reply, bool trusted) {
  if (absl::Status s = Available(); !s.ok()) return reply(s);
  if (request.game_id().empty()) {
    return reply(absl::InvalidArgumentError("game_id is required"));
  }
  if (absl::Status s = CheckTableId(request.game_id()); !s.ok()) {
    return reply(absl::InvalidArgumentError(absl::StrCat("game_id: ", s.message())));
  }
  PostRead(
      [this, request, reply, trusted] {
        absl::StatusOr<StoredGame> stored =
            store_->LoadRecord(request.game_id());
        if (!stored.ok()) return reply(stored.status());
        absl::StatusOr<std::unique_ptr<Table>> loaded = Table::Restore(*stored);
        if (!loaded.ok()) return reply(loaded.status());
        Table& table = **loaded;
        int viewer = engine::kSpectator;
        if (!request.seat_token().empty()) {
          absl::StatusOr<int> seat = table.SeatOf(request.seat_token());
          if (!seat.ok()) return reply(seat.status());
          viewer = *seat;
        } else if (absl::Status s = table.CheckSpectator(trusted); !s.ok()) {
          return reply(s);
        }
        v1::GameRecord record;
        record.set_game_id(table.id());
        *record.mutable_mode() = table.settings().mode();
        *record.mutable_rules() = table.settings().rules();
        for (const SeatRecord& seat : table.seats()) {
          v1::SeatAssignment* out = record.add_seats();
          out->set_player_id(seat.player_id);
          out->set_display_name(seat.display_name);
          out->set_bot(seat.bot);
          out->set_stake(seat.stake);
        }
        for (int32_t seat : table.settings().autopilot_seats()) {
          record.mutable_seats(seat)->set_autopilot(true);
        }
        record.set_viewer(viewer);
        record.set_unrated(table.settings().unrated());
        absl::StatusOr<std::vector<v1::Event>> events = table.EventsAfter(viewer, 0);
        for (v1::Event& event : *events) *record.add_events() = std::move(event);
        *record.mutable_started() = TimeToProto(table.created());
        if (table.over()) *record.mutable_result() = table.ResultProto();
        if (table.voided()) {
          record.set_voided(true);
          record.set_void_reason(table.void_reason());
        }
        if (std::optional<v1::DealProof> proof = table.DealProof()) {
          *record.mutable_deal_proof() = *proof;
        }
        if (table.ended() && !stored->entries.empty()) {
          *record.mutable_finished() = TimeToProto(stored->entries.back().time);
        }
        reply(std::move(record));
      },
      [reply](const absl::Status& s) { reply(s); });
}

}  // namespace trix::table
