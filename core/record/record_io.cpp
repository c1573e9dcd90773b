#include "core/record/record_io.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

#include "core/algorithms/registry.h"
#include "core/ir/input_file.h"
#include "core/ir/limits.h"
#include "core/ir/protocol.h"

namespace microddp {

namespace {
using json = nlohmann::json;

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reading: every access names what it looked for.
struct Reader {
  std::string where;
  [[noreturn]] void fail(const std::string& what) const { throw UsageError(fmt::format("{}: {}", where, what)); }
  const json& at(const json& j, const char* key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) fail(fmt::format("missing field '{}{}'", path, key));
    return j.at(key);
  }
  // An integer field: a JSON integer, or a number with no fraction, that T
  // holds. nlohmann's get<int> wraps 4294967299 to 3 and truncates 1.5 to
  // 1; both are refused here, naming the field and the range.
  template <class T>
  T integer(const json& v, const std::string& field) const {
    const auto range = [&](const std::string& got) -> std::string {
      return fmt::format("field '{}' is {}, not a whole number in {}..{}", field, got, std::numeric_limits<T>::min(),
                         std::numeric_limits<T>::max());
    };
    if (v.is_number_unsigned()) {
      const auto x = v.get<uint64_t>();
      if (x > static_cast<uint64_t>(std::numeric_limits<T>::max())) fail(range(v.dump()));
      return static_cast<T>(x);
    }
    if (v.is_number_integer()) {
      const auto x = v.get<int64_t>();
      if ((std::is_unsigned_v<T> && x < 0) ||
          (!std::is_unsigned_v<T> && (x < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
                                      x > static_cast<int64_t>(std::numeric_limits<T>::max()))))
        fail(range(v.dump()));
      return static_cast<T>(x);
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      // 2^63 and 2^64 are exact doubles: below them (and from -2^63) every
      // whole double converts without overflow.
      const double lo = std::is_unsigned_v<T> ? 0.0 : static_cast<double>(std::numeric_limits<T>::min());
      const double hi = static_cast<double>(std::numeric_limits<T>::max());
      if (!std::isfinite(d) || d != std::trunc(d) || d < lo || d >= hi + (sizeof(T) >= 8 ? 0.0 : 1.0))
        fail(range(fmt::format("{}", d)));
      return static_cast<T>(d);
    }
    fail(fmt::format("field '{}' has the wrong type ({}), not a whole number", field, v.dump().substr(0, 40)));
  }
  template <class T>
  T get(const json& j, const char* key, const std::string& path) const {
    const json& v = at(j, key, path);
    const std::string field = path + key;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      return integer<T>(v, field);
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
      if (!v.is_array()) fail(fmt::format("field '{}' is not an array", field));
      T out;
      for (size_t i = 0; i < v.size(); ++i) out.push_back(integer<int64_t>(v[i], fmt::format("{}[{}]", field, i)));
      return out;
    } else {
      try {
        return v.get<T>();
      } catch (const json::exception&) {
        fail(fmt::format("field '{}' has the wrong type ({})", field, v.dump().substr(0, 40)));
      }
    }
  }
  const json& array(const json& j, const char* key, const std::string& path) const {
    const json& v = at(j, key, path);
    if (!v.is_array()) fail(fmt::format("field '{}{}' is not an array", path, key));
    return v;
  }
  std::vector<std::byte> bytes(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(fmt::format("'{}' is not a hex string", path));
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() % 2) fail(fmt::format("'{}' has an odd number of hex digits", path));
    std::vector<std::byte> b(s.size() / 2);
    for (size_t i = 0; i < b.size(); ++i) {
      const int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
      if (hi < 0 || lo < 0) fail(fmt::format("'{}' has a character that is not hex at {}", path, 2 * i));
      b[i] = static_cast<std::byte>(hi * 16 + lo);
    }
    return b;
  }
  double number(const json& v, const std::string& path) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "nan") return std::nan("");
      if (s == "inf") return INFINITY;
      if (s == "-inf") return -INFINITY;
    }
    fail(fmt::format("'{}' is not a number (or \"nan\", \"inf\", \"-inf\")", path));
  }
  template <class E, int N>
  E enum_of(const std::string& s, const std::string& path) const {
    for (int i = 0; i < N; ++i)
      if (name(static_cast<E>(i)) == s) return static_cast<E>(i);
    fail(fmt::format("'{}' has the unknown value '{}'", path, s));
  }
  RankStepRecord step(const json& j, const std::string& path) const {
    RankStepRecord r;
    r.begin_ns = get<int64_t>(j, "begin_ns", path);
    r.end_ns = get<int64_t>(j, "end_ns", path);
    const json& bufs = array(j, "buffers", path);
    for (size_t i = 0; i < bufs.size(); ++i) {
      const std::string p = fmt::format("{}buffers[{}].", path, i);
      BufferSnapshot b{enum_of<Buf, kNumBufs>(get<std::string>(bufs[i], "buf", p), p + "buf"),
                       get<int>(bufs[i], "storage", p), {}};
      const json& vals = array(bufs[i], "values", p);
      for (size_t k = 0; k < vals.size(); ++k) b.values.push_back(number(vals[k], fmt::format("{}values[{}]", p, k)));
      r.buffers.push_back(std::move(b));
    }
    return r;
  }
};

