// trix-rate: rates OpenSkill cases read as JSON Lines on stdin, one result line per
// case on stdout (the format is in rate_case.h). Blank lines are skipped.
//
//   echo '{"id":"a","teams":[[{}],[{}]],"ranks":[1,2]}' | build/bin/trix-rate
#include <iostream>
#include <string>

#include "services/ratings/rate_case.h"

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::cout << trix::ratings::RateCaseLine(line) << '\n';
  }
  std::cout.flush();
  return 0;
}
