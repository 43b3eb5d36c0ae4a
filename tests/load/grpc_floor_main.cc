// grpc-floor: what the table service's traffic costs in gRPC alone. A server
// that speaks TableService.Play like the table service, configured like it (the
// same channel settings, tcmalloc, one callback thread), but with no game and no
// database: an action read on one of a table's four Play streams is answered by
// one canned update written to each of the four streams (the action's result
// riding on the actor's), which is what a table does for most actions. The
// driver plays the table-load client's part at a paced rate and reports the
// server's CPU. Its figure is a floor for the table service's CPU per action:
// whatever the rules, the log and the leases cost comes on top of it. The server
// runs on the callback API (the table service's) or, for comparison, on the
// completion-queue API driven by one thread of its own (--api=cq).
//
//   tests/load/run_grpc_floor.sh 300             # starts, drives and stops it
//   build/bin/grpc-floor --serve=127.0.0.1:50600 [--api=cq] &
//   build/bin/grpc-floor --drive=127.0.0.1:50600 --server_pid=$! --rate=300
//
// With --heap_every the server prints its heap in use and open streams, so the
// difference with and without a driver's streams is what a bare Play stream costs
// in this build of gRPC: the floor under the table service's streams.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gperftools/malloc_extension.h>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "services/common/config.h"
#include "services/table/callback_threads.h"
#include "tests/load/process_cpu.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::load {
namespace {

struct Flags {
  std::string serve;
  std::string drive;
  std::string api = "callback";
  int server_pid = 0;
  int tables = 1000;
  int channels = 4;
  double rate = 300;
  absl::Duration warmup = absl::Seconds(10);
  absl::Duration duration = absl::Seconds(20);
  absl::Duration heap_every = absl::ZeroDuration();
  int stream_lookahead = 0;
};

// Streams open now (serve), for the heap lines.
std::atomic<int64_t> open_streams{0};

// An update like the table service's usual one: the action's card and the next
// turn, for one seat (about three quarters of the updates carry no prompt).
v1::TableUpdate CannedUpdate(bool with_result) {
  v1::TableUpdate update;
  v1::Event* played = update.add_events();
  played->set_seq(41);
  played->mutable_time()->set_seconds(1764700000);
  played->set_deal(3);
  played->set_kingdom(1);
  played->mutable_card_played()->set_seat(2);
  played->mutable_card_played()->set_card("QH");
  v1::Event* turn = update.add_events();
  turn->set_seq(42);
  turn->mutable_time()->set_seconds(1764700000);
  turn->set_deal(3);
  turn->set_kingdom(1);
  v1::Turn* next = turn->mutable_turn_started()->mutable_turn();
  next->add_seats(3);
  next->mutable_deadline()->set_seconds(1764700030);
  if (with_result) {
    v1::ActResult* result = update.add_results();
    result->set_request_id("r-000000000041");
    result->set_seq(41);
  }
  return update;
}

// What a table sends each of its streams for an action: the actor's carries the
// action's result.
const v1::TableUpdate& UpdateFor(bool actor) {
  static const v1::TableUpdate kPlain = CannedUpdate(false);
  static const v1::TableUpdate kAnswer = CannedUpdate(true);
  return actor ? kAnswer : kPlain;
}

// The table a stream's first message (its subscribe) names, among `tables`.
size_t TableIndex(const v1::PlayRequest& subscribe, size_t tables) {
  const std::string& id = subscribe.subscribe().table_id();
  return std::stoul(id.empty() ? "0" : id) % tables;
}

// --- The server ---------------------------------------------------------------------

class Table;

class Stream final : public grpc::ServerBidiReactor<v1::PlayRequest, v1::TableUpdate> {
 public:
  explicit Stream(std::vector<std::unique_ptr<Table>>* tables) : tables_(tables) {
    open_streams.fetch_add(1, std::memory_order_relaxed);
    StartRead(&request_);
  }
  void Send(const v1::TableUpdate& update);

 private:
  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override;

  std::vector<std::unique_ptr<Table>>* tables_;
  Table* table_ = nullptr;
  v1::PlayRequest request_;
  absl::Mutex mu_;
  std::deque<v1::TableUpdate> queue_ ABSL_GUARDED_BY(mu_);  // its front is being written
  bool done_ ABSL_GUARDED_BY(mu_) = false;
};

class Table {
 public:
  void Join(Stream* s) {
    absl::MutexLock lock(&mu_);
    streams_.push_back(s);
  }
  void Leave(Stream* s) {
    absl::MutexLock lock(&mu_);
    streams_.erase(std::remove(streams_.begin(), streams_.end(), s), streams_.end());
  }
  void Broadcast(Stream* actor) {
    absl::MutexLock lock(&mu_);
    for (Stream* s : streams_) s->Send(UpdateFor(s == actor));
  }

