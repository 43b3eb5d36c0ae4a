// trix-play: a person takes a seat in the terminal and plays against bots.
//
//   trix-play --address=HOST:PORT --table=ID --token=SEAT_TOKEN
//   trix-play --matchmaking=HOST:PORT --player=ID [--mode=complex-partner] [--stake=0]
//   MAMLAKA_SERVICE_TOKEN=... trix-play --address=HOST:PORT --practice [--mode=...]
//   trix-play --matchmaking=HOST:PORT --player=ID --create-room [--empty_seats=bots]
//   trix-play --matchmaking=HOST:PORT --player=ID --room=CODE
//
// The first form plays a seat the caller already holds. The second asks the
// matchmaking service for a table (FindTable), as the player (a player token: the
// --player_token flag or TRIX_PLAY_PLAYER_TOKEN) or as a trusted backend on the
// player's behalf (MAMLAKA_SERVICE_TOKEN), shows the queue until a seat is
// assigned, then plays that seat at the assignment's address. Without --mode it is
// Quick Play. The third opens a practice table itself (as a trusted backend) with
// bots in seats 1-3 played in this process. Seat tokens are better passed in the environment (TRIX_PLAY_TOKEN).
// The last two open a private room (its invite code on screen) or join one by its
// code, with the same tokens as the second form: the room's seats, members and
// series are drawn, keys take a seat, say ready and start the game; each game of
// the room is played as a matchmaking seat is, and after it `r` asks for a
// rematch and `q` leaves the room.
//
// The screen is redrawn on every event and once a second; the keys are in --help
// and on screen. Exit status: 0 after the game ended (or the person left), 1 when
// no seat could be played, 2 for bad flags.
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bots/common/bot_program.h"
#include "bots/play/keys.h"
#include "bots/play/matchmaking_client.h"
#include "bots/play/person_bot.h"
#include "bots/play/practice.h"
#include "bots/play/room_client.h"
#include "bots/play/room_screen.h"
#include "bots/sdk/seat.h"
#include "services/common/config.h"
#include "services/common/service_main.h"
#include "services/common/tls.h"

namespace trix::bots {
namespace {

struct Flags {
  std::string address;
  std::string table;
  std::string token;
  std::string matchmaking;
  std::string player;
  std::string player_token;
  std::string name;
  std::string mode;
  int64_t stake = 0;
  bool practice = false;
  bool create_room = false;
  std::string room;  // an invite code
  std::string empty_seats = "bots";
  int kingdoms = 4;
  bool color = true;
  bool wait_at_end = true;
  absl::Duration give_up_after = absl::Minutes(2);
  service::ChannelTls tls;
  std::shared_ptr<grpc::ChannelCredentials> credentials;  // made from `tls`
};

// The terminal in raw mode (no echo, no line buffering, Ctrl-C as a key) with the
// cursor hidden, on the alternate screen; restored by the destructor.
class RawTerminal {
 public:
  RawTerminal() {
    active_ = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_) == 0;
    if (active_) {
      termios raw = saved_;
      raw.c_lflag &= ~(ICANON | ECHO | ISIG);
      raw.c_iflag &= ~(IXON | ICRNL);
      raw.c_cc[VMIN] = 1;
      raw.c_cc[VTIME] = 0;
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
    }
    std::fputs("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J", stdout);
    std::fflush(stdout);
  }
  ~RawTerminal() {
    std::fputs("\x1b[?25h\x1b[?1049l", stdout);
    std::fflush(stdout);
    if (active_) tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_);
  }

 private:
  bool active_ = false;
  termios saved_{};
};

std::string RandomId() {
  std::random_device random;
  return absl::StrCat(absl::Hex(uint64_t{random()} << 32 | random(), absl::kZeroPad16));
}

// Asks the table service to let the autopilot play the seat from now on.
void SendLeave(v1::TableService::Stub* stub, const std::string& table,
               const std::string& token) {
  v1::ActRequest request;
  request.set_table_id(table);
  request.set_seat_token(token);
  request.set_request_id(absl::StrCat("leave-", RandomId()));
  request.mutable_leave();
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::ActResponse response;
  stub->Act(&context, request, &response);  // if refused, the game moved on anyway
}

// Hands the person's keys to `person` until `done`, and ticks its clocks while
// no key comes.
void ReadKeys(PersonBot& person, const std::atomic<bool>& done) {
  while (!done) {
    pollfd fd{STDIN_FILENO, POLLIN, 0};
    if (poll(&fd, 1, 1000) > 0) {
      char buffer[64];
      const ssize_t n = read(STDIN_FILENO, buffer, sizeof(buffer));
      if (n <= 0) {
        absl::SleepFor(absl::Seconds(1));  // stdin closed: nothing more to read
        continue;
      }
      person.Keys(absl::string_view(buffer, n));
    } else {
      person.Tick();  // the clocks count down
    }
  }
}

