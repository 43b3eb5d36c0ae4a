// End to end: a person's seat played in the terminal. A real table-service process
// (fresh test database, port chosen by the kernel and read from its "serving" log
// line), a one-kingdom complex-solo table opened with the service token, seats 1-3
// played by trix-bot processes, and trix-play for seat 0 running in a tmux session
// (a private tmux server). The test reads the screen with `capture-pane`, answers
// every decision with keys (`send-keys`: a contract by its number, doubling the
// first highlighted card with Space then Enter, cards with Enter or Right+Enter),
// and at the end checks that the screen's final scores are the game record's and
// that the seat was played by those keys, never by the autopilot. With the
// matchmaking service built, trix-play also finds a table through it, and two
// trix-play in two tmux sessions share a private room: a game and a rematch.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bots/common/child_process.h"
#include "bots/sdk/seat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/wire/wire.h"
#include "services/common/testing/build_paths.h"
#include "services/common/testing/read_file.h"
#include "services/pg/testing/database_test.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::bots {
namespace {

constexpr char kServiceToken[] = "e2e-play-service-token";
// Deals seat 0 a queen or the king of hearts to double in the Complex deal.
constexpr uint64_t kSeed = 3;
constexpr absl::Duration kGameTimeout = absl::Seconds(90);

// Runs a shell command; its stdout, and whether it exited 0.
std::string Shell(const std::string& command, bool* ok = nullptr) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    if (ok) *ok = false;
    return out;
  }
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  if (ok) *ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return out;
}

// What tells one decision from the next on the screen: the deal's header, the kind
// of decision and the person's own row (cards left, tricks, scores) without its
// clock. Empty when no decision is open.
std::string DecisionKey(const std::string& screen) {
  std::string key;
  for (absl::string_view line : absl::StrSplit(screen, '\n')) {
    if (absl::StartsWith(line, "Mamlaka Trix")) absl::StrAppend(&key, line, "|");
    if (absl::StrContains(line, "(you)")) {
      absl::StrAppend(&key, line.substr(0, line.find("<-")), "|");
    }
    if (absl::StartsWith(line, "Your turn:")) {
      absl::StrAppend(&key, line.substr(0, line.find(" (selected")).substr(0, 22), "|");
      return key;
    }
  }
  return "";
}

