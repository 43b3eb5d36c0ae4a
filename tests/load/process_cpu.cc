#include "tests/load/process_cpu.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace trix::load {
namespace {

struct ProcStat {
  int ppid = 0;
  double cpu_ticks = 0;  // utime + stime
  int threads = 0;
};

// /proc/<pid>/stat: "pid (comm) state ppid ... utime stime ...". The command name
// may hold spaces and parentheses, so fields are counted after the last ')'.
bool ReadStat(int pid, ProcStat* out) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::vector<std::string> f = absl::StrSplit(line.substr(close + 2), ' ');
  // f[0] is field 3 (state): field n is f[n - 3].
  if (f.size() < 18) return false;
  double utime = 0, stime = 0;
  if (!absl::SimpleAtoi(f[1], &out->ppid) || !absl::SimpleAtod(f[11], &utime) ||
      !absl::SimpleAtod(f[12], &stime) || !absl::SimpleAtoi(f[17], &out->threads)) {
    return false;
  }
  out->cpu_ticks = utime + stime;
  return true;
}

std::map<int, ProcStat> AllProcesses() {
  std::map<int, ProcStat> all;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return all;
  while (dirent* entry = readdir(dir)) {
    int pid = 0;
    ProcStat stat;
    if (absl::SimpleAtoi(entry->d_name, &pid) && ReadStat(pid, &stat)) all[pid] = stat;
  }
  closedir(dir);
  return all;
}

// Whether `pid` is `root` or descends from it.
bool InTree(const std::map<int, ProcStat>& all, int pid, int root) {
  for (int guard = 0; guard < 64 && pid > 1; ++guard) {
    if (pid == root) return true;
    auto it = all.find(pid);
    if (it == all.end()) return false;
    pid = it->second.ppid;
  }
  return pid == root;
}

}  // namespace

int64_t ResidentKiB(int pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  for (std::string line; std::getline(status, line);) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "VmRSS:")) continue;
    rest = absl::StripAsciiWhitespace(rest);
    absl::ConsumeSuffix(&rest, " kB");
    int64_t kib = 0;
    return absl::SimpleAtoi(rest, &kib) ? kib : 0;
  }
  return 0;
}

absl::StatusOr<std::vector<ProcessTree>> ParseProcessTrees(const std::string& text) {
  std::vector<ProcessTree> trees;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, '=');
    ProcessTree tree{kv.first, 0};
    if (tree.name.empty() || !absl::SimpleAtoi(kv.second, &tree.pid) || tree.pid <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--cpu_pids wants name=pid,name=pid; not \"", item, "\""));
    }
    trees.push_back(tree);
  }
  return trees;
}

CpuProbe::CpuProbe(std::vector<ProcessTree> trees) : trees_(std::move(trees)) {
  trees_.push_back({"table-load", static_cast<int>(getpid())});
}

CpuProbe::Sample CpuProbe::Take() const {
  Sample sample;
  sample.when = Clock::now();
  const std::map<int, ProcStat> all = AllProcesses();
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  for (const ProcessTree& tree : trees_) {
    double ticks = 0;
    int threads = 0, processes = 0;
    for (const auto& [pid, stat] : all) {
      if (!InTree(all, pid, tree.pid)) continue;
      ticks += stat.cpu_ticks;
      threads += stat.threads;
      ++processes;
    }
    sample.cpu_seconds.push_back(ticks / hz);
    sample.threads.push_back(threads);
    sample.processes.push_back(processes);
  }
  std::ifstream in("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
         steal = 0;
  in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  sample.machine_busy = user + nice + system + irq + softirq + steal;
  sample.machine_total = sample.machine_busy + idle + iowait;
  return sample;
}

std::vector<CpuShare> CpuProbe::Shares(const Sample& from, const Sample& to) const {
  std::vector<CpuShare> shares;
  const double wall = std::chrono::duration<double>(to.when - from.when).count();
  if (wall <= 0) return shares;
  for (size_t i = 0; i < trees_.size(); ++i) {
    shares.push_back({trees_[i].name, (to.cpu_seconds[i] - from.cpu_seconds[i]) / wall,
                      to.threads[i], to.processes[i]});
  }
  const double total = to.machine_total - from.machine_total;
  const double cores = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  const double busy =
      total > 0 ? (to.machine_busy - from.machine_busy) / total * cores : 0;
  // What the machine did besides the trees: other programs (a build running
  // alongside spoils the measurement) and kernel work no process is charged for.
  double others = busy;
  for (const CpuShare& share : shares) others -= share.cores;
  shares.push_back({"other", others, 0, 0});
  shares.push_back({"machine", busy, 0, 0});
  return shares;
}

}  // namespace trix::load
