#include "app/viz/ddp_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "assets/palette.h"
#include "core/ir/types.h"
#include "core/labs/lesson/lesson.h"

namespace microddp::viz {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

ddp::Options to_options(const DdpParams& p) {
  ddp::Options o = p.run;
  const int64_t n = std::max(o.ranks, 1);
  if (!p.lesson_batch || o.batch < n || o.batch % n != 0) o.batch = 16 * n;
  return o;
}

// ---- runner -------------------------------------------------------------------

DdpRunner::~DdpRunner() {
  if (future_.valid()) future_.wait();
}

void DdpRunner::start(const DdpParams& p) {
  running_ = p;
  started_s_ = now_s();
  const ddp::Options o = to_options(p);
  future_ = std::async(std::launch::async, [o] {
    o.validate();  // UsageError naming the bad value, before any thread starts
    return std::shared_ptr<const ddp::Result>(std::make_shared<ddp::Result>(ddp::run_ddp(o)));
  });
}

void DdpRunner::request(const DdpParams& p) {
  requested_ = true;
  last_requested_ = p;
  if (future_.valid()) {
    pending_ = p;
    has_pending_ = !(p == running_);
    return;
  }
  has_pending_ = false;
  start(p);
}

void DdpRunner::poll() {
  if (future_.valid() && future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    try {
      result_ = future_.get();
      result_params_ = running_;
      error_.clear();
    } catch (const std::exception& e) {
      error_ = e.what();
      future_ = {};
    }
    last_run_s_ = now_s() - started_s_;
  }
  if (!future_.valid() && has_pending_) {
    has_pending_ = false;
    start(pending_);
  }
}

void DdpRunner::wait() {
  while (future_.valid() || has_pending_) {
    if (future_.valid()) future_.wait();
    poll();
  }
}

bool DdpRunner::show(const DdpParams& p, std::shared_ptr<const ddp::Result> r) {
  if (future_.valid() || has_pending_ || !r) return false;
  requested_ = true;
  last_requested_ = result_params_ = p;
  result_ = std::move(r);
  error_.clear();
  return true;
}

// ---- scene --------------------------------------------------------------------

std::string_view name(DdpBarKind k) {
  switch (k) {
    case DdpBarKind::forward: return "forward";
    case DdpBarKind::backward: return "backward";
    case DdpBarKind::comm: return "all-reduce";
    case DdpBarKind::wait: return "waiting";
  }
  return "?";
}

std::string collective_text(std::string_view collective) {
  std::string s(collective);
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

Rgba collective_color(std::string_view collective) {
  if (collective == "all_gather") return op_kind_color(OpKind::send);
  if (collective == "reduce_scatter") return op_kind_color(OpKind::recv_reduce);
  return ddp_kind_color(DdpBarKind::comm);
}

std::string slow_call_note(const ddp::Result& r, int iteration, int cpus, double load) {
  if (r.timelines.empty()) return "";
  const auto& tl = r.timelines[static_cast<size_t>(std::clamp(iteration, 0, int(r.timelines.size()) - 1))];
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  };
  const ddp::CommSpan* worst = nullptr;
  double worst_ms = 0, others_ms = 0, others_bytes = 0;
  for (const auto& c : tl.comm) {
    std::vector<double> ms, bytes;
    for (const auto& o : tl.comm)
      if (&o != &c && o.collective == c.collective) ms.push_back(o.end_ms - o.begin_ms), bytes.push_back(double(o.bytes));
    const double d = c.end_ms - c.begin_ms;
    if (ms.size() < 2 || (worst && d <= worst_ms)) continue;
    const double med = median(ms);
    if (d > 3 * med && d - med >= 1) worst = &c, worst_ms = d, others_ms = med, others_bytes = median(bytes);
  }
  if (!worst) return "";
  std::string beside;
  for (const auto& l : tl.layers)
    if (l.begin_ms < worst->end_ms && worst->begin_ms < l.end_ms) beside = l.backward ? "backward" : "forward";
  const std::string coll = collective_text(worst->collective);
  // CommSpan::bytes is a rank's input: an all-gather's is its shard, an
  // all-reduce's or reduce-scatter's the whole bucket or layer.
  const char* per = worst->collective == "all_gather" ? "per shard" : "per rank";
  const std::string bytes =
      double(worst->bytes) <= others_bytes
          ? fmt::format(", no more bytes ({} B {} against a median of {:.0f} B)", worst->bytes, per, others_bytes)
          : "";
  const std::string machine =
      load >= 0 ? fmt::format("{} CPUs, load average {:.1f} now", cpus, load) : fmt::format("{} CPUs", cpus);
  const std::string why =
      beside.empty()
          ? fmt::format("its ring's threads waited for the CPUs ({}): thread scheduling, not the link.", machine)
          : fmt::format("it ran beside the ranks' {} ({} worker threads and the ring's threads on {}): thread "
                        "scheduling, not the link.",
                        beside, r.options.ranks, machine);
  return fmt::format("The {} of {} took {:.1f} ms against a median of {:.1f} ms for the other {}s{}: {}", coll,
                     worst->what, worst_ms, others_ms, coll, bytes, why);
}

std::string ddp_loss_text(const ddp::Result& r) {
  std::string s = fmt::format("loss {:.6g} -> {:.6g}", r.iterations.front().loss, r.iterations.back().loss);
  if (!std::isnan(r.max_reference_rel_error)) s += fmt::format(", loss diff vs 1 process: {:.1e}", r.max_reference_rel_error);
  return s;
}

bool ddp_loss_withheld(const lesson::Beat& beat) {
  if (!beat.question) return false;
  return std::any_of(beat.checks.begin(), beat.checks.end(),
                     [](const lesson::Check& c) { return std::holds_alternative<lesson::check::SameParams>(c.claim); });
}

std::string ddp_calls_text(const ddp::IterationTimeline& tl) {
  std::vector<std::pair<std::string, int>> counts;  // collective, calls; in order of first use
  for (const auto& c : tl.comm) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& e) { return e.first == c.collective; });
    if (it == counts.end()) counts.emplace_back(c.collective, 1);
    else ++it->second;
  }
  if (counts.empty()) return "0 collectives";
  std::string out;
  for (const auto& [coll, n] : counts)
    out += fmt::format("{}{} {}{}", out.empty() ? "" : ", ", n, collective_text(coll), n == 1 ? "" : "s");
  return out;
}