class PlayTmuxTest : public pg::DatabaseTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DatabaseTest::SetUp());
    char dir[] = "/tmp/trix-play-e2e-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    tmux_ = absl::StrCat("tmux -L trix-play-e2e-", getpid(), " ");
    StartService();
    ASSERT_TRUE(WaitServing()) << ReadFile(ServiceLog());
    stub_ = v1::TableService::NewStub(TableChannel(address_));
  }

  void TearDown() override {
    Shell(tmux_ + "kill-server 2>/dev/null");
    for (auto& bot : bots_) bot.reset();
    matchmaking_.reset();
    service_.reset();
    if (HasFailure()) {
      for (const auto& [pane, screen] : screens_)
        std::cerr << "--- last screen of " << pane << "\n" << screen << "\n";
      std::cerr << "--- table-service log\n" << ReadFile(ServiceLog());
      std::cerr << "--- matchmaking log\n" << ReadFile(dir_ + "/matchmaking.log");
      for (const char* pane : {"play", "play2"})
        std::cerr << "--- " << pane << " stderr\n" << ReadFile(ErrPath(pane));
      for (int s = 1; s < 4; ++s) std::cerr << "--- bot " << s << "\n" << ReadFile(BotLog(s));
    }
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string ServiceLog() const { return dir_ + "/table-service.log"; }
  std::string BotLog(int seat) const { return absl::StrCat(dir_, "/bot", seat, ".log"); }

  void StartService() {
    ChildProcess::Options options;
    options.argv = {BuildPath("bin/table-service"),
                    "--listen=127.0.0.1:0",
                    "--migrations_dir=" + SourcePath("migrations"),
                    "--instance_id=e2e-play",
                    "--metrics_port=-1",
                    "--log_level=info"};
    options.env = {{"MAMLAKA_DATABASE_URL", db_->url()},
                   {"MAMLAKA_SERVICE_TOKEN", kServiceToken}};
    options.output_path = ServiceLog();
    absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(options);
    ASSERT_TRUE(child.ok()) << child.status();
    service_ = *std::move(child);
  }

  // The port from the service's "serving" line (it serves once its database is
  // ready).
  bool WaitServing() {
    const absl::Time until = absl::Now() + absl::Seconds(30);
    while (absl::Now() < until && !service_->Poll()) {
      std::istringstream log(ReadFile(ServiceLog()));
      for (std::string line; std::getline(log, line);) {
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded() && j.value("msg", "") == "serving" && j.contains("port")) {
          address_ = absl::StrCat("127.0.0.1:", j["port"].get<int>());
          return true;
        }
      }
      absl::SleepFor(absl::Milliseconds(50));
    }
    return false;
  }

  v1::CreateTableResponse CreateTable() {
    v1::CreateTableRequest request;
    request.set_request_id(absl::StrCat("e2e-play-", getpid()));
    *request.mutable_mode() = wire::ModeFromName("complex-solo").value();
    request.mutable_rules()->set_kingdoms(1);
    request.set_seed(kSeed);
    // The person's clock is long: the autopilot must never play seat 0 here.
    request.mutable_clocks()->set_contract_ms(30000);
    request.mutable_clocks()->set_doubling_ms(30000);
    request.mutable_clocks()->set_card_ms(30000);
    for (int s = 0; s < 4; ++s) {
      v1::SeatAssignment* seat = request.add_seats();
      seat->set_player_id(absl::StrCat("e2e-play-", getpid(), "-", s));
      seat->set_display_name(s == 0 ? "Person" : absl::StrCat("Bot ", s));
      seat->set_bot(s != 0);
    }
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", kServiceToken));
    v1::CreateTableResponse response;
    const grpc::Status s = stub_->CreateTable(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(response.seat_tokens_size(), 4);
    return response;
  }

  void StartBots(const v1::CreateTableResponse& table) {
    for (int s = 1; s < 4; ++s) {
      ChildProcess::Options options;
      options.argv = {BuildPath("bin/trix-bot")};
      options.env = {{"TRIX_BOT_ADDRESS", address_},
                     {"TRIX_BOT_TABLE", table.table_id()},
                     {"TRIX_BOT_TOKEN", table.seat_tokens(s)},
                     {"TRIX_BOT_STRATEGY", s == 2 ? "random" : "heuristic"}};
      options.output_path = BotLog(s);
      absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(options);
      ASSERT_TRUE(child.ok()) << child.status();
      bots_[s] = *std::move(child);
    }
  }

  // The screen of the tmux session `pane` ("play" unless told).
  std::string Capture(const std::string& pane = "play") {
    bool ok = false;
    std::string screen = Shell(tmux_ + "capture-pane -p -t " + pane, &ok);
    if (ok) screens_[pane] = screen;
    if (ok && pane == "play") screen_ = screen;
    return ok ? screen : "";
  }
  void SendKeys(const std::string& keys, const std::string& pane = "play") {
    Shell(tmux_ + "send-keys -t " + pane + " " + keys);
  }

  // trix-play in a tmux session `pane`; its exit status lands in RcPath(pane).
  bool StartPlay(const std::string& flags, const std::string& env,
                 const std::string& pane = "play") {
    const std::string command =
        absl::StrCat(BuildPath("bin/trix-play"), " ", flags, " --color=false 2>", dir_,
                     "/", pane, ".err; echo $? >", RcPath(pane));
    bool started = false;
    Shell(absl::StrCat(tmux_, "new-session -d -s ", pane, " -x 110 -y 50 -e ", env, " '",
                       command, "'"),
          &started);
    return started;
  }
  std::string RcPath(const std::string& pane = "play") const {
    return absl::StrCat(dir_, "/", pane == "play" ? "trix-play" : pane, ".rc");
  }
  std::string ErrPath(const std::string& pane = "play") const {
    return absl::StrCat(dir_, "/", pane, ".err");
  }
  // Waits for trix-play to exit; its exit status as text.
  std::string PlayExit(const std::string& pane = "play") {
    const absl::Time until = absl::Now() + absl::Seconds(10);
    while (absl::Now() < until && ReadFile(RcPath(pane)).empty())
      absl::SleepFor(absl::Milliseconds(50));
    return ReadFile(RcPath(pane));
  }
  // Captures until the screen shows `text`; false after `timeout`.
  bool AwaitScreen(const std::string& text, absl::Duration timeout,
                   const std::string& pane = "play") {
    const absl::Time until = absl::Now() + timeout;
    while (absl::Now() < until) {
      if (absl::StrContains(Capture(pane), text)) return true;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return false;
  }

#ifdef MATCHMAKING_SERVICE_BINARY
  std::string MatchmakingLog() const { return dir_ + "/matchmaking.log"; }
  // A matchmaking process in front of the table service (bots fill seats after a
  // second, the tables' clocks `card_ms`); its address, or "" when it did not
  // serve.
  std::string StartMatchmaking(const std::string& card_ms = "2000") {
    ChildProcess::Options options;
    options.argv = {BuildPath(MATCHMAKING_SERVICE_BINARY),
                    "--listen=127.0.0.1:0",
                    "--migrations_dir=" + SourcePath(MATCHMAKING_MIGRATIONS_DIR),
                    absl::StrCat("--table_address=", address_),
                    "--bot_fill_wait=1s",
                    "--card_ms=" + card_ms,
                    "--metrics_port=-1",
                    "--log_level=info"};
    options.env = {{"MAMLAKA_DATABASE_URL", db_->url()},
                   {"MAMLAKA_SERVICE_TOKEN", kServiceToken}};
    options.output_path = MatchmakingLog();
    absl::StatusOr<std::unique_ptr<ChildProcess>> started = ChildProcess::Start(options);
    EXPECT_TRUE(started.ok()) << started.status();
    if (!started.ok()) return "";
    matchmaking_ = *std::move(started);
    for (absl::Time until = absl::Now() + absl::Seconds(30); absl::Now() < until;) {
      std::istringstream log(ReadFile(options.output_path));
      for (std::string line; std::getline(log, line);) {
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded() && j.value("msg", "") == "serving" && j.contains("port"))
          return absl::StrCat("127.0.0.1:", j["port"].get<int>());
      }
      absl::SleepFor(absl::Milliseconds(50));
    }
    return "";
  }
#endif

  std::string dir_;
  std::string tmux_;
  std::string address_;
  std::unique_ptr<ChildProcess> service_;
  std::unique_ptr<ChildProcess> matchmaking_;
  std::unique_ptr<v1::TableService::Stub> stub_;
  std::array<std::unique_ptr<ChildProcess>, 4> bots_;
  std::string screen_;
  std::map<std::string, std::string> screens_;  // the last screen of each pane
};

