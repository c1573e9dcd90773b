// (De)serialisation of one rank's share of a run_mpi result
// (core/exec/mpi/wire.h).
#include "core/exec/mpi/wire.h"

namespace microddp::wire {

static_assert(std::is_trivially_copyable_v<Event>);
static_assert(std::is_trivially_copyable_v<ClockEntry>);
static_assert(sizeof(Buf) == 1);

void put_record(Writer& w, const RankStepRecord& r) {
  w.put(r.begin_ns);
  w.put(r.end_ns);
  w.put<int64_t>(static_cast<int64_t>(r.buffers.size()));
  for (const auto& b : r.buffers) {
    w.put(b.buf);
    w.put<int32_t>(b.storage);
    w.vec(b.values);
  }
}

RankStepRecord get_record(Reader& rd, const RankLayout& layout) {
  std::vector<int> views;  // the Buf of every non-empty view, in order
  for (int b = 0; b < kNumBufs; ++b)
    if (layout.view[b].size > 0) views.push_back(b);
  RankStepRecord r;
  r.begin_ns = rd.get<int64_t>("a step record's begin time");
  r.end_ns = rd.get<int64_t>("a step record's end time");
  const auto nb = rd.get<int64_t>("a step record's buffer count");
  if (nb != 0 && nb != static_cast<int64_t>(views.size()))
    rd.fail("a step record's buffer count", nb, fmt::format("0 or {}", views.size()));
  const auto storages = static_cast<int64_t>(layout.storage_size.size());
  for (int64_t i = 0; i < nb; ++i) {
    BufferSnapshot b;
    const auto buf = rd.get<uint8_t>("a snapshot's buffer");
    if (buf != views[i]) rd.fail("a snapshot's buffer", buf, fmt::format("{}", views[i]));
    b.buf = static_cast<Buf>(buf);
    b.storage = rd.get<int32_t>("a snapshot's storage");
    if (b.storage < 0 || b.storage >= storages) rd.fail("a snapshot's storage", b.storage, fmt::format("0..{}", storages - 1));
    b.values = rd.vec<double>("a snapshot's value count", layout.view[buf].size);
    r.buffers.push_back(std::move(b));
  }
  return r;
}

std::vector<std::byte> encode_share(const Schedule& s, int rank, int64_t end_ns, const ClockEntry& clock,
                                    const std::vector<std::byte>& outputs, const Trace* trace) {
  Writer w;
  w.put(end_ns);
  w.put(clock);
  w.vec(outputs);
  if (trace) {
    w.vec(trace->events[rank]);
    for (int st = 0; st < s.num_steps(); ++st) put_record(w, trace->steps[st][rank]);
    put_record(w, trace->initial[rank]);
  }
  return std::move(w.buf);
}

RankShare decode_share(const std::vector<std::byte>& blob, const Schedule& s, int rank, bool record) {
  Reader rd(blob, fmt::format("rank {}'s results", rank));
  const RankLayout layout = rank_layout(s, rank);
  const size_t es = dtype_size(s.spec.dtype);
  RankShare sh;
  sh.end_ns = rd.get<int64_t>("the end time");
  sh.clock = rd.get<ClockEntry>("the clock entry");
  sh.outputs = rd.vec<std::byte>("the output size in bytes",
                                 layout.view[static_cast<int>(Buf::output)].size * static_cast<int64_t>(es));
  if (record) {
    int64_t ops = 0;
    for (const auto& st : s.steps) ops += static_cast<int64_t>(st.ranks[rank].size());
    sh.events = rd.vec<Event>("the event count", ops);
    // The events follow the rank's program op by op, with the op's fields
    // (RankProgram); only the times and the storage are the run's. Anything
    // else would index the schedule or the buffers wrongly wherever the
    // trace is read.
    const auto storages = static_cast<int32_t>(layout.storage_size.size());
    size_t k = 0;
    for (int st = 0; st < s.num_steps(); ++st)
      for (size_t i = 0; i < s.steps[st].ranks[rank].size(); ++i, ++k) {
        const Op& op = s.steps[st].ranks[rank][i];
        const Event& e = sh.events[k];
        const bool writes = op.kind != OpKind::send;
        const BufRange& ref = writes ? op.dst : op.src;
        const int64_t bytes = op.kind == OpKind::swap ? 0 : op.len * static_cast<int64_t>(es);
        if (e.step != st || e.op_index != static_cast<int32_t>(i) || e.kind != op.kind || e.peer != op.peer)
          throw WireError(fmt::format(
              "{}: event {} is step {} op {} (kind {}, peer {}), expected step {} op {} (kind {}, peer {})",
              rd.source(), k, e.step, e.op_index, static_cast<int>(e.kind), e.peer, st, i, static_cast<int>(op.kind),
              op.peer));
        if (e.buf != ref.buf || e.offset != ref.offset || e.len != op.len || e.bytes != bytes || e.chunk != op.chunk ||
            e.channel != op.channel)
          throw WireError(fmt::format("{}: event {} (step {} op {}) does not describe the schedule's op "
                                      "(buffer, offset, length, bytes, chunk or channel differ)",
                                      rd.source(), k, st, i));
        if (e.storage < -1 || e.storage >= storages)
          rd.fail("an event's storage", e.storage, fmt::format("-1..{}", storages - 1));
      }
    sh.steps.reserve(s.steps.size());
    for (int st = 0; st < s.num_steps(); ++st) sh.steps.push_back(get_record(rd, layout));
    sh.initial = get_record(rd, layout);
  }
  rd.finish();
  return sh;
}

int64_t max_share_bytes(const Schedule& s, int rank, bool record) {
  const RankLayout layout = rank_layout(s, rank);
  const auto es = static_cast<int64_t>(dtype_size(s.spec.dtype));
  int64_t bytes = 8 + static_cast<int64_t>(sizeof(ClockEntry)) + 8 + layout.view[static_cast<int>(Buf::output)].size * es;
  if (record) {
    int64_t ops = 0, values = 0;
    for (const auto& st : s.steps) ops += static_cast<int64_t>(st.ranks[rank].size());
    for (const auto& v : layout.view) values += v.size;
    const int64_t per_record = 24 + kNumBufs * (1 + 4 + 8) + values * 8;
    bytes += 8 + ops * static_cast<int64_t>(sizeof(Event)) + (s.num_steps() + 1) * per_record;
  }
  return bytes;
}

}  // namespace microddp::wire
