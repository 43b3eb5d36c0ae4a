#include "engine/replay/deal_check.h"

#include <map>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/cards.h"
#include "engine/deal_proof.h"
#include "engine/random.h"

namespace trix::engine {
namespace {

using nlohmann::json;

// The field under its JSON name or its proto name; null when absent.
const json& Field(const json& object, const char* json_name, const char* proto_name) {
  static const json kAbsent;
  if (!object.is_object()) return kAbsent;
  if (auto it = object.find(json_name); it != object.end()) return *it;
  if (auto it = object.find(proto_name); it != object.end()) return *it;
  return kAbsent;
}

// A proto3 JSON integer: a number, or a string for 64-bit ones; absent is 0.
absl::StatusOr<uint64_t> Unsigned(const json& v, const char* what) {
  uint64_t n = 0;
  if (v.is_null()) return n;
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_string() && absl::SimpleAtoi(v.get<std::string>(), &n)) return n;
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<uint64_t>();
  return absl::InvalidArgumentError(absl::StrCat(what, " is not a non-negative integer"));
}

absl::StatusOr<std::string> Bytes(const json& v, const char* what) {
  std::string out;
  if (v.is_null()) return out;
  if (v.is_string() && (absl::Base64Unescape(v.get<std::string>(), &out) ||
                        absl::WebSafeBase64Unescape(v.get<std::string>(), &out))) {
    return out;
  }
  return absl::InvalidArgumentError(absl::StrCat(what, " is not base64"));
}

// The cards an event shows in one seat's hand: the seat and the cards.
struct Shown {
  int seat = -1;
  std::vector<std::string> cards;
  bool whole_hand = false;  // HandShown: exactly the hand
};

Shown ShownBy(const json& event) {
  Shown out;
  const std::pair<const char*, const char*> lists[] = {
      {"handShown", "hand_shown"}, {"doublesSelected", "doubles_selected"},
      {"doublesRevealed", "doubles_revealed"}, {"twosShown", "twos_shown"}};
  for (const auto& [json_name, proto_name] : lists) {
    const json& kind = Field(event, json_name, proto_name);
    if (kind.is_null()) continue;
    out.seat = Field(kind, "seat", "seat").is_number() ? kind["seat"].get<int>() : 0;
    for (const json& c : Field(kind, "cards", "cards")) out.cards.push_back(c.get<std::string>());
    out.whole_hand = json_name == std::string("handShown");
    return out;
  }
  const json& played = Field(event, "cardPlayed", "card_played");
  if (!played.is_null()) {
    out.seat = Field(played, "seat", "seat").is_number() ? played["seat"].get<int>() : 0;
    const json& card = Field(played, "card", "card");
    out.cards.push_back(card.is_string() ? card.get<std::string>() : "");
  }
  return out;
}

absl::Status CheckEvent(const json& event, const Hands& hands, int deal, int& cards) {
  const Shown shown = ShownBy(event);
  if (shown.seat < 0) return absl::OkStatus();
  if (shown.seat >= kNumSeats) {
    return absl::InvalidArgumentError(absl::StrCat("deal ", deal, ": seat ", shown.seat));
  }
  CardSet seen = 0;
  for (const std::string& name : shown.cards) {
    absl::StatusOr<Card> c = ParseCard(name);
    if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("deal ", deal, ": ", c.status().message()));
    if (!(hands[shown.seat] & Bit(*c))) {
      return absl::FailedPreconditionError(
          absl::StrCat("deal ", deal, ": seat ", shown.seat, " shows ", name,
                       ", which the seed deals to another seat"));
    }
    seen |= Bit(*c);
    ++cards;
  }
  if (shown.whole_hand && seen != hands[shown.seat]) {
    return absl::FailedPreconditionError(absl::StrCat(
        "deal ", deal, ": seat ", shown.seat, "'s hand is not the one the seed deals"));
  }
  return absl::OkStatus();
}

