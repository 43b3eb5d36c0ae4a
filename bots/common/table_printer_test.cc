#include "bots/common/table_printer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "bots/sdk/testing/local_table.h"
#include "bots/strategies/random_bot.h"
#include "engine/observation.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trix::bots {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

// The whole public stream of a finished game, as a spectator gets it.
std::vector<std::string> PrintGame(const std::string& mode) {
  LocalTable table({.mode = mode, .seed = 4, .kingdoms = 1});
  v1::TableUpdate snapshot;
  *snapshot.mutable_snapshot() = table.View(engine::kSpectator);
  RandomBot b0(1), b1(2), b2(3), b3(4);
  EXPECT_TRUE(table.PlayToEnd({&b0, &b1, &b2, &b3}).ok());
  TablePrinter printer;
  std::vector<std::string> lines = printer.Lines(snapshot);
  // The rest as a resumed Watch stream brings it, in updates of many events.
  const std::vector<v1::TableUpdate> updates =
      table.table().StreamStart(engine::kSpectator, snapshot.snapshot().seq()).value();
  for (const v1::TableUpdate& update : updates) {
    for (std::string& line : printer.Lines(update)) lines.push_back(line);
    // A repeat prints nothing again.
    EXPECT_TRUE(printer.Lines(update).empty());
  }
  EXPECT_TRUE(printer.over());
  EXPECT_EQ(printer.seq(), table.last_seq(engine::kSpectator));
  return lines;
}

bool Any(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& l : lines) {
    if (absl::StrContains(l, text)) return true;
  }
  return false;
}

TEST(TablePrinterTest, PrintsAClassicGameDealByDeal) {
  const std::vector<std::string> lines = PrintGame("classic-solo");
  const std::string all = absl::StrJoin(lines, "\n");
  for (int deal = 1; deal <= 5; ++deal) {
    EXPECT_THAT(all, HasSubstr("── deal " + std::to_string(deal) + "/5"));
  }
  EXPECT_TRUE(Any(lines, " picks Trix")) << all;
  EXPECT_TRUE(Any(lines, "   trick  1  ")) << all;
  EXPECT_TRUE(Any(lines, " is out 1st: +200")) << all;
  EXPECT_TRUE(Any(lines, "deal scores")) << all;
  EXPECT_THAT(lines, Contains("GAME OVER"));
  EXPECT_TRUE(Any(lines, "place 1")) << all;
}

TEST(TablePrinterTest, EveryTrickIsOneLineOfFourCards) {
  for (const std::string& line : PrintGame("complex-partner")) {
    if (!absl::StrContains(line, "   trick ")) continue;
    EXPECT_EQ(std::count(line.begin(), line.end(), '\xc2'), 3)  // three " · "
        << line;
    EXPECT_THAT(line, HasSubstr("→ "));
  }
}

TEST(TablePrinterTest, PartnerGamesEndWithTheTeams) {
  const std::vector<std::string> lines = PrintGame("complex-partner");
  EXPECT_TRUE(Any(lines, "teams: seats 0+2")) << absl::StrJoin(lines, "\n");
}

TEST(TablePrinterTest, LayoutRowsRunFromLowToHigh) {
  EXPECT_EQ(TablePrinter::LayoutText(0), "C -    D -    H -    S -  ");
  EXPECT_EQ(
      TablePrinter::LayoutText(engine::ParseCards("JC TC 9C JH QH KH AH JD").value()),
      "C 9-J  D J    H J-A  S -  ");
}

TEST(TablePrinterTest, ResultLinesNameADraw) {
  v1::GameResult result;
  for (int t : {100, -100, -100, 100}) result.add_totals(t);
  for (int p : {1, 1, 1, 1}) result.add_places(p);
  result.add_team_totals(0);
  result.add_team_totals(0);
  result.set_winner_team(-1);
  const std::vector<std::string> lines =
      TablePrinter::ResultLines(result, {"A", "B", "C", "D"}, /*partner=*/true);
  EXPECT_THAT(lines.back(), HasSubstr("a draw"));
  EXPECT_THAT(lines[0], HasSubstr("draw"));
}

TEST(TablePrinterTest, IgnoresPrivateAndUnknownUpdates) {
  TablePrinter printer;
  v1::TableUpdate update;
  update.mutable_prompt()->add_legal_cards("2C");
  EXPECT_TRUE(printer.Lines(update).empty());
  v1::TableUpdate odd;
  v1::Event* e = odd.add_events();
  e->set_seq(1);
  e->mutable_card_played()->set_card("not a card");
  // A malformed card in a trick contract is printed as it came, never a crash.
  EXPECT_NO_FATAL_FAILURE(printer.Lines(odd));
}

}  // namespace
}  // namespace trix::bots
