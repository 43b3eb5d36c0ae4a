// trix-replay: reads rule cases (one JSON object a line) on standard input and
// writes one result line per case on standard output. See
// tests/conformance/README.md for the format. With --verify-deals it reads game
// records instead and checks their deals (docs/deals.md).
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>

#include "engine/replay/case_runner.h"
#include "engine/replay/deal_check.h"

constexpr char kUsage[] =
    "usage: trix-replay < cases.jsonl > results.jsonl\n"
    "       trix-replay --verify-deals < record.json\n"
    "Reads rule cases (one JSON object a line) on standard input and writes one result\n"
    "line per case (format: tests/conformance/README.md). Game payouts are the rules'\n"
    "exact split of the pot.\n"
    "--verify-deals: reads game records (trix.v1.GameRecord as JSON: one document, or\n"
    "one a line) and checks each game's revealed deal seed against the commitment it\n"
    "showed before the first deal, and every card the record shows in a hand against\n"
    "the hands that seed deals (docs/deals.md). One result line per record; exits 1\n"
    "unless every record verifies.\n";

namespace {

int VerifyDeals() {
  const std::string input(std::istreambuf_iterator<char>(std::cin), {});
  std::vector<std::string> records;
  if (!nlohmann::json::parse(input, nullptr, false).is_discarded()) {
    records.push_back(input);  // one document, however it is laid out
  } else {
    size_t start = 0;
    while (start < input.size()) {
      size_t end = input.find('\n', start);
      if (end == std::string::npos) end = input.size();
      const std::string line = input.substr(start, end - start);
      if (line.find_first_not_of(" \t\r") != std::string::npos) records.push_back(line);
      start = end + 1;
    }
  }
  bool all = !records.empty();
  for (const std::string& record : records) {
    const nlohmann::json result = trix::engine::CheckDealsLine(record);
    all = all && result["verified"].get<bool>();
    std::cout << result.dump() << '\n';
  }
  if (records.empty()) std::cerr << "trix-replay: no game record on standard input\n";
  return all ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--verify-deals") == 0) return VerifyDeals();
  if (argc > 1) {
    const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
    (help ? std::cout : std::cerr) << kUsage;
    return help ? 0 : 2;
  }
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::cout << trix::engine::RunCaseLine(line) << '\n';
  }
  return 0;
}