TEST_F(PlayTmuxTest, APersonPlaysAWholeGameWithTheKeyboard) {
  bool have_tmux = false;
  Shell("tmux -V", &have_tmux);
  ASSERT_TRUE(have_tmux) << "tmux is missing (scripts/install-deps.sh installs it)";
  const v1::CreateTableResponse table = CreateTable();
  ASSERT_EQ(table.seat_tokens_size(), 4);
  StartBots(table);

  ASSERT_TRUE(StartPlay(absl::StrCat("--address=", address_, " --table=", table.table_id()),
                        absl::StrCat("TRIX_PLAY_TOKEN=", table.seat_tokens(0))));

  // Answers every decision the screen shows until the game is over.
  int contracts = 0, doublings = 0, doubled = 0, cards = 0;
  const absl::Time until = absl::Now() + kGameTimeout;
  std::string last_prompt;
  while (absl::Now() < until) {
    const std::string screen = Capture();
    if (absl::StrContains(screen, "GAME OVER")) break;
    // One answer per decision (a screen between two keys of one answer, or with
    // the clock a second on, is the same decision).
    const std::string prompt = DecisionKey(screen);
    if (!prompt.empty() && prompt != last_prompt) {
      if (absl::StrContains(screen, "Your turn: choose a contract")) {
        SendKeys("1");
        ++contracts;
      } else if (absl::StrContains(screen, "Your turn: double")) {
        SendKeys("Space Enter");  // doubles the first doublable card, if any
        ++doublings;
        const std::string hand = screen.substr(screen.find("Your hand:"));
        doubled += hand.substr(0, hand.find("Your turn")).find('>') != std::string::npos;
      } else if (absl::StrContains(screen, "Your turn: play a card")) {
        // Every other card the second option (Right), when there is one.
        SendKeys(cards % 2 == 1 && absl::StrContains(screen, "[") ? "Right Enter"
                                                                  : "Enter");
        ++cards;
      }
      last_prompt = prompt;
    }
    absl::SleepFor(absl::Milliseconds(60));
  }
  ASSERT_TRUE(absl::StrContains(screen_, "GAME OVER")) << "the game did not end in time";
  for (int s = 1; s < 4; ++s) {
    absl::StatusOr<int> status = bots_[s]->Wait(absl::Seconds(10));
    ASSERT_TRUE(status.ok());
    EXPECT_EQ(*status, 0) << "bot " << s;
  }

  // The record is the final screen's.
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", kServiceToken));
  v1::GetGameRecordRequest request;
  request.set_game_id(table.table_id());
  v1::GameRecord record;
  ASSERT_TRUE(stub_->GetGameRecord(&context, request, &record).ok());
  ASSERT_EQ(record.result().totals_size(), 4);
  const std::string names[] = {"Person", "Bot 1", "Bot 2", "Bot 3"};
  for (int s = 0; s < 4; ++s) {
    EXPECT_TRUE(absl::StrContains(
        screen_, absl::StrFormat("  seat %d  %-30s %+6d", s, names[s],
                                 record.result().totals(s))))
        << "seat " << s;
  }
  EXPECT_TRUE(absl::StrContains(
      screen_, absl::StrFormat("You (seat 0) scored %+d.", record.result().totals(0))));

  // Seat 0 was played by the keys: every one of its actions in the record is its
  // own (none automatic), one per answer sent, 13 cards a deal.
  int deals = 0, my_cards = 0, my_contracts = 0, automatic = 0;
  for (const v1::Event& e : record.events()) {
    deals += e.has_deal_started();
    if (e.has_card_played() && e.card_played().seat() == 0) {
      ++my_cards;
      automatic += e.automatic();
    }
    if (e.has_contract_chosen() && e.contract_chosen().owner() == 0 && !e.automatic())
      ++my_contracts;
  }
  EXPECT_EQ(automatic, 0);
  EXPECT_EQ(my_cards, cards);
  EXPECT_EQ(my_contracts, contracts);
  EXPECT_EQ(deals, 2);  // one kingdom of complex: Trix and Complex
  EXPECT_GT(doublings, 0);
  // The seat doubled a card when it had one: the record reveals seat 0's doubles.
  // (The table's seed deals seat 0 a card it may double.)
  EXPECT_GT(doubled, 0);
  bool revealed = false;
  for (const v1::Event& e : record.events())
    revealed |= e.has_doubles_revealed() && e.doubles_revealed().seat() == 0;
  EXPECT_EQ(revealed, doubled > 0);

  // Any key ends trix-play, with exit status 0.
  SendKeys("x");
  EXPECT_EQ(PlayExit(), "0\n") << ReadFile(ErrPath());
}

