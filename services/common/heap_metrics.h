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
#ifndef TRIX_SERVICES_COMMON_HEAP_METRICS_H_
#define TRIX_SERVICES_COMMON_HEAP_METRICS_H_

#include <memory>

#include "prometheus/collectable.h"

namespace trix::service {

std::shared_ptr<prometheus::Collectable> HeapMetrics();

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_HEAP_METRICS_H_
