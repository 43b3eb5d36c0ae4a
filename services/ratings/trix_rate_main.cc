// trix-rate: rates OpenSkill cases read as JSON Lines on stdin, one result line per
// case on stdout (the format is in rate_case.h). Blank lines are skipped.
//
//   echo '{"id":"a","teams":[[{}],[{}]],"ranks":[1,2]}' | build/bin/trix-rate
#include <cstring>
#include <iostream>
#include <string>

#include "services/ratings/rate_case.h"

int main(int argc, char** argv) {
  if (argc > 1) {
    const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
    (help ? std::cout : std::cerr)
        << "usage: trix-rate < cases.jsonl > results.jsonl\n"
           "Rates OpenSkill cases (JSON Lines, services/ratings/rate_case.h), one result\n"
           "line per case.\n";
    return help ? 0 : 2;
  }
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::cout << trix::ratings::RateCaseLine(line) << '\n';
  }
  std::cout.flush();
  return 0;
}
