// The rating model against OpenSkill's published vectors (openskill.js 5.0.1
// src/__tests__/rate.test.ts, src/models/__tests__/plackett-luce.test.ts,
// src/__tests__/parity-plackett-luce.test.ts, and openskill.py 6.2.0's
// plackettluce.json fixture), to 1e-9, plus properties of the update.
#include "services/ratings/openskill.h"

#include <fstream>
#include <random>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "services/common/testing/build_paths.h"

namespace trix::ratings {
namespace {

constexpr double kTolerance = 1e-9;

void ExpectTeams(const std::vector<SkillTeam>& got, const std::vector<SkillTeam>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].size(), want[i].size()) << "team " << i;
    for (size_t j = 0; j < got[i].size(); ++j) {
      EXPECT_NEAR(got[i][j].mu, want[i][j].mu, kTolerance) << "team " << i << " player " << j;
      EXPECT_NEAR(got[i][j].sigma, want[i][j].sigma, kTolerance)
          << "team " << i << " player " << j;
    }
  }
}

std::vector<SkillTeam> Solo(std::vector<Skill> players) {
  std::vector<SkillTeam> teams;
  for (const Skill& p : players) teams.push_back({p});
  return teams;
}

std::vector<SkillTeam> RateOk(const std::vector<SkillTeam>& teams, const RateOptions& o) {
  absl::StatusOr<std::vector<SkillTeam>> r = Rate(teams, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : std::vector<SkillTeam>{};
}

const Skill kDefault{};
const Skill kA1{29.182, 4.782};
const Skill kB1{27.174, 4.922};
const Skill kC1{16.672, 6.217};

TEST(PlackettLuceModel, FourPlayerFreeForAllWithoutTau) {
  ExpectTeams(PlackettLuce(Solo({kDefault, kDefault, kDefault, kDefault}), {}, {}),
              Solo({{27.795084971874736, 8.263160757613477},
                    {26.552824984374855, 8.179213704945203},
                    {24.68943500312503, 8.083731307186588},
                    {20.96265504062538, 8.083731307186588}}));
}

TEST(PlackettLuceModel, TwoThreeAndFivePlayerFreeForAll) {
  ExpectTeams(PlackettLuce(Solo({kDefault, kDefault}), {}, {}),
              Solo({{27.63523138347365, 8.065506316323548},
                    {22.36476861652635, 8.065506316323548}}));
  ExpectTeams(PlackettLuce(Solo({kDefault, kDefault, kDefault}), {}, {}),
              Solo({{27.868876552746237, 8.204837030780652},
                    {25.717219138186557, 8.057829747583874},
                    {21.413904309067206, 8.057829747583874}}));
  ExpectTeams(PlackettLuce(Solo({kDefault, kDefault, kDefault, kDefault, kDefault}), {}, {}),
              Solo({{27.666666666666668, 8.290556877154474},
                    {26.833333333333332, 8.240145629781066},
                    {25.72222222222222, 8.179996679645559},
                    {24.055555555555557, 8.111796013701358},
                    {20.72222222222222, 8.111796013701358}}));
}

TEST(PlackettLuceModel, TeamsOfDifferentSizes) {
  const Skill d = kDefault;
  const Skill x{25.939870821784513, 8.247641552260456};
  const Skill y{21.84646897330287, 8.213058173195341};
  ExpectTeams(PlackettLuce({{d, d, d}, {d}, {d, d}}, {}, {}),
              {{x, x, x}, {{27.21366020491262, 8.274321317985242}}, {y, y}});
}

TEST(PlackettLuceModel, OneTeamChangesNothing) {
  ExpectTeams(PlackettLuce({{kDefault}}, {}, {}), {{kDefault}});
}

TEST(Rate, FourPlayersInOrderWithDefaultTau) {
  RateOptions o;
  o.ranks = {2, 1, 4, 3};  // "accepts a misordered rank ordering"
  ExpectTeams(RateOk(Solo({kDefault, kDefault, kDefault, kDefault}), o),
              Solo({{26.55291815138952, 8.17961798837266},
                    {27.795252672501135, 8.263571791259416},
                    {20.962412806387245, 8.084127880168786},
                    {24.689416369722096, 8.084127880168786}}));
  ExpectTeams(RateOk(Solo({kDefault, kDefault, kDefault, kDefault}), {}),
              Solo({{27.795252672501135, 8.263571791259416},
                    {26.55291815138952, 8.17961798837266},
                    {24.689416369722096, 8.084127880168786},
                    {20.962412806387245, 8.084127880168786}}));
}

TEST(Rate, FourPlayersOfDifferentRatings) {
  ExpectTeams(RateOk(Solo({kA1, kB1, kC1, kDefault}), {}),
              Solo({{30.210227447000438, 4.765617924939384},
                    {27.644725221915632, 4.883479590134575},
                    {17.4036218889969, 6.101259408259549},
                    {19.21460876538932, 7.854669920480409}}));
  RateOptions o;
  o.tau = 0.01;
  ExpectTeams(RateOk(Solo({kA1, kB1, kC1, kDefault}), o),
              Solo({{30.20997558824299, 4.764909330988368},
                    {27.64461002009721, 4.882799245921361},
                    {17.403587237635527, 6.100731158882956},
                    {19.21478808745494, 7.854267281042293}}));
}

TEST(Rate, TauAndLimitSigma) {
  RateOptions o;
  o.tau = 0.01;
  o.limit_sigma = true;
  ExpectTeams(RateOk(Solo({{6.672, 0.0001}, kA1}), o),
              Solo({{6.672012533190158, 0.0001}, {26.316243774876106, 4.7540633621019}}));
  ExpectTeams(RateOk({{{9.182, 0.0001}, kB1}, {kC1, kDefault}}, o),
              {{{9.182004653636957, 0.0001}, {28.301285923165363, 4.889318394468611}},
               {{14.87349383521136, 6.076727029758966}, {21.768626152890867, 7.992333183226455}}});
  RateOptions big;
  big.tau = 0.3;
  ExpectTeams(RateOk(Solo({{25, 3}, {25, 3}}), big),
              Solo({{25.624880438870754, 2.9879993738476953},
                    {24.375119561129246, 2.9879993738476953}}));
  big.limit_sigma = true;
  ExpectTeams(RateOk(Solo({{40, 3}, {-20, 3}}), big),
              Solo({{40.00032667136128, 3}, {-20.000326671361275, 3}}));
}

TEST(Rate, TwoTeamsOfTwo) {
  ExpectTeams(RateOk({{kA1, kB1}, {kC1, kDefault}}, {}),
              {{{29.607340941337068, 4.755311788972862}, {27.624602782532037, 4.892807828777459}},
               {{15.953170429143093, 6.125902065139878}, {23.70858117648013, 8.111707446126035}}});
  RateOptions o;
  o.tau = 0.01;
  ExpectTeams(RateOk({{kA1, kB1}, {kC1, kDefault}}, o),
              {{{29.60722003260825, 4.754607604502581}, {27.624482251695827, 4.892124276331747}},
               {{15.953286947567106, 6.1253654293947335}, {23.708689129525133, 8.111303923213725}}});
}

TEST(Rate, ThreeTeamsInRatingOrder) {
  RateOptions o;
  o.ranks = {3, 1, 2};
  ExpectTeams(RateOk({{kA1, kDefault}, {kB1, kDefault}, {kC1, kDefault}}, o),
              {{{27.857622571955794, 4.744504197327133}, {20.97892943330433, 8.129851804000902}},
               {{27.990904891666695, 4.901705733959291}, {27.341233554297506, 8.2314516336455}},
               {{17.607030910762578, 6.141282638892306}, {26.67983701239816, 8.149157818911323}}});
}

TEST(Rate, RankOrderings) {
  const std::vector<SkillTeam> wxyz = Solo({{15, 25 / 3.0}, {20, 25 / 3.0}, {25, 25 / 3.0}, {30, 25 / 3.0}});
  RateOptions o;
  o.ranks = {1, 3, 4, 2};
  ExpectTeams(RateOk(wxyz, o), Solo({{18.131120980297805, 8.283536573151807},
                                     {20.405169039419135, 8.107860440531121},
                                     {20.65583040714804, 8.082574596348321},
                                     {30.80787957313502, 8.155100416275928}}));
  o.ranks = {2, 4, 2, 1};  // "fixes orders of ties"
  ExpectTeams(RateOk(wxyz, o), Solo({{15.340043358359136, 8.213141619804967},
                                     {18.007678675484204, 8.189033933813437},
                                     {24.25801928251219, 8.166918055585525},
                                     {32.39425868364447, 8.247687230833794}}));
  o.ranks = {2, 1};
  ExpectTeams(RateOk(Solo({kDefault, kDefault}), o),
              Solo({{22.364610506859503, 8.06590141354368}, {27.635389493140497, 8.06590141354368}}));
}

TEST(Rate, Ties) {
  RateOptions o;
  o.ranks = {1, 2, 2};
  const std::vector<SkillTeam> want = Solo({{11.942996666741225, 7.926888197620324},
                                            {2.9381178546315034, 9.653804487570165},
                                            {-1.4024317012198733, 11.323641575516767}});
  ExpectTeams(RateOk(Solo({{10, 8}, {5, 10}, {0, 12}}), o), want);
  o.ranks = {2, 2, 1};  // the same game in another order
  ExpectTeams(RateOk(Solo({{5, 10}, {0, 12}, {10, 8}}), o), {want[1], want[2], want[0]});
  o.ranks = {1, 1, 1, 1};
  const Skill tied{25, 8.263571791259416};
  ExpectTeams(RateOk(Solo({kDefault, kDefault, kDefault, kDefault}), o),
              Solo({tied, tied, tied, tied}));
  o.ranks = {0, 0};
  ExpectTeams(RateOk(Solo({kDefault, kDefault}), o),
              Solo({{25, 8.06590141354368}, {25, 8.06590141354368}}));
}

TEST(Rate, Scores) {
  RateOptions o;
  o.scores = {0, 0};
  ExpectTeams(RateOk(Solo({kDefault, kDefault}), o),
              Solo({{25, 8.06590141354368}, {25, 8.06590141354368}}));
  o.scores = {1, 1, 1};
  const Skill s{25, 8.205243377397993};
  ExpectTeams(RateOk(Solo({kDefault, kDefault, kDefault}), o), Solo({s, s, s}));
  o.scores = {10, 20};  // scores are the ranks reversed
  RateOptions r;
  r.ranks = {2, 1};
  ExpectTeams(RateOk(Solo({kA1, kB1}), o), RateOk(Solo({kA1, kB1}), r));
}

TEST(Rate, DoublesTournamentWithNonDefaultMuAndSigma) {
  struct Match {
    std::array<int, 2> a, b;
    std::array<double, 2> ranks;
  };
  const std::vector<Match> matches = {
      {{1, 0}, {5, 2}, {2, 1}}, {{3, 1}, {6, 0}, {2, 1}}, {{1, 4}, {3, 0}, {2, 1}},
      {{0, 7}, {1, 5}, {1, 2}}, {{0, 4}, {1, 6}, {1, 2}}, {{6, 1}, {3, 4}, {2, 1}},
      {{4, 6}, {0, 1}, {1, 2}}, {{6, 2}, {7, 1}, {1, 2}}, {{3, 6}, {2, 0}, {2, 1}},
      {{1, 3}, {0, 2}, {2, 1}}, {{5, 4}, {2, 0}, {2, 1}}, {{7, 4}, {0, 3}, {2, 1}},
      {{1, 4}, {2, 6}, {2, 1}}, {{5, 4}, {1, 0}, {1, 2}}, {{0, 5}, {1, 2}, {1, 2}},
      {{1, 6}, {7, 0}, {2, 1}}};
  std::vector<Skill> players(8, Skill{0.0, 1.0});
  for (const Match& m : matches) {
    RateOptions o;
    o.mu = 0;
    o.sigma = 1;
    o.ranks = {m.ranks[0], m.ranks[1]};
    std::vector<SkillTeam> after =
        RateOk({{players[m.a[0]], players[m.a[1]]}, {players[m.b[0]], players[m.b[1]]}}, o);
    for (int k = 0; k < 2; ++k) {
      players[m.a[k]] = after[0][k];
      players[m.b[k]] = after[1][k];
    }
  }
  ExpectTeams({players}, {{{0.5567026846130032, 1.034158775793176},
                           {-1.040809215541878, 1.0341609940620864},
                           {0.39069662848779696, 1.018714971172244},
                           {0.00418100716362646, 1.0160852090650665},
                           {0.004454102509053343, 1.0213323603679194},
                           {0.08064393443147759, 1.0134445163810648},
                           {0.0008019558612562538, 1.0213325142564154},
                           {-0.004756003021986366, 1.0107885446332125}}});
}

// openskill.py 6.2.0 tests/models/data/plackettluce.json (see testdata/README.md).
class Fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(SourcePath("services/ratings/testdata/plackettluce.json"));
    ASSERT_TRUE(in) << "missing fixture";
    data_ = nlohmann::json::parse(in);
    options_.mu = data_["model"]["mu"];
    options_.sigma = data_["model"]["sigma"];
  }
  std::vector<SkillTeam> Game(std::vector<int> sizes) const {
    std::vector<SkillTeam> teams;
    for (int n : sizes) teams.emplace_back(n, Skill{options_.mu, options_.sigma});
    return teams;
  }
  std::vector<SkillTeam> Want(const std::string& section) const {
    std::vector<SkillTeam> teams;
    const nlohmann::json& s = data_[section];
    for (size_t i = 1; s.contains("team_" + std::to_string(i)); ++i) {
      SkillTeam team;
      for (const auto& p : s["team_" + std::to_string(i)]) team.push_back({p["mu"], p["sigma"]});
      teams.push_back(team);
    }
    return teams;
  }
  nlohmann::json data_;
  RateOptions options_;
};

