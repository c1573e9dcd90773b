// The beat drives the window (panels.h lesson_sync): the session to the
// beat's setup and step, the view it asks for (steps, compare with its
// sweep, DDP, hang), the prediction source its checks price with, and the
// note held back until its question is answered; then the presenter's tick.
// Moved from panel_lesson.cpp, unchanged.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/viz/beat_bytes.h"
#include "app/viz/lab_recorded.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"

namespace microddp::viz {

namespace {

// The compare sweep a beat asks for, as a key: a later beat with the same key
// keeps the points already measured (lesson 03's beats change only the count).
std::string sweep_key(const RunParams& p, const std::vector<std::string>& algs, const lesson::BeatView& v) {
  std::string k = fmt::format("{} {} ranks {} nodes {} {} root {} sizes {}..{}:", name(p.spec.collective),
                              p.spec.world_size, p.spec.nodes, name(p.spec.dtype), name(p.spec.op), p.spec.root,
                              v.min_bytes, v.max_bytes);
  for (const auto& a : algs) k += " " + a;
  k += fmt::format(" source {} {} {} {} {}", v.source, v.file, v.system, v.ranks, v.protocols);
  return k;
}

// What a finished sweep leaves in Compare (all of it public).
struct SavedSweep {
  std::vector<SweepCurve> sweep;
  std::string crossover;
  int measured = -1, predicted = -1;
  double predicted_bytes = -1, predicted_us = -1;
  bool finished = false;
};

SavedSweep save_sweep(const Compare& c) {
  return SavedSweep{c.sweep,       c.crossover, c.crossover_measured, c.crossover_predicted, c.crossover_predicted_bytes,
                    c.crossover_predicted_us, !c.sweeping()};
}

// The compare view of beat target t: its algorithms side by side on the
// beat's run (already configured by apply_params when the setup changed),
// and the sweep over the beat's sizes, kept from an earlier beat that asked
// for the same one.
void show_compare(App& app, const BeatTarget& t, const std::vector<std::string>& algs, SavedSweep saved) {
  ViewState& vs = app.vs;
  Compare& cmp = app.compare;
  vs.compare_algorithms = algs;  // apply_params resets them when the collective changed
  if (!(cmp.base == t.params) || cmp.algorithms != algs) cmp.configure(t.params, algs);
  // The columns at the beat's step: `at: end` is the end of every column
  // (their schedules have different lengths), a step number the same step.
  const int want = t.position >= t.num_steps ? cmp.max_steps() : t.position;
  if (cmp.position > want) cmp.reset();
  while (cmp.position < want) cmp.step();
  vs.compare_sweep_max_log2 = std::clamp(int(std::lround(std::log2(double(t.view.max_bytes)))), 10, 28);
  vs.compare_sweep_requested = false;
  // The beat's source (compare_sources.h; lesson 03 checks its conclusion on
  // the recorded lab run, lesson 12 plots the published tables).
  // A lab beat's live lab runs with the beat's NIC and iterations.
  const SourceSpec src = beat_source(app.lesson->current());
  if (!(cmp.sweep_source == src)) cmp.set_sweep_source(src);
  const std::string key = sweep_key(t.params, algs, t.view) + fmt::format(" nic {} iters {}", src.nic, src.iters);
  const bool same = key == vs.lesson_sweep && saved.finished && !saved.sweep.empty() &&
                    !saved.sweep.front().bytes.empty() &&
                    (src.kind != SweepSource::shm || saved.sweep.front().bytes.front() == double(t.view.min_bytes));
  if (same) {
    if (cmp.sweep.empty()) {  // configure() cleared it
      cmp.sweep = std::move(saved.sweep);
      cmp.crossover = saved.crossover;
      cmp.crossover_measured = saved.measured;
      cmp.crossover_predicted = saved.predicted;
      cmp.crossover_predicted_bytes = saved.predicted_bytes;
      cmp.crossover_predicted_us = saved.predicted_us;
    }
  } else {
    cmp.start_sweep(t.view.min_bytes, t.view.max_bytes);
    vs.lesson_sweep = key;
  }
}

// A lab beat whose Compare runs the live lab: once the lab's rows are in,
// its checks on them replace the skipped ones (lab_recorded.h).
// Before they are in, the checks say where the run stands (running, stopped
// by leaving the view, ended without rows: live_lab_pending), and showing the
// Compare view again after leaving it runs the stopped lab anew.
void check_live_lab(App& app) {
  LessonView& L = *app.lesson;
  Compare& cmp = app.compare;
  const lesson::Beat& b = L.current();
  if (b.kind != lesson::Beat::Kind::lab || b.view.source != "lab") return;
  if (!is_beats_live_lab(cmp.sweep_source, b)) return;
  if (app.vs.view == View::compare && cmp.lab_stopped()) cmp.start_sweep(b.view.min_bytes, b.view.max_bytes);
  if (!L.checks_ready()) return;
  const auto* rs = L.results();
  if (!rs || (!rs->empty() && rs->front().what.rfind("measured now", 0) == 0)) return;
  if (const auto run = live_lab_run(cmp.sweep, b.lab)) {
    L.set_results(evaluate_live(b, *run));
    return;
  }
  const LiveLab state = cmp.lab_running() ? LiveLab::running : cmp.lab_stopped() ? LiveLab::stopped : LiveLab::ended;
  if (state == LiveLab::ended && cmp.source_error.empty() && cmp.sweep.empty()) return;  // not started yet
  auto pending = live_lab_pending(b, state, cmp.source_error.empty() ? cmp.source_label : cmp.source_error);
  if (rs->empty() || pending.empty() || rs->front().actual != pending.front().actual) L.set_results(std::move(pending));
}

// A ddp beat's picture out of repeated runs (LessonView::picture,
// core/labs/lesson/picture_runs.h): once the checks that made the runs are
// done, the DDP view draws their median run in place of its own one run,
// at the iteration nearest that run's figure, and the note says where the
// run stands among them and whether they decided the claim. The note waits
// with the checks while the beat's question is open. A viewer who changed
// the run's controls meanwhile keeps their run.
void show_picture(App& app) {
  LessonView& L = *app.lesson;
  if (L.picture_shown || app.vs.view != View::ddp || !L.checks_ready()) return;
  const lesson::PictureRuns* p = L.picture();
  if (!p) return;
  if (!(app.ddp.edit == ddp_params(L.current().ddp))) {
    L.picture_shown = true;
    return;
  }
  if (!app.ddp.runner.show(app.ddp.edit, p->run)) return;  // the view's own run still in flight: a later frame
  L.picture_shown = true;
  app.ddp.iteration = p->iteration;
  const std::string caption = lesson::picture_caption(*p);
  if (L.checks_hidden()) L.held_note = caption;
  else app.vs.lesson_note = caption;
}

// lesson_sync without the presenter: the session, view and source of the
// current beat, once per beat change (and the held note once answered).
void sync_beat(App& app) {
  LessonView& L = *app.lesson;
  if (L.driven_beat() == L.beat()) {
    // Answered: the whole note (a held bytes line waits for this beat's own question).
    if (!L.held_note.empty() && !prediction_withheld(L, L.held_seconds) && !L.checks_hidden()) {
      app.vs.lesson_note = L.held_note;
      L.held_note.clear();
    }
    show_picture(app);
    check_live_lab(app);
    return;
  }
  L.mark_driven();
  ViewState& vs = app.vs;
  vs.lesson_error.clear();
  vs.lesson_note.clear();
  vs.playing = false;
  L.start_checks();
  // Leaving a beat that set the prediction source: the source follows the
  // run again, unless the viewer picked another one meanwhile.
  if (L.lesson_source) {
    if (vs.source == *L.lesson_source) vs.source_follows_nodes = true;
    L.lesson_source.reset();
  }
  // A source that follows the run is the beat's whole prediction state,
  // however the beat is reached: a fresh source (no earlier beat's preset,
  // links or NICs; lesson 05 b6 exported under b5's infiniband, lesson 12
  // b5 with b4's 8 NICs/node), the kind by the beat's nodes, then the beat's
  // own preset or links. The note is priced with that source.
  const auto beat_source_of = [&](const BeatTarget& bt) {
    PredictionSource s;
    const int nodes = bt.drive ? bt.params.spec.nodes : app.session.params().spec.nodes;
    s.kind = nodes > 1 ? PredictionSource::Kind::topology : PredictionSource::Kind::profile;
    if (!bt.preset.empty()) {
      s.kind = PredictionSource::Kind::preset;
      s.preset = bt.preset;
    } else if (bt.links) {
      s = *bt.links;
    }
    return s;
  };
  BeatTarget t;
  try {
    t = beat_target(L.current(), vs.source);
    if (vs.source_follows_nodes) {
      const PredictionSource want = beat_source_of(t);
      if (!(want == vs.source)) {
        vs.source = want;
        t = beat_target(L.current(), vs.source);
      }
    }
  } catch (const std::exception& e) {
    vs.lesson_error = e.what();
    return;
  }
  // No later question's answer in this beat's whole-run bytes (beat_bytes.h).
  if (!t.note_bytes.empty()) {
    std::vector<const lesson::Beat*> later;
    for (int i = L.beat() + 1; i < L.num_beats(); ++i) later.push_back(&L.lesson().beats[static_cast<size_t>(i)]);
    const std::string kept = without_later_answer(t.note_bytes, later);
    if (kept != t.note_bytes) {
      if (const size_t at = t.note.find(t.note_bytes); at != std::string::npos) t.note.replace(at, t.note_bytes.size(), kept);
      t.note_bytes = kept;
    }
  }
  // A beat whose checks price with a preset is shown under that preset, as
  // "predict with" would set it, so the cards, the predicted lines and the
  // checks tell the same numbers. A source the viewer picked stays.
  // (vs.source was set to it above.)
  if ((!t.preset.empty() || t.links) && vs.source_follows_nodes) {
    vs.source_follows_nodes = false;
    L.lesson_source = vs.source;
  }
  // A lab beat's recorded run: its times and the ratios its checks ask (lab_recorded.h).
  try {
    if (const std::string rec = recorded_note(L.lesson(), L.beat()); !rec.empty()) t.note = rec;
  } catch (const std::exception& e) {
    vs.lesson_error = e.what();
  }
  // The prediction at the real size is what a question may ask for (lesson
  // 05 beat 1: "compute T"): held back until it is answered.
  L.held_note.clear();
  vs.lesson_note = shown_note(L, t);
  if (vs.lesson_note != t.note) {
    L.held_note = t.note;
    L.held_seconds = t.note_seconds;
  }
  // The beat's view first: ddp (and hang, lab) beats drive no collective run.
  using VK = lesson::BeatView::Kind;
  vs.lesson_topology = t.view.kind == VK::topology;
  vs.view = t.view.kind == VK::compare ? View::compare : t.view.kind == VK::ddp ? View::ddp : View::main;
  if (t.view.kind == VK::ddp) {
    app.ddp.edit = t.ddp;
    app.ddp.iteration = -1;
    if (!app.ddp.runner.requested() || !(app.ddp.runner.last_requested() == t.ddp)) app.ddp.runner.request(t.ddp);
  }
  if (!t.drive) return;
  SavedSweep saved;
  std::vector<std::string> algs;
  if (t.view.kind == VK::compare) {
    saved = save_sweep(app.compare);
    algs = t.view.algorithms.empty() ? Compare::default_algorithms(t.params.spec.collective) : t.view.algorithms;
    vs.compare_algorithms = algs;
  }
  vs.edit = t.params;
  apply_params(app);  // re-plans and re-runs only when the setup differs
  if (!(app.session.params() == t.params)) {
    vs.lesson_error = vs.error.empty() ? "this beat's setup could not be applied" : vs.error;
    return;
  }
  app.session.seek(t.position);
  L.set_beat_position(t.position);
  if (t.view.kind == VK::compare) show_compare(app, t, algs, std::move(saved));
  if (t.view.kind == VK::compare && L.current().kind == lesson::Beat::Kind::lab) {
    // Beside a recorded lab run, the runs its checks compare with (lab_recorded.h).
    try {
      for (SweepCurve& c : compared_run_curves(L.lesson(), L.beat()))
        if (std::none_of(app.compare.sweep.begin(), app.compare.sweep.end(),
                         [&](const SweepCurve& x) { return x.algorithm == c.algorithm; }))
          app.compare.sweep.insert(app.compare.sweep.begin(), std::move(c));
    } catch (const std::exception& e) {
      vs.lesson_error = e.what();
    }
  }
  vs.anim = 1;
}

}  // namespace

void lesson_sync(App& app) {
  if (!app.lesson) return;
  sync_beat(app);
  presenter_tick(app);  // present.h: --reveal, the speaker file, the clock
}

}  // namespace microddp::viz
