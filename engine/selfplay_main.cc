// trix-selfplay: plays one whole game between four autopilot seats with the
// engine alone and prints every public event, then the result.
//
//   trix-selfplay [--mode complex-partner] [--seed 7] [--stakes 100,0,300,0]
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "engine/autopilot.h"
#include "engine/describe.h"
#include "engine/observation.h"
#include "engine/random.h"
#include "engine/result.h"

namespace trix::engine {
namespace {

constexpr char kUsage[] =
    "usage: trix-selfplay [--mode classic-solo|classic-partner|complex-solo|"
    "complex-partner] [--seed N] [--stakes a,b,c,d]\n"
    "Plays one game between four autopilot seats and prints every public event, then\n"
    "the result (payouts in whole units of the stakes).\n";

int Usage(const std::string& problem) {
  std::cerr << problem << "\n" << kUsage;
  return 2;
}

// The game to play, from the command line.
struct Selfplay {
  Rules rules{{Team::kPartner, Format::kComplex}, Options{}};
  uint64_t seed = 1;
  Stakes stakes{};
};

// Reads one flag's value into `play`; what is wrong with it, if anything.
std::optional<std::string> ReadFlag(const std::string& flag, const std::string& value,
                                    Selfplay& play) {
  if (flag == "--mode") {
    std::vector<std::string> parts = absl::StrSplit(value, '-');
    if (parts.size() != 2) return "bad --mode " + value;
    absl::StatusOr<Format> format = ParseFormat(parts[0]);
    absl::StatusOr<Team> team = ParseTeam(parts[1]);
    if (!format.ok() || !team.ok()) return "bad --mode " + value;
    play.rules.variant = {*team, *format};
  } else if (flag == "--seed") {
    if (!absl::SimpleAtoi(value, &play.seed)) return "bad --seed " + value;
  } else if (flag == "--stakes") {
    std::vector<std::string> parts = absl::StrSplit(value, ',');
    if (parts.size() != kNumSeats) return std::string("--stakes takes 4 amounts");
    for (int s = 0; s < kNumSeats; ++s) {
      if (!absl::SimpleAtoi(parts[s], &play.stakes[s])) return "bad stake " + parts[s];
    }
  } else {
    return "unknown flag " + flag;
  }
  return std::nullopt;
}

// Plays the game on the autopilot, printing what a spectator sees.
absl::Status PlayAndShow(Game& game, uint64_t seed) {
  size_t shown = 0;
  while (game.phase() != Phase::kGameOver) {
    Action action;
    if (game.phase() == Phase::kDealing) {
      action = Action::Deal(ShuffledHands(seed, game.deals_started()));
    } else {
      int seat = 0;
      while (!game.CanAct(seat)) ++seat;
      action = AutopilotAction(game, seat);
    }
    if (absl::Status s = game.Apply(action); !s.ok()) return s;
    for (; shown < game.event_count(); ++shown) {
      const Event e = game.event(shown);
      if (VisibleTo(e, kSpectator)) std::cout << DescribeEvent(e) << "\n";
    }
  }
  return absl::OkStatus();
}

void ShowResult(const Selfplay& play, const Game& game) {
  const Variant& variant = play.rules.variant;
  const GameResult r = ResultOf(variant, game.totals(), play.stakes);
  std::cout << ModeName(variant) << " seed " << play.seed << "\n"
            << "totals:  " << absl::StrJoin(r.totals, " ") << "\n"
            << "places:  " << absl::StrJoin(r.places, " ") << "\n";
  if (variant.team == Team::kPartner) {
    std::cout << "teams:   " << absl::StrJoin(r.team_totals, " ") << "  winner: "
              << (r.winner_team < 0 ? std::string("draw")
                                    : "team " + std::to_string(r.winner_team))
              << "\n";
  }
  std::cout << "payouts: " << absl::StrJoin(r.payouts, " ") << "\n";
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return 0;
    }
  }
  if (argc % 2 == 0) return Usage(std::string("a value is missing after ") + argv[argc - 1]);
  Selfplay play;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::optional<std::string> bad = ReadFlag(argv[i], argv[i + 1], play)) {
      return Usage(*bad);
    }
  }
  if (absl::Status s = ValidateStakes(play.stakes); !s.ok()) {
    return Usage(std::string(s.message()));
  }
  Game game(play.rules);
  if (absl::Status s = PlayAndShow(game, play.seed); !s.ok()) {
    std::cerr << "engine rejected its own autopilot: " << s << "\n";
    return 1;
  }
  ShowResult(play, game);
  return 0;
}

}  // namespace
}  // namespace trix::engine

int main(int argc, char** argv) { return trix::engine::Main(argc, argv); }
