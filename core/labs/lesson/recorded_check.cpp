// Whether a recorded run (a beat's `recorded: FILE`, --replay, --compare-runs)
// agrees with itself (read_options.h, record_contradiction): times that are
// not negative and never run backwards, a total_ns that is the steps' span,
// the bytes each endpoint sent and received as the schedule's messages make
// them, outputs that are the last snapshot's output rows, messages that
// carried what the sender's buffer held during that step and came from the
// schedule's peer, input snapshots that are the inputs, every step's
// snapshot as its ops give it from the one before (recorded_replay.cpp), and
// the outputs of a correct algorithm against the reduction of the inputs.
// The first contradiction found, or "".
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/exec/rank_program.h"
#include "core/ir/reference.h"
#include "core/labs/lesson/recorded_replay.h"
#include "core/labs/lesson/read_options.h"
#include "kernels/cpu/kernels.h"

namespace microddp::lesson {

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

std::string values_text(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : ", ") + fmt::format("{:g}", x);
  return "[" + s + "]";
}

// The values of storage `st` in one endpoint's snapshot: the row that names
// `prefer` when it points at st, else any row on st; null when none.
const std::vector<double>* storage_values(const RankStepRecord& rec, int st, Buf prefer) {
  const std::vector<double>* any = nullptr;
  for (const BufferSnapshot& b : rec.buffers) {
    if (b.storage != st) continue;
    if (b.buf == prefer) return &b.values;
    if (!any) any = &b.values;
  }
  return any;
}

std::string times(const Trace& t) {
  // Nothing a clock measures is negative.
  if (t.total_ns < 0) return fmt::format("trace.total_ns is {} ns, below 0", t.total_ns);
  for (size_t i = 0; i < t.iteration_ns.size(); ++i)
    if (t.iteration_ns[i] < 0) return fmt::format("trace.iteration_ns[{}] is {} ns, below 0", i, t.iteration_ns[i]);
  for (size_t e = 0; e < t.events.size(); ++e)
    for (size_t i = 0; i < t.events[e].size(); ++i)
      for (const auto& [what, v] : {std::pair{"begin_ns", t.events[e][i].begin_ns}, std::pair{"end_ns", t.events[e][i].end_ns}})
        if (v < 0) return fmt::format("trace.events[{}][{}].{} is {} ns, below 0", e, i, what, v);
  for (size_t s = 0; s < t.steps.size(); ++s)
    for (size_t e = 0; e < t.steps[s].size(); ++e)
      for (const auto& [what, v] : {std::pair{"begin_ns", t.steps[s][e].begin_ns}, std::pair{"end_ns", t.steps[s][e].end_ns}})
        if (v < 0) return fmt::format("trace.steps[{}][{}].{} is {} ns, below 0", s, e, what, v);
  for (size_t s = 0; s < t.step_timing.size(); ++s) {
    const StepTiming& st = t.step_timing[s];
    for (const auto& [what, v] : {std::pair{"first_run_ns", st.first_run_ns}, std::pair{"p10_ns", st.p10_ns}})
      if (v < 0) return fmt::format("trace.step_timing[{}].{} is {} ns, below 0", s, what, v);
  }
  for (size_t e = 0; e < t.events.size(); ++e)
    for (size_t i = 0; i < t.events[e].size(); ++i) {
      const Event& ev = t.events[e][i];
      if (ev.end_ns < ev.begin_ns)
        return fmt::format("trace.events[{}][{}] (step {}, {}): ends at {} ns, before it begins at {} ns", e, i, ev.step,
                           name(ev.kind), ev.end_ns, ev.begin_ns);
      if (i > 0 && ev.begin_ns < t.events[e][i - 1].begin_ns)
        return fmt::format("trace.events[{}][{}] (step {}, {}): begins at {} ns, before the event before it "
                           "(events[{}][{}], at {} ns)",
                           e, i, ev.step, name(ev.kind), ev.begin_ns, e, i - 1, t.events[e][i - 1].begin_ns);
    }
  for (size_t s = 0; s < t.steps.size(); ++s)
    for (size_t e = 0; e < t.steps[s].size(); ++e) {
      const RankStepRecord& r = t.steps[s][e];
      if (r.end_ns < r.begin_ns)
        return fmt::format("trace.steps[{}][{}]: ends at {} ns, before it begins at {} ns", s, e, r.end_ns, r.begin_ns);
      if (s > 0 && e < t.steps[s - 1].size() && r.begin_ns < t.steps[s - 1][e].begin_ns)
        return fmt::format("trace.steps[{}][{}]: begins at {} ns, before step {} began ({} ns)", s, e, r.begin_ns, s - 1,
                           t.steps[s - 1][e].begin_ns);
    }
  // total_ns: every backend writes the steps' span (the last end less the
  // first begin) less the time spent repeating steps for their timings, so
  // it is the span when no step was repeated and at most the span when some
  // were. Step records without times (0 and 0: an endpoint a backend did
  // not time) are left out; a record whose steps kept none is not judged.
  int64_t first = INT64_MAX, last = 0;
  for (const auto& st : t.steps)
    for (const RankStepRecord& r : st) {
      if (r.begin_ns == 0 && r.end_ns == 0) continue;
      first = std::min(first, r.begin_ns);
      last = std::max(last, r.end_ns);
    }
  if (last > 0) {
    bool repeated = false;
    for (const StepTiming& st : t.step_timing) repeated = repeated || st.repetitions > 0;
    const int64_t span = last - first;
    if (t.total_ns > span || (!repeated && t.total_ns != span))
      return fmt::format("trace.total_ns is {} ns, but the steps span {} ns (from {} to {} ns){}", t.total_ns, span, first,
                         last, repeated ? " and it can only be less (the repetitions left out)" : " and no step was repeated");
  }
  return "";
}

