// INTERNAL to the table server: leaves gRPC one thread for its callback API.
//
// gRPC 1.51 on Linux runs every reaction of the callback API (OnReadDone,
// OnWriteDone, the unary handlers) on its "nexting" threads, which also poll the
// sockets (CallbackAlternativeCQ: two of them at least, whatever the core count).
// At a player's pace every event finds them asleep, and with two the one woken by
// the event hands the polling role to the other before it runs the reaction: each
// network event and each stream write completion wakes two threads (measured:
// about six of the service's eight context switches per action at 300 actions/s,
// docs/experiments/2026-12-01-fewer-thread-wake-ups.md). With one thread left, it
// polls and runs the reactions itself: one wake-up per event, and completions that
// arrive while it works are taken without sleeping.
//
// It parks one nexting thread in the completion callback of a call to the
// server's own in-process channel (to a method nobody serves), until Release().
// It parks only on a thread gRPC names "nexting_thread" (another gRPC version or
// build runs the callback elsewhere: then nothing is parked), and only one per
// process (the threads are shared by every server and channel of the process).
// The table service's reactions never block (the host's rule: table work is
// short, database reads go to the io pool), so one thread keeps up; a reaction
// that blocked would now stall every stream.
//
//   auto park = CallbackThreadPark::Start(server);  // after BuildAndStart
//   ...
//   park->Release();  // before server->Shutdown(): gRPC joins its threads
#ifndef TRIX_SERVICES_TABLE_CALLBACK_THREADS_H_
#define TRIX_SERVICES_TABLE_CALLBACK_THREADS_H_

#include <memory>

#include "absl/synchronization/notification.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"

namespace trix::table {

class CallbackThreadPark {
 public:
  // Starts the call whose completion parks a thread; `server` must be started.
  static std::unique_ptr<CallbackThreadPark> Start(grpc::Server* server);
  ~CallbackThreadPark();  // Release()

  // Lets the parked thread go back to gRPC, and waits (briefly) until it has.
  void Release();
  // Whether a thread is parked (or was, until Release).
  bool parked() const { return parked_.HasBeenNotified(); }

 private:
  CallbackThreadPark() = default;
  void OnDone();

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::GenericStub> stub_;
  grpc::ClientContext context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  absl::Notification parked_;
  absl::Notification release_;
  absl::Notification returned_;  // the callback returned (or never parked)
};

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_CALLBACK_THREADS_H_
