// Which run a ddp beat's picture is (picture_runs.h): the rule, each run's
// figure, the median run and its caption. The runs themselves are made
// and kept by the checks (checks_ddp.cpp, evaluate with a PictureRule).
#include "core/labs/lesson/picture_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "core/model/stats.h"

namespace microddp::lesson {

std::string_view name(PictureFigure f) {
  switch (f) {
    case PictureFigure::comm_ms: return "comm";
    case PictureFigure::exposed_comm_ms: return "exposed comm";
    case PictureFigure::overlap_fraction: return "overlap";
  }
  return "?";
}

namespace {

// The figure and the compared run of a measured timing claim, or none.
struct TimingClaim {
  PictureFigure figure;
  const check::Compare* cmp;
};
std::optional<TimingClaim> measured_claim(const Check& k) {
  return std::visit(
      [](const auto& c) -> std::optional<TimingClaim> {
        using K = std::decay_t<decltype(c)>;
        constexpr bool timing = std::is_same_v<K, check::CommMs> || std::is_same_v<K, check::ExposedCommMs> ||
                                std::is_same_v<K, check::OverlapFraction>;
        if constexpr (timing) {
          if (c.model_clock || c.cmp.op == "equals") return std::nullopt;
          const PictureFigure f = std::is_same_v<K, check::CommMs>          ? PictureFigure::comm_ms
                                  : std::is_same_v<K, check::ExposedCommMs> ? PictureFigure::exposed_comm_ms
                                                                            : PictureFigure::overlap_fraction;
          return TimingClaim{f, &c.cmp};
        } else {
          return std::nullopt;
        }
      },
      k.claim);
}

double iteration_figure(PictureFigure f, const ddp::IterationStats& s) {
  return f == PictureFigure::comm_ms           ? s.comm_ms
         : f == PictureFigure::exposed_comm_ms ? s.exposed_comm_ms
                                               : s.overlap_fraction;
}

// A time in ms to three significant digits, never in exponent form
// ("1360", not "1.36e+03": a 1.4 s run read as 1.36e+03 ms on a slide).
std::string ms3(double v) { return std::abs(v) >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

std::string value(PictureFigure f, double v) {
  return f == PictureFigure::overlap_fraction ? fmt::format("{:.2f}", v) : ms3(v) + " ms";
}

// "2.1 to 12.3 ms" (the unit once), "0.12 to 0.45"; one value alone.
std::string range(PictureFigure f, const std::vector<double>& v) {
  if (v.empty()) return "none";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  if (*lo == *hi) return value(f, *lo);
  const std::string a = f == PictureFigure::overlap_fraction ? fmt::format("{:.2f}", *lo) : ms3(*lo);
  return a + " to " + value(f, *hi);
}

std::string figure_words(PictureFigure f) {
  return f == PictureFigure::overlap_fraction ? "overlap fraction" : fmt::format("{} per iteration", name(f));
}

}  // namespace

std::optional<PictureRule> picture_rule(const Lesson& l, int beat) {
  const Beat& b = l.beats.at(static_cast<size_t>(beat));
  if (b.kind != Beat::Kind::ddp) return std::nullopt;
  for (size_t i = 0; i < b.checks.size(); ++i)
    if (const auto c = measured_claim(b.checks[i])) {
      PictureRule r;
      r.figure = c->figure;
      r.check = static_cast<int>(i);
      return r;
    }
  if (b.name.empty()) return std::nullopt;
  for (size_t j = static_cast<size_t>(beat) + 1; j < l.beats.size(); ++j) {
    if (l.beats[j].kind != Beat::Kind::ddp) continue;
    for (const Check& k : l.beats[j].checks)
      if (const auto c = measured_claim(k); c && c->cmp->other_ddp && c->cmp->other_run == b.name) {
        PictureRule r;
        r.figure = c->figure;
        r.compared_in = static_cast<int>(j);
        r.runs = kPictureRuns;
        return r;
      }
  }
  return std::nullopt;
}

double run_figure(PictureFigure f, const ddp::Result& r) {
  if (r.iterations.empty()) return std::nan("");
  std::vector<double> v;
  for (const auto& it : r.iterations) v.push_back(iteration_figure(f, it));
  return median(v);
}

void choose_picture(PictureRuns& p, const std::vector<std::shared_ptr<const ddp::Result>>& runs) {
  if (runs.size() != p.figures.size())
    throw std::logic_error(fmt::format("choose_picture: {} runs for {} figures", runs.size(), p.figures.size()));
  p.shown = timing::median_run(p.figures);
  p.run = runs.empty() ? nullptr : runs[p.shown];
  p.iteration = 0;
  if (p.run) {
    std::vector<double> its;
    for (const auto& it : p.run->iterations) its.push_back(iteration_figure(p.rule.figure, it));
    p.iteration = static_cast<int>(timing::median_run(its));
  }
}

std::string picture_caption(const PictureRuns& p) {
  const PictureFigure f = p.rule.figure;
  const size_t n = p.figures.size();
  if (n == 0) return "";
  const double fig = p.figures[p.shown];
  // This run's figure, and its iterations' when it has several (the run's
  // figure is their median, the picture one of them).
  std::string mine = value(f, fig);
  if (p.run && p.run->iterations.size() > 1) {
    std::string its;
    const size_t k = p.run->iterations.size();
    for (size_t i = 0; i < k; ++i) {
      const double v = iteration_figure(f, p.run->iterations[i]);
      its += (i == 0 ? "" : i + 1 == k ? " and " : ", ") +
             (f == PictureFigure::overlap_fraction ? fmt::format("{:.2f}", v) : ms3(v));
    }
    mine += fmt::format(" (its iterations {}{}; shown: iteration {})", its,
                        f == PictureFigure::overlap_fraction ? "" : " ms", p.iteration + 1);
  }
  std::vector<double> others;
  for (size_t i = 0; i < n; ++i)
    if (i != p.shown) others.push_back(p.figures[i]);
  const bool same = !others.empty() && std::all_of(others.begin(), others.end(), [&](double x) { return x == fig; });
  const std::string rest =
      others.empty() ? std::string()
      : same         ? fmt::format(", as {} the other {} run{}", others.size() == 1 ? "is" : "are", others.size(),
                                   others.size() == 1 ? "" : "s")
                     : fmt::format(", the other {} run{} {}", others.size(), others.size() == 1 ? "" : "s", range(f, others));
  if (p.rule.check < 0) {
    const std::string later =
        p.rule.compared_in >= 0 ? fmt::format("; beat {} compares this figure on runs of its own", p.rule.compared_in + 1)
                                : std::string();
    return fmt::format("the picture: the median of {} runs of this beat ({}): this run {}{}{}", n, figure_words(f),
                       mine, rest, later);
  }
  const bool vs_run = !p.other_run.empty();
  if (p.verdict == timing::Verdict::not_shown) {
    if (vs_run)
      return fmt::format("not shown on this run: the {} runs of each overlap (this beat {}, run '{}' {}), so no one "
                         "picture shows the claim; the picture is the median run: {}",
                         n, range(f, p.figures), p.other_run, range(f, p.other_figures), mine);
    return fmt::format("not shown on this run: the {} runs straddle {} ({}), so no one picture shows the claim; the "
                       "picture is the median run: {}",
                       n, value(f, p.number), range(f, p.figures), mine);
  }
  const std::string lead = p.verdict == timing::Verdict::fail ? "the runs show the opposite of the claim; " : "";
  const std::string against =
      vs_run ? fmt::format("; run '{}', {} runs interleaved with them: median {} ({})", p.other_run, p.other_figures.size(),
                           value(f, median(p.other_figures)), range(f, p.other_figures))
             : fmt::format("; the claim: {} {}", p.less ? "below" : "above", value(f, p.number));
  return fmt::format("{}the picture: the median of the {} runs the check made ({}): this run {}{}{}", lead, n,
                     figure_words(f), mine, rest, against);
}

}  // namespace microddp::lesson