// bytes_sent / bytes_received: what the schedule's sends and recvs of each
// endpoint move (new_trace counts them so), in bytes of the dtype.
std::string bytes(const RunRecord& r, const Schedule& sch) {
  const Trace& t = r.trace;
  const auto es = static_cast<int64_t>(dtype_size(r.spec.dtype));
  const int ne = sch.num_endpoints();
  std::vector<int64_t> sent(static_cast<size_t>(ne), 0), received(static_cast<size_t>(ne), 0);
  std::vector<int> sends(static_cast<size_t>(ne), 0), recvs(static_cast<size_t>(ne), 0);
  for (const Step& st : sch.steps)
    for (int e = 0; e < ne; ++e)
      for (const Op& o : st.ranks[static_cast<size_t>(e)]) {
        if (o.kind == OpKind::send) {
          sent[static_cast<size_t>(e)] += o.len * es;
          ++sends[static_cast<size_t>(e)];
        } else if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
          received[static_cast<size_t>(e)] += o.len * es;
          ++recvs[static_cast<size_t>(e)];
        }
      }
  for (int e = 0; e < ne; ++e) {
    const auto k = static_cast<size_t>(e);
    if (k < t.bytes_sent.size() && t.bytes_sent[k] != sent[k])
      return fmt::format("trace.bytes_sent[{}] is {} B, but {}'s {} messages send {} B", e, t.bytes_sent[k],
                         endpoint_name(sch, e), sends[k], sent[k]);
    if (k < t.bytes_received.size() && t.bytes_received[k] != received[k])
      return fmt::format("trace.bytes_received[{}] is {} B, but {}'s {} messages bring {} B", e, t.bytes_received[k],
                         endpoint_name(sch, e), recvs[k], received[k]);
  }
  return "";
}

