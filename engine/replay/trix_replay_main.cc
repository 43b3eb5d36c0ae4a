// trix-replay: reads rule cases (one JSON object a line) on standard input and
// writes one result line per case on standard output. See
// shared/conformance/README.md for the format.
#include <iostream>
#include <string>

#include "engine/replay/case_runner.h"

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::cout << trix::engine::RunCaseLine(line) << '\n';
  }
  return 0;
}
