// End to end: a person's seat played in the terminal. A real table-service process
// (fresh test database, port chosen by the kernel and read from its "serving" log
// line), a one-kingdom complex-solo table opened with the service token, seats 1-3
// played by trix-bot processes, and trix-play for seat 0 running in a tmux session
// (a private tmux server). The test reads the screen with `capture-pane`, answers
// every decision with keys (`send-keys`: a contract by its number, doubling the
// first highlighted card with Space then Enter, cards with Enter or Right+Enter),
// and at the end checks that the screen's final scores are the game record's and
// that the seat was played by those keys, never by the autopilot.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
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
#include "services/storage/testing/database_test.h"
#include "trix/v1/table.grpc.pb.h"

namespace trix::bots {
namespace {

constexpr char kServiceToken[] = "e2e-play-service-token";
// Deals seat 0 a queen or the king of hearts to double in the Complex deal.
constexpr uint64_t kSeed = 3;
constexpr absl::Duration kGameTimeout = absl::Seconds(90);

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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

class PlayTmuxTest : public storage::DatabaseTest {
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
    service_.reset();
    if (HasFailure()) {
      std::cerr << "--- last screen\n" << screen_ << "\n--- table-service log\n"
                << ReadFile(ServiceLog());
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

  std::string Capture() {
    bool ok = false;
    std::string screen = Shell(tmux_ + "capture-pane -p -t play", &ok);
    if (ok) screen_ = screen;
    return ok ? screen : "";
  }
  void SendKeys(const std::string& keys) { Shell(tmux_ + "send-keys -t play " + keys); }

  // trix-play in a tmux session "play"; its exit status lands in RcPath().
  bool StartPlay(const std::string& flags, const std::string& env) {
    const std::string command =
        absl::StrCat(BuildPath("bin/trix-play"), " ", flags, " --color=false 2>", dir_,
                     "/trix-play.err; echo $? >", RcPath());
    bool started = false;
    Shell(absl::StrCat(tmux_, "new-session -d -s play -x 110 -y 50 -e ", env, " '",
                       command, "'"),
          &started);
    return started;
  }
  std::string RcPath() const { return dir_ + "/trix-play.rc"; }
  // Waits for trix-play to exit; its exit status as text.
  std::string PlayExit() {
    const absl::Time until = absl::Now() + absl::Seconds(10);
    while (absl::Now() < until && ReadFile(RcPath()).empty())
      absl::SleepFor(absl::Milliseconds(50));
    return ReadFile(RcPath());
  }
  // Captures until the screen shows `text`; false after `timeout`.
  bool AwaitScreen(const std::string& text, absl::Duration timeout) {
    const absl::Time until = absl::Now() + timeout;
    while (absl::Now() < until) {
      if (absl::StrContains(Capture(), text)) return true;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return false;
  }

  std::string dir_;
  std::string tmux_;
  std::string address_;
  std::unique_ptr<ChildProcess> service_;
  std::unique_ptr<v1::TableService::Stub> stub_;
  std::array<std::unique_ptr<ChildProcess>, 4> bots_;
  std::string screen_;
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
  EXPECT_EQ(PlayExit(), "0\n") << ReadFile(dir_ + "/trix-play.err");
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
  EXPECT_EQ(PlayExit(), "0\n") << ReadFile(dir_ + "/trix-play.err");
}

#ifdef MATCHMAKING_SERVICE_BINARY
// Through matchmaking: trix-play asks for a table on the player's behalf (the
// service token), shows the queue, is seated at a table whose other seats the
// autopilot fills, plays its first decisions with keys, then leaves (q, y): the
// table shows the seat as left to the autopilot and trix-play exits 0.
TEST_F(PlayTmuxTest, APersonFindsATableThroughMatchmakingPlaysAndLeaves) {
  ChildProcess::Options options;
  options.argv = {BuildPath(MATCHMAKING_SERVICE_BINARY),
                  "--listen=127.0.0.1:0",
                  "--migrations_dir=" + SourcePath(MATCHMAKING_MIGRATIONS_DIR),
                  absl::StrCat("--table_address=", address_),
                  "--bot_fill_wait=1s",
                  "--card_ms=2000",
                  "--metrics_port=-1",
                  "--log_level=info"};
  options.env = {{"MAMLAKA_DATABASE_URL", db_->url()},
                 {"MAMLAKA_SERVICE_TOKEN", kServiceToken}};
  options.output_path = dir_ + "/matchmaking.log";
  absl::StatusOr<std::unique_ptr<ChildProcess>> matchmaking = ChildProcess::Start(options);
  ASSERT_TRUE(matchmaking.ok()) << matchmaking.status();
  std::string mm_address;
  for (absl::Time until = absl::Now() + absl::Seconds(30);
       mm_address.empty() && absl::Now() < until;) {
    std::istringstream log(ReadFile(options.output_path));
    for (std::string line; std::getline(log, line);) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.value("msg", "") == "serving" && j.contains("port"))
        mm_address = absl::StrCat("127.0.0.1:", j["port"].get<int>());
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_FALSE(mm_address.empty()) << ReadFile(options.output_path);

  const std::string player = absl::StrCat("e2e-play-mm-", getpid());
  ASSERT_TRUE(StartPlay(absl::StrCat("--matchmaking=", mm_address, " --player=", player,
                                     " --mode=complex-solo"),
                        absl::StrCat("MAMLAKA_SERVICE_TOKEN=", kServiceToken)));
  EXPECT_TRUE(AwaitScreen("queued:", absl::Seconds(10))) << ReadFile(options.output_path);
  ASSERT_TRUE(AwaitScreen("(you)", absl::Seconds(20))) << ReadFile(options.output_path);
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
  EXPECT_EQ(PlayExit(), "0\n") << ReadFile(dir_ + "/trix-play.err");
}
#endif  // MATCHMAKING_SERVICE_BINARY

}  // namespace
}  // namespace trix::bots