TEST_F(Fixture, Normal) { ExpectTeams(RateOk(Game({1, 2}), options_), Want("normal")); }

TEST_F(Fixture, Ranks) {
  options_.ranks = {2, 1, 4, 3};
  ExpectTeams(RateOk(Game({1, 2, 1, 2}), options_), Want("ranks"));
}

TEST_F(Fixture, Scores) {
  options_.scores = {1, 2};
  ExpectTeams(RateOk(Game({1, 2}), options_), Want("scores"));
}

TEST_F(Fixture, LimitSigma) {
  options_.ranks = {2, 1, 3};
  options_.limit_sigma = true;
  ExpectTeams(RateOk(Game({1, 2, 3}), options_), Want("limit_sigma"));
}

TEST_F(Fixture, Ties) {
  options_.ranks = {1, 2, 1};
  ExpectTeams(RateOk(Game({1, 2, 3}), options_), Want("ties"));
}

TEST_F(Fixture, Balance) {
  options_.ranks = {1, 2};
  options_.balance = true;
  ExpectTeams(RateOk(Game({2, 2}), options_), Want("balance"));
}

std::vector<Skill> RandomPlayers(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> mu(0, 50), sigma(0.5, 10);
  std::vector<Skill> out;
  for (int i = 0; i < n; ++i) out.push_back({mu(rng), sigma(rng)});
  return out;
}

