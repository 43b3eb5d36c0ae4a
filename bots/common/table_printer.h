// TablePrinter: a table's public stream (Watch) as lines a person can follow: the
// deal and its owner, the contract, revealed doubles, one line per trick (who
// played what, who took it and which penalty cards), one line per Trix card with
// the layout row by row, each deal's scores and the game's result.
//
// It keeps only the little state the lines need (names, the contract, the trick
// so far, the layout, the last event's number) and reads nothing but the public
// events, so it can print any table a spectator may watch.
//
//   TablePrinter printer;
//   while (reader->Read(&update))
//     for (const std::string& line : printer.Lines(update)) std::cout << line << "\n";
//   // resume a broken stream with after_seq = printer.seq() unless printer.over()
#ifndef TRIX_BOTS_COMMON_TABLE_PRINTER_H_
#define TRIX_BOTS_COMMON_TABLE_PRINTER_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/cards.h"
#include "engine/rules.h"
#include "trix/v1/table.pb.h"

namespace trix::bots {

namespace v1 = ::trix::v1;

class TablePrinter {
 public:
  // The lines `update` adds (its snapshot, then each of its events); often none (a
  // card joins its trick's line). An event it already printed is skipped.
  std::vector<std::string> Lines(const v1::TableUpdate& update);
  // The last event taken in (or the snapshot's), and whether the game is over.
  uint64_t seq() const { return seq_; }
  bool over() const { return over_; }

  // "C 9-Q  D J  H -  S 5-A": each suit's row on the Trix layout.
  static std::string LayoutText(engine::CardSet layout);
  // "King of Hearts", "Queens", ...
  static std::string ContractTitle(v1::Contract contract);
  // The result block: totals, places or teams and winner, payouts.
  static std::vector<std::string> ResultLines(const v1::GameResult& result,
                                              const std::array<std::string, 4>& names,
                                              bool partner);

 private:
  std::string Name(int seat) const;
  std::vector<std::string> SnapshotLines(const v1::TableView& view);
  std::vector<std::string> EventLines(const v1::Event& event);
  std::vector<std::string> DealOpeningLines(const v1::Event& event);
  void StartDeal();
  std::vector<std::string> CardPlayedLines(const v1::Event& event);
  std::string TrickLine(const v1::TrickTaken& taken);
  std::string SeatOutLine(const v1::SeatOut& out);
  std::vector<std::string> DealEndedLines(const v1::DealEnded& ended);
  std::vector<std::string> GameOverLines(const v1::GameResult& result) const;
  std::string DealHeader(int deal, int kingdom, int owner) const;
  std::string ScoresText(const std::array<int, 4>& scores) const;

  std::array<std::string, 4> names_{"seat 0", "seat 1", "seat 2", "seat 3"};
  bool partner_ = false;
  int deals_per_game_ = 0;
  v1::Contract contract_ = v1::CONTRACT_UNSPECIFIED;
  int tricks_ = 0;
  std::vector<std::pair<int, std::string>> trick_;  // in play order
  engine::CardSet layout_ = 0;
  std::vector<int> passes_;  // Trix passes since the last card
  int seats_out_ = 0;
  bool doubles_shown_ = false;
  std::array<int, 4> totals_{};
  uint64_t seq_ = 0;
  bool over_ = false;
};

}  // namespace trix::bots

#endif  // TRIX_BOTS_COMMON_TABLE_PRINTER_H_