// The last screen: the result, or why the seat ended. Returns the exit status.
int ShowEnd(PersonBot& person, const SeatState& state, const absl::Status& played,
            bool left) {
  if (played.ok()) {
    person.Finish(state, "");
    return 0;
  }
  if (left) {
    person.Finish(state, "You left the table; the autopilot plays your seat. "
                         "Press any key to exit.");
    return 0;
  }
  person.Finish(state, absl::StrCat("The seat could not be played: ", played.ToString(),
                                    ". Press any key to exit."));
  return 1;
}

// Plays the seat; the terminal is already raw. Returns the exit status. `context`
// goes before the table on the screen's second line (the room and its game).
int PlaySeat(const Flags& flags, const std::string& address, const std::string& table,
             const std::string& token, const std::string& context = "") {
  std::shared_ptr<grpc::Channel> channel = TableChannel(address, flags.credentials);
  std::unique_ptr<v1::TableService::Stub> stub = v1::TableService::NewStub(channel);
  Seat* seat_ptr = nullptr;
  std::atomic<bool> left{false};
  ScreenInfo info;
  info.where = absl::StrCat(context, "table ", table, " at ", address);
  info.color = flags.color;
  PersonBot person(stdout, info, [&] {
    left = true;
    SendLeave(stub.get(), table, token);
    if (seat_ptr) seat_ptr->Stop();
  });

  SeatConfig config;
  config.table_id = table;
  config.seat_token = token;
  config.give_up_after = flags.give_up_after;
  config.credentials = flags.credentials;
  // The SDK's warnings (retries, refusals) go to the status line, not over the
  // screen.
  config.log = [&person](LogLevel level, absl::string_view message) {
    if (level >= LogLevel::kWarn) person.SetStatus(std::string(message));
  };
  Seat seat(channel, config, &person);
  seat_ptr = &seat;

  std::atomic<bool> done{false};
  std::thread keys([&] { ReadKeys(person, done); });

  absl::StatusOr<v1::GameResult> result = seat.Play();
  person.Abandon();
  const int status = ShowEnd(person, seat.state(), result.status(), left);
  if (flags.wait_at_end) person.WaitAnyKey(absl::InfiniteDuration());
  done = true;
  keys.join();
  return status;
}

// A practice table: the person in seat 0, heuristic bots in this process.
int Practice(Flags flags) {
  const char* service_token = std::getenv("MAMLAKA_SERVICE_TOKEN");
  if (flags.address.empty() || service_token == nullptr) {
    std::cerr << "trix-play: --practice needs --address and MAMLAKA_SERVICE_TOKEN\n";
    return 2;
  }
  PracticeOptions options;
  if (!flags.mode.empty()) options.mode = flags.mode;
  options.kingdoms = flags.kingdoms;
  if (!flags.name.empty()) options.name = flags.name;
  options.credentials = flags.credentials;
  absl::StatusOr<PracticeTable> table = OpenPractice(flags.address, service_token, options);
  if (!table.ok()) {
    std::cerr << "trix-play: " << table.status() << "\n";
    return 1;
  }
  PracticeBots bots;
  bots.Start(flags.address, table->table_id, table->seat_tokens, flags.credentials);
  int status = 0;
  {
    RawTerminal terminal;
    status = PlaySeat(flags, flags.address, table->table_id, table->seat_tokens[0]);
  }
  bots.Stop();
  return status;
}

// The player token, else the service credential acting for --player, else none.
std::string Bearer(const Flags& flags) {
  if (!flags.player_token.empty()) return flags.player_token;
  const char* service = std::getenv("MAMLAKA_SERVICE_TOKEN");
  return service ? service : "";
}

// The person's own member of the room, if still in it.
const v1::RoomMember* Me(const v1::RoomState& room, const std::string& player) {
  for (const v1::RoomMember& m : room.members())
    if (m.player_id() == player) return &m;
  return nullptr;
}

// What a key does in the room (kRoomKeysHelp); false once the person leaves.
bool RoomKey(RoomClient& room, const v1::RoomState& state, char key, std::string* status) {
  absl::StatusOr<v1::RoomState> done = state;
  if (key >= '0' && key <= '3') {
    done = room.TakeSeat(key - '0');
  } else if (key == 'u') {
    done = room.TakeSeat(-1);
  } else if (key == 'r' && RoomGameOver(state)) {
    done = room.Rematch();
  } else if (key == 'r') {
    const v1::RoomMember* me = Me(state, room.player());
    done = room.SetReady(me == nullptr || !me->ready());
  } else if (key == 'g') {
    done = room.StartGame();
  } else if (key == 'q' || key == '\x03') {
    return false;
  } else {
    return true;
  }
  *status = done.ok() ? "" : absl::StrCat("Refused: ", done.status().message());
  return true;
}