int greedy_lines(const std::vector<float>& widths, float gap, float avail) {
  int lines = 0;
  float x = 0;
  for (const float w : widths) {
    if (lines == 0 || x + gap + w > avail) {
      ++lines;
      x = w;
    } else {
      x += gap + w;
    }
  }
  return lines;
}

std::vector<DdpLegendItem> ddp_legend(bool sharded) {
  std::vector<DdpLegendItem> items = {
      {"forward", DdpSwatch::fill, ddp_kind_color(DdpBarKind::forward)},
      {"backward", DdpSwatch::fill, ddp_kind_color(DdpBarKind::backward)},
  };
  if (sharded) {
    items.push_back({"all-gather of layer k (AG Lk)", DdpSwatch::fill, collective_color("all_gather")});
    items.push_back({"reduce-scatter of layer k (RS Lk)", DdpSwatch::fill, collective_color("reduce_scatter")});
  } else {
    items.push_back({"all-reduce of bucket 0, 1, 2, …", DdpSwatch::bucket_hues, bucket_color(0)});
    items.push_back({"bucket full", DdpSwatch::bucket_markers, bucket_color(0)});
  }
  items.push_back({"waiting", DdpSwatch::hatch, ddp_kind_color(DdpBarKind::wait)});
  items.push_back({"backward ends", DdpSwatch::dashed, from_hex(assets::kInk)});
  return items;
}

Rgba bucket_color(int bucket) {
  // Okabe-Ito without yellow and grey (too pale on a projector next to white).
  static const uint32_t hues[] = {0x0072B2, 0xE69F00, 0x009E73, 0xCC79A7, 0x56B4E9, 0xD55E00};
  return from_hex(hues[((bucket % 6) + 6) % 6]);
}

Rgba ddp_kind_color(DdpBarKind k) {
  switch (k) {
    case DdpBarKind::forward: return from_hex(0xBDBDBD);
    case DdpBarKind::backward: return from_hex(0x5A5A5A);
    case DdpBarKind::comm: return from_hex(0x0072B2);
    case DdpBarKind::wait: return from_hex(0xD55E00, 110);
  }
  return from_hex(0x999999);
}

