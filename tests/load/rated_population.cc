#include "tests/load/rated_population.h"

#include <algorithm>
#include <cmath>
#include <pqxx/pqxx>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/wire/wire.h"
#include "services/ratings/display.h"
#include "services/pg/array.h"

namespace trix::load {
namespace {

using pg::PgArray;
using pg::PgType;

constexpr int kRowsPerInsert = 5000;

v1::Mode MakeMode(v1::Team team, v1::Format format) {
  v1::Mode mode;
  mode.set_team(team);
  mode.set_format(format);
  return mode;
}

// Like a real lobby: half Quick Play (complex partner), the rest over the others.
v1::Mode LobbyMode(std::mt19937_64& rng) {
  const double m = std::uniform_real_distribution<double>(0, 1)(rng);
  if (m < 0.5) return MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX);
  if (m < 0.7) return MakeMode(v1::TEAM_PARTNER, v1::FORMAT_CLASSIC);
  if (m < 0.85) return MakeMode(v1::TEAM_SOLO, v1::FORMAT_COMPLEX);
  return MakeMode(v1::TEAM_SOLO, v1::FORMAT_CLASSIC);
}

std::optional<MemberRating> DrawRating(const PopulationOptions& o, std::mt19937_64& rng) {
  auto uniform = [&](double a, double b) {
    return std::uniform_real_distribution<double>(a, b)(rng);
  };
  const double kind = uniform(0, 1);
  if (kind < o.newcomer_share) return std::nullopt;
  ratings::Skill skill;
  MemberRating r;
  if (kind < o.newcomer_share + o.provisional_share) {
    r.games = std::uniform_int_distribution<int>(1, ratings::kDefaultProvisionalGames - 1)(rng);
    skill.sigma = uniform(4.5, 7.5);
    skill.mu = std::normal_distribution<double>(25, 3)(rng);
  } else {
    r.games = std::uniform_int_distribution<int>(ratings::kDefaultProvisionalGames, 400)(rng);
    skill.sigma = uniform(1.5, 3.5);
    // The display is what the population is shaped by; mu follows from it.
    const double display =
        std::normal_distribution<double>(o.established_mean, o.established_spread)(rng);
    skill.mu = (display - ratings::kDisplayBase) / ratings::kDisplayScale + 3 * skill.sigma;
  }
  r.mu = skill.mu;
  r.sigma = skill.sigma;
  r.display = ratings::DisplayOf(skill);
  return r;
}

absl::Status InsertRows(pqxx::connection& db, const std::vector<const Member*>& rows) {
  PgArray modes(PgType::kText), ids(PgType::kText), mus(PgType::kText),
      sigmas(PgType::kText), displays(PgType::kInt4), games(PgType::kInt4);
  for (const Member* m : rows) {
    modes.AddString(wire::ModeName(m->mode));
    ids.AddString(m->player_id);
    mus.AddString(absl::StrFormat("%.17g", m->rating->mu));
    sigmas.AddString(absl::StrFormat("%.17g", m->rating->sigma));
    displays.AddInt(m->rating->display);
    games.AddInt(m->rating->games);
  }
  try {
    pqxx::work tx(db);
    tx.exec_params(
        "INSERT INTO ratings.player_ratings (mode, player_id, bot, mu, sigma, display, games) "
        "SELECT m, p, false, mu::float8, s::float8, d, g FROM unnest($1::text[], "
        "$2::text[], $3::text[], $4::text[], $5::int4[], $6::int4[]) AS r(m, p, mu, s, d, g)",
        modes.Finish(), ids.Finish(), mus.Finish(), sigmas.Finish(), displays.Finish(),
        games.Finish());
    tx.commit();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("writing ratings: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace

const Member* Population::NextSolo() {
  const size_t i = next_solo_++;
  return i < solo.size() ? &solo[i] : nullptr;
}

const Member* Population::NextParty() {
  const size_t i = next_party_++;
  return i < party.size() ? &party[i] : nullptr;
}

std::unique_ptr<Population> MakePopulation(const std::string& id_prefix,
                                           const PopulationOptions& options) {
  auto people = std::make_unique<Population>();
  std::mt19937_64 rng(options.seed);
  for (int i = 0; i < options.solo_members; ++i) {
    v1::Mode mode = LobbyMode(rng);
    people->solo.push_back({absl::StrCat(id_prefix, i), mode, DrawRating(options, rng)});
  }
  const v1::Mode quick_play = MakeMode(v1::TEAM_PARTNER, v1::FORMAT_COMPLEX);
  for (int i = 0; i < options.party_members; ++i) {
    people->party.push_back(
        {absl::StrCat(id_prefix, "party-", i), quick_play, DrawRating(options, rng)});
  }
  return people;
}

absl::Status WriteRatings(const std::string& database_url, const Population& people) {
  try {
    pqxx::connection db(database_url);
    std::vector<const Member*> rows;
    for (const std::vector<Member>* group : {&people.solo, &people.party}) {
      for (const Member& m : *group) {
        if (!m.rating) continue;
        rows.push_back(&m);
        if (rows.size() == kRowsPerInsert) {
          if (absl::Status s = InsertRows(db, rows); !s.ok()) return s;
          rows.clear();
        }
      }
    }
    if (!rows.empty()) return InsertRows(db, rows);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("connecting for ratings: ", e.what()));
  }
  return absl::OkStatus();
}

std::string Describe(const Population& people) {
  int64_t established = 0, provisional = 0, newcomers = 0;
  double sum = 0, squares = 0;
  for (const std::vector<Member>* group : {&people.solo, &people.party}) {
    for (const Member& m : *group) {
      if (!m.rating) {
        ++newcomers;
      } else if (m.rating->games < ratings::kDefaultProvisionalGames) {
        ++provisional;
      } else {
        ++established;
        sum += m.rating->display;
        squares += static_cast<double>(m.rating->display) * m.rating->display;
      }
    }
  }
  const double all = std::max<int64_t>(1, established + provisional + newcomers);
  const double n = std::max<int64_t>(1, established);
  const double mean = sum / n;
  return absl::StrFormat(
      "%d players: established %.1f%% (displayed mean %.0f, sd %.0f), provisional "
      "%.1f%%, newcomers %.1f%%",
      static_cast<int64_t>(all), 100 * established / all, mean,
      std::sqrt(std::max(0.0, squares / n - mean * mean)), 100 * provisional / all,
      100 * newcomers / all);
}

}  // namespace trix::load
