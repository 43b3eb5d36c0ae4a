// The conformance case runner (shared/conformance/README.md): valid cases give
// results; every malformed or illegal case gives ok:false with the right
// error_index, and no input crashes it.
#include "engine/replay/case_runner.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/autopilot.h"
#include "engine/deal.h"
#include "engine/random.h"
#include "engine/result.h"
#include "engine/testing/hands.h"
#include "gtest/gtest.h"

namespace trix::engine {
namespace {

using nlohmann::json;

json RunText(const std::string& line) {
  const std::string out = RunCaseLine(line);
  json result = json::parse(out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(result.is_discarded()) << "not JSON: " << out;
  return result;
}
json RunJson(const json& c) { return RunText(c.dump()); }

// The conformance case "kh-doubled-taken-by-other".
json KingOfHeartsCase() {
  return {{"id", "kh"},
          {"kind", "deal"},
          {"variant", {{"team", "solo"}, {"format", "classic"}}},
          {"owner", 0},
          {"contract", "king_of_hearts"},
          {"hands",
           {"2H 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
            "KH 2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC",
            "3H 4H 5H 6H 7H 8H 9H TH JH QH AH KC AC",
            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"}},
          {"doubles", {"KH"}},
          {"plays", {"2H", "KH", "AH", "2D"}}};
}

void ExpectError(const json& result, int index) {
  EXPECT_EQ(result.value("ok", true), false) << result.dump();
  EXPECT_EQ(result.value("error_index", -99), index) << result.dump();
  EXPECT_TRUE(result.contains("error") && result["error"].is_string()) << result.dump();
}

TEST(CaseRunnerTest, ValidDealCase) {
  const json r = RunJson(KingOfHeartsCase());
  EXPECT_EQ(r["id"], "kh");
  EXPECT_EQ(r["ok"], true);
  EXPECT_EQ(r["scores"], json({0, 75, -150, 0}));
  EXPECT_EQ(r["tricks"], 1);
  EXPECT_EQ(r["cards_played"], 4);
  EXPECT_FALSE(r.contains("team_scores"));
}

TEST(CaseRunnerTest, PartnerDealAddsTeamScores) {
  json c = KingOfHeartsCase();
  c["variant"]["team"] = "partner";
  EXPECT_EQ(RunJson(c)["team_scores"], json({0 - 150, 75 + 0}));
}

TEST(CaseRunnerTest, NotAJsonObject) {
  for (const char* line : {"not json", "{\"id\": ", "[1, 2, 3]", "\"deal\"", "42", "null",
                           "{\"id\": \"x\"} trailing"}) {
    const json r = RunText(std::string(line));
    ExpectError(r, -1);
    EXPECT_TRUE(r["id"].is_null()) << line;
  }
}

TEST(CaseRunnerTest, InvalidUtf8IsRejectedAndTheOutputStaysJson) {
  std::string line = KingOfHeartsCase().dump();
  line.replace(line.find("\"kh\""), 4, "\"k\xff\xfeh\"");
  ExpectError(RunText(line), -1);
  ExpectError(RunText(std::string("{\"id\": \"\xc3\", \"kind\": \"deal\"}")), -1);
  ExpectError(RunText(std::string("\x80\x81")), -1);
}

TEST(CaseRunnerTest, UnknownOrMissingKind) {
  json c = KingOfHeartsCase();
  c["kind"] = "set";
  const json r = RunJson(c);
  ExpectError(r, -1);
  EXPECT_EQ(r["id"], "kh");
  EXPECT_NE(r["error"].get<std::string>().find("unknown kind 'set'"), std::string::npos);
  c["kind"] = 3;
  ExpectError(RunJson(c), -1);
  c.erase("kind");
  ExpectError(RunJson(c), -1);
}

TEST(CaseRunnerTest, MissingFieldsAreSetupErrors) {
  for (const char* field : {"variant", "owner", "contract", "hands", "plays"}) {
    json c = KingOfHeartsCase();
    c.erase(field);
    ExpectError(RunJson(c), -1);
  }
  json c = KingOfHeartsCase();
  c["variant"].erase("format");
  ExpectError(RunJson(c), -1);
}

TEST(CaseRunnerTest, WrongTypesAreSetupErrors) {
  const std::vector<std::pair<json::json_pointer, json>> bad = {
      {json::json_pointer("/owner"), "0"},
      {json::json_pointer("/owner"), 4},
      {json::json_pointer("/owner"), -1},
      {json::json_pointer("/owner"), 1.5},
      {json::json_pointer("/owner"), true},
      {json::json_pointer("/owner"), 4294967296ULL},
      {json::json_pointer("/owner"), 18446744073709551615ULL},
      {json::json_pointer("/variant"), "solo"},
      {json::json_pointer("/variant/team"), "duo"},
      {json::json_pointer("/variant/format"), 1},
      {json::json_pointer("/contract"), "hearts"},
      {json::json_pointer("/contract"), json::array()},
      {json::json_pointer("/contract"), "complex"},  // outside the classic format
      {json::json_pointer("/hands"), "2H 3S"},
      {json::json_pointer("/hands"), json({1, 2, 3, 4})},
      {json::json_pointer("/hands/3"), nullptr},
      {json::json_pointer("/rules"), json::array()},
      {json::json_pointer("/rules"), {{"kingdoms", "4"}}},
      {json::json_pointer("/rules"), {{"kingdoms", 0}}},
      {json::json_pointer("/rules"), {{"kingdoms", 5}}},
      {json::json_pointer("/rules"), {{"kingdoms", 4294967297ULL}}},
      {json::json_pointer("/rules"), {{"doubling", "yes"}}},
      {json::json_pointer("/rules"), {{"kh_heart_lead", "never"}}},
      {json::json_pointer("/rules"), {{"redeal", true}}},
      {json::json_pointer("/doubles"), "KH"},
      {json::json_pointer("/doubles"), json({1})},
      {json::json_pointer("/plays"), "2H KH"},
      {json::json_pointer("/plays"), json({"2H", 7})},
  };
  for (const auto& [pointer, value] : bad) {
    json c = KingOfHeartsCase();
    c[pointer] = value;
    SCOPED_TRACE(pointer.to_string() + " = " + value.dump());
    ExpectError(RunJson(c), -1);
  }
}

TEST(CaseRunnerTest, BadHandsAreSetupErrors) {
  const std::vector<std::pair<int, std::string>> bad = {
      {0, "2H 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"},        // 12 cards
      {0, "2H 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2C"},  // 14 cards
      {0, "2H 3S 4S 5S 6S 7S 8S 9S TS JS QS KS KS"},     // a card twice
      {0, "2H 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2C"},     // another seat's card
      {1, "KH 2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC 1C"},     // a bad card name
      {2, ""},
  };
  for (const auto& [seat, hand] : bad) {
    json c = KingOfHeartsCase();
    c["hands"][seat] = hand;
    SCOPED_TRACE(hand);
    ExpectError(RunJson(c), -1);
  }
}

TEST(CaseRunnerTest, BadDoublesAreSetupErrors) {
  for (const json& doubles : {json({"QS"}), json({"XX"}), json({"KH", "KH"})}) {
    json c = KingOfHeartsCase();
    c["doubles"] = doubles;
    ExpectError(RunJson(c), -1);
  }
  json off = KingOfHeartsCase();
  off["rules"] = {{"doubling", false}};
  ExpectError(RunJson(off), -1);
  off["doubles"] = json::array();
  EXPECT_EQ(RunJson(off)["scores"], json({0, 0, -75, 0}));
}

TEST(CaseRunnerTest, BadPlaysNameTheirIndex) {
  json c = KingOfHeartsCase();
  c["plays"] = {"2H", "KH", "ZZ", "2D"};
  ExpectError(RunJson(c), 2);
  c["plays"] = {"2H", "KH", "KC", "2D"};  // seat 2 must follow hearts
  ExpectError(RunJson(c), 2);
  c["plays"] = {"2H", "AH"};  // seat 1 does not hold AH
  ExpectError(RunJson(c), 1);
  c["plays"] = {"2H", "KH", "AH"};  // stops before the deal is over
  ExpectError(RunJson(c), 3);
  c["plays"] = json::array();
  ExpectError(RunJson(c), 0);
  c["plays"] = {"2H", "KH", "AH", "2D", "3S"};  // a card after the end
  ExpectError(RunJson(c), 4);
  c["plays"] = {"2H", "KH", "AH", "2D", "ZZ"};
  ExpectError(RunJson(c), 4);
}

TEST(CaseRunnerTest, DeeplyNestedInputDoesNotCrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  ExpectError(RunText(deep), -1);
  json c = KingOfHeartsCase();
  json nested = json::array();
  for (int i = 0; i < 1000; ++i) nested = json::array({nested});
  c["hands"] = nested;
  ExpectError(RunJson(c), -1);
}

// A complete deal case of a game: `contract` played by the autopilot.
json PlayedDeal(const Rules& rules, Contract contract, int owner, const Hands& hands) {
  json plays = json::array();
  Deal deal(rules, contract, owner, hands, {});
  while (!deal.over()) {
    const Card card = AutopilotCard(deal);
    plays.push_back(CardName(card));
    deal.Play(card);
  }
  json text = json::array();
  for (CardSet h : hands) text.push_back(CardsText(h));
  return {{"hands", text}, {"contract", ContractName(contract)}, {"plays", plays}};
}

// A one-kingdom complex-partner game: Complex, then Trix.
json ComplexGame() {
  const Rules rules = MakeRules(Team::kPartner, Format::kComplex);
  const Hands first = ShuffledHands(5, 0);
  const int owner = HolderOf(first, kSevenOfHearts);
  return {{"id", "g"},
          {"kind", "game"},
          {"variant", {{"team", "partner"}, {"format", "complex"}}},
          {"rules", {{"kingdoms", 1}}},
          {"stakes", {100, 0, 300, 0}},
          {"deals",
           {PlayedDeal(rules, Contract::kComplex, owner, first),
            PlayedDeal(rules, Contract::kTrix, owner, ShuffledHands(5, 1))}}};
}

TEST(CaseRunnerTest, ValidGameCase) {
  const json r = RunJson(ComplexGame());
  ASSERT_EQ(r["ok"], true) << r.dump();
  ASSERT_EQ(r["deal_scores"].size(), 2u);
  const json& totals = r["totals"];
  int sum = 0;
  for (const json& t : totals) sum += t.get<int>();
  EXPECT_EQ(sum, 0);
  EXPECT_EQ(r["team_totals"][0].get<int>(), totals[0].get<int>() + totals[2].get<int>());
  EXPECT_EQ(r["payouts"].size(), 4u);
  EXPECT_FALSE(r.contains("places"));
}

// The cases compare the rules' exact split: an uneven one prints as a fraction, not
// as the whole units a table pays.
TEST(CaseRunnerTest, GamePayoutsAreTheExactSplit) {
  json c = ComplexGame();
  c["stakes"] = {100, 0, 1, 0};
  const json r = RunJson(c);
  ASSERT_EQ(r["ok"], true) << r.dump();
  ASSERT_EQ(r["winner_team"], 0) << r.dump();
  EXPECT_EQ(r["payouts"], json({50.5, 0.0, 50.5, 0.0}));
  // And what a table pays: the unit left over goes to the lower seat of the tie.
  EXPECT_EQ(r["payouts_paid"], json({51, 0, 50, 0}));
}

TEST(CaseRunnerTest, GameWithTheWrongNumberOfDeals) {
  json c = ComplexGame();
  c["deals"].push_back(c["deals"][1]);
  ExpectError(RunJson(c), -1);
  c["deals"] = json::array();
  ExpectError(RunJson(c), -1);
  c["deals"] = "none";
  ExpectError(RunJson(c), -1);
  c = ComplexGame();
  c["rules"]["kingdoms"] = 2;
  ExpectError(RunJson(c), -1);
}

TEST(CaseRunnerTest, GameSetupErrors) {
  json c = ComplexGame();
  c["stakes"] = {100, 0, 300};
  ExpectError(RunJson(c), -1);
  c = ComplexGame();
  c["stakes"] = {100, -1, 300, 0};
  ExpectError(RunJson(c), -1);
  c["stakes"] = {100, kMaxStake + 1, 300, 0};
  ExpectError(RunJson(c), -1);
  c = ComplexGame();
  c["deals"][1] = "deal";
  ExpectError(RunJson(c), -1);
  c = ComplexGame();
  c["deals"][1]["hands"][0] = "2C";
  ExpectError(RunJson(c), -1);
}

TEST(CaseRunnerTest, GameDealNamingAPlayedContract) {
  json c = ComplexGame();
  c["deals"][1]["contract"] = "complex";  // Trix is the only contract left
  ExpectError(RunJson(c), -1);

  const Rules classic = MakeRules(Team::kSolo, Format::kClassic);
  const Hands first = ShuffledHands(8, 0);
  const int owner = HolderOf(first, kSevenOfHearts);
  json deals = json::array();
  deals.push_back(PlayedDeal(classic, Contract::kQueens, owner, first));
  deals.push_back(PlayedDeal(classic, Contract::kQueens, owner, ShuffledHands(8, 1)));
  for (int i = 2; i < 5; ++i) deals.push_back(json::object());
  json game = {{"id", "q"},
               {"kind", "game"},
               {"variant", {{"team", "solo"}, {"format", "classic"}}},
               {"rules", {{"kingdoms", 1}}},
               {"deals", deals}};
  ExpectError(RunJson(game), -1);
}

TEST(CaseRunnerTest, GamePlayErrorsCountAcrossDeals) {
  json c = ComplexGame();
  const int first_plays = static_cast<int>(c["deals"][0]["plays"].size());
  ASSERT_EQ(first_plays, 52);
  json& plays = c["deals"][1]["plays"];
  plays[3] = "ZZ";
  ExpectError(RunJson(c), first_plays + 3);
  plays.erase(plays.begin() + 3, plays.end());  // the Trix deal stops early
  ExpectError(RunJson(c), first_plays + 3);
}

}  // namespace
}  // namespace trix::engine
