// What the bot programs' mains (trix-bot, trix-play, trix-demo, trix-table-demo)
// share: the channel credentials of their TLS flags, and a stop on SIGINT or
// SIGTERM.
//
//   const service::StopSignals signals;  // first: gRPC's threads must not take SIGTERM
//   std::shared_ptr<grpc::ChannelCredentials> credentials =
//       FlagCredentials("trix-bot", flags.tls);
//   if (credentials == nullptr) return 2;
//   ...
//   StopOnSignal(signals, [&seat] { seat.Stop(); });
#ifndef TRIX_BOTS_COMMON_BOT_PROGRAM_H_
#define TRIX_BOTS_COMMON_BOT_PROGRAM_H_

#include <functional>
#include <memory>
#include <string>

#include "services/common/service_main.h"
#include "services/common/tls.h"

namespace trix::bots {

// The credentials of --tls and its files; null when they cannot be made, after
// saying why on stderr as `program` ("trix-bot: ..."): the program then exits 2,
// as for any bad flag.
std::shared_ptr<grpc::ChannelCredentials> FlagCredentials(const std::string& program,
                                                          const service::ChannelTls& tls);

// Starts a thread that waits for one of `signals` (SIGINT, SIGTERM), then calls
// `stop`. Make `signals` first thing in main, before any channel (gRPC's threads
// must not take SIGTERM); it must outlive the program's threads.
void StopOnSignal(const service::StopSignals& signals, std::function<void()> stop);

}  // namespace trix::bots

#endif  // TRIX_BOTS_COMMON_BOT_PROGRAM_H_
