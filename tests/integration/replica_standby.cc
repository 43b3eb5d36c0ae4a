#include "tests/integration/replica_standby.h"

#include <stdlib.h>

#include <cstdio>
#include <pqxx/pqxx>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "services/common/testing/build_paths.h"

namespace trix {
CommandRun RunCommand(const std::string& command) {
  CommandRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char chunk[4096];
  while (size_t n = std::fread(chunk, 1, sizeof(chunk), pipe)) run.output.append(chunk, n);
  run.status = pclose(pipe);
  return run;
}

namespace {

// Runs a shell command; its first line of output, or "" on failure.
std::string RunLine(const std::string& command) {
  const CommandRun run = RunCommand(command);
  if (run.status != 0) return "";
  return run.output.substr(0, run.output.find('\n'));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Standby>> Standby::Start(const pg::TestDatabase& db) {
  char dir[] = "/tmp/standby-XXXXXX";
  if (mkdtemp(dir) == nullptr) return absl::InternalError("cannot make a folder in /tmp");
  const std::string url = RunLine(
      absl::StrCat(SourcePath("scripts/pg.sh"), " standby ", dir, " '", db.url(), "'"));
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
  RunLine(absl::StrCat(SourcePath("scripts/pg.sh"), " stop ", dir_, " && rm -rf ", dir_,
                       " && echo stopped"));
  dir_.clear();
}

}  // namespace trix