 private:
  absl::Mutex mu_;
  std::vector<Stream*> streams_ ABSL_GUARDED_BY(mu_);
};

void Stream::Send(const v1::TableUpdate& update) {
  absl::MutexLock lock(&mu_);
  if (done_) return;
  queue_.push_back(update);
  if (queue_.size() == 1) StartWrite(&queue_.front());
}

void Stream::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  queue_.pop_front();
  if (ok && !queue_.empty()) StartWrite(&queue_.front());
}

void Stream::OnReadDone(bool ok) {
  if (!ok) return Finish(grpc::Status::OK);
  if (table_ == nullptr) {
    table_ = (*tables_)[TableIndex(request_, tables_->size())].get();
    table_->Join(this);
  } else {
    table_->Broadcast(this);
  }
  StartRead(&request_);
}

void Stream::OnDone() {
  if (table_ != nullptr) table_->Leave(this);
  {
    absl::MutexLock lock(&mu_);
    done_ = true;
  }
  open_streams.fetch_sub(1, std::memory_order_relaxed);
  delete this;
}

class FloorService final : public v1::TableService::CallbackService {
 public:
  explicit FloorService(int tables) {
    for (int i = 0; i < tables; ++i) tables_.push_back(std::make_unique<Table>());
  }
  grpc::ServerBidiReactor<v1::PlayRequest, v1::TableUpdate>* Play(
      grpc::CallbackServerContext*) override {
    return new Stream(&tables_);
  }

 private:
  std::vector<std::unique_ptr<Table>> tables_;
};

// The same server on the completion-queue API, every stream's reads, writes and
// finish driven by one thread of our own: the four writes of an action are
// started back to back on the thread that read it, with no reactor in between.
class CqStream;

class CqTable {
 public:
  std::vector<CqStream*> streams;
};

class CqStream {
 public:
  enum Kind { kAccept, kRead, kWrite, kFinish };
  struct Op {
    CqStream* stream;
    Kind kind;
  };

  CqStream(v1::TableService::AsyncService* service, grpc::ServerCompletionQueue* cq,
           std::vector<CqTable>* tables)
      : service_(service), cq_(cq), tables_(tables), io_(&context_) {
    service_->RequestPlay(&context_, &io_, cq_, cq_, &accept_);
  }

  void On(Kind kind, bool ok) {
    switch (kind) {
      case kAccept:
        new CqStream(service_, cq_, tables_);  // the next caller's
        if (!ok) return delete this;
        open_streams.fetch_add(1, std::memory_order_relaxed);
        StartRead();
        return;
      case kRead:
        reading_ = false;
        if (finished_) return delete this;  // the read that outlived the finish
        if (!ok) {
          closing_ = true;
          if (queue_.empty()) Finish();
          return;
        }
        if (table_ == nullptr) {
          table_ = &(*tables_)[TableIndex(request_, tables_->size())];
          table_->streams.push_back(this);
        } else {
          for (CqStream* s : table_->streams) s->Send(UpdateFor(s == this));
        }
        StartRead();
        return;
      case kWrite:
        queue_.pop_front();
        if (!ok) closing_ = true;
        if (!queue_.empty() && !closing_) return io_.Write(queue_.front(), &write_);
        if (closing_) {
          queue_.clear();
          Finish();
        }
        return;
      case kFinish:
        open_streams.fetch_sub(1, std::memory_order_relaxed);
        if (table_ != nullptr) {
          auto& all = table_->streams;
          all.erase(std::remove(all.begin(), all.end(), this), all.end());
          table_ = nullptr;
        }
        finished_ = true;
        if (!reading_) delete this;
        return;
    }
  }

 private:
  void StartRead() {
    reading_ = true;
    io_.Read(&request_, &read_);
  }
  void Send(const v1::TableUpdate& update) {
    if (closing_) return;
    queue_.push_back(update);
    if (queue_.size() == 1) io_.Write(queue_.front(), &write_);
  }
  void Finish() {
    if (finishing_) return;
    finishing_ = true;
    io_.Finish(grpc::Status::OK, &finish_);
  }

  v1::TableService::AsyncService* service_;
  grpc::ServerCompletionQueue* cq_;
  std::vector<CqTable>* tables_;
  grpc::ServerContext context_;
  grpc::ServerAsyncReaderWriter<v1::TableUpdate, v1::PlayRequest> io_;
  v1::PlayRequest request_;
  std::deque<v1::TableUpdate> queue_;
  CqTable* table_ = nullptr;
  bool closing_ = false;
  bool finishing_ = false;
  bool reading_ = false;
  bool finished_ = false;
  Op accept_{this, kAccept}, read_{this, kRead}, write_{this, kWrite},
      finish_{this, kFinish};
};

