// Where the machine's CPU goes during a load run: the CPU time of named process
// trees (the table service; PostgreSQL's postmaster with all its backends) and of
// the load tool itself, read from /proc at the start and the end of the
// measurement window, and the whole machine's busy share from /proc/stat. On a
// 2-core machine the three processes compete for the same cores, so the split is
// as much a result as the throughput.
//
//   CpuProbe probe({{"table-service", service_pid}, {"postgres", postmaster_pid}});
//   CpuProbe::Sample a = probe.Take();  ...  CpuProbe::Sample b = probe.Take();
//   std::vector<CpuShare> shares = CpuProbe::Shares(a, b);  // 1.0 = one core
#ifndef TRIX_TESTS_LOAD_PROCESS_CPU_H_
#define TRIX_TESTS_LOAD_PROCESS_CPU_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/load/load_context.h"

namespace trix::load {

struct ProcessTree {
  std::string name;
  int pid = 0;  // the tree's root; its descendants count too
};

struct CpuShare {
  std::string name;
  double cores = 0;  // CPU seconds per wall second over the window
  int threads = 0;   // at the end of the window, summed over the tree
  int processes = 0;
};

// The resident memory of process `pid` in KiB (VmRSS in /proc/PID/status); 0 when
// it cannot be read.
int64_t ResidentKiB(int pid);

// "table-service=1234,postgres=987" -> trees; an empty text is no tree.
absl::StatusOr<std::vector<ProcessTree>> ParseProcessTrees(const std::string& text);

class CpuProbe {
 public:
  // The load tool itself is added as "table-load".
  explicit CpuProbe(std::vector<ProcessTree> trees);

  struct Sample {
    Clock::time_point when;
    std::vector<double> cpu_seconds;  // per tree
    std::vector<int> threads;
    std::vector<int> processes;
    double machine_busy = 0;  // clock ticks, all cores
    double machine_total = 0;
  };
  Sample Take() const;

  // Per tree, then "other" (the machine's busy cores not in any tree), then
  // "machine" (busy cores of the whole machine).
  std::vector<CpuShare> Shares(const Sample& from, const Sample& to) const;

 private:
  std::vector<ProcessTree> trees_;
};

}  // namespace trix::load

#endif  // TRIX_TESTS_LOAD_PROCESS_CPU_H_
