#include "core/record/printer.h"

#include "core/algorithms/registry.h"
#include "core/ir/units.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

#include <algorithm>
#include <cmath>

namespace microddp {

namespace {

// "[a, b, c]" of n items given by item(i), elided as printer.h says. Stops
// formatting once the text is known to be too wide, so a million-element
// output costs only its first values and the last kEdgeValues.
template <class Item>
std::string join_elided(size_t n, Item item, const PrintOptions& o) {
  const bool may_elide = !o.full && n > 2 * kEdgeValues;  // eliding must hide something
  std::string all = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) all += ", ";
    all += item(i);
    if (may_elide && all.size() > kValuesWidth) {
      std::string s = "[";
      for (size_t k = 0; k < kEdgeValues; ++k) s += item(k) + ", ";
      s += "…";
      for (size_t k = n - kEdgeValues; k < n; ++k) s += ", " + item(k);
      return s + "]";
    }
  }
  return all + "]";
}

std::string value_text(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{}", x);
}

}  // namespace

std::string join_values(const std::vector<std::string>& items, const PrintOptions& o) {
  return join_elided(items.size(), [&](size_t i) { return items[i]; }, o);
}

std::string format_values(const std::vector<double>& v, const PrintOptions& o, const std::vector<bool>& written) {
  return join_elided(
      v.size(), [&](size_t i) { return !written.empty() && !written[i] ? std::string("·") : value_text(v[i]); }, o);
}

std::string buffer_label(const Schedule& s, int rank, Buf b, int storage) {
  // The storages behind double-buffered names get letters A, B, ... so that
  // a swap is visible; other buffers keep their plain names.
  const RankLayout L = rank_layout(s, rank);
  std::vector<int> swapped;
  for (const auto& st : s.steps)
    for (const Op& o : st.ranks[rank])
      if (o.kind == OpKind::swap)
        for (Buf x : {o.src.buf, o.dst.buf}) {
          const int id = L.view[static_cast<int>(x)].storage;
          if (std::find(swapped.begin(), swapped.end(), id) == swapped.end()) swapped.push_back(id);
        }
  std::sort(swapped.begin(), swapped.end());
  const auto it = std::find(swapped.begin(), swapped.end(), storage);
  if (it == swapped.end()) return std::string(name(b));
  return fmt::format("{} ({})", name(b), static_cast<char>('A' + (it - swapped.begin())));
}

static std::string bytes_str(int64_t b) {
  if (b < 10 * 1024) return fmt::format("{} B", b);
  if (b < 10 * 1024 * 1024) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{:.1f} MiB", b / 1048576.0);
}

static std::string range(int64_t off, int64_t len) { return fmt::format("[{}, {})", off, off + len); }

