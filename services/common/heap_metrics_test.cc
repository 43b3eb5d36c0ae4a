#include "services/common/heap_metrics.h"

#include <cstring>
#include <memory>
#include <string>

#include "gperftools/malloc_extension.h"
#include "gtest/gtest.h"
#include "prometheus/metric_family.h"

namespace trix::service {
namespace {

// The value of `name` (the sample labelled cache=`cache` when given).
double Sample(const std::string& name, const std::string& cache = "") {
  for (const prometheus::MetricFamily& family : HeapMetrics()->Collect()) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& m : family.metric) {
      if (cache.empty() || (!m.label.empty() && m.label[0].value == cache)) {
        return m.gauge.value;
      }
    }
  }
  ADD_FAILURE() << "no sample " << name << " " << cache;
  return -1;
}

TEST(HeapMetricsTest, AllocatedBytesFollowWhatTheProgramHolds) {
  constexpr size_t kBlock = 64 << 20;
  const double before = Sample("trix_heap_allocated_bytes");
  auto block = std::make_unique<char[]>(kBlock);
  std::memset(block.get(), 1, kBlock);  // resident, not just reserved
  const double holding = Sample("trix_heap_allocated_bytes");
  EXPECT_GE(holding - before, kBlock);
  EXPECT_GE(Sample("process_resident_memory_bytes"), kBlock);
  block.reset();
  EXPECT_LT(Sample("trix_heap_allocated_bytes"), before + kBlock / 2);
}

TEST(HeapMetricsTest, FreePagesBeyondTheReserveGoBackToTheSystem) {
  constexpr size_t kBlock = 64 << 20, kKeep = 4 << 20;
  auto block = std::make_unique<char[]>(kBlock);
  std::memset(block.get(), 1, kBlock);
  block.reset();  // a large block goes back to the page heap, still mapped
  const double unmapped = Sample("trix_heap_unmapped_bytes");
  EXPECT_GT(ReleaseFreeHeap(kKeep), 0u);
  EXPECT_LE(Sample("trix_heap_free_bytes", "pageheap"), kKeep);
  EXPECT_GT(Sample("trix_heap_unmapped_bytes"), unmapped);
  EXPECT_EQ(ReleaseFreeHeap(kKeep), 0u);  // nothing beyond the reserve is left
}

TEST(HeapMetricsTest, ThreadCachesTakeABound) {
  size_t before = 0, bound = 0;
  ASSERT_TRUE(MallocExtension::instance()->GetNumericProperty(
      "tcmalloc.max_total_thread_cache_bytes", &before));
  ASSERT_TRUE(LimitThreadCaches(before / 2));
  ASSERT_TRUE(MallocExtension::instance()->GetNumericProperty(
      "tcmalloc.max_total_thread_cache_bytes", &bound));
  EXPECT_EQ(bound, before / 2);
  LimitThreadCaches(before);
}

TEST(HeapMetricsTest, ExportsEveryCache) {
  for (const char* cache : {"pageheap", "central", "transfer", "thread"}) {
    EXPECT_GE(Sample("trix_heap_free_bytes", cache), 0) << cache;
  }
  EXPECT_GE(Sample("trix_heap_unmapped_bytes"), 0);
}

}  // namespace
}  // namespace trix::service
