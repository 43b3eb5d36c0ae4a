// A replicated PostgreSQL of the test's own: scripts/pg-ha.sh's three Patroni-managed
// servers (one primary, two standbys; synchronous or asynchronous) and its etcd, in
// a folder of its own, stopped and removed at the end. The faults a test strikes
// its primary with, and what the cluster says of itself.
//
//   PgHaCluster cluster("pgha");
//   std::string url = cluster.Start("sync");  // names all three servers; "" on failure
//   std::string node = cluster.Primary();     // "pg0"
//   cluster.KillPostgres(node);               // its postmaster, SIGKILL
//   cluster.RunningMembers();                 // 3 once it is whole again
#ifndef TRIX_TESTS_FAULT_PG_HA_CLUSTER_H_
#define TRIX_TESTS_FAULT_PG_HA_CLUSTER_H_

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "services/common/testing/build_paths.h"

namespace trix::fault {

class PgHaCluster {
 public:
  explicit PgHaCluster(const std::string& name) {
    std::string pattern = "/tmp/mamlaka-" + name + "-XXXXXX";
    dir_ = mkdtemp(pattern.data());
    chmod(dir_.c_str(), 0755);
  }
  ~PgHaCluster() {
    Command("stop", "");
    if (getenv("KEEP_LOGS") == nullptr)
      std::system(absl::StrCat("rm -rf ", dir_).c_str());
  }
  PgHaCluster(const PgHaCluster&) = delete;
  PgHaCluster& operator=(const PgHaCluster&) = delete;

  // Makes and starts the cluster (`mode`: "sync" or "async"); its URL, or "".
  std::string Start(const std::string& mode) {
    std::string url;
    return Command("start", mode, &url) ? url : "";
  }
  // The node that is primary now ("pg0" to "pg2"), or "" when none answers so.
  std::string Primary() {
    std::string node;
    return Command("primary", "", &node) ? node : "";
  }
  // SIGKILL to the node's postmaster.
  bool KillPostgres(const std::string& node) {
    std::string pid;
    int n = 0;
    return Command("pid", node + " postgres", &pid) && absl::SimpleAtoi(pid, &n) &&
           n > 0 && kill(n, SIGKILL) == 0;
  }
  // SIGSTOP (SIGCONT) to the whole node: its Patroni, postmaster and children.
  bool Freeze(const std::string& node) { return Command("freeze", node); }
  bool Thaw(const std::string& node) { return Command("thaw", node); }
  // An operator's planned switchover (patronictl switchover --force); its output
  // in `out_path`.
  bool Switchover(const std::string& out_path) {
    return Command("ctl", absl::StrCat("switchover --force >", out_path, " 2>&1"));
  }
  // The members Patroni lists as running or streaming.
  int RunningMembers() {
    std::string out;
    if (!Command("ctl", "list -f json", &out, /*all_lines=*/true)) return 0;
    const nlohmann::json members = nlohmann::json::parse(out, nullptr, false);
    if (!members.is_array()) return 0;
    int running = 0;
    for (const nlohmann::json& m : members) {
      const std::string state = m.value("State", "");
      running += state == "running" || state == "streaming";
    }
    return running;
  }
  // patronictl list, as a table to print.
  std::string List() {
    std::string out;
    Command("list", "", &out, /*all_lines=*/true);
    return out;
  }

 private:
  // Runs `scripts/pg-ha.sh VERB DIR ARGS` on the folder (its stderr to ours); true
  // when it exits 0. `out`: its output's last line (or all of it), trimmed.
  bool Command(const std::string& verb, const std::string& args,
               std::string* out = nullptr, bool all_lines = false) {
    const std::string command =
        absl::StrCat(SourcePath("scripts/pg-ha.sh"), " ", verb, " ", dir_, " ", args);
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return false;
    std::string text, last;
    char line[4096];
    while (fgets(line, sizeof(line), pipe) != nullptr) {
      text += line;
      if (line[0] != '\n') last = line;
    }
    const bool ok = pclose(pipe) == 0;
    if (out != nullptr) {
      *out = std::string(absl::StripAsciiWhitespace(all_lines ? text : last));
    }
    return ok;
  }

  std::string dir_;
};

}  // namespace trix::fault

#endif  // TRIX_TESTS_FAULT_PG_HA_CLUSTER_H_