// --practice (what scripts/run-local.sh --play runs): trix-play opens the table
// itself with the service token and plays seats 1-3 with its own bots.
TEST_F(PlayTmuxTest, APracticeTableSeatsThePersonAgainstBots) {
  ASSERT_TRUE(StartPlay(absl::StrCat("--address=", address_,
                                     " --practice --kingdoms=1 --name=Ann"),
                        absl::StrCat("MAMLAKA_SERVICE_TOKEN=", kServiceToken)));
  ASSERT_TRUE(AwaitScreen("Your turn:", absl::Seconds(20)));
  EXPECT_TRUE(absl::StrContains(screen_, "Ann (you)"));
  EXPECT_TRUE(absl::StrContains(screen_, "Bot 3 [bot]"));
  SendKeys(absl::StrContains(screen_, "choose a contract") ? "1" : "Space Enter");
  SendKeys("q y");
  ASSERT_TRUE(AwaitScreen("You left the table", absl::Seconds(10)));
  SendKeys("x");
  EXPECT_EQ(PlayExit(), "0\n") << ReadFile(ErrPath());
}

#ifdef MATCHMAKING_SERVICE_BINARY
// Through matchmaking: trix-play asks for a table on the player's behalf (the
// service token), shows the queue, is seated at a table whose other seats the
// autopilot fills, plays its first decisions with keys, then leaves (q, y): the
// table shows the seat as left to the autopilot and trix-play exits 0.
TEST_F(PlayTmuxTest, APersonFindsATableThroughMatchmakingPlaysAndLeaves) {
  const std::string mm_address = StartMatchmaking();
  ASSERT_FALSE(mm_address.empty()) << ReadFile(MatchmakingLog());

  const std::string player = absl::StrCat("e2e-play-mm-", getpid());
  ASSERT_TRUE(StartPlay(absl::StrCat("--matchmaking=", mm_address, " --player=", player,
                                     " --mode=complex-solo"),
                        absl::StrCat("MAMLAKA_SERVICE_TOKEN=", kServiceToken)));
  EXPECT_TRUE(AwaitScreen("queued:", absl::Seconds(10))) << ReadFile(MatchmakingLog());
  ASSERT_TRUE(AwaitScreen("(you)", absl::Seconds(20))) << ReadFile(MatchmakingLog());
  const std::string table_line = screen_.substr(screen_.find("table "));
  const std::string table_id =
      table_line.substr(6, table_line.find(" at ") - 6);

  // The autopilot's seats act on their clocks; answer the person's first prompt.
  ASSERT_TRUE(AwaitScreen("Your turn:", absl::Seconds(30)));
  SendKeys(absl::StrContains(screen_, "choose a contract") ? "1" : "Enter");
  SendKeys("q");
  ASSERT_TRUE(AwaitScreen("Leave the table?", absl::Seconds(5)));
  SendKeys("y");
  ASSERT_TRUE(AwaitScreen("You left the table", absl::Seconds(10)));

  grpc::ClientContext context;
  // The backend's view: a practice table is not open to spectators.
  context.AddMetadata("authorization", absl::StrCat("Bearer ", kServiceToken));
  v1::GetTableRequest request;
  request.set_table_id(table_id);
  v1::TableView view;
  ASSERT_TRUE(stub_->GetTable(&context, request, &view).ok()) << table_id;
  bool found = false;
  for (const v1::SeatView& seat : view.seats()) {
    if (seat.player_id() != player) continue;
    found = true;
    EXPECT_TRUE(seat.left());
  }
  EXPECT_TRUE(found) << "the person has no seat at " << table_id;
  SendKeys("x");
  EXPECT_EQ(PlayExit(), "0\n") << ReadFile(ErrPath());
}