std::string outputs(const RunRecord& r) {
  const Trace& t = r.trace;
  if (!t.snapshots || t.steps.empty()) return "";
  // An integer avg divides the sums after the last step (rank_program.h,
  // needs_finish_avg): its last snapshot holds the sums, its outputs the
  // quotients, sum / n rounded toward zero (kernels::finish_avg).
  const bool divides = needs_finish_avg(r.spec);
  const size_t last = t.steps.size() - 1;
  const size_t dsize = dtype_size(r.spec.dtype);
  for (int k = 0; k < r.spec.world_size && static_cast<size_t>(k) < r.outputs.size() && k < int(t.steps[last].size());
       ++k) {
    const std::vector<double>* snap = nullptr;
    for (const BufferSnapshot& b : t.steps[last][static_cast<size_t>(k)].buffers)
      if (b.buf == Buf::output) snap = &b.values;
    if (!snap) continue;
    const auto& bytes = r.outputs[static_cast<size_t>(k)];
    const int64_t n = static_cast<int64_t>(bytes.size() / dsize);
    if (n != static_cast<int64_t>(snap->size()))
      return fmt::format("outputs[{}]: {} elements, but the last snapshot (after step {}) holds {} in R{}'s output", k, n,
                         last, snap->size(), k);
    for (int64_t i = 0; i < n; ++i) {
      const double v = kernels::load_double(r.spec.dtype, bytes.data(), i);
      const double held = (*snap)[static_cast<size_t>(i)];
      if (divides) {
        std::array<std::byte, 8> q{};
        try {
          kernels::store_double(r.spec.dtype, q.data(), 0, held);
        } catch (const std::exception&) {
          continue;  // not an integer of the dtype: the replay names it
        }
        kernels::finish_avg(r.spec.dtype, q.data(), 1, r.spec.world_size);
        const double want = kernels::load_double(r.spec.dtype, q.data(), 0);
        if (!same(v, want))
          return fmt::format("outputs[{}][{}] = {:g}, but the last snapshot (after step {}) holds the sum {:g} in R{}'s "
                             "output, and the avg gives {:g} / {} = {:g}",
                             k, i, v, last, held, k, held, r.spec.world_size, want);
        continue;
      }
      if (!same(v, held))
        return fmt::format("outputs[{}][{}] = {:g}, but the last snapshot (after step {}) holds {:g} in R{}'s output", k,
                           i, v, last, held, k);
    }
  }
  return "";
}