namespace {
// A round tick step (1, 2 or 5 times a power of ten) giving at most ~8 ticks.
double tick_step(double span) {
  if (!(span > 0)) return 1;
  const double raw = span / 8;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}
std::string ms_text(double ms) {
  if (ms == 0) return "0";
  return fmt::format("{:g} ms", ms);
}

// The comm lane's idle stretches after backward (DdpGap), from the record.
template <class ToX>
std::vector<DdpGap> comm_gaps(const ddp::IterationTimeline& tl, int ranks, double span_ms, ToX X) {
  std::vector<DdpGap> out;
  const double min_ms = std::max(kDdpGapMinMs, kDdpGapMinFraction * span_ms);
  const auto add = [&](DdpGapCause cause, int call, int bucket, int rank, double begin, double end, double ready) {
    DdpGap g;
    g.cause = cause, g.call = call, g.bucket = bucket, g.rank = rank;
    g.begin_ms = begin, g.end_ms = end, g.ready_ms = ready;
    if (g.end_ms - g.begin_ms < min_ms) return;
    g.x0 = X(g.begin_ms), g.x1 = X(g.end_ms);
    const double idle = g.end_ms - g.begin_ms;
    switch (g.cause) {
      case DdpGapCause::cpu:
        g.labels = {fmt::format("idle {:.1f} ms: b{} posted at {:.1f} ms, waiting for a CPU to start it", idle, g.bucket,
                                g.ready_ms),
                    fmt::format("idle {:.1f} ms: waiting for a CPU", idle), "waiting for a CPU", "no CPU yet"};
        break;
      case DdpGapCause::posting:
        g.labels = {fmt::format("idle {:.1f} ms: waiting for R{} to post b{}", idle, g.rank, g.bucket),
                    fmt::format("waiting for R{} to post b{}", g.rank, g.bucket), fmt::format("waiting for R{}", g.rank)};
        break;
      case DdpGapCause::step:
        g.labels = {fmt::format("SGD step, {:.1f} ms: nothing left to send", idle), "SGD step", "step"};
        break;
    }
    out.push_back(std::move(g));
  };
  std::vector<const ddp::CommSpan*> calls;
  for (const auto& c : tl.comm) calls.push_back(&c);
  std::stable_sort(calls.begin(), calls.end(), [](const auto* a, const auto* b) { return a->call < b->call; });
  double cursor = tl.backward_end_ms;  // the lane's idle time counts from backward's end
  for (const ddp::CommSpan* c : calls) {
    if (c->bucket < 0) return {};  // sharded: no buckets, no posting record
    const ddp::BucketFill* last = nullptr;
    int posted = 0;
    for (const auto& f : tl.fills)
      if (f.bucket == c->bucket) {
        ++posted;
        if (!last || f.posted_ms > last->posted_ms) last = &f;
      }
    if (last && posted == ranks && c->begin_ms > cursor) {
      // Up to the last post: waiting for that rank; after it: for a CPU.
      if (last->posted_ms > cursor)
        add(DdpGapCause::posting, c->call, c->bucket, last->rank, cursor, std::min(last->posted_ms, c->begin_ms),
            last->posted_ms);
      add(DdpGapCause::cpu, c->call, c->bucket, -1, std::max(cursor, last->posted_ms), c->begin_ms, last->posted_ms);
    }
    cursor = std::max(cursor, c->end_ms);
  }
  if (!calls.empty()) add(DdpGapCause::step, -1, -1, -1, cursor, tl.end_ms, 0);
  return out;
}
}  // namespace

std::string ddp_gap_sentence(const DdpGap& g, int ranks, int cpus) {
  switch (g.cause) {
    case DdpGapCause::cpu:
      // The group's communication thread starts with each iteration
      // (core/labs/ddp/train.cpp): before call 0 it may not have run yet.
      return fmt::format("The comm lane is idle from {:.1f} to {:.1f} ms: every rank had posted b{} by {:.1f} ms and "
                         "waits for its result (shaded), but the communication thread{} began it only at {:.1f} ms: "
                         "it waited {:.1f} ms for a CPU ({} worker threads, the collective's threads and the window "
                         "share {} CPUs).",
                         g.begin_ms, g.end_ms, g.bucket, g.ready_ms, g.call == 0 ? ", started with the iteration," : "",
                         g.end_ms, g.end_ms - g.begin_ms, ranks, cpus);
    case DdpGapCause::posting:
      return fmt::format("The comm lane is idle from {:.1f} to {:.1f} ms: R{} posted b{} only at {:.1f} ms, and a call "
                         "starts when every rank has posted it.",
                         g.begin_ms, g.end_ms, g.rank, g.bucket, g.ready_ms);
    case DdpGapCause::step:
      return fmt::format("From {:.1f} to {:.1f} ms the ranks copy the averaged gradients and take the SGD step: nothing "
                         "left to send.",
                         g.begin_ms, g.end_ms);
  }
  return "";
}