// The text after `label` on the screen's line that has it, to the line's end.
std::string AfterOnLine(const std::string& screen, const std::string& label) {
  const size_t at = screen.find(label);
  if (at == std::string::npos) return "";
  const size_t from = at + label.size();
  return screen.substr(from, screen.find('\n', from) - from);
}

// A private room (rooms.proto) in two terminals: Ann opens it with --create-room,
// Bob joins with the code read from Ann's screen, both say ready (r) and Ann starts
// (g); the autopilot plays the two empty seats. The test answers every decision of
// both seats with Enter until the game is over; both screens then show the room
// with the series (the game's totals as the table recorded them), Ann asks for a
// rematch (r) and both are seated at game 2.
TEST_F(PlayTmuxTest, TwoPeopleInARoomPlayAGameAndARematch) {
  const std::string mm_address = StartMatchmaking("5000");
  ASSERT_FALSE(mm_address.empty()) << ReadFile(MatchmakingLog());
  const std::string env = absl::StrCat("MAMLAKA_SERVICE_TOKEN=", kServiceToken);
  const std::string ann = absl::StrCat("e2e-room-ann-", getpid());
  ASSERT_TRUE(StartPlay(absl::StrCat("--matchmaking=", mm_address, " --player=", ann,
                                     " --name=Ann --create-room --empty_seats=autopilot"),
                        env, "play"));
  ASSERT_TRUE(AwaitScreen("Invite code: ", absl::Seconds(20), "play"));
  const std::string code = AfterOnLine(screens_["play"], "Invite code: ").substr(0, 8);
  ASSERT_TRUE(StartPlay(absl::StrCat("--matchmaking=", mm_address, " --player=e2e-room-bob-",
                                     getpid(), " --name=Bob --room=", code),
                        env, "play2"));
  ASSERT_TRUE(AwaitScreen("Bob (you)", absl::Seconds(20), "play2"));
  ASSERT_TRUE(AwaitScreen("Bob", absl::Seconds(10), "play"));
  EXPECT_TRUE(absl::StrContains(screens_["play"], "seat 0  Ann (you) (owner)"));
  EXPECT_TRUE(absl::StrContains(screens_["play"], "g start the game"));
  SendKeys("r", "play");
  SendKeys("r", "play2");
  ASSERT_TRUE(AwaitScreen(absl::StrFormat("%-32s ready", "Bob (you)"), absl::Seconds(10),
                          "play2"));
  ASSERT_TRUE(AwaitScreen(absl::StrFormat("%-32s ready", "Ann (you) (owner)"),
                          absl::Seconds(10), "play"));
  SendKeys("g", "play");

  // Both seats answered with Enter, once per decision, until both are back in the
  // room with the game over.
  std::map<std::string, std::string> last_prompt;
  std::string table_id;
  for (const absl::Time until = absl::Now() + kGameTimeout; absl::Now() < until;) {
    int over = 0;
    for (const std::string pane : {"play", "play2"}) {
      const std::string screen = Capture(pane);
      if (table_id.empty() && absl::StrContains(screen, "game 1 · table "))
        table_id = AfterOnLine(screen, "game 1 · table ");
      over += absl::StrContains(screen, "Series: 1 game played");
      const std::string prompt = DecisionKey(screen);
      if (!prompt.empty() && prompt != last_prompt[pane]) SendKeys("Enter", pane);
      last_prompt[pane] = prompt;
    }
    if (over == 2) break;
    absl::SleepFor(absl::Milliseconds(40));
  }
  ASSERT_TRUE(absl::StrContains(screens_["play"], "Series: 1 game played"));
  ASSERT_TRUE(absl::StrContains(screens_["play2"], "Series: 1 game played"));
  EXPECT_TRUE(absl::StrContains(screens_["play"], "Keys: r Rematch"));

  // The series shows the game's totals as the table recorded them.
  ASSERT_FALSE(table_id.empty());
  table_id = table_id.substr(0, table_id.find(' '));
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", kServiceToken));
  v1::GetGameRecordRequest request;
  request.set_game_id(table_id);
  v1::GameRecord record;
  ASSERT_TRUE(stub_->GetGameRecord(&context, request, &record).ok()) << table_id;
  ASSERT_EQ(record.result().totals_size(), 4);
  std::string totals;
  for (int32_t t : record.result().totals()) absl::StrAppend(&totals, absl::StrFormat(" %+6d", t));
  EXPECT_TRUE(absl::StrContains(screens_["play2"], "game 1 " + totals)) << totals;

  // Rematch: both are seated at game 2.
  SendKeys("r", "play");
  EXPECT_TRUE(AwaitScreen("game 2 · table ", absl::Seconds(20), "play"));
  EXPECT_TRUE(AwaitScreen("game 2 · table ", absl::Seconds(20), "play2"));
  for (const std::string pane : {"play", "play2"}) {
    SendKeys("q y", pane);  // leaves game 2's table: back in the room
    ASSERT_TRUE(AwaitScreen("Invite code:", absl::Seconds(10), pane));
    SendKeys("q", pane);
    EXPECT_EQ(PlayExit(pane), "0\n") << ReadFile(ErrPath(pane));
  }
}
#endif  // MATCHMAKING_SERVICE_BINARY

}  // namespace
}  // namespace trix::bots
