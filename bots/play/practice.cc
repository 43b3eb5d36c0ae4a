#include "bots/play/practice.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "bots/strategies/strategy.h"
#include "proto/wire/wire.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::bots {

absl::StatusOr<PracticeTable> OpenPractice(const std::string& address,
                                           const std::string& service_token,
                                           const PracticeOptions& options) {
  absl::StatusOr<v1::Mode> mode = wire::ModeFromName(options.mode);
  if (!mode.ok()) return mode.status();
  std::random_device random;
  const std::string id = absl::StrCat(absl::Hex(uint64_t{random()} << 32 | random()));
  v1::CreateTableRequest request;
  request.set_request_id(absl::StrCat("practice-", id));
  *request.mutable_mode() = *mode;
  request.mutable_rules()->set_kingdoms(options.kingdoms);
  for (int s = 0; s < 4; ++s) {
    v1::SeatAssignment* seat = request.add_seats();
    seat->set_player_id(s == 0 ? absl::StrCat("practice-", id) : absl::StrCat("bot-", id, "-", s));
    seat->set_display_name(s == 0 ? options.name : absl::StrCat("Bot ", s));
    seat->set_bot(s != 0);
  }
  auto stub = v1::TableService::NewStub(TableChannel(address, options.credentials));
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", service_token));
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  v1::CreateTableResponse response;
  const grpc::Status status = stub->CreateTable(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        absl::StrCat("CreateTable: ", status.error_message()));
  }
  if (response.seat_tokens_size() != 4) return absl::InternalError("not four seat tokens");
  PracticeTable table;
  table.table_id = response.table_id();
  for (int s = 0; s < 4; ++s) table.seat_tokens[s] = response.seat_tokens(s);
  return table;
}

void PracticeBots::Start(const std::string& address, const std::string& table_id,
                         const std::array<std::string, 4>& tokens,
                         const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  std::random_device random;
  for (int s = 1; s < 4; ++s) {
    bots_[s] = *MakeStrategy("heuristic", uint64_t{random()} << 32 | random());
    SeatConfig config;
    config.table_id = table_id;
    config.seat_token = tokens[s];
    config.think = absl::Milliseconds(300);  // so that a person can follow the play
    config.log = [](LogLevel, absl::string_view) {};  // never over the screen
    config.credentials = credentials;
    seats_[s] = std::make_unique<Seat>(TableChannel(address, credentials), config,
                                       bots_[s].get());
    threads_[s] = std::thread([seat = seats_[s].get()] { (void)seat->Play(); });
  }
}

void PracticeBots::Stop() {
  for (int s = 1; s < 4; ++s) {
    if (seats_[s]) seats_[s]->Stop();
    if (threads_[s].joinable()) threads_[s].join();
  }
}

}  // namespace trix::bots
