#include "core/record/printer.h"

#include "core/algorithms/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

#include <algorithm>
#include <cmath>

namespace microddp {

std::string format_values(const std::vector<double>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    if (std::isnan(v[i])) s += "nan";
    else if (std::isinf(v[i])) s += v[i] > 0 ? "inf" : "-inf";
    else s += fmt::format("{}", v[i]);
  }
  return s + "]";
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

std::string format_step_time(const StepTiming& t) {
  const std::string barrier = t.includes_barrier ? "barrier included" : "";
  if (t.repetitions == 0)
    return fmt::format("measured {:.1f} µs{}", t.first_run_ns / 1000.0,
                       barrier.empty() ? "" : fmt::format(" (one run, {})", barrier));
  return fmt::format("{:.1f} µs median (p10 {:.1f} µs, p90 {:.1f} µs, {} reps{}; first run {:.1f} µs)",
                     t.median_ns / 1000.0, t.p10_ns / 1000.0, t.p90_ns / 1000.0, t.repetitions,
                     barrier.empty() ? "" : ", " + barrier, t.first_run_ns / 1000.0);
}

std::string format_step(const Schedule& s, const Trace& t, int step, double predicted_us) {
  const int n = s.world_size();
  const size_t es = dtype_size(s.spec.dtype);
  std::string out = fmt::format("step {} of {} · phase {}", step, s.num_steps(), s.phases[s.steps[step].phase].name);
  if (step < static_cast<int>(t.steps.size())) out += " · " + format_step_time(t.timing(step));
  if (predicted_us >= 0) out += fmt::format(" · predicted {:.1f} µs", predicted_us);
  out += "\n";
  const AlgorithmInfo* info = find_algorithm(s.spec.algorithm, s.spec.collective);
  const bool whole_inputs = info && info->whole_input_chunks;
  for (int r = 0; r < n; ++r) {
    const auto& ops = s.steps[step].ranks[r];
    // Storage per op from the trace events (which storage a name meant then).
    auto storage_of = [&](int op_index) {
      for (const Event& e : t.events[r])
        if (e.step == step && e.op_index == op_index) return e.storage;
      return -1;
    };
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& o = ops[i];
      const int st = storage_of(static_cast<int>(i));
      // Algorithms that move whole tensors: say whose input is travelling (T_q).
      const std::string chunk = o.chunk < 0      ? ""
                                : whole_inputs ? fmt::format(" holding T{}", o.chunk)
                                               : fmt::format(" chunk {}", o.chunk);
      const std::string seg = o.segment >= 0 ? fmt::format(" seg {}", o.segment) : "";
      switch (o.kind) {
        case OpKind::send:
          out += fmt::format("  R{} → R{}  send {}{}{} {}  {} elements, {}\n", r, o.peer,
                             buffer_label(s, r, o.src.buf, st), chunk, seg, range(o.src.offset, o.len), o.len,
                             bytes_str(o.len * es));
          break;
        case OpKind::recv:
        case OpKind::recv_reduce:
          out += fmt::format("  R{} ← R{}  {} into {}{}{} {}  {} elements, {}\n", r, o.peer,
                             o.kind == OpKind::recv ? "recv" : "recv-reduce", buffer_label(s, r, o.dst.buf, st),
                             chunk, seg, range(o.dst.offset, o.len), o.len, bytes_str(o.len * es));
          break;
        case OpKind::copy:
        case OpKind::reduce:
          out += fmt::format("  R{}       {} {} {} {} {}{}\n", r, name(o.kind), name(o.src.buf),
                             o.kind == OpKind::copy ? "→" : "into", name(o.dst.buf), range(o.dst.offset, o.len),
                             chunk);
          break;
        case OpKind::swap:
          out += fmt::format("  R{}       swap {} ⇄ {} (double buffering: the names trade buffers)\n", r,
                             name(o.src.buf), name(o.dst.buf));
          break;
      }
    }
  }
  if (t.snapshots && step < static_cast<int>(t.steps.size())) {
    out += "  after this step:\n";
    for (int r = 0; r < n; ++r) {
      std::string line = fmt::format("    R{}", r);
      for (const auto& b : t.steps[step][r].buffers) {
        if (b.buf == Buf::input) continue;
        line += fmt::format("  {} {}", buffer_label(s, r, b.buf, b.storage), format_values(b.values));
      }
      out += line + "\n";
    }
  }
  return out;
}

std::string format_outputs(const Schedule& s, const RankData& outputs) {
  std::string out;
  for (int r = 0; r < s.world_size(); ++r) {
    const int64_t n = s.spec.output_count(r);
    if (n == 0) {
      out += fmt::format("  R{} none\n", r);
      continue;
    }
    if (s.spec.dtype == DType::int64) {  // exact beyond 2^53
      std::vector<int64_t> v(n);
      std::memcpy(v.data(), outputs[r].data(), n * 8);
      out += fmt::format("  R{} [{}]\n", r, fmt::join(v, ", "));
      continue;
    }
    std::vector<double> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = kernels::load_double(s.spec.dtype, outputs[r].data(), i);
    out += fmt::format("  R{} {}\n", r, format_values(v));
  }
  return out;
}

std::string format_walkthrough(const Schedule& s, const RankData& inputs, const RunResult& r,
                               const std::vector<double>& predicted_step_us) {
  const auto& sp = s.spec;
  std::string out = fmt::format("{} · {} · {} ranks · count {} × {} · op {}{} · {} on {}\n", name(sp.collective),
                                sp.algorithm, sp.world_size, sp.count, name(sp.dtype), name(sp.op),
                                sp.collective == Collective::broadcast || sp.collective == Collective::reduce ||
                                        sp.collective == Collective::gather || sp.collective == Collective::scatter
                                    ? fmt::format(" · root {}", sp.root)
                                    : "",
                                name(r.trace.mode), r.trace.backend);
  out += "inputs:\n";
  for (int q = 0; q < sp.world_size; ++q) {
    const int64_t n = sp.input_count(q);
    std::vector<double> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = kernels::load_double(sp.dtype, inputs[q].data(), i);
    out += fmt::format("  R{} {}\n", q, n ? format_values(v) : "none");
  }
  out += "\n";
  for (int st = 0; st < s.num_steps(); ++st) {
    out += format_step(s, r.trace, st, st < static_cast<int>(predicted_step_us.size()) ? predicted_step_us[st] : -1);
    out += "\n";
  }
  if (!r.trace.snapshots) out += "(buffers are shown only for small runs: at most 64 elements per rank)\n\n";
  out += "outputs:\n" + format_outputs(s, r.outputs);
  return out;
}

}  // namespace microddp