std::string count_noun(int64_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

std::string format_step_time(const StepTiming& t) {
  const std::string barrier = t.includes_barrier ? "barrier included" : "";
  if (t.repetitions == 0)
    return fmt::format("measured {}{}", format_us(t.first_run_ns / 1000.0, 1),
                       barrier.empty() ? "" : fmt::format(" (one run, {})", barrier));
  return fmt::format("{} median (p10 {}, p90 {}, {}{}; first run {})", format_us(t.median_ns / 1000.0, 1),
                     format_us(t.p10_ns / 1000.0, 1), format_us(t.p90_ns / 1000.0, 1), count_noun(t.repetitions, "rep"),
                     barrier.empty() ? "" : ", " + barrier, format_us(t.first_run_ns / 1000.0, 1));
}

RunTotals run_totals(const Trace& t) {
  RunTotals r;
  double median_ns = 0, first_ns = 0;
  bool all_repeated = !t.steps.empty();
  for (int k = 0; k < static_cast<int>(t.steps.size()); ++k) {
    const StepTiming st = t.timing(k);
    median_ns += static_cast<double>(st.median_ns);
    first_ns += static_cast<double>(st.first_run_ns);
    if (st.repetitions == 0) all_repeated = false;
    r.repetitions = k ? std::min(r.repetitions, st.repetitions) : st.repetitions;
  }
  r.first_run_us = first_ns / 1000.0;
  if (all_repeated) r.median_us = median_ns / 1000.0;
  return r;
}

std::string format_predicted(double predicted_us, double measured_median_us) {
  if (predicted_us < 0) return "";
  std::string out = fmt::format(" · predicted {}", format_us(predicted_us, 1));
  if (measured_median_us > 0)
    out += fmt::format(" (error {:+.1f}%)", (predicted_us - measured_median_us) / measured_median_us * 100.0);
  return out;
}

namespace {
// The step's warm median in µs, or -1 when it ran once (or not at all).
double step_median_us(const Trace& t, int step) {
  if (step >= static_cast<int>(t.steps.size())) return -1;
  const StepTiming st = t.timing(step);
  return st.repetitions > 0 ? static_cast<double>(st.median_ns) / 1000.0 : -1;
}
}  // namespace

std::string ordinal(int n) {
  const int t = n % 100, u = n % 10;
  const char* suf = (t >= 11 && t <= 13) ? "th" : u == 1 ? "st" : u == 2 ? "nd" : u == 3 ? "rd" : "th";
  return fmt::format("{}{}", n, suf);
}

std::string step_label(int step, int num_steps) {
  return fmt::format("step {} ({} of {})", step, ordinal(step + 1), num_steps);
}

std::string position_label(int position, int num_steps) {
  if (num_steps <= 0) return "no steps";
  if (position <= 0) return fmt::format("before step 0 · 0 of {} steps run", num_steps);
  const int p = std::min(position, num_steps);
  return fmt::format("after step {} · {} of {} steps run", p - 1, p, num_steps);
}

std::string format_measured_total(const Trace& t, double total_us, double predicted_total_us) {
  const RunTotals r = run_totals(t);
  if (r.median_us < 0)
    return fmt::format("{} measured ({})", format_us(total_us, 1), name(t.mode));
  return fmt::format("{} measured (sum of step medians over {} warm runs; first run {}){}", format_us(r.median_us, 1),
                     r.repetitions, format_us(r.first_run_us, 1), format_predicted(predicted_total_us, r.median_us));
}

std::string format_step(const Schedule& s, const Trace& t, int step, double predicted_us, const PrintOptions& o) {
  const int n = s.num_endpoints();  // ranks, then the switch ("SW")
  const size_t es = dtype_size(s.spec.dtype);
  std::string out = fmt::format("{} · phase {}", step_label(step, s.num_steps()), s.phases[s.steps[step].phase].name);
  if (step < static_cast<int>(t.steps.size())) out += " · " + format_step_time(t.timing(step));
  out += format_predicted(predicted_us, step_median_us(t, step));
  out += "\n";
  const AlgorithmInfo* info = find_algorithm(s.spec.algorithm, s.spec.collective);
  const bool whole_inputs = info && info->whole_input_chunks;
  const bool broken = o.broken;  // the ops below shadow `o`
  for (int r = 0; r < n; ++r) {
    const auto& ops = s.steps[step].ranks[r];
    const std::string me = endpoint_name(s, r);
    // Storage per op from the trace events (which storage a name meant then).
    auto event_of = [&](int op_index) -> const Event* {
      if (r >= static_cast<int>(t.events.size())) return nullptr;
      for (const Event& e : t.events[r])
        if (e.step == step && e.op_index == op_index) return &e;
      return nullptr;
    };
    auto storage_of = [&](int op_index) {
      const Event* e = event_of(op_index);
      return e ? e->storage : -1;
    };
    // ll / ll128: what the protocol stored on the receiver's side, short form
    auto wire_of = [&](int op_index) -> std::string {
      const Event* e = event_of(op_index);
      if (t.protocol == Protocol::simple || !e || e->flags == 0) return "";
      return fmt::format(" · {} on the wire in {} {}", bytes_str(e->wire_bytes), e->flags,
                         t.protocol == Protocol::ll ? (e->flags == 1 ? "flagged word" : "flagged words")
                                                    : (e->flags == 1 ? "flagged line" : "flagged lines"));
    };
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& o = ops[i];
      const int st = storage_of(static_cast<int>(i));
      // Algorithms that move whole tensors: say whose input is travelling (T_q).
      const std::string chunk = o.chunk < 0      ? ""
                                : whole_inputs ? (broken ? " meant for T" : " holding T") + std::to_string(o.chunk)
                                               : fmt::format(" chunk {}", o.chunk);
      const std::string seg = (o.channel >= 0 ? fmt::format(" ch {}", o.channel) : "") +
                              (o.segment >= 0 ? fmt::format(" seg {}", o.segment) : "");
      switch (o.kind) {
        case OpKind::send:
          out += fmt::format("  {} → {}  send {}{}{} {}  {}, {}{}\n", me, endpoint_name(s, o.peer),
                             buffer_label(s, r, o.src.buf, st), chunk, seg, range(o.src.offset, o.len),
                             count_noun(o.len, "element"),
                             bytes_str(o.len * es), wire_of(static_cast<int>(i)));
          break;
        case OpKind::recv:
        case OpKind::recv_reduce:
          out += fmt::format("  {} ← {}  {} into {}{}{} {}  {}, {}\n", me, endpoint_name(s, o.peer),
                             o.kind == OpKind::recv ? "recv" : "recv-reduce", buffer_label(s, r, o.dst.buf, st),
                             chunk, seg, range(o.dst.offset, o.len), count_noun(o.len, "element"),
                             bytes_str(o.len * es));
          break;
        case OpKind::copy:
        case OpKind::reduce:
          out += fmt::format("  {:<2}       {} {} {} {} {}{}\n", me, name(o.kind), name(o.src.buf),
                             o.kind == OpKind::copy ? "→" : "into", name(o.dst.buf), range(o.dst.offset, o.len),
                             chunk);
          break;
        case OpKind::swap:
          out += fmt::format("  {:<2}       swap {} ⇄ {} (double buffering: the names trade buffers)\n", me,
                             name(o.src.buf), name(o.dst.buf));
          break;
      }
    }
  }
  const std::string rows = format_buffers(s, t, step, o);
  return rows.empty() ? out : out + "  after this step:\n" + rows;
}

