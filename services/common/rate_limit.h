// Per-client rate limits: one token bucket per key (a seat token's hash, a peer
// address), so that a client flooding the service is refused with
// RESOURCE_EXHAUSTED while every other client keeps its full rate.
//
// Buckets live in a few independently locked shards so that checks from many
// threads rarely contend; a key idle long enough to have refilled its bucket is
// forgotten when a shard grows past its share of `max_keys`, which bounds memory
// whatever the number of distinct keys an attacker invents.
//
//   RateLimiter limiter({.per_second = 50, .burst = 100});
//   if (limiter.Spent(peer)) return absl::ResourceExhaustedError("slow down");
//   ... verify the call's token, then charge the bucket of whom it proved ...
//   if (!limiter.Allow(peer)) return absl::ResourceExhaustedError("slow down");
#ifndef TRIX_SERVICES_COMMON_RATE_LIMIT_H_
#define TRIX_SERVICES_COMMON_RATE_LIMIT_H_

#include <array>
#include <cstddef>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace trix::service {

struct RateLimit {
  double per_second = 50;  // sustained rate; <= 0 turns the limit off
  double burst = 100;      // bucket size
  size_t max_keys = 100000;
};

// A gRPC peer ("ipv4:10.0.0.7:53422") without its port ("ipv4:10.0.0.7"): the
// key of a client address, which must not get a fresh bucket by reconnecting.
std::string PeerKey(const std::string& peer);

class RateLimiter {
 public:
  explicit RateLimiter(const RateLimit& limit);

  // Takes one token from `key`'s bucket; false when it is empty.
  bool Allow(absl::string_view key, absl::Time now = absl::Now());
  // Whether `key`'s bucket is empty now, taking nothing: what a service asks of the
  // caller's address before it verifies any token the call carries, so that a
  // flood of made-up tokens costs one verification per token of the address's
  // bucket and no more (a key never seen is not spent).
  bool Spent(absl::string_view key, absl::Time now = absl::Now()) const;
  // Buckets held now: never more than max_keys (rounded up to a multiple of the
  // shard count).
  size_t key_count() const;

 private:
  struct Bucket {
    double tokens;
    absl::Time updated;
  };
  struct Shard {
    mutable absl::Mutex mu;
    absl::flat_hash_map<std::string, Bucket> buckets ABSL_GUARDED_BY(mu);
  };
  static constexpr int kShards = 16;

  void Forget(Shard& shard, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mu);

  const RateLimit limit_;
  std::array<Shard, kShards> shards_;
};

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_RATE_LIMIT_H_
