// What a service's memory really holds, for /metrics: the resident set the kernel
// counts, and tcmalloc's own account of it — the bytes the program has allocated
// and not freed, and the bytes tcmalloc keeps free in its caches (freed memory it
// has not yet returned to the system, which the RSS still counts). A leak grows the
// allocated bytes; a burst of tables that came and went leaves the RSS high but the
// allocated bytes back where they were. Read at each scrape, nothing kept between.
//
//   process_resident_memory_bytes        the RSS (/proc/self/statm)
//   trix_heap_allocated_bytes            tcmalloc: in use by the program
//   trix_heap_free_bytes{cache}          tcmalloc: free, still mapped (pageheap,
//                                        central, transfer, thread)
//   trix_heap_unmapped_bytes             tcmalloc: free and returned to the system
//
//   metrics->Add(service::HeapMetrics());   // in a program linked with tcmalloc
//   const service::HeapReleaser releaser;   // a service's bounds, below
//
// tcmalloc returns the pages it keeps free to the system slowly, so after a burst
// of tables (or over hours of tables coming and going) the RSS creeps towards its
// high-water mark while the program holds no more. A HeapReleaser gives back,
// every period, what the page heap holds free beyond a reserve: the RSS then
// follows what the program holds, plus the reserve and the smaller per-size caches.
// The per-thread caches are the one of those that grows with the threads a busy
// service has had (gRPC's pools grow on demand): LimitThreadCaches bounds them all
// together, below gperftools' 32 MiB default.
#ifndef TRIX_SERVICES_COMMON_HEAP_METRICS_H_
#define TRIX_SERVICES_COMMON_HEAP_METRICS_H_

#include <cstddef>
#include <memory>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "prometheus/collectable.h"

namespace trix::service {

std::shared_ptr<prometheus::Collectable> HeapMetrics();

// Gives the page heap's free bytes beyond `keep_bytes` back to the system;
// returns how many bytes it gave back.
size_t ReleaseFreeHeap(size_t keep_bytes);

// Bounds the free bytes all threads' caches hold together to `bytes`; false when
// the allocator does not take the bound.
bool LimitThreadCaches(size_t bytes);

// Bounds the threads' caches to `thread_cache_bytes` together, then
// ReleaseFreeHeap(keep_bytes) every `every`, on its own thread, until destroyed.
// The defaults are what the table and ratings services run: the RSS follows the
// heap in use.
class HeapReleaser {
 public:
  explicit HeapReleaser(absl::Duration every = absl::Seconds(10),
                        size_t keep_bytes = 2 << 20, size_t thread_cache_bytes = 4 << 20);
  ~HeapReleaser();

 private:
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_HEAP_METRICS_H_