DdpScene build_ddp_scene(const ddp::Result& r, int iteration, const DdpLayout& L) {
  DdpScene sc;
  const int n = r.options.ranks;
  float y = 0;
  for (int rank = 0; rank < n; ++rank) {
    sc.lanes.push_back({fmt::format("R{}", rank), rank, y, y + L.lane_h});
    y += L.lane_h + L.gap;
  }
  const int comm_lane = n;
  sc.lanes.push_back({"comm", -1, y, y + L.comm_h});
  sc.height = y + L.comm_h;
  sc.plot_x0 = L.label_w;
  sc.plot_x1 = std::max(L.width, L.label_w + 10);
  if (r.timelines.empty()) return sc;
  const int it = std::clamp(iteration, 0, int(r.timelines.size()) - 1);
  sc.iteration = it;
  const ddp::IterationTimeline& tl = r.timelines[size_t(it)];
  double span = tl.end_ms;
  for (const auto& c : tl.comm) span = std::max(span, c.end_ms);
  for (const auto& l : tl.layers) span = std::max(span, l.end_ms);
  for (const auto& w : tl.waits) span = std::max(span, w.end_ms);
  sc.span_ms = span > 0 ? span : 1;
  sc.backward_end_ms = tl.backward_end_ms;
  const double scale = (sc.plot_x1 - sc.plot_x0) / sc.span_ms;
  auto X = [&](double ms) { return sc.plot_x0 + float(std::clamp(ms, 0.0, sc.span_ms) * scale); };
  auto bar_x = [&](DdpBar& b) {
    b.x0 = X(b.begin_ms);
    b.x1 = std::max(X(b.end_ms), std::min(b.x0 + L.min_bar_px, sc.plot_x1));
    if (b.x1 - b.x0 < L.min_bar_px) b.x0 = b.x1 - L.min_bar_px;  // a bar at the very end
  };
  sc.backward_end_x = X(tl.backward_end_ms);

  // Compute: forward in the lane's upper part is not needed; forward and
  // backward never overlap on a rank, so both fill the lane (a strip at the
  // top is left for the bucket fill markers).
  const float marker_h = std::round(L.lane_h * 0.28f);
  std::vector<ddp::LayerSpan> layers = tl.layers;
  std::stable_sort(layers.begin(), layers.end(), [](const auto& a, const auto& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.begin_ms < b.begin_ms;
  });
  for (const auto& l : layers) {
    if (l.rank < 0 || l.rank >= n) continue;
    DdpBar b;
    b.kind = l.backward ? DdpBarKind::backward : DdpBarKind::forward;
    b.lane = l.rank, b.rank = l.rank, b.layer = l.layer;
    b.begin_ms = l.begin_ms, b.end_ms = l.end_ms;
    bar_x(b);
    b.y0 = sc.lanes[size_t(l.rank)].y0 + marker_h;
    b.y1 = sc.lanes[size_t(l.rank)].y1;
    b.color = ddp_kind_color(b.kind);
    b.label = fmt::format("L{}", l.layer);
    sc.bars.push_back(std::move(b));
  }
  // Communication: one stream, calls in sequence order.
  std::vector<ddp::CommSpan> comm = tl.comm;
  std::stable_sort(comm.begin(), comm.end(), [](const auto& a, const auto& b) { return a.call < b.call; });
  for (const auto& c : comm) {
    DdpBar b;
    b.kind = DdpBarKind::comm;
    b.lane = comm_lane;
    b.bucket = c.bucket >= 0 ? c.bucket : c.layer;
    b.call = c.call, b.bytes = c.bytes;
    b.collective = c.collective;
    b.begin_ms = c.begin_ms, b.end_ms = c.end_ms;
    bar_x(b);
    b.y0 = sc.lanes[size_t(comm_lane)].y0;
    b.y1 = sc.lanes[size_t(comm_lane)].y1;
    if (c.bucket >= 0) {
      b.color = bucket_color(c.bucket);
      b.label = fmt::format("b{}", c.bucket);
    } else if (c.layer >= 0) {  // sharded: the collective and its layer
      b.color = collective_color(c.collective);
      b.label = fmt::format("{} L{}", c.collective == "all_gather" ? "AG" : c.collective == "reduce_scatter" ? "RS" : "AR",
                            c.layer);
      b.short_label = fmt::format("L{}", c.layer);
    } else {
      b.color = ddp_kind_color(DdpBarKind::comm);
      b.label = fmt::format("#{}", c.call);
    }
    sc.bars.push_back(std::move(b));
  }
  // Exposed waits, over the rank's lane.
  for (const auto& w : tl.waits) {
    if (w.rank < 0 || w.rank >= n || !(w.end_ms > w.begin_ms)) continue;
    DdpBar b;
    b.kind = DdpBarKind::wait;
    b.lane = w.rank, b.rank = w.rank, b.call = w.call;
    b.begin_ms = w.begin_ms, b.end_ms = w.end_ms;
    bar_x(b);
    b.y0 = sc.lanes[size_t(w.rank)].y0 + marker_h;
    b.y1 = sc.lanes[size_t(w.rank)].y1;
    b.color = ddp_kind_color(DdpBarKind::wait);
    sc.bars.push_back(std::move(b));
  }
  for (const auto& f : tl.fills) {
    if (f.rank < 0 || f.rank >= n) continue;
    DdpMarker m;
    m.lane = f.rank, m.rank = f.rank, m.bucket = f.bucket;
    m.ready_ms = f.ready_ms, m.posted_ms = f.posted_ms;
    m.x = X(f.ready_ms), m.x_posted = X(f.posted_ms);
    m.y0 = sc.lanes[size_t(f.rank)].y0;
    m.y1 = m.y0 + marker_h;
    m.color = bucket_color(f.bucket);
    sc.markers.push_back(m);
  }
  sc.gaps = comm_gaps(tl, n, sc.span_ms, X);
  const double step = tick_step(sc.span_ms);
  for (int k = 0; k * step <= sc.span_ms * (1 + 1e-9); ++k)
    sc.ticks.push_back({X(k * step), k * step, ms_text(k * step)});
  return sc;
}

