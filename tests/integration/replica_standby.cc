#include "tests/integration/replica_standby.h"

#include <stdlib.h>

#include <cstdio>
#include <pqxx/pqxx>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace trix {
namespace {

// Runs a shell command; its first line of output, or "" on failure.
std::string RunLine(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  char line[1024] = {};
  const bool read = std::fgets(line, sizeof(line), pipe) != nullptr;
  if (pclose(pipe) != 0 || !read) return "";
  std::string out = line;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Standby>> Standby::Start(const storage::TestDatabase& db) {
  char dir[] = "/tmp/standby-XXXXXX";
  if (mkdtemp(dir) == nullptr) return absl::InternalError("cannot make a folder in /tmp");
  const std::string url =
      RunLine(absl::StrCat(PG_SCRIPT, " standby ", dir, " '", db.url(), "'"));
  if (url.empty()) return absl::UnavailableError(absl::StrCat("no standby of ", db.url()));
  // pg.sh names the database "mamlaka"; the test's has its own name.
  return std::unique_ptr<Standby>(new Standby(
      dir, absl::StrReplaceAll(url, {{"/mamlaka?", "/" + db.name() + "?"}})));
}

void Standby::Run(const std::string& sql) const {
  pqxx::connection c(url_);
  pqxx::nontransaction(c).exec(sql);
}

void Standby::Stop() {
  if (dir_.empty()) return;
  RunLine(absl::StrCat(PG_SCRIPT, " stop ", dir_, " && rm -rf ", dir_, " && echo stopped"));
  dir_.clear();
}

}  // namespace trix