std::string format_step_line(const Schedule& s, const Trace& t, int step, double predicted_us) {
  int64_t messages = 0, bytes = 0;
  for (const auto& ops : s.steps[step].ranks)
    for (const Op& o : ops)
      if (o.kind == OpKind::send) {
        ++messages;
        bytes += o.len * static_cast<int64_t>(dtype_size(s.spec.dtype));
      }
  std::string out = fmt::format("{} · phase {} · {} message{}, {}", step_label(step, s.num_steps()),
                                s.phases[s.steps[step].phase].name, messages, messages == 1 ? "" : "s",
                                bytes_str(bytes));
  if (step < static_cast<int>(t.steps.size())) out += " · " + format_step_time(t.timing(step));
  out += format_predicted(predicted_us, step_median_us(t, step));
  return out + "\n";
}

namespace {

// Which elements of each of rank r's storages hold data after step `step`:
// the input's from the start, then every element that an op of steps
// 0..step wrote (recv, recv_reduce, copy, reduce), replaying the schedule's
// swaps to know which storage a buffer name meant at the time. The
// schedule, not the trace's events, so that every backend's run reads the
// same (the CUDA backend's events carry no storage). Indexed
// [storage][element].
std::vector<std::vector<bool>> written_after(const Schedule& s, int r, int step) {
  const RankLayout L = rank_layout(s, r);
  std::vector<std::vector<bool>> w(L.storage_size.size());
  for (size_t i = 0; i < w.size(); ++i) w[i].assign(static_cast<size_t>(L.storage_size[i]), false);
  auto view = L.view;  // name -> storage, changed by swaps
  auto mark = [&](const RankLayout::View& v, int64_t off, int64_t len) {
    if (v.storage < 0 || v.storage >= static_cast<int>(w.size())) return;
    auto& bits = w[static_cast<size_t>(v.storage)];
    for (int64_t i = std::max<int64_t>(v.offset + off, 0); i < v.offset + off + len && i < static_cast<int64_t>(bits.size()); ++i)
      bits[static_cast<size_t>(i)] = true;
  };
  const auto& in = L.view[static_cast<int>(Buf::input)];
  mark(in, 0, in.size);
  for (int st = 0; st <= step && st < s.num_steps(); ++st)
    for (const Op& o : s.steps[st].ranks[r]) {
      if (o.kind == OpKind::swap) {
        std::swap(view[static_cast<int>(o.src.buf)], view[static_cast<int>(o.dst.buf)]);  // as the executor does
      } else if (o.kind != OpKind::send) {
        mark(view[static_cast<int>(o.dst.buf)], o.dst.offset, o.len);
      }
    }
  return w;
}

}  // namespace