std::vector<float> ddp_strip_layout(const std::vector<float>& want, const std::vector<float>& widths, float x0, float x1,
                                    float gap) {
  const size_t n = std::min(want.size(), widths.size());
  std::vector<float> at(n);
  // Left to right: at its wish, or just after the one before.
  for (size_t i = 0; i < n; ++i) at[i] = std::max(i == 0 ? x0 : at[i - 1] + widths[i - 1] + gap, want[i]);
  // Right to left: back inside x1, pushing the ones before to the left, not past x0.
  for (size_t k = n; k-- > 0;) {
    const float limit = k + 1 == n ? x1 - widths[k] : at[k + 1] - gap - widths[k];
    at[k] = std::max(std::min(at[k], limit), x0);
  }
  // (Where they do not fit, the left pass again: in order, apart, past x1.)
  for (size_t i = 1; i < n; ++i) at[i] = std::max(at[i], at[i - 1] + widths[i - 1] + gap);
  return at;
}

DdpStrip ddp_strip_rows(const std::vector<float>& want, const std::vector<float>& widths, float x0, float x1, float gap,
                        int max_rows) {
  const size_t n = std::min(want.size(), widths.size());
  DdpStrip s;
  if (n == 0) return s;
  // Row r holds labels r, r + rows, r + 2 rows, ...: does each row fit?
  const auto fits = [&](int rows) {
    for (int r = 0; r < rows; ++r) {
      float w = 0;
      int k = 0;
      for (size_t i = size_t(r); i < n; i += size_t(rows), ++k) w += widths[i] + (k ? gap : 0);
      if (w > x1 - x0) return false;
    }
    return true;
  };
  s.rows = std::max(1, max_rows);
  for (int rows = 1; rows < s.rows; ++rows)
    if (fits(rows)) {
      s.rows = rows;
      break;
    }
  s.at.resize(n);
  for (int r = 0; r < s.rows; ++r) {
    std::vector<float> w, wd;
    for (size_t i = size_t(r); i < n; i += size_t(s.rows)) w.push_back(want[i]), wd.push_back(widths[i]);
    const std::vector<float> at = ddp_strip_layout(w, wd, x0, x1, gap);
    size_t k = 0;
    for (size_t i = size_t(r); i < n; i += size_t(s.rows), ++k)
      s.at[i] = {at[k], r, at[k] >= x0 - 0.5f && at[k] + wd[k] <= x1 + 0.5f};
  }
  return s;
}

}  // namespace microddp::viz