// Serves `service` on `address` with the table service's channel settings
// (services/table/server.cc), and a completion queue of its own when `cq` is
// given. Null, said on stderr, when it cannot listen.
std::unique_ptr<grpc::Server> StartServer(
    const std::string& address, grpc::Service* service,
    std::unique_ptr<grpc::ServerCompletionQueue>* cq, int stream_lookahead) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  builder.RegisterService(service);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             30000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  if (stream_lookahead > 0)
    builder.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, stream_lookahead);
  if (cq != nullptr) *cq = builder.AddCompletionQueue();
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr)
    std::fprintf(stderr, "grpc-floor: cannot listen on %s\n", address.c_str());
  return server;
}

// Every `every`, a line with the heap in use (tcmalloc's count) and the open
// streams: what a bare stream costs is the difference with and without them.
void PrintHeapEvery(absl::Duration every) {
  std::thread([every] {
    for (;;) {
      absl::SleepFor(every);
      size_t heap = 0;
      MallocExtension::instance()->GetNumericProperty("generic.current_allocated_bytes",
                                                      &heap);
      std::printf("heap_bytes %zu streams %lld\n", heap,
                  static_cast<long long>(open_streams.load()));
      std::fflush(stdout);
    }
  }).detach();
}

int ServeCq(const Flags& f) {
  const std::string& address = f.serve;
  v1::TableService::AsyncService service;
  std::unique_ptr<grpc::ServerCompletionQueue> cq;
  std::unique_ptr<grpc::Server> server =
      StartServer(address, &service, &cq, f.stream_lookahead);
  if (server == nullptr) return 1;
  if (f.heap_every > absl::ZeroDuration()) PrintHeapEvery(f.heap_every);
  std::vector<CqTable> tables(100000);
  new CqStream(&service, cq.get(), &tables);
  std::printf("serving on %s (completion queue)\n", address.c_str());
  std::fflush(stdout);
  void* tag = nullptr;
  bool ok = false;
  while (cq->Next(&tag, &ok)) {
    auto* op = static_cast<CqStream::Op*>(tag);
    op->stream->On(op->kind, ok);
  }
  return 0;
}

int Serve(const Flags& f) {
  const std::string& address = f.serve;
  FloorService service(100000);
  std::unique_ptr<grpc::Server> server =
      StartServer(address, &service, nullptr, f.stream_lookahead);
  if (server == nullptr) return 1;
  if (f.heap_every > absl::ZeroDuration()) PrintHeapEvery(f.heap_every);
  auto park = table::CallbackThreadPark::Start(server.get());  // logs when parked
  std::printf("serving on %s (callback reactors)\n", address.c_str());
  std::fflush(stdout);
  server->Wait();
  return 0;
}

// --- The driver ---------------------------------------------------------------------

class Seat final : public grpc::ClientBidiReactor<v1::PlayRequest, v1::TableUpdate> {
 public:
  Seat(v1::TableService::Stub* stub, int table, std::atomic<int64_t>* updates)
      : updates_(updates) {
    subscribe_.mutable_subscribe()->set_table_id(std::to_string(table));
    stub->async()->Play(&context_, this);
    StartRead(&update_);
    AddHold();  // writes come at any time, until Close
    Write(subscribe_);
    StartCall();
  }
  void Act() {
    v1::PlayRequest act;
    act.mutable_act()->set_request_id("r-000000000041");
    act.mutable_act()->mutable_play_card()->set_card("QH");
    Write(act);
  }
  void Close() {
    context_.TryCancel();
    RemoveHold();
  }
  bool done() const { return done_.HasBeenNotified(); }

 private:
  void Write(v1::PlayRequest request) {
    absl::MutexLock lock(&mu_);
    queue_.push_back(std::move(request));
    if (queue_.size() == 1) StartWrite(&queue_.front());
  }
  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    queue_.pop_front();
    if (ok && !queue_.empty()) StartWrite(&queue_.front());
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    updates_->fetch_add(1, std::memory_order_relaxed);
    StartRead(&update_);
  }
  void OnDone(const grpc::Status&) override { done_.Notify(); }

  grpc::ClientContext context_;
  v1::PlayRequest subscribe_;
  v1::TableUpdate update_;
  std::atomic<int64_t>* updates_;
  absl::Mutex mu_;
  std::deque<v1::PlayRequest> queue_ ABSL_GUARDED_BY(mu_);
  absl::Notification done_;
};

// `channels` connections of their own to `address`.
std::vector<std::unique_ptr<v1::TableService::Stub>> OpenChannels(
    const std::string& address, int channels) {
  std::vector<std::unique_ptr<v1::TableService::Stub>> stubs;
  for (int c = 0; c < channels; ++c) {
    grpc::ChannelArguments args;
    args.SetInt("channel", c);  // a connection of its own
    stubs.push_back(v1::TableService::NewStub(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args)));
  }
  return stubs;
}