std::string format_buffers(const Schedule& s, const Trace& t, int step, const PrintOptions& o) {
  if (!t.snapshots || step < 0 || step >= static_cast<int>(t.steps.size())) return "";
  std::string out;
  for (int r = 0; r < s.num_endpoints() && r < static_cast<int>(t.steps[step].size()); ++r) {
    const RankLayout L = rank_layout(s, r);
    const auto written = written_after(s, r, step);
    std::string line = fmt::format("    {}", endpoint_name(s, r));
    for (const auto& b : t.steps[step][r].buffers) {
      if (b.buf == Buf::input) continue;
      std::vector<bool> mask(b.values.size(), true);
      if (b.storage >= 0 && b.storage < static_cast<int>(written.size())) {
        const auto& w = written[static_cast<size_t>(b.storage)];
        const int64_t off = L.view[static_cast<int>(b.buf)].offset;
        for (size_t i = 0; i < mask.size(); ++i) {
          const size_t at = static_cast<size_t>(off) + i;
          mask[i] = at < w.size() && w[at];
        }
      }
      line += fmt::format("  {} {}", buffer_label(s, r, b.buf, b.storage), format_values(b.values, o, mask));
    }
    out += line + "\n";
  }
  return out;
}

std::string format_outputs(const Schedule& s, const RankData& outputs, const PrintOptions& o) {
  std::string out;
  for (int r = 0; r < s.world_size(); ++r) {
    const size_t n = static_cast<size_t>(s.spec.output_count(r));
    if (n == 0) {
      out += fmt::format("  R{} none\n", r);
      continue;
    }
    const std::byte* p = outputs[r].data();
    const std::string row =
        s.spec.dtype == DType::int64
            ? join_elided(n, [&](size_t i) {  // exact beyond 2^53
                int64_t v;
                std::memcpy(&v, p + i * 8, 8);
                return std::to_string(v);
              }, o)
            : join_elided(n, [&](size_t i) { return value_text(kernels::load_double(s.spec.dtype, p, i)); }, o);
    out += fmt::format("  R{} {}\n", r, row);
  }
  return out;
}

std::string format_inputs(const CollectiveSpec& sp, const RankData& inputs, const PrintOptions& o) {
  std::string out;
  for (int q = 0; q < sp.world_size; ++q) {
    const size_t n = static_cast<size_t>(sp.input_count(q));
    const std::byte* p = inputs[q].data();
    out += fmt::format(
        "  R{} {}\n", q,
        n ? join_elided(n, [&](size_t i) { return value_text(kernels::load_double(sp.dtype, p, i)); }, o) : "none");
  }
  return out;
}

std::string format_walkthrough(const Schedule& s, const RankData& inputs, const RunResult& r,
                               const std::vector<double>& predicted_step_us, const PrintOptions& o) {
  const auto& sp = s.spec;
  std::string out = fmt::format("{} · {} · {} · {} × {} · op {}{} · {} on {}\n", name(sp.collective),
                                sp.algorithm, count_noun(sp.world_size, "rank"), sp.count_text(), name(sp.dtype), name(sp.op),
                                sp.collective == Collective::broadcast || sp.collective == Collective::reduce ||
                                        sp.collective == Collective::gather || sp.collective == Collective::scatter
                                    ? fmt::format(" · root {}", sp.root)
                                    : "",
                                name(r.trace.mode), r.trace.backend);
  out += "inputs:\n" + format_inputs(sp, inputs, o) + "\n";
  for (int st = 0; st < s.num_steps(); ++st) {
    out += format_step(s, r.trace, st, st < static_cast<int>(predicted_step_us.size()) ? predicted_step_us[st] : -1,
                       o);
    out += "\n";
  }
  if (!r.trace.snapshots) out += "(buffers are shown only for small runs: at most 64 elements per rank)\n\n";
  out += "outputs:\n" + format_outputs(s, r.outputs, o);
  return out;
}

}  // namespace microddp