// An event against the op it records (Schedule::steps[step].ranks[q][op_index]):
// the executors copy kind, peer, buffer range, channel, chunk and size from
// the op, so a viewer that draws the schedule's messages (the transfers, the
// busiest rank) draws the record's own. Wire bytes and flags are the
// protocol's for that size (core/ir/protocol.h).
void check_event_op(const Reader& rd, const RunRecord& r, const Op& o, const Event& e, const std::string& p) {
  if (e.kind != o.kind)
    rd.fail(fmt::format("'{}kind' is {} but the schedule's op is a {}", p, name(e.kind), name(o.kind)));
  if (e.peer != o.peer) rd.fail(fmt::format("'{}peer' is {} but the schedule's op has peer {}", p, e.peer, o.peer));
  const BufRange& at = o.kind == OpKind::send ? o.src : o.dst;  // as the executors record it
  if (e.buf != at.buf || e.offset != at.offset || e.len != o.len)
    rd.fail(fmt::format("'{}' is {} [{}, +{}) but the schedule's op is {} [{}, +{})", p.substr(0, p.size() - 1),
                        name(e.buf), e.offset, e.len, name(at.buf), at.offset, o.len));
  if (e.channel != -1 && e.channel != o.channel)
    rd.fail(fmt::format("'{}channel' is {} but the schedule's op runs in channel {}", p, e.channel, o.channel));
  if (e.chunk != o.chunk)
    rd.fail(fmt::format("'{}chunk' is {} but the schedule's op moves chunk {}", p, e.chunk, o.chunk));
  const int64_t want = o.kind == OpKind::swap ? 0 : o.len * static_cast<int64_t>(dtype_size(r.spec.dtype));
  if (e.bytes != want) rd.fail(fmt::format("'{}bytes' is {} but the schedule's op moves {} B", p, e.bytes, want));
  const bool message = o.kind == OpKind::send || o.kind == OpKind::recv || o.kind == OpKind::recv_reduce;
  if (e.flags == 0 && e.wire_bytes == 0) return;  // older records: no wire fields
  const int64_t wire = message ? wire_bytes(r.trace.protocol, want) : 0;
  const int64_t flags = message ? flag_count(r.trace.protocol, want) : 0;
  if (e.wire_bytes != wire || e.flags != flags)
    rd.fail(fmt::format("'{}wire_bytes' is {} and '{}flags' {}, but {} B under protocol {} are {} B on the wire in {} "
                        "flags",
                        p, e.wire_bytes, p, e.flags, want, name(r.trace.protocol), wire, flags));
}

