#include "bots/arena/arena_report.h"

#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "proto/wire/wire.h"

namespace trix::arena {
namespace {

constexpr double kPercentiles[] = {50, 95, 99};

std::string EstimateText(const Estimate& e) {
  return absl::StrFormat("%+9.1f ± %6.1f", e.mean, e.half_width);
}

nlohmann::json EstimateJson(const Estimate& e) {
  return {{"mean", e.mean},
          {"ci95_low", e.mean - e.half_width},
          {"ci95_high", e.mean + e.half_width},
          {"n", e.n}};
}

// Significant at 5% when the interval leaves 0 out.
const char* Verdict(const Estimate& margin) {
  if (margin.Contains(0)) return "no significant difference";
  return margin.mean > 0 ? "A better" : "B better";
}

}  // namespace

std::vector<Figure> ReportedFigures(const MatchReport& report) {
  std::vector<Figure> figures = {Figure::kPoints, Figure::kOwned, Figure::kDoubling};
  engine::Format format = engine::Format::kClassic;
  if (absl::StatusOr<v1::Mode> mode = wire::ModeFromName(report.options.mode); mode.ok()) {
    if (absl::StatusOr<engine::Rules> rules = wire::RulesFromProto(*mode, v1::HouseRules());
        rules.ok()) {
      format = rules->variant.format;
    }
  }
  for (engine::Contract c : engine::ContractsOf(format)) figures.push_back(ContractFigure(c));
  return figures;
}

std::string ReportText(const MatchReport& report) {
  const MatchOptions& o = report.options;
  std::string out = absl::StrFormat(
      "%s: A=%s vs B=%s, %d games (%d duplicate pairs), seed %d, %.1f s (%.1f ms/game)\n",
      o.mode, o.a, o.b, report.games(), report.pairs.size(), o.seed, report.seconds,
      report.games() ? 1000 * report.seconds / report.games() : 0.0);
  if (o.a == "search" || o.b == "search") {
    absl::StrAppend(&out, "search: ", o.search.samples, " samples, ",
                    absl::FormatDuration(o.search.budget), " per decision at most\n");
  }
  absl::StrAppend(&out, "per seat per game, mean ± 95% CI over pairs\n");
  absl::StrAppend(&out, absl::StrFormat("%-16s %18s %18s %18s\n", "figure", "A", "B",
                                        "A - B"));
  for (Figure f : ReportedFigures(report)) {
    absl::StrAppend(&out, absl::StrFormat("%-16s %18s %18s %18s\n", FigureName(f),
                                          EstimateText(report.Of(0, f)),
                                          EstimateText(report.Of(1, f)),
                                          EstimateText(report.Margin(f))));
  }
  absl::StrAppend(&out, "result: ", Verdict(report.Margin(Figure::kPoints)), "\n");
  absl::StrAppend(&out, "decision time, microseconds p50/p95/p99 (decisions)\n");
  for (int side = 0; side < 2; ++side) {
    std::vector<std::string> parts;
    for (int d = 0; d < kNumDecisions; ++d) {
      const Decision decision = static_cast<Decision>(d);
      parts.push_back(absl::StrFormat(
          "%s %.1f/%.1f/%.1f (%d)", DecisionName(decision),
          report.DecisionPercentile(side, decision, 50) / 1e3,
          report.DecisionPercentile(side, decision, 95) / 1e3,
          report.DecisionPercentile(side, decision, 99) / 1e3,
          report.decision_ns[side][d].size()));
    }
    absl::StrAppend(&out, side == 0 ? "A " : "B ", side == 0 ? o.a : o.b, ": ",
                    absl::StrJoin(parts, ", "), "\n");
  }
  return out;
}

nlohmann::json ReportJson(const MatchReport& report) {
  const MatchOptions& o = report.options;
  nlohmann::json out = {{"mode", o.mode},     {"a", o.a},
                        {"b", o.b},           {"seed", o.seed},
                        {"games", report.games()}, {"pairs", report.pairs.size()},
                        {"seconds", report.seconds}};
  out["per"] = "seat and game";
  out["search"] = {{"samples", o.search.samples},
                   {"budget_ms", absl::ToDoubleMilliseconds(o.search.budget)}};
  for (Figure f : ReportedFigures(report)) {
    out["figures"][FigureName(f)] = {{"a", EstimateJson(report.Of(0, f))},
                                     {"b", EstimateJson(report.Of(1, f))},
                                     {"margin", EstimateJson(report.Margin(f))}};
  }
  for (int side = 0; side < 2; ++side) {
    nlohmann::json& times = out["decision_us"][side == 0 ? "a" : "b"];
    for (int d = 0; d < kNumDecisions; ++d) {
      const Decision decision = static_cast<Decision>(d);
      nlohmann::json& t = times[DecisionName(decision)];
      t["count"] = report.decision_ns[side][d].size();
      for (double p : kPercentiles) {
        t[absl::StrCat("p", static_cast<int>(p))] =
            report.DecisionPercentile(side, decision, p) / 1e3;
      }
    }
  }
  return out;
}

bool WriteReportJson(const nlohmann::json& json, const std::string& path,
                     const std::string& program) {
  std::ofstream file(path);
  file << json.dump(2) << "\n";
  if (file) return true;
  std::cerr << program << ": cannot write " << path << "\n";
  return false;
}

}  // namespace trix::arena
