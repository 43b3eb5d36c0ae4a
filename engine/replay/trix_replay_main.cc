// trix-replay: reads rule cases (one JSON object a line) on standard input and
// writes one result line per case on standard output. See
// tests/conformance/README.md for the format.
#include <cstring>
#include <iostream>
#include <string>

#include "engine/replay/case_runner.h"

constexpr char kUsage[] =
    "usage: trix-replay < cases.jsonl > results.jsonl\n"
    "Reads rule cases (one JSON object a line) on standard input and writes one result\n"
    "line per case (format: tests/conformance/README.md). Game payouts are the rules'\n"
    "exact split of the pot.\n";

int main(int argc, char** argv) {
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
