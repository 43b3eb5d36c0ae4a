// trix-conformance-compare EXPECTED ACTUAL: checks trix-replay's result lines
// against the expected ones (README.md). A result matches when every field of its
// expected line is present with the same value; numbers match within 0.005 (the
// exact split of a pot can be a fraction), lists element by element. For a case
// that must fail, only `ok` and `error_index` are compared. Prints one line per
// mismatch and "N passed, N failed"; exits 1 on any failure, 2 on bad input.
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "nlohmann/json.hpp"

namespace {

using nlohmann::json;

constexpr double kTolerance = 0.005;
constexpr int kMismatchesShown = 20;

bool Same(const json& want, const json& got) {
  if (want.is_number() && got.is_number() && !want.is_boolean() && !got.is_boolean()) {
    return std::fabs(want.get<double>() - got.get<double>()) <= kTolerance;
  }
  if (want.is_array() && got.is_array()) {
    if (want.size() != got.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (!Same(want[i], got[i])) return false;
    }
    return true;
  }
  return want == got;
}

// The fields of `want` that `got` lacks or differs in.
std::vector<std::string> Mismatches(const json& want, const json* got) {
  std::vector<std::string> keys;
  if (want.value("ok", false)) {
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (it.key() != "error") keys.push_back(it.key());
    }
  } else {
    keys = {"ok", "error_index"};
  }
  std::vector<std::string> bad;
  for (const std::string& key : keys) {
    if (got == nullptr || !got->contains(key) || !want.contains(key) ||
        !Same(want[key], (*got)[key])) {
      bad.push_back(key);
    }
  }
  return bad;
}

bool ReadLines(const char* path, std::vector<json>& out) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "cannot read " << path << "\n";
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      std::cout << "unparsable line in " << path << ": " << line.substr(0, 200) << "\n";
      j = json::object();
    }
    out.push_back(std::move(j));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::strcmp(argv[1], "--help") == 0) {
    const bool help = argc == 2 && std::strcmp(argv[1], "--help") == 0;
    (help ? std::cout : std::cerr)
        << "usage: trix-conformance-compare EXPECTED.jsonl ACTUAL.jsonl\n"
           "Compares trix-replay's results with the expected ones (tests/conformance).\n";
    return help ? 0 : 2;
  }
  std::vector<json> expected, actual;
  if (!ReadLines(argv[1], expected) || !ReadLines(argv[2], actual)) return 2;
  absl::flat_hash_map<std::string, const json*> by_id;
  for (const json& a : actual) {
    if (a.contains("id")) by_id[a["id"].dump()] = &a;
  }
  int passed = 0, failed = 0;
  for (const json& want : expected) {
    const std::string id = want.contains("id") ? want["id"].dump() : "null";
    auto it = by_id.find(id);
    const json* got = it == by_id.end() ? nullptr : it->second;
    const std::vector<std::string> bad = Mismatches(want, got);
    if (bad.empty()) {
      ++passed;
      continue;
    }
    if (++failed > kMismatchesShown) continue;
    json w = json::object(), g = json::object();
    for (const std::string& key : bad) {
      w[key] = want.contains(key) ? want[key] : json();
      g[key] = got != nullptr && got->contains(key) ? (*got)[key] : json();
    }
    std::cout << "FAIL " << id << ": want " << w.dump() << " got " << g.dump() << "\n";
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}