// Each recv's carried values against what the sender's buffer held during
// that step: before it, after it, or what an op of the step wrote there (a
// copy of the input; a recv's carried values). A racy run (the one-buffer
// ring) may send a value its buffer held only in the middle of the step.
std::string carried(const RunRecord& r, const Schedule& sch) {
  const Trace& t = r.trace;
  if (!t.snapshots) return "";
  const int ne = static_cast<int>(t.events.size());
  for (int e = 0; e < ne; ++e) {
    if (static_cast<size_t>(e) >= t.carried.size()) break;
    for (size_t i = 0; i < t.events[static_cast<size_t>(e)].size() && i < t.carried[static_cast<size_t>(e)].size(); ++i) {
      const Event& rv = t.events[static_cast<size_t>(e)][i];
      const std::vector<double>& got = t.carried[static_cast<size_t>(e)][i];
      if (got.empty()) continue;
      // Values came with a message from the peer the schedule's op names
      // (check_trace has bounded step and op_index).
      const Op& planned = sch.steps[static_cast<size_t>(rv.step)].ranks[static_cast<size_t>(e)][static_cast<size_t>(rv.op_index)];
      if (rv.kind != OpKind::recv && rv.kind != OpKind::recv_reduce)
        return fmt::format("trace.events[{}][{}].values (step {}, {}): a {} carries no message, but it has {} values {}", e,
                           i, rv.step, name(rv.kind), name(rv.kind), got.size(), values_text(got));
      if (rv.peer != planned.peer || planned.kind != rv.kind)
        return fmt::format("trace.events[{}][{}].peer (step {}, {}) is {}, but it carried {} and the schedule's op {} of "
                           "{} in step {} is a {} from {}",
                           e, i, rv.step, name(rv.kind), rv.peer, values_text(got), rv.op_index, endpoint_name(sch, e),
                           rv.step, name(planned.kind), planned.peer >= 0 ? endpoint_name(sch, planned.peer) : "nobody");
      const int p = rv.peer, s = rv.step;
      if (p < 0 || p >= ne || s < 0 || static_cast<size_t>(s) >= t.steps.size()) continue;
      // The k-th message from p to e in step s is p's k-th send to e in it.
      int k = 0;
      for (size_t j = 0; j < i; ++j) {
        const Event& o = t.events[static_cast<size_t>(e)][j];
        k += o.step == s && o.peer == p && (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce);
      }
      const Event* sent = nullptr;
      for (const Event& o : t.events[static_cast<size_t>(p)])
        if (o.step == s && o.peer == e && o.kind == OpKind::send && k-- == 0) {
          sent = &o;
          break;
        }
      if (!sent) continue;
      const RankStepRecord& before = s == 0 ? t.initial[static_cast<size_t>(p)] : t.steps[static_cast<size_t>(s - 1)][static_cast<size_t>(p)];
      const RankStepRecord& after = t.steps[static_cast<size_t>(s)][static_cast<size_t>(p)];
      for (size_t j = 0; j < got.size(); ++j) {
        const int64_t at = sent->offset + static_cast<int64_t>(j);  // element of the sent buffer
        std::vector<double> held;
        bool known = false;
        const auto add = [&](const std::vector<double>* v, int64_t idx) {
          if (v && idx >= 0 && idx < static_cast<int64_t>(v->size())) {
            const double x = (*v)[static_cast<size_t>(idx)];
            bool seen = false;
            for (double h : held) seen = seen || same(h, x);
            if (!seen) held.push_back(x);  // each value once, in the order found
            known = true;
          }
        };
        add(storage_values(before, sent->storage, sent->buf), at);
        add(storage_values(after, sent->storage, sent->buf), at);
        const auto& pev = t.events[static_cast<size_t>(p)];
        for (size_t q = 0; q < pev.size(); ++q) {
          const Event& w = pev[q];
          if (w.step != s || w.storage != sent->storage || at < w.offset || at >= w.offset + w.len) continue;
          if (w.kind == OpKind::copy && static_cast<size_t>(s) < sch.steps.size()) {
            const auto& ops = sch.steps[static_cast<size_t>(s)].ranks[static_cast<size_t>(p)];
            if (w.op_index >= 0 && static_cast<size_t>(w.op_index) < ops.size() &&
                ops[static_cast<size_t>(w.op_index)].src.buf == Buf::input)
              for (const BufferSnapshot& b : t.initial[static_cast<size_t>(p)].buffers)
                if (b.buf == Buf::input) add(&b.values, ops[static_cast<size_t>(w.op_index)].src.offset + (at - w.offset));
          } else if (w.kind == OpKind::recv && q < t.carried[static_cast<size_t>(p)].size()) {
            add(&t.carried[static_cast<size_t>(p)][q], at - w.offset);
          }
        }
        if (!known) continue;
        bool match = false;
        for (double h : held) match = match || same(h, got[j]);
        if (!match)
          return fmt::format("trace.carried[{}][{}] (step {}, R{} <- R{}): element {} carried {:g}, but R{}'s {} "
                             "held {} during step {} (carried {})",
                             e, i, s, e, p, j, got[j], p, name(sent->buf), values_text(held), s, values_text(got));
      }
    }
  }
  return "";
}

// A correct algorithm's outputs against the reduction of the inputs (the
// reference core's verdict uses; a broken form may corrupt, and its outputs
// are judged by the replay alone).
std::string reference(const RunRecord& r) {
  if (!r.broken.empty() || r.outputs.empty()) return "";
  std::string why;
  if (outputs_match(r.spec, r.inputs, r.outputs, reference_outputs(r.spec, r.inputs), &why)) return "";
  return fmt::format("outputs: {} (the reference: the inputs reduced, as the spec says)", why);
}

}  // namespace

std::string record_contradiction(const RunRecord& r) {
  const Schedule sch = record_schedule(r);
  for (const auto& check : {+[](const RunRecord& x, const Schedule&) { return times(x.trace); },
                            +[](const RunRecord& x, const Schedule& s) { return bytes(x, s); },
                            +[](const RunRecord& x, const Schedule&) { return outputs(x); },
                            +[](const RunRecord& x, const Schedule& s) { return carried(x, s); },
                            +[](const RunRecord& x, const Schedule&) { return initial_contradiction(x); },
                            +[](const RunRecord& x, const Schedule& s) { return replay_contradiction(x, s); },
                            +[](const RunRecord& x, const Schedule&) { return reference(x); }})
    if (std::string why = check(r, sch); !why.empty()) return why;
  return "";
}

}  // namespace microddp::lesson