// Every index in the trace is checked against the record's own world size
// and the buffer plan its spec implies (the schedule rebuilt from it), so a
// viewer may index with them without bounds checks.
void check_trace(const Reader& rd, const RunRecord& r) {
  const CollectiveSpec& s = r.spec;
  const Trace& t = r.trace;
  const int n = s.world_size;
  Schedule sch;
  try {
    sch = record_schedule(r);
  } catch (const std::exception& e) {
    rd.fail(fmt::format("spec: {}", e.what()));
  }
  std::vector<RankLayout> lay;
  const int ne = sch.num_endpoints();  // ranks, then switch endpoints (nvls): the trace's rows
  for (int q = 0; q < ne; ++q) lay.push_back(rank_layout(sch, q));
  auto rows = [&](const char* field, size_t got, size_t want) {
    if (got != want) rd.fail(fmt::format("'{}' has {} entries but the record needs {}", field, got, want));
  };
  if (t.world_size != n) rd.fail(fmt::format("'trace.world_size' is {} but the spec's world size is {}", t.world_size, n));
  if (t.switches != sch.switches)
    rd.fail(fmt::format("'trace.switches' is {} but the schedule has {}", t.switches, sch.switches));
  rows("trace.bytes_sent", t.bytes_sent.size(), ne);
  rows("trace.bytes_received", t.bytes_received.size(), ne);
  rows("trace.events", t.events.size(), ne);
  rows("trace.initial", t.initial.size(), ne);
  rows("trace.steps", t.steps.size(), static_cast<size_t>(sch.num_steps()));
  for (size_t k = 0; k < t.steps.size(); ++k)
    rows(fmt::format("trace.steps[{}]", k).c_str(), t.steps[k].size(), ne);
  if (!t.step_timing.empty()) rows("trace.step_timing", t.step_timing.size(), static_cast<size_t>(sch.num_steps()));
  for (int q = 0; q < ne; ++q) {
    const RankLayout& L = lay[q];
    const auto nstorage = static_cast<int>(L.storage_size.size());
    // One event per op of the schedule (the executors record every op of
    // the endpoint, rank_program.cpp): none missing, none twice.
    std::vector<std::vector<char>> seen(sch.steps.size());
    size_t nops_all = 0;
    for (size_t k = 0; k < sch.steps.size(); ++k) {
      seen[k].assign(sch.steps[k].ranks[q].size(), 0);
      nops_all += sch.steps[k].ranks[q].size();
    }
    if (t.events[q].size() != nops_all)
      rd.fail(fmt::format("'trace.events[{}]' has {} events but the schedule gives endpoint {} {} ops (one event each)",
                          q, t.events[q].size(), q, nops_all));
    // bytes_sent / bytes_received: what the schedule's messages move
    // (new_trace counts them so, before any op runs).
    int64_t sent = 0, received = 0;
    const auto es = static_cast<int64_t>(dtype_size(s.dtype));
    for (const Step& st : sch.steps)
      for (const Op& o : st.ranks[q]) {
        if (o.kind == OpKind::send) sent += o.len * es;
        if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) received += o.len * es;
      }
    if (t.bytes_sent[q] != sent)
      rd.fail(fmt::format("'trace.bytes_sent[{}]' is {} B but the schedule's sends of endpoint {} move {} B", q,
                          t.bytes_sent[q], q, sent));
    if (t.bytes_received[q] != received)
      rd.fail(fmt::format("'trace.bytes_received[{}]' is {} B but the schedule's receives of endpoint {} bring {} B", q,
                          t.bytes_received[q], q, received));
    for (size_t i = 0; i < t.events[q].size(); ++i) {
      const Event& e = t.events[q][i];
      const std::string p = fmt::format("trace.events[{}][{}].", q, i);
      if (e.step < 0 || e.step >= sch.num_steps())
        rd.fail(fmt::format("'{}step' is {}, outside 0..{}", p, e.step, sch.num_steps() - 1));
      const auto nops = static_cast<int32_t>(sch.steps[e.step].ranks[q].size());
      if (e.op_index < 0 || e.op_index >= nops)
        rd.fail(fmt::format("'{}op_index' is {} but rank {} has {} ops in step {}", p, e.op_index, q, nops, e.step));
      if (e.peer < -1 || e.peer >= sch.num_endpoints())
        rd.fail(fmt::format("'{}peer' is {}, outside -1..{}", p, e.peer, sch.num_endpoints() - 1));
      if (e.storage < -1 || e.storage >= nstorage)
        rd.fail(fmt::format("'{}storage' is {}, outside -1..{}", p, e.storage, nstorage - 1));
      const int64_t size = L.view[static_cast<int>(e.buf)].size;
      if (e.offset < 0 || e.len < 0 || e.offset > size || e.len > size - e.offset)
        rd.fail(fmt::format("'{}offset' {} and '{}len' {} do not fit {} ({} elements)", p, e.offset, p, e.len,
                            name(e.buf), size));
      if (e.bytes < 0) rd.fail(fmt::format("'{}bytes' is {}", p, e.bytes));
      check_event_op(rd, r, sch.steps[e.step].ranks[q][e.op_index], e, p);
      if (seen[e.step][e.op_index]++)
        rd.fail(fmt::format("'{}' repeats step {} op {} of rank {}, recorded before", p, e.step, e.op_index, q));
      const auto& vals = t.carried[q][i];
      if (!vals.empty() && static_cast<int64_t>(vals.size()) != e.len)
        rd.fail(fmt::format("'{}values' has {} entries but the message has {} elements ('{}len')", p, vals.size(),
                            e.len, p));
    }
    auto check_snapshot = [&](const RankStepRecord& rec, const std::string& p) {
      for (size_t b = 0; b < rec.buffers.size(); ++b) {
        const BufferSnapshot& bs = rec.buffers[b];
        const std::string bp = fmt::format("{}buffers[{}].", p, b);
        if (bs.storage < 0 || bs.storage >= nstorage)
          rd.fail(fmt::format("'{}storage' is {}, outside 0..{}", bp, bs.storage, nstorage - 1));
        const int64_t size = L.view[static_cast<int>(bs.buf)].size;
        if (static_cast<int64_t>(bs.values.size()) != size)
          rd.fail(fmt::format("'{}values' has {} entries but {} has {} elements on rank {}", bp, bs.values.size(),
                              name(bs.buf), size, q));
      }
    };
    check_snapshot(t.initial[q], fmt::format("trace.initial[{}].", q));
    for (size_t k = 0; k < t.steps.size(); ++k) check_snapshot(t.steps[k][q], fmt::format("trace.steps[{}][{}].", k, q));
  }
}

