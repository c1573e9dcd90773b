// beat_target (lesson_view.h): where the session must be for a lesson beat,
// and the beat's preset and two-level links the window predicts with.
#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <variant>

#include "app/viz/beat_bytes.h"
#include "app/viz/compare.h"
#include "app/viz/hang_view.h"
#include "app/viz/lab_recorded.h"
#include "app/viz/lesson_view.h"
#include "app/viz/stand_in_bottleneck.h"
#include "app/viz/units.h"
#include "core/algorithms/registry.h"
#include "core/model/sweep.h"
#include "kernels/cpu/kernels.h"

namespace microddp::viz {

using namespace microddp::lesson;

namespace {

template <class T>
bool has(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace


DdpParams ddp_params(const ddp::Options& o) {
  DdpParams p;
  p.run = o;
  p.lesson_batch = true;
  return p;
}

namespace {

// "predicted at the real size: 2.93 ms (preset nvlink), 70 ms (preset
// infiniband)": under each preset (or intra / inter topology) the beat's
// `predicted` checks name, else under `source`.
std::string real_size_prediction(const Beat& b, const Schedule& real, const PredictionSource& source,
                                 std::vector<double>& seconds) {
  std::vector<PredictionSource> sources;
  for (const Check& c : b.checks)
    if (const auto* p = std::get_if<check::Predicted>(&c.claim); p && !p->preset.empty()) {
      PredictionSource s;
      if (p->links.inter.empty()) {
        s.kind = PredictionSource::Kind::preset;
        s.preset = p->preset;
      } else {  // two link classes (lesson 09): the check's topology, on the run's nodes
        s.kind = PredictionSource::Kind::topology;
        s.intra = p->links.intra.empty() ? p->preset : p->links.intra;
        s.inter = p->links.inter;
        s.nics_per_node = p->links.nics_per_node;
      }
      if (!has(sources, s)) sources.push_back(s);
    }
  if (sources.empty())
    if (const auto l = beat_links(b)) sources.push_back(*l);  // a nic_bytes-only beat: its links
  if (sources.empty()) sources.push_back(source);
  std::string out;
  for (const PredictionSource& s : sources) {
    const Prediction p = predict(real, s);
    out += out.empty() ? "" : ", ";
    const size_t paren = p.source.find('(');  // "predicted (preset nvlink)" -> "(preset nvlink)"
    const std::string what = paren == std::string::npos ? p.source : p.source.substr(paren);
    out += p.available ? fmt::format("{} {}", format_us(p.total_us), what) : p.source;
    if (p.available) seconds.push_back(p.total_us * 1e-6);
  }
  return out;
}

}  // namespace

std::optional<PredictionSource> beat_links(const Beat& b) {
  for (const Check& c : b.checks) {
    const check::Links* l = nullptr;
    std::string preset;
    if (const auto* p = std::get_if<check::Predicted>(&c.claim)) l = &p->links, preset = p->preset;
    if (const auto* r = std::get_if<check::Ratio>(&c.claim)) l = &r->links, preset = r->preset;
    if (const auto* f = std::get_if<check::Faster>(&c.claim)) l = &f->links, preset = f->preset;
    if (const auto* n = std::get_if<check::NicBytes>(&c.claim)) l = &n->links, preset = n->preset;
    if (!l || l->inter.empty()) continue;
    PredictionSource s;
    s.kind = PredictionSource::Kind::topology;
    s.intra = l->intra.empty() ? preset : l->intra;
    s.inter = l->inter;
    s.nics_per_node = l->nics_per_node;
    return s;
  }
  return std::nullopt;
}

static bool has_predicted_check(const Beat& b) {
  return std::any_of(b.checks.begin(), b.checks.end(), [](const Check& c) {
    const auto* p = std::get_if<check::Predicted>(&c.claim);
    return p && !p->preset.empty();
  });
}

std::string beat_preset(const Beat& b) {
  for (const Check& c : b.checks) {
    std::string preset;
    if (const auto* p = std::get_if<check::Predicted>(&c.claim); p && p->links.inter.empty()) preset = p->preset;
    if (const auto* f = std::get_if<check::Faster>(&c.claim); f && f->links.inter.empty()) preset = f->preset;
    if (const auto* r = std::get_if<check::Ratio>(&c.claim); r && r->links.inter.empty()) preset = r->preset;
    if (!preset.empty()) return preset;
  }
  return "";
}

BeatTarget beat_target(const Beat& b, const PredictionSource& source) {
  if (b.kind == Beat::Kind::hang) return hang_beat_target(b, source);
  if (b.kind == Beat::Kind::lab) {
    // The lab's own placement (nodes x ranks per node, its first algorithm)
    // stepped on kStandInCount elements per rank with threads here, so the
    // picture is the beat's and not the last collective beat's; the note
    // says it is a stand-in and what the lab measures.
    Beat c = b;
    c.kind = Beat::Kind::collective;
    c.checks.clear();
    c.question.reset();
    c.at = Target{};
    Setup& s = c.setup;
    s.collective = b.lab.collective;
    s.algorithm = b.lab.algorithms.empty() ? "ring" : b.lab.algorithms.front();
    s.ranks = b.lab.nodes * b.lab.ranks_per_node;
    s.nodes = b.lab.nodes;
    s.count = kStandInCount;
    s.counts.clear();
    s.data.clear();
    s.delay.reset();
    s.backend = "threads";
    try {
      BeatTarget t = beat_target(c, source);
      if (t.drive) {
        t.view = b.view;
        if (b.view.kind == BeatView::Kind::compare) {
          if (t.view.algorithms.empty()) t.view.algorithms = b.lab.algorithms;  // the lab's, hierarchical included
          // The lab's own measurement in Compare (lab_recorded.h): the
          // recorded run (lesson_sync puts its times in the note), or the
          // live lab, whose label says when it cannot run here.
          t.note = b.view.source == "lab"
                       ? fmt::format("the Compare view starts this beat's cluster lab now ({} nodes x 1 rank, NIC {}): "
                                     "its bars are the live measurement, its label says when the lab cannot run here",
                                     b.lab.nodes, b.lab.nic)
                       : "RECORDED cluster lab run: " + b.view.file;
          return t;
        }
        t.note = fmt::format("{} the lab's placement, {} node{} x {} rank{}, {} on {} elements per rank with threads; "
                             "the lab itself measures {} per rank over {} NICs, which the window does not start "
                             "(`microddp lesson` does)",
                             kStandInNote, b.lab.nodes, b.lab.nodes == 1 ? "" : "s", b.lab.ranks_per_node,
                             b.lab.ranks_per_node == 1 ? "" : "s", s.algorithm, kStandInCount,
                             human_bytes(double(b.lab.bytes)), b.lab.nic);
        t.stand_in = true;
        return t;
      }
    } catch (const std::exception&) {
      // No stand-in for this placement: the note below, the panels keep the last run.
    }
  }
  if (b.kind != Beat::Kind::collective) {
    // DDP, hang-lab and lab beats run their own program: the checks run it for
    // real; the step-through panels keep the last collective, and a ddp beat
    // shown in the DDP view runs its options there too.
    BeatTarget t;
    t.drive = false;
    t.view = b.view;
    t.ddp = ddp_params(b.ddp);
    t.note = b.kind == Beat::Kind::ddp
                 ? (b.view.kind == BeatView::Kind::ddp
                        ? "the DDP view above trains this beat's model for real; the checks run it again"
                        : "this beat trains data-parallel for real (see the checks; `microddp ddp` prints the timeline)")
             : b.kind == Beat::Kind::lab
                 ? "this beat measures in the cluster lab, which the window does not start (`microddp lesson` does)"
                 : "this beat runs the hang lab for real (see the checks; `microddp hang-lab` prints the report)";
    return t;
  }
  const Setup& s = b.setup;
  Prepared p = prepare(s);
  BeatTarget t;
  t.view = b.view;
  t.preset = beat_preset(b);
  t.links = beat_links(b);
  std::vector<std::string> notes;
  if (!p.runnable && s.counts.empty()) {
    // The same ranks and algorithm on a small vector, so the panels show the
    // beat's shape; the beat's own size is priced by the model.
    Setup small = s;
    small.count = kStandInCount;
    small.data.clear();
    try {
      const Prepared q = prepare(small);
      t.note_prediction = real_size_prediction(b, p.schedule, source, t.note_seconds);
      // Where the stand-in's bottleneck is not the beat's (lesson 12 beat 4), the note says so.
      const std::string bottleneck = stand_in_bottleneck(p.schedule, q.schedule, target_step(b.at, p.schedule),
                                                         beat_links(b).value_or(source));
      notes.push_back(fmt::format("{} {} elements per rank on the beat's {} ranks; the beat's {} elements "
                                  "per rank, {}, are too large to run here (prediction only), predicted at that "
                                  "size: {}{}",
                                  kStandInNote, kStandInCount, s.ranks, p.spec.count,
                                  size_text(static_cast<int64_t>(p.spec.count * dtype_size(p.spec.dtype))),
                                  t.note_prediction, bottleneck.empty() ? "" : "; " + bottleneck));
      p = q;
      t.stand_in = true;
    } catch (const std::exception&) {
      // No stand-in for this shape: the panels keep the last run (below).
    }
  }
  if (!t.stand_in && p.runnable && s.counts.empty() && has_predicted_check(b)) {
    // A beat that runs at its own size and whose text quotes the model's time
    // (a `predicted` check): the slide shows that time beside the run, as a
    // stand-in beat does (lesson 05 b3/b4 quoted 28 µs and 29.75 µs with no
    // figure on screen). Withheld like the stand-in's while a question asks it.
    // The note is drawn in parentheses: no brackets inside ("28 µs (preset
    // infiniband)" reads "28 µs on preset infiniband"; lecturer pass 8).
    t.note_prediction = std::regex_replace(real_size_prediction(b, p.schedule, source, t.note_seconds),
                                           std::regex(R"( \(([^()]*)\))"), " on $1");
    notes.push_back(fmt::format("the α-β model for {} per rank: {}",
                                human_bytes(static_cast<double>(p.spec.count * dtype_size(p.spec.dtype))),
                                t.note_prediction));
  }
  t.num_steps = p.schedule.num_steps();
  t.position = target_step(b.at, p.schedule) + 1;
  RunParams& r = t.params;
  r.spec = p.spec;  // a broken form (single_buffered_ring) is planned as its algorithm (prepare)
  const bool broken_form = broken_variant_of(s.algorithm) != nullptr;  // the registry's broken_name
  r.mode = p.mode;
  r.backend = "threads";
  if (!p.runnable) {
    t.drive = false;
    notes.push_back(fmt::format("prediction only: count {} is too large to run here; the panels keep the last "
                                "run and the checks use the α-β model",
                                p.spec.count));
  } else if (!s.counts.empty()) {
    t.drive = false;
    notes.push_back("per-rank counts cannot be stepped in the viewer; the checks run them");
  }
  if (broken_form) {
    // The broken run itself: the one-buffer ring, run for real with the
    // beat's delays through the `corrupts` check's seed search (at most 30
    // runs, so the window never waits long), the first corrupting seed shown.
    RunParams::Broken br;
    br.max_delay_us = s.delay ? s.delay->max_delay_us : 0;
    br.delay_rank = s.delay ? s.delay->rank : -1;
    br.max_seeds = s.delay ? 30 : 1;
    for (const Check& k : b.checks)
      if (const auto* res = std::get_if<check::Result>(&k.claim); res && res->expect == "corrupts")
        br.max_seeds = std::min(br.max_seeds, res->seeds);
    r.broken = br;
    if (b.recorded_run && b.recorded_run->spec == r.spec) {
      // The beat's saved run (`recorded:`): the same run in the window and in
      // every export; the beat's checks still run live, now.
      r.recorded = b.recorded_run;
      notes.push_back(fmt::format("the panels show a {}: the one-buffer ring with delayed sends, seed {} (red cells "
                                  "and red badges differ from what the correct ring holds); the beat's checks run it "
                                  "live, now, on this machine",
                                  recorded_label(b.recorded_run->origin),
                                  b.recorded_run->delay ? b.recorded_run->delay->seed : 0));
    } else {
      notes.push_back(s.delay ? "the panels show the one-buffer ring run for real with delayed sends (the first seed "
                                "that corrupts); red cells differ from what the correct ring holds"
                              : "the panels show the one-buffer ring run for real; red cells differ from what the "
                                "correct ring holds");
    }
  } else if (b.recorded_run && b.recorded_run->spec == r.spec) {
    r.recorded = b.recorded_run;
    notes.push_back(fmt::format("the panels show a {}; the beat's checks run live, now", recorded_label(b.recorded_run->origin)));
  }
  if (s.delay && !broken_form)
    notes.push_back("the checks delay the sends; the panels step without delays");
  if (s.backend != "threads") notes.push_back(fmt::format("the panels run the threads backend, not {}", s.backend));
  // A beat that checks bytes per rank shows them (beat_bytes.h), at the step shown.
  if (t.drive && !t.stand_in &&
      std::any_of(b.checks.begin(), b.checks.end(), [](const Check& c) { return std::holds_alternative<check::Bytes>(c.claim); }))
    notes.push_back(t.note_bytes = bytes_line(p.schedule, t.position, dtype_size(p.spec.dtype)));
  for (const auto& n : notes) t.note += (t.note.empty() ? "" : "; ") + n;
  // The session builds its inputs with the functions prepare() used
  // (parse_data / fill_data), so passing the setup's own rows or fill gives
  // the panels the bytes the checks run on.
  if (t.drive) r.data = !s.data.empty() && !t.stand_in ? s.data : (s.fill.empty() ? "iota" : s.fill);
  return t;
}

}  // namespace microddp::viz
