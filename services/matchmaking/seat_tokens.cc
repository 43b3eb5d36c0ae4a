#include "services/matchmaking/seat_tokens.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace trix::matchmaking {

std::string SeatTokens::For(const std::string& placement_id, int seat) const {
  // The placement id never holds a newline: the seat number cannot run into it.
  const std::string message = absl::StrCat(placement_id, "\n", seat);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac,
       &length);
  return absl::WebSafeBase64Escape(
      absl::string_view(reinterpret_cast<const char*>(mac), length));
}

std::string SeatTokens::Stored(const v1::CreateTableRequest& request) {
  v1::CreateTableRequest stored = request;
  for (v1::SeatAssignment& seat : *stored.mutable_seats()) seat.clear_seat_token();
  return stored.SerializeAsString();
}

void SeatTokens::Restore(v1::CreateTableRequest* request) const {
  for (int s = 0; s < request->seats_size(); ++s) {
    v1::SeatAssignment* seat = request->mutable_seats(s);
    if (seat->autopilot() || !seat->seat_token().empty()) continue;
    seat->set_seat_token(For(request->request_id(), s));
  }
}

}  // namespace trix::matchmaking
