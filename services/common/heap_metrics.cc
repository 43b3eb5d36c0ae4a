#include "services/common/heap_metrics.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "gperftools/malloc_extension.h"
#include "prometheus/metric_family.h"

namespace trix::service {
namespace {

double Property(const char* name) {
  size_t value = 0;
  return MallocExtension::instance()->GetNumericProperty(name, &value)
             ? static_cast<double>(value)
             : 0;
}

// Resident pages x page size; 0 when /proc is not there.
double ResidentBytes() {
  unsigned long size = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  const bool read = std::fscanf(f, "%lu %lu", &size, &resident) == 2;
  std::fclose(f);
  return read ? static_cast<double>(resident) * sysconf(_SC_PAGESIZE) : 0;
}

prometheus::MetricFamily Gauge(std::string name, std::string help,
                               std::vector<std::pair<std::string, double>> values,
                               const std::string& label = "") {
  prometheus::MetricFamily family{
      std::move(name), std::move(help), prometheus::MetricType::Gauge, {}};
  for (auto& [label_value, value] : values) {
    prometheus::ClientMetric m;
    if (!label.empty()) m.label.push_back({label, label_value});
    m.gauge.value = value;
    family.metric.push_back(std::move(m));
  }
  return family;
}

class Heap : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    return {
        Gauge("process_resident_memory_bytes", "Resident memory size in bytes",
              {{"", ResidentBytes()}}),
        Gauge("trix_heap_allocated_bytes",
              "Bytes the program has allocated and not freed (tcmalloc)",
              {{"", Property("generic.current_allocated_bytes")}}),
        Gauge("trix_heap_free_bytes",
              "Bytes free in tcmalloc's caches, still mapped (counted in the RSS)",
              {{"pageheap", Property("tcmalloc.pageheap_free_bytes")},
               {"central", Property("tcmalloc.central_cache_free_bytes")},
               {"transfer", Property("tcmalloc.transfer_cache_free_bytes")},
               {"thread", Property("tcmalloc.thread_cache_free_bytes")}},
              "cache"),
        Gauge("trix_heap_unmapped_bytes",
              "Bytes tcmalloc freed and returned to the system",
              {{"", Property("tcmalloc.pageheap_unmapped_bytes")}}),
    };
  }
};

}  // namespace

std::shared_ptr<prometheus::Collectable> HeapMetrics() {
  return std::make_shared<Heap>();
}

size_t ReleaseFreeHeap(size_t keep_bytes) {
  const auto free_bytes = static_cast<size_t>(Property("tcmalloc.pageheap_free_bytes"));
  if (free_bytes <= keep_bytes) return 0;
  const auto unmapped = static_cast<size_t>(Property("tcmalloc.pageheap_unmapped_bytes"));
  MallocExtension::instance()->ReleaseToSystem(free_bytes - keep_bytes);
  const auto now_unmapped = static_cast<size_t>(Property("tcmalloc.pageheap_unmapped_bytes"));
  return now_unmapped > unmapped ? now_unmapped - unmapped : 0;
}

bool LimitThreadCaches(size_t bytes) {
  return MallocExtension::instance()->SetNumericProperty(
      "tcmalloc.max_total_thread_cache_bytes", bytes);
}

HeapReleaser::HeapReleaser(absl::Duration every, size_t keep_bytes,
                           size_t thread_cache_bytes)
    : thread_([this, every, keep_bytes] {
        while (!stop_.WaitForNotificationWithTimeout(every)) ReleaseFreeHeap(keep_bytes);
      }) {
  LimitThreadCaches(thread_cache_bytes);
}

HeapReleaser::~HeapReleaser() {
  stop_.Notify();
  thread_.join();
}

}  // namespace trix::service
