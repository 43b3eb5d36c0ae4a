#include "services/common/rate_limit.h"

#include <algorithm>

#include "absl/hash/hash.h"

namespace trix::service {

std::string PeerKey(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  const size_t first = peer.find(':');
  if (colon == std::string::npos || colon == first) return peer;
  return peer.substr(0, colon);
}

RateLimiter::RateLimiter(const RateLimit& limit) : limit_(limit) {}

bool RateLimiter::Allow(absl::string_view key, absl::Time now) {
  if (limit_.per_second <= 0) return true;
  Shard& shard = shards_[absl::Hash<absl::string_view>{}(key) % kShards];
  absl::MutexLock lock(&shard.mu);
  auto it = shard.buckets.find(key);
  if (it == shard.buckets.end()) {
    if (shard.buckets.size() >= std::max<size_t>(1, limit_.max_keys / kShards)) {
      Forget(shard, now);
    }
    it = shard.buckets.emplace(std::string(key), Bucket{limit_.burst, now}).first;
  }
  Bucket& b = it->second;
  const double elapsed = std::max(0.0, absl::ToDoubleSeconds(now - b.updated));
  b.tokens = std::min(limit_.burst, b.tokens + elapsed * limit_.per_second);
  b.updated = now;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

bool RateLimiter::Spent(absl::string_view key, absl::Time now) const {
  if (limit_.per_second <= 0) return false;
  const Shard& shard = shards_[absl::Hash<absl::string_view>{}(key) % kShards];
  absl::MutexLock lock(&shard.mu);
  auto it = shard.buckets.find(key);
  if (it == shard.buckets.end()) return false;
  const double elapsed = std::max(0.0, absl::ToDoubleSeconds(now - it->second.updated));
  return it->second.tokens + elapsed * limit_.per_second < 1;
}

size_t RateLimiter::key_count() const {
  size_t count = 0;
  for (const Shard& shard : shards_) {
    absl::MutexLock lock(&shard.mu);
    count += shard.buckets.size();
  }
  return count;
}

void RateLimiter::Forget(Shard& shard, absl::Time now) {
  // A bucket that has refilled behaves exactly like a new one: dropping it loses
  // nothing. If every key is busy, drop them all rather than grow without bound.
  const absl::Duration refill = absl::Seconds(limit_.burst / limit_.per_second);
  const size_t before = shard.buckets.size();
  absl::erase_if(shard.buckets,
                 [&](const auto& entry) { return now - entry.second.updated >= refill; });
  if (shard.buckets.size() == before) shard.buckets.clear();
}

}  // namespace trix::service
