// (De)serialisation of step records (core/exec/mpi/wire.h).
#include "core/exec/mpi/wire.h"

namespace microddp::wire {

static_assert(std::is_trivially_copyable_v<Event>);

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
RankStepRecord get_record(Reader& rd) {
  RankStepRecord r;
  r.begin_ns = rd.get<int64_t>();
  r.end_ns = rd.get<int64_t>();
  const auto nb = rd.get<int64_t>();
  for (int64_t i = 0; i < nb; ++i) {
    BufferSnapshot b;
    b.buf = rd.get<Buf>();
    b.storage = rd.get<int32_t>();
    b.values = rd.vec<double>();
    r.buffers.push_back(std::move(b));
  }
  return r;
}

}  // namespace microddp::wire
