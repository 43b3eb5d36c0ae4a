// trix-rate's line format: results in input order, 17 digits, errors per line.
#include "services/ratings/rate_case.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace trix::ratings {
namespace {

TEST(RateCaseLine, RatesAFourPlayerGameWithTies) {
  const nlohmann::json out = nlohmann::json::parse(RateCaseLine(
      R"({"id":"t","teams":[[{"mu":10,"sigma":8}],[{"mu":5,"sigma":10}],[{"mu":0,"sigma":12}]],)"
      R"("ranks":[1,2,2]})"));
  EXPECT_EQ(out["id"], "t");
  EXPECT_NEAR(out["teams"][0][0]["mu"].get<double>(), 11.942996666741225, 1e-12);
  EXPECT_NEAR(out["teams"][2][0]["sigma"].get<double>(), 11.323641575516767, 1e-12);
}

TEST(RateCaseLine, PrintsSeventeenSignificantDigits) {
  EXPECT_EQ(RateCaseLine(R"({"id":1,"teams":[[{}],[{}]],"options":{"tau":0}})"),
            R"({"id":1,"teams":[[{"mu":27.635231383473648,"sigma":8.0655063163235479}],)"
            R"([{"mu":22.364768616526352,"sigma":8.0655063163235479}]]})");
}

TEST(RateCaseLine, ScoresAndOptions) {
  const nlohmann::json a = nlohmann::json::parse(RateCaseLine(
      R"({"id":"s","teams":[[{}],[{}]],"scores":[1,5],"options":{"tau":0.3,"limit_sigma":true,)"
      R"("mu":30,"sigma":5,"beta":3,"kappa":0.001}})"));
  const nlohmann::json b = nlohmann::json::parse(RateCaseLine(
      R"({"id":"s","teams":[[{"mu":30,"sigma":5}],[{"mu":30,"sigma":5}]],"ranks":[2,1],)"
      R"("options":{"tau":0.3,"limit_sigma":true,"beta":3,"kappa":0.001}})"));
  EXPECT_EQ(a, b);
  EXPECT_LT(a["teams"][0][0]["mu"].get<double>(), 30);
  EXPECT_LE(a["teams"][0][0]["sigma"].get<double>(), 5);
}

TEST(RateCaseLine, MalformedLinesGiveErrors) {
  for (const char* line :
       {"not json", "[1,2]", R"({"id":"x"})", R"({"id":"x","teams":[[]]})",
        R"({"id":"x","teams":[[{"mu":"a"}]]})", R"({"id":"x","teams":[[{}],[{}]],"ranks":[1]})",
        R"({"id":"x","teams":[[{}],[{}]],"ranks":[1,2],"scores":[1,2]})",
        R"({"id":"x","teams":[[{}],[{}]],"options":{"gamma":1}})",
        R"({"id":"x","teams":[[{"sigma":-1}],[{}]]})", R"({"id":"x","teams":7})",
        R"({"id":"x","teams":[[{}],[{}]],"options":{"tau":1e308,"kappa":1}})"}) {
    const std::string out = RateCaseLine(line);
    const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << out;
    EXPECT_TRUE(j.contains("error")) << line << " -> " << out;
  }
  EXPECT_EQ(nlohmann::json::parse(RateCaseLine(R"({"id":"x"})"))["id"], "x");
  EXPECT_TRUE(nlohmann::json::parse(RateCaseLine("nope"))["id"].is_null());
}

}  // namespace
}  // namespace trix::ratings
