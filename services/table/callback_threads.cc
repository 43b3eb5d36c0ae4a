#include "services/table/callback_threads.h"

#include <pthread.h>

#include <atomic>
#include <cstring>

#include "absl/time/time.h"
#include "services/common/logging.h"

namespace trix::table {
namespace {

// One parked thread per process: the nexting threads are shared.
std::atomic<bool> g_parked{false};

bool OnNextingThread() {
  char name[16] = {};
  if (pthread_getname_np(pthread_self(), name, sizeof(name)) != 0) return false;
  return std::strcmp(name, "nexting_thread") == 0;
}

}  // namespace

std::unique_ptr<CallbackThreadPark> CallbackThreadPark::Start(grpc::Server* server) {
  std::unique_ptr<CallbackThreadPark> park(new CallbackThreadPark);
  park->channel_ = server->InProcessChannel(grpc::ChannelArguments());
  park->stub_ = std::make_unique<grpc::GenericStub>(park->channel_);
  grpc::Slice empty("");
  park->request_ = grpc::ByteBuffer(&empty, 1);  // a call needs a message, even empty
  CallbackThreadPark* raw = park.get();
  park->stub_->UnaryCall(&park->context_, "/mamlaka.internal.Park/Park", {},
                         &park->request_, &park->response_,
                         [raw](grpc::Status) { raw->OnDone(); });
  return park;
}

void CallbackThreadPark::OnDone() {
  bool expected = false;
  if (OnNextingThread() && g_parked.compare_exchange_strong(expected, true)) {
    service::LogInfo("one gRPC callback thread parked until shutdown");
    parked_.Notify();
    release_.WaitForNotification();
    g_parked.store(false);
  } else {
    service::LogInfo("gRPC callback threads left as they are",
                     {{"on_nexting_thread", OnNextingThread()}});
  }
  returned_.Notify();
}

void CallbackThreadPark::Release() {
  if (!release_.HasBeenNotified()) release_.Notify();
  // Parked or not, the call has to end before its context goes.
  context_.TryCancel();
  returned_.WaitForNotification();
}

CallbackThreadPark::~CallbackThreadPark() { Release(); }

}  // namespace trix::table
