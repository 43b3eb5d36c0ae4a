// lowest_bot: a whole Mamlaka bot. It takes the first contract offered, doubles
// nothing and plays its lowest legal card; the SDK's Seat does everything else.
//   lowest_bot --address 127.0.0.1:50051 --table ID --token TOKEN
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "bots/sdk/seat.h"

ABSL_FLAG(std::string, address, "127.0.0.1:50051", "the table service, host:port");
ABSL_FLAG(std::string, table, "", "the table's id");
ABSL_FLAG(std::string, token, "", "the seat's token");

using trix::bots::Decision;

class LowestBot : public trix::bots::Bot {
  Decision Decide(const trix::bots::SeatState& state) override {
    const trix::bots::SeatOptions& options = state.options;
    if (options.phase == trix::engine::Phase::kPlaying)
      return Decision::PlayCard(trix::engine::Lowest(options.legal));
    if (options.phase == trix::engine::Phase::kDoubling)
      return Decision::SelectDoubles(0);
    return trix::bots::FirstOption(options);  // the first contract
  }
};

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("lowest_bot --address HOST:PORT --table ID --token TOKEN");
  absl::ParseCommandLine(argc, argv);
  trix::bots::SeatConfig config;
  config.table_id = absl::GetFlag(FLAGS_table);
  config.seat_token = absl::GetFlag(FLAGS_token);
  LowestBot bot;
  trix::bots::Seat seat(trix::bots::TableChannel(absl::GetFlag(FLAGS_address)), config,
                        &bot);
  absl::StatusOr<trix::v1::GameResult> result = seat.Play();
  std::cout << (result.ok() ? result->ShortDebugString() : result.status().ToString())
            << "\n";
  return result.ok() ? 0 : 1;
}
