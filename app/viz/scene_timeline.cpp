// The timeline panel's scene (panel_timeline.cpp draws it).
#include <algorithm>

#include "app/viz/scene.h"

namespace microddp::viz {

TimelineScene build_timeline(const Session& ses) {
  TimelineScene sc;
  if (!ses.configured()) return sc;
  const Trace& tr = ses.trace();
  const int done = ses.steps_run();
  const auto& pred = ses.prediction();
  sc.compressed = ses.params().mode == Mode::lockstep;
  sc.mode_label = sc.compressed ? "lockstep (barrier after each step; idle time between Step clicks removed)"
                                : "free-running (each rank runs ahead as its data arrives)";
  // Display axis: lockstep steps laid end to end; free-running: raw times.
  std::vector<double> origin(done, 0);
  // Each step's real extent: its ranks' records and every op drawn in it.
  std::vector<int64_t> first(done, INT64_MAX), last(done, 0);
  for (const auto& rank_events : tr.events)
    for (const Event& ev : rank_events)
      if (ev.step >= 0 && ev.step < done && ev.end_ns >= ev.begin_ns) {
        first[ev.step] = std::min(first[ev.step], ev.begin_ns);
        last[ev.step] = std::max(last[ev.step], ev.end_ns);
      }
  double cursor = 0;
  for (int k = 0; k < done; ++k) {
    int64_t b = first[k], e = last[k];
    for (const auto& rr : tr.steps[k]) {
      b = std::min(b, rr.begin_ns);
      e = std::max(e, rr.end_ns);
    }
    if (b == INT64_MAX) b = e = 0;
    StepSpan span;
    span.step = k;
    span.measured_us = tr.step_ns(k) / 1e3;
    span.predicted_us = pred.available && k < static_cast<int>(pred.step_us.size()) ? pred.step_us[k] : -1;
    const StepTiming t = tr.timing(k);
    span.median_us = t.median_ns / 1e3;
    span.p10_us = t.p10_ns / 1e3;
    span.p90_us = t.p90_ns / 1e3;
    span.first_run_us = t.first_run_ns / 1e3;
    span.repetitions = t.repetitions;
    span.includes_barrier = t.includes_barrier;
    if (sc.compressed) {
      origin[k] = cursor - b / 1e3;
      span.begin_us = cursor;
      // Sized by the warm time (the spread and the prediction); the real
      // run's bars get up to kSlotStretch times that, and a cold run far
      // beyond it is drawn cut off (its bars here, its number in the
      // first-run lane), so one cold step does not squash every median.
      const double warm = std::max({span.predicted_us, span.p90_us, 0.001});
      const double real = (e - b) / 1e3;
      const double width = std::max(warm, std::min(real, StepSpan::kSlotStretch * warm));
      span.squeeze = real > width ? real / width : 1.0;
      span.end_us = cursor + width;
      cursor = span.end_us + width * 0.05;
    } else {
      span.begin_us = b / 1e3;
      span.end_us = e / 1e3;
      cursor = std::max(cursor, span.end_us);
    }
    sc.steps.push_back(span);
  }
  sc.span_us = std::max(cursor, 0.001);
  for (int r = 0; r < static_cast<int>(tr.events.size()); ++r)
    for (const Event& ev : tr.events[r]) {
      if (ev.step >= done || ev.end_ns < ev.begin_ns) continue;
      TimelineBar bar;
      bar.rank = r;
      bar.step = ev.step;
      bar.kind = ev.kind;
      bar.peer = ev.peer;
      bar.bytes = ev.bytes;
      bar.dur_us = (ev.end_ns - ev.begin_ns) / 1e3;
      bar.begin_us = ev.begin_ns / 1e3 + (sc.compressed ? origin[ev.step] : 0);
      bar.end_us = bar.begin_us + bar.dur_us;
      if (sc.compressed) {  // a squeezed step: its bars in proportion, inside the slot
        const StepSpan& st = sc.steps[static_cast<size_t>(ev.step)];
        bar.squeeze = st.squeeze;
        bar.begin_us = st.begin_us + (bar.begin_us - st.begin_us) / st.squeeze;
        bar.end_us = st.begin_us + (bar.end_us - st.begin_us) / st.squeeze;
      }
      sc.bars.push_back(bar);
    }
  return sc;
}

}  // namespace microddp::viz