template <class F>
auto wrap(const std::string& where, const std::string& path, F&& f) {
  try {
    return f();
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}: {}", where, path, e.what()));
  }
}

}  // namespace

RunRecord record_from_json(const std::string& text, const std::string& where) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw UsageError(fmt::format("{}: not JSON ({})", where, e.what()));
  }
  const Reader rd{where};
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != "microddp-record")
    rd.fail("not a microddp record (no \"format\": \"microddp-record\")");
  if (rd.get<int>(doc, "version", "") != 1) rd.fail(fmt::format("record version {} is not 1", doc["version"].dump()));
  RunRecord r;
  const json& js = rd.at(doc, "spec", "");
  CollectiveSpec& s = r.spec;
  const std::string sp = "spec.";
  s.collective = wrap(where, sp + "collective", [&] { return parse_collective(rd.get<std::string>(js, "collective", sp)); });
  s.algorithm = rd.get<std::string>(js, "algorithm", sp);
  s.world_size = rd.get<int>(js, "world_size", sp);
  s.count = rd.get<int64_t>(js, "count", sp);
  s.counts = rd.get<std::vector<int64_t>>(js, "counts", sp);
  s.dtype = wrap(where, sp + "dtype", [&] { return parse_dtype(rd.get<std::string>(js, "dtype", sp)); });
  s.op = wrap(where, sp + "op", [&] { return parse_op(rd.get<std::string>(js, "op", sp)); });
  s.root = rd.get<int>(js, "root", sp);
  s.in_place = rd.get<bool>(js, "in_place", sp);
  s.segments = rd.get<int>(js, "segments", sp);
  if (js.contains("nodes")) s.nodes = rd.get<int>(js, "nodes", sp);
  if (js.contains("channels")) s.channels = rd.get<int>(js, "channels", sp);
  if (doc.contains("cluster")) {
    if (!doc["cluster"].is_object()) rd.fail("cluster must be an object (the lab's topology)");
    r.cluster = doc["cluster"].dump();
  }
  if (doc.contains("broken")) r.broken = rd.get<std::string>(doc, "broken", "");
  if (doc.contains("delay")) {
    const json& d = rd.at(doc, "delay", "");
    RecordDelay x;
    x.rank = rd.get<int>(d, "rank", "delay.");
    x.max_delay_us = rd.get<int>(d, "max_delay_us", "delay.");
    x.seed = rd.get<uint64_t>(d, "seed", "delay.");
    x.tries = rd.get<int>(d, "tries", "delay.");
    if (x.rank < -1 || x.rank >= s.world_size)
      rd.fail(fmt::format("'delay.rank' is {}, outside -1..{} (-1: every rank)", x.rank, s.world_size - 1));
    if (x.max_delay_us < 0 || x.tries < 0)
      rd.fail(fmt::format("'delay' has max_delay_us {} and tries {}: neither may be negative", x.max_delay_us, x.tries));
    r.delay = x;
  }
  if (doc.contains("recorded")) {
    const json& o = rd.at(doc, "recorded", "");
    r.origin.machine = rd.get<std::string>(o, "machine", "recorded.");
    r.origin.date = rd.get<std::string>(o, "date", "recorded.");
    r.origin.command = rd.get<std::string>(o, "command", "recorded.");
  }
  wrap(where, "spec", [&] {
    check_ranks(s.world_size, "spec.world_size");
    s.validate();
    return 0;
  });
  const size_t es = dtype_size(s.dtype);
  const json& ins = rd.array(doc, "inputs", "");
  const json& outs = rd.array(doc, "outputs", "");
  if (static_cast<int>(ins.size()) != s.world_size || static_cast<int>(outs.size()) != s.world_size)
    rd.fail(fmt::format("{} inputs and {} outputs for world size {}", ins.size(), outs.size(), s.world_size));
  for (int q = 0; q < s.world_size; ++q) {
    r.inputs.push_back(rd.bytes(ins[q], fmt::format("inputs[{}]", q)));
    r.outputs.push_back(rd.bytes(outs[q], fmt::format("outputs[{}]", q)));
    if (r.inputs[q].size() != static_cast<size_t>(s.input_count(q)) * es)
      rd.fail(fmt::format("inputs[{}] has {} bytes but the spec needs {}", q, r.inputs[q].size(),
                          s.input_count(q) * static_cast<int64_t>(es)));
    if (!r.outputs[q].empty() && r.outputs[q].size() != static_cast<size_t>(s.output_count(q)) * es)
      rd.fail(fmt::format("outputs[{}] has {} bytes but the spec needs {}", q, r.outputs[q].size(),
                          s.output_count(q) * static_cast<int64_t>(es)));
  }
  const json& jt = rd.at(doc, "trace", "");
  const std::string tp = "trace.";
  Trace& t = r.trace;
  t.mode = wrap(where, tp + "mode", [&] { return parse_mode(rd.get<std::string>(jt, "mode", tp)); });
  t.backend = rd.get<std::string>(jt, "backend", tp);
  t.world_size = rd.get<int>(jt, "world_size", tp);
  t.switches = jt.contains("switches") ? rd.get<int>(jt, "switches", tp) : 0;  // absent before switch endpoints
  t.total_ns = rd.get<int64_t>(jt, "total_ns", tp);
  t.bytes_sent = rd.get<std::vector<int64_t>>(jt, "bytes_sent", tp);
  t.bytes_received = rd.get<std::vector<int64_t>>(jt, "bytes_received", tp);
  t.snapshots = rd.get<bool>(jt, "snapshots", tp);
  t.iteration_ns = rd.get<std::vector<int64_t>>(jt, "iteration_ns", tp);
  // Nothing a clock measures is negative.
  if (t.total_ns < 0) rd.fail(fmt::format("'trace.total_ns' is {} ns, below 0", t.total_ns));
  for (size_t i = 0; i < t.iteration_ns.size(); ++i)
    if (t.iteration_ns[i] < 0) rd.fail(fmt::format("'trace.iteration_ns[{}]' is {} ns, below 0", i, t.iteration_ns[i]));
  if (jt.contains("protocol"))  // older records: simple
    t.protocol = wrap(where, tp + "protocol", [&] { return parse_protocol(rd.get<std::string>(jt, "protocol", tp)); });
  const json& evs = rd.array(jt, "events", tp);
  for (size_t q = 0; q < evs.size(); ++q) {
    t.events.emplace_back();
    t.carried.emplace_back();
    if (!evs[q].is_array()) rd.fail(fmt::format("trace.events[{}] is not an array", q));
    for (size_t i = 0; i < evs[q].size(); ++i) {
      const json& je = evs[q][i];
      const std::string p = fmt::format("trace.events[{}][{}].", q, i);
      Event e;
      e.step = rd.get<int32_t>(je, "step", p);
      e.op_index = rd.get<int32_t>(je, "op_index", p);
      e.kind = rd.enum_of<OpKind, 6>(rd.get<std::string>(je, "kind", p), p + "kind");
      e.peer = rd.get<int32_t>(je, "peer", p);
      e.buf = rd.enum_of<Buf, kNumBufs>(rd.get<std::string>(je, "buf", p), p + "buf");
      e.offset = rd.get<int64_t>(je, "offset", p);
      e.len = rd.get<int64_t>(je, "len", p);
      e.bytes = rd.get<int64_t>(je, "bytes", p);
      e.chunk = rd.get<int32_t>(je, "chunk", p);
      if (je.contains("channel")) e.channel = rd.get<int32_t>(je, "channel", p);
      e.begin_ns = rd.get<int64_t>(je, "begin_ns", p);
      e.end_ns = rd.get<int64_t>(je, "end_ns", p);
      e.storage = rd.get<int32_t>(je, "storage", p);
      if (je.contains("flags")) {
        e.wire_bytes = rd.get<int64_t>(je, "wire_bytes", p);
        e.flags = rd.get<int64_t>(je, "flags", p);
        if (e.wire_bytes < 0 || e.flags < 1) rd.fail(fmt::format("'{}flags' is {} with wire_bytes {}", p, e.flags, e.wire_bytes));
      }
      t.carried.back().emplace_back();
      if (je.contains("values")) {
        const json& vals = rd.array(je, "values", p);
        for (size_t k = 0; k < vals.size(); ++k)
          t.carried.back().back().push_back(rd.number(vals[k], fmt::format("{}values[{}]", p, k)));
      }
      t.events.back().push_back(e);
    }
  }
  const json& steps = rd.array(jt, "steps", tp);
  for (size_t k = 0; k < steps.size(); ++k) {
    t.steps.emplace_back();
    if (!steps[k].is_array()) rd.fail(fmt::format("trace.steps[{}] is not an array", k));
    for (size_t q = 0; q < steps[k].size(); ++q)
      t.steps.back().push_back(rd.step(steps[k][q], fmt::format("trace.steps[{}][{}].", k, q)));
  }
  if (jt.contains("step_timing")) {
    const json& tim = rd.array(jt, "step_timing", tp);
    for (size_t k = 0; k < tim.size(); ++k) {
      const std::string p = fmt::format("trace.step_timing[{}].", k);
      StepTiming st;
      st.first_run_ns = rd.get<int64_t>(tim[k], "first_run_ns", p);
      st.median_ns = rd.get<int64_t>(tim[k], "median_ns", p);
      st.p10_ns = rd.get<int64_t>(tim[k], "p10_ns", p);
      st.p90_ns = rd.get<int64_t>(tim[k], "p90_ns", p);
      st.repetitions = rd.get<int32_t>(tim[k], "repetitions", p);
      st.includes_barrier = rd.get<bool>(tim[k], "includes_barrier", p);
      if (st.repetitions < 0) rd.fail(fmt::format("'{}repetitions' is {}, below 0", p, st.repetitions));
      if (!(st.p10_ns <= st.median_ns && st.median_ns <= st.p90_ns))
        rd.fail(fmt::format("'{}' has p10 {} ns, median {} ns, p90 {} ns, not in increasing order", p, st.p10_ns,
                            st.median_ns, st.p90_ns));
      t.step_timing.push_back(st);
    }
  }
  const json& init = rd.array(jt, "initial", tp);
  for (size_t q = 0; q < init.size(); ++q) t.initial.push_back(rd.step(init[q], fmt::format("trace.initial[{}].", q)));
  check_trace(rd, r);
  return r;
}

Schedule record_schedule(const RunRecord& r) {
  if (r.broken.empty()) return make_schedule(r.spec);
  const AlgorithmInfo* a = broken_variant_of(r.broken);
  if (!a) throw UsageError(fmt::format("'broken' is '{}', which is no broken form of an algorithm", r.broken));
  if (a->name != r.spec.algorithm || !a->variant(r.spec.collective))
    throw UsageError(fmt::format("'broken' is '{}', the broken form of {} {}, but the spec runs {} {}", r.broken,
                                 name(a->serves[0].collective), a->name, name(r.spec.collective), r.spec.algorithm));
  return a->broken(r.spec);
}

RunRecord load_record(const std::string& path) {
  require_regular_file(path, "record file");
  std::ifstream f(path);
  if (!f) throw UsageError(fmt::format("cannot read record file '{}'", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return record_from_json(ss.str(), path);
}

}  // namespace microddp