// Draws the room when what it shows changed.
void DrawRoom(const v1::RoomState& room, const RoomView& view, std::string* last) {
  const std::string frame = Frame(RoomScreenLines(room, view));
  if (frame == *last) return;
  *last = frame;
  std::fwrite(frame.data(), 1, frame.size(), stdout);
  std::fflush(stdout);
}

// Shows the room and acts on the person's keys until the person's seat at a game
// after `played` is assigned (returned) or the person leaves (nullopt).
std::optional<v1::RoomAssignment> InRoom(RoomClient& room, const Flags& flags, int played,
                                         std::string* status) {
  RoomView view{.me = flags.player, .color = flags.color};
  std::string last;
  while (true) {
    const std::optional<v1::RoomState> state = room.Latest();
    if (state && state->has_assignment() && state->assignment().game() > played &&
        !state->assignment().seat_token().empty()) {
      return state->assignment();
    }
    const absl::Status watching = room.WatchStatus();
    view.status = !status->empty() || watching.ok()
                      ? *status
                      : absl::StrCat("The room's stream: ", watching.ToString());
    if (state) DrawRoom(*state, view, &last);
    pollfd fd{STDIN_FILENO, POLLIN, 0};
    if (poll(&fd, 1, 100) <= 0) continue;
    char buffer[16];
    const ssize_t n = read(STDIN_FILENO, buffer, sizeof(buffer));
    if (n <= 0) {
      absl::SleepFor(absl::Milliseconds(500));  // stdin closed: nothing more to read
      continue;
    }
    for (ssize_t i = 0; i < n; ++i) {
      if (state && !RoomKey(room, *state, buffer[i], status)) return std::nullopt;
    }
  }
}

std::optional<v1::EmptySeats> EmptySeatsFromName(const std::string& name) {
  if (name == "bots") return v1::EMPTY_SEATS_BOTS;
  if (name == "autopilot") return v1::EMPTY_SEATS_AUTOPILOT;
  if (name == "wait") return v1::EMPTY_SEATS_WAIT;
  return std::nullopt;
}

// Why there is no seat to play ("No room: ...", "No table: ..."), until a key.
void ShowNoSeat(const Flags& flags, const std::string& why) {
  const std::string frame = Frame({why, "", "Press any key to exit."});
  std::fwrite(frame.data(), 1, frame.size(), stdout);
  std::fflush(stdout);
  if (flags.wait_at_end) {
    char c;
    (void)!read(STDIN_FILENO, &c, 1);
  }
}

// --create_room or --room: the person's part in a private room, game after game,
// until they leave it.
int PlayRoom(const Flags& flags) {
  const std::optional<v1::EmptySeats> empty = EmptySeatsFromName(flags.empty_seats);
  if (!empty) {
    std::cerr << "trix-play: --empty_seats is bots, autopilot or wait\n";
    return 2;
  }
  RoomClient room({.address = flags.matchmaking,
                   .player = flags.player,
                   .display_name = flags.name.empty() ? flags.player : flags.name,
                   .bearer = Bearer(flags),
                   .credentials = flags.credentials});
  RawTerminal terminal;
  const absl::StatusOr<v1::RoomState> opened =
      flags.create_room ? room.Create(*empty, flags.mode) : room.Join(flags.room);
  if (!opened.ok()) {
    ShowNoSeat(flags, "No room: " + opened.status().ToString());
    return 1;
  }
  room.Watch(opened->room_id());
  Flags at_table = flags;
  at_table.wait_at_end = false;  // back to the room after each game
  std::string status;
  int played = 0;
  while (std::optional<v1::RoomAssignment> seat = InRoom(room, flags, played, &status)) {
    const int result =
        PlaySeat(at_table, seat->address(), seat->table_id(), seat->seat_token(),
                 absl::StrCat("room ", opened->code(), " · game ", seat->game(), " · "));
    played = seat->game();
    status = result == 0 ? absl::StrCat("Game ", played, " has ended.")
                         : absl::StrCat("Game ", played, ": the seat could not be played.");
  }
  (void)room.Leave();  // if refused, the room forgets the member when it expires
  return 0;
}

