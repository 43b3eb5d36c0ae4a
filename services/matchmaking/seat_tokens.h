// Seat tokens that matchmaking derives instead of storing. A seat's token is the
// HMAC-SHA256, under a key only matchmaking holds (--seat_token_key_file), of the
// placement's id (its CreateTable request_id) and the seat number, base64url like
// the table service's own tokens (43 characters). The matcher hands the four to
// CreateTable; whoever resends an assignment (GetAssignment, a reconnecting
// FindTable or ServeBot, a placement finished after a crash) derives the same
// token again from the placement id kept in mm_assignments / mm_placements, so
// that nothing the database holds lets anyone act for a seat (migration 0032).
//
//   SeatTokens tokens(key);
//   seat->set_seat_token(tokens.For(request.request_id(), s));
#ifndef TRIX_SERVICES_MATCHMAKING_SEAT_TOKENS_H_
#define TRIX_SERVICES_MATCHMAKING_SEAT_TOKENS_H_

#include <string>

#include "trix/v1/table.pb.h"

namespace trix::matchmaking {

class SeatTokens {
 public:
  explicit SeatTokens(std::string key) : key_(std::move(key)) {}

  std::string For(const std::string& placement_id, int seat) const;
  // What mm_placements keeps of a request: the request without its tokens.
  static std::string Stored(const v1::CreateTableRequest& request);
  // A stored request made whole again: each seat that has a player (not the
  // autopilot) and no token gets its derived one. A request stored with its
  // tokens (by a release that kept them) keeps them.
  void Restore(v1::CreateTableRequest* request) const;

 private:
  std::string key_;
};

}  // namespace trix::matchmaking

#endif  // TRIX_SERVICES_MATCHMAKING_SEAT_TOKENS_H_
