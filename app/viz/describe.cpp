#include "app/viz/describe.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/viz/compare_panel.h"
#include "app/viz/hang_view.h"
#include "app/viz/lesson_view.h"
#include "app/viz/step_total.h"
#include "core/record/printer.h"

namespace microddp::viz {

std::string prediction_source_text(const PredictionSource& s) {
  using K = PredictionSource::Kind;
  if (s.kind == K::preset) return "preset " + s.preset;
  if (s.kind == K::profile) return "profile (preset " + s.preset + " while there is none)";
  if (!s.topology.empty()) return fmt::format("topology {}, {} NIC{}/node", s.topology, s.nics_per_node, s.nics_per_node == 1 ? "" : "s");
  return fmt::format("topology intra {}, inter {}, {} NIC{}/node", s.intra, s.inter, s.nics_per_node,
                     s.nics_per_node == 1 ? "" : "s");
}

std::string describe_picture(App& app) {
  std::string out;
  const auto line = [&](const std::string& k, const std::string& v) { out += k + ": " + v + "\n"; };
  LessonView* L = app.lesson.get();
  const bool topo = app.vs.lesson_topology && app.vs.view == View::main;
  line("view", app.vs.view == View::compare ? "compare" : app.vs.view == View::ddp ? "ddp" : topo ? "topology" : "steps");
  if (L) {
    line("beat", fmt::format("{} of {}", L->beat() + 1, L->num_beats()));
    line("question", !L->current().question ? "none" : L->answer().answered ? "answered" : "open");
    std::string lit;
    for (int r = 0; r < app.session.params().spec.world_size; ++r)
      if (L->rank_lit(r)) lit += (lit.empty() ? "" : " ") + std::to_string(r);
    line("lit ranks", lit.empty() ? "none" : lit);
    if (!app.vs.lesson_note.empty()) line("note", app.vs.lesson_note);
    if (!app.vs.lesson_error.empty()) line("lesson error", app.vs.lesson_error);
  }
  if (app.vs.view != View::ddp && app.session.configured()) {
    const auto& s = app.session.params().spec;
    line("run", fmt::format("{} {}, {} ranks, {} elements per rank, {} node{}", name(s.collective), s.algorithm,
                            s.world_size, s.count, s.nodes, s.nodes == 1 ? "" : "s"));
    const int pos = L ? L->buffers_position(app.session.position()) : app.session.position();
    line("buffers", shown_steps(app, position_label(pos, app.session.num_steps())));
    line("prediction", prediction_source_text(app.session.source()));
  }
  if (app.vs.view == View::compare) {
    const Compare& c = app.compare;
    std::string algs;
    for (const auto& a : c.algorithms) algs += (algs.empty() ? "" : " ") + a;
    const size_t points = c.sweep.empty() ? 0 : c.sweep.front().bytes.size();
    line("compare", fmt::format("{}, {}; sweep {} points ({})", algs, position_label(c.position, c.max_steps()), points,
                                c.sweeping() ? "running" : "done"));
    const bool hidden = compare_panel::crossover_hidden(app);
    if (!c.source_note.empty()) line("source note", c.source_note);
    if (!c.source_error.empty()) line("source error", c.source_error);
    line("crossover", c.crossover.empty()                      ? "none"
                      : hidden                                  ? "hidden"
                      : !compare_panel::crossover_shown(app) ? "not drawn (the beat is about something else)"
                                                                : c.crossover);
    // --compare-runs: each run's collective, algorithm, ranks and size.
    for (const std::string& t : c.titles) line("compare run", t);
    if (!c.runs_warning.empty()) line("warning", c.runs_warning);
  }
  if (app.vs.view == View::ddp) {
    const DdpRunner& r = app.ddp.runner;
    const auto res = r.result();
    if (!res || res->timelines.empty()) {
      line("ddp", r.running() ? "running run_ddp for real…" : "no result yet");
    } else {
      line("ddp", app.ddp.drawn.header);
      const ddp::Options& o = r.result_params().run;
      line("ddp run", fmt::format("sharded {} prefetch {} overlap {} bucket_cap_mb {:g} iterations {}{}", o.sharded,
                                  o.prefetch, ddp::name(o.overlap), o.bucket_cap_mb, o.iterations,
                                  r.result_params() == app.ddp.edit ? "" : " (not the beat's run)"));
    }
  }
  out += describe_hang(app);  // hang: ... lines on a hang beat (hang_view.h)
  if (L) {
    std::string checks;
    if (L->current().checks.empty()) checks = "none";
    else if (L->checks_hidden()) checks = "hidden";
    else if (!L->checks_ready()) checks = "running";
    else if (!L->check_error().empty()) checks = "could not run: " + L->check_error();
    else checks = "shown";
    line("checks", checks);
  }
  return out;
}

}  // namespace microddp::viz
