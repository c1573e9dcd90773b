// Writing a run's record (record_io.h): record_to_json, save_record and
// write_text_file. Reading and checking it: record_io.cpp.
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/record/record_io.h"

namespace microddp {

namespace {
using json = nlohmann::json;

std::string to_hex(const std::vector<std::byte>& b) {
  static const char* d = "0123456789abcdef";
  std::string s(b.size() * 2, '0');
  for (size_t i = 0; i < b.size(); ++i) {
    const auto v = static_cast<unsigned>(b[i]);
    s[2 * i] = d[v >> 4];
    s[2 * i + 1] = d[v & 15];
  }
  return s;
}

json value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json step_record(const RankStepRecord& r) {
  json bufs = json::array();
  for (const auto& b : r.buffers) {
    json vals = json::array();
    for (double v : b.values) vals.push_back(value(v));
    bufs.push_back({{"buf", name(b.buf)}, {"storage", b.storage}, {"values", vals}});
  }
  return {{"begin_ns", r.begin_ns}, {"end_ns", r.end_ns}, {"buffers", bufs}};
}

}  // namespace

std::string record_to_json(const RunRecord& r) {
  const CollectiveSpec& s = r.spec;
  json spec = {{"collective", name(s.collective)}, {"algorithm", s.algorithm}, {"world_size", s.world_size},
               {"count", s.count},           {"counts", s.counts},         {"dtype", name(s.dtype)},
               {"op", name(s.op)},           {"root", s.root},             {"in_place", s.in_place},
               {"segments", s.segments}};
  if (s.nodes != 1) spec["nodes"] = s.nodes;  // older records have no field: one node
  if (s.channels != 1) spec["channels"] = s.channels;  // older records have no field: one channel
  json inputs = json::array(), outputs = json::array();
  for (const auto& row : r.inputs) inputs.push_back(to_hex(row));
  for (const auto& row : r.outputs) outputs.push_back(to_hex(row));
  const Trace& t = r.trace;
  json events = json::array();
  for (size_t q = 0; q < t.events.size(); ++q) {
    const auto& rank = t.events[q];
    // what each message carried, when recorded for every event of this endpoint
    const bool carried = q < t.carried.size() && t.carried[q].size() == rank.size();
    json evs = json::array();
    for (size_t i = 0; i < rank.size(); ++i) {
      const Event& e = rank[i];
      json je = {{"step", e.step}, {"op_index", e.op_index}, {"kind", name(e.kind)}, {"peer", e.peer},
                 {"buf", name(e.buf)}, {"offset", e.offset}, {"len", e.len}, {"bytes", e.bytes},
                 {"chunk", e.chunk}, {"begin_ns", e.begin_ns}, {"end_ns", e.end_ns}, {"storage", e.storage}};
      if (e.flags > 0) {  // messages (older records have neither: simple's m and 1 are not restored)
        je["wire_bytes"] = e.wire_bytes;
        je["flags"] = e.flags;
      }
      if (e.channel >= 0) je["channel"] = e.channel;  // older records have none: -1
      if (carried && !t.carried[q][i].empty()) {  // what the message carried; older records have none
        json vals = json::array();
        for (double v : t.carried[q][i]) vals.push_back(value(v));
        je["values"] = std::move(vals);
      }
      evs.push_back(std::move(je));
    }
    events.push_back(std::move(evs));
  }
  json steps = json::array();
  for (const auto& st : t.steps) {
    json ranks = json::array();
    for (const auto& rr : st) ranks.push_back(step_record(rr));
    steps.push_back(std::move(ranks));
  }
  json initial = json::array();
  for (const auto& rr : t.initial) initial.push_back(step_record(rr));
  json trace = {{"mode", name(t.mode)},         {"backend", t.backend},         {"world_size", t.world_size},
                {"total_ns", t.total_ns},       {"events", events},             {"steps", steps},
                {"initial", initial},           {"bytes_sent", t.bytes_sent},   {"bytes_received", t.bytes_received},
                {"snapshots", t.snapshots},     {"iteration_ns", t.iteration_ns},
                {"protocol", name(t.protocol)}};
  if (t.switches > 0) trace["switches"] = t.switches;  // events etc. hold the switch endpoints after the ranks
  if (!t.step_timing.empty()) {  // older records have none: Trace::timing falls back
    json timing = json::array();
    for (const StepTiming& st : t.step_timing)
      timing.push_back({{"first_run_ns", st.first_run_ns}, {"median_ns", st.median_ns}, {"p10_ns", st.p10_ns},
                        {"p90_ns", st.p90_ns}, {"repetitions", st.repetitions},
                        {"includes_barrier", st.includes_barrier}});
    trace["step_timing"] = std::move(timing);
  }
  json doc = {{"format", "microddp-record"}, {"version", 1}, {"spec", spec},
              {"inputs", inputs},           {"outputs", outputs}, {"trace", trace}};
  if (!r.cluster.empty()) doc["cluster"] = json::parse(r.cluster, nullptr, false);
  if (!r.broken.empty()) doc["broken"] = r.broken;
  if (r.delay)
    doc["delay"] = {{"rank", r.delay->rank}, {"max_delay_us", r.delay->max_delay_us}, {"seed", r.delay->seed},
                    {"tries", r.delay->tries}};
  if (!r.origin.empty())
    doc["recorded"] = {{"machine", r.origin.machine}, {"date", r.origin.date}, {"command", r.origin.command}};
  return doc.dump() + "\n";
}

void save_record(const std::string& path, const RunRecord& r) { write_text_file(path, record_to_json(r), "record file"); }

void write_text_file(const std::string& path, const std::string& text, const std::string& what) {
  if (path.empty()) throw UsageError(fmt::format("the {} path is empty", what));
  std::ofstream f(path, std::ios::binary);
  if (!f) throw UsageError(fmt::format("cannot write {} '{}': {}", what, path, std::strerror(errno)));
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  f.flush();  // a full disk (/dev/full) shows here or at close, not at open
  if (!f) throw UsageError(fmt::format("cannot write {} '{}': {}", what, path, std::strerror(errno)));
  f.close();
  if (!f) throw UsageError(fmt::format("cannot write {} '{}': {}", what, path, std::strerror(errno)));
}

}  // namespace microddp