TEST(RateProperty, IndependentOfSeatOrder) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const std::vector<Skill> players = RandomPlayers(rng, 4);
    RateOptions o;
    std::uniform_int_distribution<int> place(1, 4);
    for (int i = 0; i < 4; ++i) o.ranks.push_back(place(rng));
    const std::vector<SkillTeam> base = RateOk(Solo(players), o);
    std::vector<int> perm = {0, 1, 2, 3};
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Skill> shuffled;
    RateOptions p;
    for (int k : perm) {
      shuffled.push_back(players[k]);
      p.ranks.push_back(o.ranks[k]);
    }
    const std::vector<SkillTeam> after = RateOk(Solo(shuffled), p);
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(after[k][0].mu, base[perm[k]][0].mu, 1e-12);
      EXPECT_NEAR(after[k][0].sigma, base[perm[k]][0].sigma, 1e-12);
    }
  }
}

TEST(RateProperty, PartnerTeamsIndependentOfSeatOrder) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 100; ++round) {
    const std::vector<Skill> p = RandomPlayers(rng, 4);
    RateOptions o;
    o.ranks = {1, 2};
    const std::vector<SkillTeam> base = RateOk({{p[0], p[1]}, {p[2], p[3]}}, o);
    o.ranks = {2, 1};
    const std::vector<SkillTeam> swapped = RateOk({{p[2], p[3]}, {p[0], p[1]}}, o);
    EXPECT_NEAR(swapped[1][0].mu, base[0][0].mu, 1e-12);
    EXPECT_NEAR(swapped[0][1].sigma, base[1][1].sigma, 1e-12);
  }
}

TEST(RateProperty, TieBetweenEqualsChangesNoMu) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 100; ++round) {
    const Skill s = RandomPlayers(rng, 1)[0];
    for (int n : {2, 4}) {
      RateOptions o;
      o.ranks.assign(n, 1);
      for (const SkillTeam& t : RateOk(Solo(std::vector<Skill>(n, s)), o)) {
        EXPECT_NEAR(t[0].mu, s.mu, 1e-12);
      }
    }
    RateOptions o;
    o.ranks = {1, 1};
    for (const SkillTeam& t : RateOk({{s, s}, {s, s}}, o)) {
      EXPECT_NEAR(t[0].mu, s.mu, 1e-12);
      EXPECT_NEAR(t[1].mu, s.mu, 1e-12);
    }
  }
}

TEST(Rate, RejectsBadGames) {
  EXPECT_EQ(Rate({}, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Rate({{}, {kDefault}}, {}).status().code(), absl::StatusCode::kInvalidArgument);
  RateOptions o;
  o.ranks = {1};
  EXPECT_EQ(Rate(Solo({kDefault, kDefault}), o).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Rate(Solo({kDefault, {25, 0}}), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Rate(Solo({kDefault, {std::nan(""), 1}}), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trix::ratings
