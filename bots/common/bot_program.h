// What the bot programs' mains (trix-bot, trix-play, trix-demo, trix-table-demo)
// share: the channel credentials of their TLS flags, and a stop on SIGINT or
// SIGTERM.
//
//   BlockStopSignals();
//   std::shared_ptr<grpc::ChannelCredentials> credentials =
//       FlagCredentials("trix-bot", flags.tls);
//   if (credentials == nullptr) return 2;
//   ...
//   StopOnSignal([&seat] { seat.Stop(); });
#ifndef TRIX_BOTS_COMMON_BOT_PROGRAM_H_
#define TRIX_BOTS_COMMON_BOT_PROGRAM_H_

#include <functional>
#include <memory>
#include <string>

#include "services/common/tls.h"

namespace trix::bots {

// The credentials of --tls and its files; null when they cannot be made, after
// saying why on stderr as `program` ("trix-bot: ..."): the program then exits 2,
// as for any bad flag.
std::shared_ptr<grpc::ChannelCredentials> FlagCredentials(const std::string& program,
                                                          const service::ChannelTls& tls);

// Blocks SIGINT and SIGTERM in this thread, and so in every thread it starts
// after (gRPC's among them). Call first thing in main, before any channel is made.
void BlockStopSignals();

// Starts a thread that waits for SIGINT or SIGTERM, then calls `stop`. Call once,
// from the main thread, after BlockStopSignals.
void StopOnSignal(std::function<void()> stop);

}  // namespace trix::bots

#endif  // TRIX_BOTS_COMMON_BOT_PROGRAM_H_
