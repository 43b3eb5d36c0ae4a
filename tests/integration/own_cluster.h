// A PostgreSQL server of the test's own (scripts/pg.sh, on a socket in a folder of
// its own), for the tests that stop, crash and start their database: a shared
// server cannot be taken away from the tests beside them. Removed at the end.
//
//   OwnCluster cluster("outage");
//   std::string url = cluster.Start();  // "" when it could not start
//   cluster.Crash();                     // pg_ctl -m immediate: no checkpoint
//   cluster.Start();                     // the same URL, after crash recovery
#ifndef TRIX_TESTS_INTEGRATION_OWN_CLUSTER_H_
#define TRIX_TESTS_INTEGRATION_OWN_CLUSTER_H_

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "services/common/testing/build_paths.h"

namespace trix::table {

class OwnCluster {
 public:
  explicit OwnCluster(const std::string& name = "outage") {
    std::string pattern = "/tmp/mamlaka-" + name + "-XXXXXX";
    dir_ = mkdtemp(pattern.data());
    chmod(dir_.c_str(), 0755);
  }
  ~OwnCluster() {
    Stop();
    std::system(absl::StrCat("rm -rf ", dir_).c_str());
  }
  // Starts (the first time: creates) the server; returns its URL or "".
  std::string Start() {
    const std::string command = absl::StrCat(
        "PG_SOCKET_ONLY=1 ", SourcePath("scripts/pg.sh"), " start ", dir_, " 5432");
    FILE* out = popen(command.c_str(), "r");
    if (out == nullptr) return "";
    char line[512] = {0};
    std::string url;
    if (fgets(line, sizeof(line), out) != nullptr) url = line;
    if (pclose(out) != 0) return "";
    return std::string(absl::StripTrailingAsciiWhitespace(url));
  }
  void Stop() {
    std::system(absl::StrCat(SourcePath("scripts/pg.sh"), " stop ", dir_).c_str());
  }
  // Stops the server as a crash would (pg_ctl -m immediate), as the "postgres"
  // user when we are root (pg.sh runs it as that user then); true when it stopped.
  bool Crash() {
    const std::string pg_ctl = absl::StrCat("/usr/lib/postgresql/15/bin/pg_ctl -D ", dir_,
                                            "/data -m immediate -w stop >/dev/null");
    return std::system(
               (getuid() == 0 ? "runuser -u postgres -- " + pg_ctl : pg_ctl).c_str()) ==
           0;
  }

 private:
  std::string dir_;
};

}  // namespace trix::table

#endif  // TRIX_TESTS_INTEGRATION_OWN_CLUSTER_H_