// The seats' contributions (trix-deals-v2), each base64 in the JSON mapping;
// none for trix-deals-v1.
absl::StatusOr<SeatSeeds> SeatSeedsOf(const json& proof) {
  SeatSeeds out;
  const json& list = Field(proof, "seatSeeds", "seat_seeds");
  if (list.is_null()) return out;
  if (!list.is_array() || list.size() > out.size()) {
    return absl::InvalidArgumentError("deal_proof.seat_seeds is not a list of four seeds");
  }
  for (size_t s = 0; s < list.size(); ++s) {
    absl::StatusOr<std::string> bytes = Bytes(list[s], "deal_proof.seat_seeds");
    if (!bytes.ok()) return bytes.status();
    out[s] = *std::move(bytes);
  }
  return out;
}

}  // namespace

absl::StatusOr<DealCheck> CheckDeals(const json& record) {
  if (!record.is_object()) return absl::InvalidArgumentError("a game record is a JSON object");
  DealCheck out;
  const json& id = Field(record, "gameId", "game_id");
  if (id.is_string()) out.game_id = id.get<std::string>();
  const json& proof = Field(record, "dealProof", "deal_proof");
  if (proof.is_null()) {
    return absl::FailedPreconditionError("the record has no deal proof (a game from before them)");
  }
  absl::StatusOr<uint64_t> seed = Unsigned(Field(proof, "seed", "seed"), "deal_proof.seed");
  if (!seed.ok()) return seed.status();
  absl::StatusOr<std::string> salt = Bytes(Field(proof, "salt", "salt"), "deal_proof.salt");
  if (!salt.ok()) return salt.status();
  if (salt->empty()) {
    return absl::FailedPreconditionError("the seed is not revealed yet: the game is not over");
  }
  const json& procedure = Field(proof, "procedure", "procedure");
  const json& commitment = Field(proof, "commitment", "commitment");
  if (absl::Status s = CheckDealCommitment(
          procedure.is_string() ? procedure.get<std::string>() : "",
          commitment.is_string() ? commitment.get<std::string>() : "", *seed, *salt);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<SeatSeeds> seat_seeds = SeatSeedsOf(proof);
  if (!seat_seeds.ok()) return seat_seeds.status();
  absl::StatusOr<uint64_t> deal_seed = DealSeed(
      procedure.get<std::string>(), *seed, *salt, *seat_seeds);
  if (!deal_seed.ok()) return deal_seed.status();
  std::map<int, Hands> dealt;
  for (const json& event : Field(record, "events", "events")) {
    const json& d = Field(event, "deal", "deal");
    const int deal = d.is_number_integer() ? d.get<int>() : 0;
    if (deal < 0) continue;  // before the first deal
    auto [it, fresh] = dealt.try_emplace(deal);
    if (fresh) it->second = ShuffledHands(*deal_seed, deal);
    if (absl::Status s = CheckEvent(event, it->second, deal, out.cards); !s.ok()) return s;
  }
  out.deals = static_cast<int>(dealt.size());
  return out;
}

json CheckDealsLine(const std::string& text) {
  json record = json::parse(text, nullptr, /*allow_exceptions=*/false);
  json out = {{"game_id", ""}, {"verified", false}};
  if (record.is_discarded()) {
    out["error"] = "not JSON";
    return out;
  }
  absl::StatusOr<DealCheck> c = absl::InternalError("");
  try {
    c = CheckDeals(record);
  } catch (const json::exception& e) {
    c = absl::InvalidArgumentError(absl::StrCat("unreadable record: ", e.what()));
  }
  const json& id = Field(record, "gameId", "game_id");
  if (id.is_string()) out["game_id"] = id;
  if (!c.ok()) {
    out["error"] = std::string(c.status().message());
    return out;
  }
  out["verified"] = true;
  out["deals"] = c->deals;
  out["cards"] = c->cards;
  return out;
}

}  // namespace trix::engine
