// Test helpers that play the client's part: choose an action from a Prompt (the
// options the server sent a seat), wait for a call's reply, and record what a
// stream receives.
//
//   v1::ActRequest act = RandomAction(prompt, rng);
//   absl::StatusOr<v1::ActResponse> r =
//       Wait<v1::ActResponse>([&](auto reply) { host.Act(request, reply); });
//   auto sink = std::make_shared<RecordingSink>();
//   host.Subscribe(table_id, token, false, 0, sink);
//   sink->WaitUntil([](const RecordingSink& s) { return s.closed(); });
#ifndef TRIX_SERVICES_TABLE_TESTING_TABLE_CLIENT_H_
#define TRIX_SERVICES_TABLE_TESTING_TABLE_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "engine/random.h"
#include "services/table/table_host.h"
#include "trix/v1/table.pb.h"

namespace trix::table {

// A legal action drawn at random from `prompt`: an available contract, a random
// subset of the doublable cards with ready, or a legal card. Only the action is
// set; the caller fills table id, token and request id.
v1::ActRequest RandomAction(const v1::Prompt& prompt, engine::Rng& rng);

// Makes `call` with a reply that hands its answer back here, and waits up to 10 s
// for it (DEADLINE_EXCEEDED when none came).
template <typename T>
absl::StatusOr<T> Wait(std::function<void(Reply<T>)> call) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<T>>>();
  std::future<absl::StatusOr<T>> future = promise->get_future();
  call([promise](absl::StatusOr<T> r) { promise->set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    return absl::DeadlineExceededError("no reply within 10 s");
  }
  return future.get();
}

class RecordingSink : public UpdateSink {
 public:
  // `capacity` bounds live updates like the gRPC stream does; 0 is unbounded.
  explicit RecordingSink(size_t capacity = 0) : capacity_(capacity) {}

  bool Send(v1::TableUpdate update, bool catch_up) override;
  void Close(const absl::Status& status) override;
  bool Ended() const override { return closed(); }

  std::vector<v1::TableUpdate> updates() const;
  // Every event received, in order, out of all the updates.
  std::vector<v1::Event> events() const;
  std::optional<v1::Prompt> last_prompt() const;
  bool closed() const;
  absl::Status status() const;
  // Waits up to `timeout` for `ready` (called under the sink's lock).
  bool WaitUntil(std::function<bool(const RecordingSink&)> ready,
                 absl::Duration timeout = absl::Seconds(10)) const;
  // Makes Send refuse and close with RESOURCE_EXHAUSTED, as a full stream does.
  void Overflow();

  // For WaitUntil predicates (the lock is held).
  size_t size_locked() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return updates_.size(); }
  bool closed_locked() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return closed_; }
  uint64_t last_seq_locked() const ABSL_NO_THREAD_SAFETY_ANALYSIS;

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::vector<v1::TableUpdate> updates_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool overflow_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_TESTING_TABLE_CLIENT_H_