// Acts on a seat drawn at random every `gap` for `how_long`; the actions sent.
int64_t PlayFor(absl::Duration how_long, absl::Duration gap,
                const std::vector<std::unique_ptr<Seat>>& seats, std::mt19937_64& rng) {
  int64_t acts = 0;
  const absl::Time end = absl::Now() + how_long;
  absl::Time next = absl::Now();
  while (next < end) {
    absl::SleepFor(next - absl::Now());
    seats[rng() % seats.size()]->Act();
    ++acts;
    next += gap;
  }
  return acts;
}

void PrintCpu(const std::vector<CpuShare>& shares, double per_second) {
  for (const CpuShare& share : shares) {
    // The probe names the tool itself after table-load, whose part it plays.
    const std::string name =
        share.name == "table-load" ? "grpc-floor driver" : share.name;
    std::printf("cpu %-18s %.3f cores  (%.0f us per action, %d threads)\n", name.c_str(),
                share.cores, share.cores / per_second * 1e6, share.threads);
  }
}

void CloseSeats(const std::vector<std::unique_ptr<Seat>>& seats) {
  for (auto& seat : seats) seat->Close();
  for (auto& seat : seats) {
    for (int i = 0; i < 100 && !seat->done(); ++i) absl::SleepFor(absl::Milliseconds(10));
  }
}

int Drive(const Flags& f) {
  const int tables = f.tables;
  std::vector<std::unique_ptr<v1::TableService::Stub>> stubs =
      OpenChannels(f.drive, f.channels);
  std::atomic<int64_t> updates{0};
  std::vector<std::unique_ptr<Seat>> seats;
  for (int t = 0; t < tables; ++t) {
    for (int s = 0; s < 4; ++s) {
      seats.push_back(std::make_unique<Seat>(stubs[t % stubs.size()].get(), t, &updates));
    }
  }
  absl::SleepFor(absl::Seconds(1));  // every stream subscribed

  std::vector<ProcessTree> trees;
  if (f.server_pid > 0) {
    trees.push_back({"grpc-floor server", f.server_pid});
  }
  CpuProbe probe(trees);
  std::mt19937_64 rng(7);
  const absl::Duration gap = absl::Seconds(1) / f.rate;
  PlayFor(f.warmup, gap, seats, rng);
  const int64_t updates_before = updates.load();
  const CpuProbe::Sample from = probe.Take();
  const absl::Time start = absl::Now();
  const int64_t acts = PlayFor(f.duration, gap, seats, rng);
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  const CpuProbe::Sample to = probe.Take();
  const double per_second = acts / seconds;
  std::printf("%d tables, %d channels: %.0f actions/s, %.0f updates/s\n", tables,
              f.channels, per_second, (updates.load() - updates_before) / seconds);
  PrintCpu(probe.Shares(from, to), per_second);
  CloseSeats(seats);
  return 0;
}

}  // namespace
}  // namespace trix::load

int main(int argc, char** argv) {
  // As every service's main (Debian's Abseil is a debug build): no lock-order graph.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  trix::load::Flags f;
  trix::service::Config config("grpc-floor", "MAMLAKA_FLOOR_");
  config.Bind("serve", &f.serve, "serve on this address");
  config.Bind("drive", &f.drive, "drive the server at this address");
  config.Bind("api", &f.api,
              "the server's gRPC API: callback (the table service's) or cq");
  config.Bind("server_pid", &f.server_pid, "the server's pid, for its CPU (drive)");
  config.Bind("tables", &f.tables, "tables of four Play streams (drive)");
  config.Bind("channels", &f.channels,
              "client connections; a table's streams share one (drive)");
  config.Bind("rate", &f.rate, "actions per second offered (drive)");
  config.Bind("warmup", &f.warmup, "played before the window (drive)");
  config.Bind("duration", &f.duration, "the measured window (drive)");
  config.Bind("heap_every", &f.heap_every,
              "print the heap in use and the open streams this often (serve)");
  config.Bind("stream_lookahead", &f.stream_lookahead,
              "a stream's flow-control window in bytes; 0: gRPC's default (serve)");
  if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv))
    return *exit_code;
  if (!f.serve.empty()) {
    return f.api == "cq" ? trix::load::ServeCq(f) : trix::load::Serve(f);
  }
  if (!f.drive.empty() && f.rate > 0 && f.tables > 0) return trix::load::Drive(f);
  std::fprintf(stderr, "grpc-floor: --serve=ADDRESS, or --drive=ADDRESS with a rate\n");
  return 2;
}
