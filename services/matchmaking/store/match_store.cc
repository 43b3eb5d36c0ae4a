#include "services/matchmaking/store/match_store.h"

#include <utility>

namespace trix::matchmaking {

void AddRecordedSeat(int seat, const std::string& ticket_id, PlannedTable& table) {
  const v1::SeatAssignment& assigned = table.request.seats(seat);
  AssignmentRow a{.seat = seat,
                  .player_id = assigned.player_id(),
                  .ticket_id = ticket_id,
                  .bot = assigned.bot(),
                  .team = table.request.mode().team(),
                  .format = table.request.mode().format(),
                  .stake = assigned.stake(),
                  .possible = table.possible};
  if (a.ticket_id.empty()) {
    ++table.bots;
  } else {
    table.tickets.push_back(a.ticket_id);
  }
  table.seats.push_back(std::move(a));
}

}  // namespace trix::matchmaking