void Bind(service::Config& config, Flags& flags) {
  config.Bind("address", &flags.address, "the table service, host:port (a given seat)");
  config.Bind("table", &flags.table, "the table id (a given seat)");
  config.Bind("token", &flags.token, "the seat token (prefer TRIX_PLAY_TOKEN)");
  config.Bind("matchmaking", &flags.matchmaking,
              "the matchmaking service, host:port: find a table instead");
  config.Bind("player", &flags.player, "the player id to find a table for");
  config.Bind("player_token", &flags.player_token,
              "the player's token (a JWT); else MAMLAKA_SERVICE_TOKEN acts for --player");
  config.Bind("name", &flags.name, "the display name at the table");
  config.Bind("mode", &flags.mode, "e.g. complex-partner, classic-solo; empty: Quick Play");
  config.Bind("stake", &flags.stake, "0 = free; else a configured stake level");
  config.Bind("practice", &flags.practice,
              "open a table at --address with MAMLAKA_SERVICE_TOKEN, bots in seats 1-3");
  config.Bind("create_room", &flags.create_room,
              "open a private room through --matchmaking and show its invite code");
  config.Bind("room", &flags.room, "join the private room of this invite code");
  config.Bind("empty_seats", &flags.empty_seats,
              "--create_room: who plays the empty seats: bots, autopilot or wait");
  config.Bind("kingdoms", &flags.kingdoms, "--practice: kingdoms to play, 1-4");
  config.Bind("color", &flags.color, "ANSI colours and reverse video");
  config.Bind("wait_at_end", &flags.wait_at_end, "keep the last screen until a key");
  config.Bind("give_up_after", &flags.give_up_after,
              "stop after this long without news from the table service");
  service::BindChannelTlsFlags(config, &flags.tls);
}

// Finds a table through matchmaking, showing the search (q stops it), then plays
// the seat found.
int FindAndPlay(const Flags& flags) {
  MatchRequest match;
  match.address = flags.matchmaking;
  match.player = flags.player;
  match.display_name = flags.name.empty() ? flags.player : flags.name;
  match.mode = flags.mode;
  match.stake = flags.stake;
  match.credentials = flags.credentials;
  match.bearer = Bearer(flags);
  RawTerminal terminal;
  TableFinder finder(match);
  // q or Ctrl-C stops looking (the ticket is cancelled with the stream).
  std::atomic<bool> found{false};
  std::thread keys([&] {
    while (!found) {
      pollfd fd{STDIN_FILENO, POLLIN, 0};
      if (poll(&fd, 1, 200) <= 0) continue;
      char c = 0;
      if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == '\x03')) finder.Cancel();
    }
  });
  absl::StatusOr<v1::Assignment> seat = finder.Find([&](const std::string& line) {
    const std::string frame = Frame({"Mamlaka Trix · looking for a table", "", line, "",
                                     "(q stops looking)"});
    std::fwrite(frame.data(), 1, frame.size(), stdout);
    std::fflush(stdout);
  });
  found = true;
  keys.join();
  if (!seat.ok()) {
    ShowNoSeat(flags, "No table: " + seat.status().ToString());
    return absl::IsCancelled(seat.status()) ? 0 : 1;  // the person stopped looking
  }
  return PlaySeat(flags, seat->address(), seat->table_id(), seat->seat_token());
}

// The arguments with '-' in flag names read as '_' (--create-room is
// --create_room).
std::vector<std::string> Underscored(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    std::string& a = args[i];
    if (a.rfind("--", 0) != 0) continue;
    const size_t end = std::min(a.find('='), a.size());
    for (size_t c = 2; c < end; ++c)
      if (a[c] == '-') a[c] = '_';
  }
  return args;
}

int Run(int argc, char** argv) {
  Flags flags;
  service::Config config("trix-play", "TRIX_PLAY_");
  Bind(config, flags);
  std::vector<std::string> args = Underscored(argc, argv);
  std::vector<const char*> arg_ptrs;
  for (const std::string& a : args) arg_ptrs.push_back(a.c_str());
  const absl::Status parsed = config.Parse(argc, arg_ptrs.data());
  if (!parsed.ok()) {
    std::cerr << "trix-play: " << parsed.message() << "\n\n" << config.Usage();
    return 2;
  }
  if (config.help()) {
    std::cout << config.Usage() << "\n" << kKeysHelp << kRoomKeysHelp;
    return 0;
  }
  flags.credentials = FlagCredentials("trix-play", flags.tls);
  if (flags.credentials == nullptr) return 2;
  if (flags.practice) return Practice(flags);
  if (flags.create_room || !flags.room.empty()) {
    if (flags.matchmaking.empty() || flags.player.empty()) {
      std::cerr << "trix-play: a room needs --matchmaking and --player\n";
      return 2;
    }
    return PlayRoom(flags);
  }
  const bool given_seat = !flags.table.empty() && !flags.token.empty();
  if (!given_seat && (flags.matchmaking.empty() || flags.player.empty())) {
    std::cerr << "trix-play: give --address, --table and --token (a seat), or "
                 "--matchmaking and --player\n\n"
              << config.Usage();
    return 2;
  }
  if (given_seat) {
    if (flags.address.empty()) flags.address = "127.0.0.1:50051";
    RawTerminal terminal;
    return PlaySeat(flags, flags.address, flags.table, flags.token);
  }
  return FindAndPlay(flags);
}

}  // namespace
}  // namespace trix::bots

int main(int argc, char** argv) { return trix::bots::Run(argc, argv); }
