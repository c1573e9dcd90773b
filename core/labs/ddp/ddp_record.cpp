// A DDP / FSDP run's record: JSON writer and checked reader (ddp_record.h).
#include "core/labs/ddp/ddp_record.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/ir/input_file.h"
#include "core/ir/types.h"
#include "core/record/record_io.h"

namespace microddp::ddp {

namespace {
using json = nlohmann::json;

int64_t ns(double ms) { return static_cast<int64_t>(std::llround(ms * 1e6)); }
double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }
json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json timeline_json(const IterationTimeline& t) {
  json j = {{"backward_end_ns", ns(t.backward_end_ms)}, {"end_ns", ns(t.end_ms)}, {"layers", json::array()},
            {"fills", json::array()},        {"comm", json::array()},     {"waits", json::array()}};
  for (const auto& l : t.layers)
    j["layers"].push_back({{"rank", l.rank}, {"layer", l.layer}, {"pass", l.backward ? "backward" : "forward"},
                           {"begin_ns", ns(l.begin_ms)}, {"end_ns", ns(l.end_ms)}});
  for (const auto& f : t.fills)
    j["fills"].push_back({{"rank", f.rank}, {"bucket", f.bucket}, {"ready_ns", ns(f.ready_ms)},
                          {"posted_ns", ns(f.posted_ms)}, {"layers_done", f.layers_done}});
  for (const auto& c : t.comm)
    j["comm"].push_back({{"call", c.call}, {"collective", c.collective}, {"what", c.what}, {"bucket", c.bucket},
                         {"layer", c.layer}, {"bytes", c.bytes}, {"begin_ns", ns(c.begin_ms)}, {"end_ns", ns(c.end_ms)}});
  for (const auto& w : t.waits)
    j["waits"].push_back({{"rank", w.rank}, {"call", w.call}, {"begin_ns", ns(w.begin_ms)}, {"end_ns", ns(w.end_ms)}});
  return j;
}

// Reading: every access names the field it looked for.
struct Reader {
  std::string where;
  [[noreturn]] void fail(const std::string& what) const { throw UsageError(fmt::format("{}: {}", where, what)); }
  const json& at(const json& j, const char* key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) fail(fmt::format("missing field '{}{}'", path, key));
    return j.at(key);
  }
  int64_t integer(const json& j, const char* key, const std::string& path, int64_t lo, int64_t hi) const {
    const json& v = at(j, key, path);
    int64_t x = 0;
    const auto outside = [&] { fail(fmt::format("field '{}{}' is {}, outside {}..{}", path, key, v.dump(), lo, hi)); };
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() > static_cast<uint64_t>(hi)) outside();
      x = static_cast<int64_t>(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      x = v.get<int64_t>();
    } else if (v.is_number_float() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>()) &&
               std::fabs(v.get<double>()) < 9e18) {
      x = static_cast<int64_t>(v.get<double>());
    } else {
      fail(fmt::format("field '{}{}' is {}, not a whole number", path, key, v.dump()));
    }
    if (x < lo || x > hi) outside();
    return x;
  }
  int int32(const json& j, const char* key, const std::string& path, int64_t lo, int64_t hi) const {
    return static_cast<int>(integer(j, key, path, lo, hi));
  }
  double number(const json& j, const char* key, const std::string& path) const {
    const json& v = at(j, key, path);
    if (!v.is_number()) fail(fmt::format("field '{}{}' is {}, not a number", path, key, v.dump()));
    return v.get<double>();
  }
  double number_or_nan(const json& j, const char* key, const std::string& path) const {
    const json& v = at(j, key, path);
    return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : number(j, key, path);
  }
  bool boolean(const json& j, const char* key, const std::string& path) const {
    const json& v = at(j, key, path);
    if (!v.is_boolean()) fail(fmt::format("field '{}{}' is {}, not true or false", path, key, v.dump()));
    return v.get<bool>();
  }
  std::string string(const json& j, const char* key, const std::string& path) const {
    const json& v = at(j, key, path);
    if (!v.is_string()) fail(fmt::format("field '{}{}' is {}, not a string", path, key, v.dump()));
    return v.get<std::string>();
  }
  const json& array(const json& j, const char* key, const std::string& path) const {
    const json& v = at(j, key, path);
    if (!v.is_array()) fail(fmt::format("field '{}{}' is not an array", path, key));
    return v;
  }
  // A span [begin, end] in ns: both >= 0, end >= begin.
  std::pair<double, double> span(const json& j, const char* b, const char* e, const std::string& path) const {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const int64_t x = integer(j, b, path, 0, kMax), y = integer(j, e, path, 0, kMax);
    if (y < x) fail(fmt::format("field '{}{}' is {}, before '{}' {}", path, e, y, b, x));
    return {ms(x), ms(y)};
  }
};

constexpr int64_t kBig = std::numeric_limits<int64_t>::max();

Options read_settings(const Reader& R, const json& s) {
  const std::string p = "settings.";
  Options o;
  o.ranks = R.int32(s, "ranks", p, 1, 64);
  o.depth = R.int32(s, "depth", p, 1, 256);
  o.width = R.int32(s, "width", p, 1, 4096);
  o.batch = R.integer(s, "batch", p, 1, kBig);
  o.iterations = R.int32(s, "iterations", p, 1, std::numeric_limits<int>::max());
  o.warmup = R.int32(s, "warmup", p, 0, 10);
  o.lr = R.number(s, "lr", p);
  o.bucket_cap_mb = R.number(s, "bucket_cap_mb", p);
  try {
    o.overlap = parse_overlap(R.string(s, "overlap", p));
  } catch (const UsageError& e) {
    R.fail(fmt::format("field 'settings.overlap': {}", e.what()));
  }
  o.algorithm = R.string(s, "algorithm", p);
  o.seed = static_cast<uint64_t>(R.integer(s, "seed", p, 0, kBig));
  o.sharded = R.boolean(s, "sharded", p);
  o.prefetch = R.boolean(s, "prefetch", p);
  o.layer_delay_us = R.int32(s, "layer_delay_us", p, 0, 1000000);
  o.link_us_per_mb = R.number(s, "link_us_per_mb", p);
  try {
    o.validate();
  } catch (const UsageError& e) {
    R.fail(fmt::format("settings: {}", e.what()));
  }
  return o;
}

IterationTimeline read_timeline(const Reader& R, const json& t, const std::string& p, int ranks) {
  IterationTimeline tl;
  tl.backward_end_ms = ms(R.integer(t, "backward_end_ns", p, 0, kBig));
  tl.end_ms = ms(R.integer(t, "end_ns", p, 0, kBig));
  const json& layers = R.array(t, "layers", p);
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string q = fmt::format("{}layers[{}].", p, i);
    LayerSpan l;
    l.rank = R.int32(layers[i], "rank", q, 0, ranks - 1);
    l.layer = R.int32(layers[i], "layer", q, 0, 255);
    const std::string pass = R.string(layers[i], "pass", q);
    if (pass != "forward" && pass != "backward")
      R.fail(fmt::format("field '{}pass' is \"{}\", not \"forward\" or \"backward\"", q, pass));
    l.backward = pass == "backward";
    std::tie(l.begin_ms, l.end_ms) = R.span(layers[i], "begin_ns", "end_ns", q);
    tl.layers.push_back(l);
  }
  const json& fills = R.array(t, "fills", p);
  for (size_t i = 0; i < fills.size(); ++i) {
    const std::string q = fmt::format("{}fills[{}].", p, i);
    BucketFill f;
    f.rank = R.int32(fills[i], "rank", q, 0, ranks - 1);
    f.bucket = R.int32(fills[i], "bucket", q, 0, std::numeric_limits<int>::max());
    std::tie(f.ready_ms, f.posted_ms) = R.span(fills[i], "ready_ns", "posted_ns", q);
    f.layers_done = R.int32(fills[i], "layers_done", q, 0, std::numeric_limits<int>::max());
    tl.fills.push_back(f);
  }
  const json& comm = R.array(t, "comm", p);
  for (size_t i = 0; i < comm.size(); ++i) {
    const std::string q = fmt::format("{}comm[{}].", p, i);
    CommSpan c;
    c.call = R.int32(comm[i], "call", q, 0, std::numeric_limits<int>::max());
    c.collective = R.string(comm[i], "collective", q);
    c.what = R.string(comm[i], "what", q);
    c.bucket = R.int32(comm[i], "bucket", q, -1, std::numeric_limits<int>::max());
    c.layer = R.int32(comm[i], "layer", q, -1, 255);
    c.bytes = R.integer(comm[i], "bytes", q, 0, kBig);
    std::tie(c.begin_ms, c.end_ms) = R.span(comm[i], "begin_ns", "end_ns", q);
    tl.comm.push_back(c);
  }
  const json& waits = R.array(t, "waits", p);
  for (size_t i = 0; i < waits.size(); ++i) {
    const std::string q = fmt::format("{}waits[{}].", p, i);
    WaitSpan w;
    w.rank = R.int32(waits[i], "rank", q, 0, ranks - 1);
    w.call = R.int32(waits[i], "call", q, 0, std::numeric_limits<int>::max());
    std::tie(w.begin_ms, w.end_ms) = R.span(waits[i], "begin_ns", "end_ns", q);
    tl.waits.push_back(w);
  }
  return tl;
}

}  // namespace

std::string ddp_record_to_json(const DdpRecord& rec) {
  const Result& r = rec.run;
  const Options& o = r.options;
  json settings = {{"ranks", o.ranks},
                   {"depth", o.depth},
                   {"width", o.width},
                   {"batch", o.batch},
                   {"iterations", o.iterations},
                   {"warmup", o.warmup},
                   {"lr", o.lr},
                   {"bucket_cap_mb", o.bucket_cap_mb},
                   {"overlap", std::string(name(o.overlap))},
                   {"algorithm", o.algorithm},
                   {"seed", o.seed},
                   {"sharded", o.sharded},
                   {"prefetch", o.prefetch},
                   {"layer_delay_us", o.layer_delay_us},
                   {"link_us_per_mb", o.link_us_per_mb}};
  json buckets = json::array();
  for (const auto& b : r.buckets)
    buckets.push_back({{"params", b.params}, {"offsets", b.offsets}, {"elements", b.elements}, {"bytes", b.bytes}});
  json iterations = json::array();
  for (size_t i = 0; i < r.iterations.size(); ++i) {
    const IterationStats& s = r.iterations[i];
    json it = {{"loss", number_or_null(s.loss)},
               {"reference_loss", number_or_null(s.reference_loss)},
               {"compute_ns", ns(s.compute_ms)},
               {"comm_ns", ns(s.comm_ms)},
               {"waited_ns", ns(s.waited_ms)},
               {"exposed_comm_ns", ns(s.exposed_comm_ms)},
               {"overlap_fraction", s.overlap_fraction},
               {"calls", s.calls}};
    if (i < r.timelines.size()) it["timeline"] = timeline_json(r.timelines[i]);
    iterations.push_back(std::move(it));
  }
  json doc = {{"format", kDdpRecordFormat},
              {"version", 1},
              {"settings", settings},
              {"params", r.params},
              {"param_elements", r.param_elements},
              {"buckets", buckets},
              {"warmup_iterations", r.warmup_iterations},
              {"warmup_calls", r.warmup_calls},
              {"replicas_identical", r.replicas_identical},
              {"max_reference_rel_error", number_or_null(r.max_reference_rel_error)},
              {"iterations", iterations},
              {"command", rec.command}};
  return doc.dump(1) + "\n";
}

DdpRecord ddp_record_from_json(const std::string& text, const std::string& where) {
  const Reader R{where};
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    R.fail(fmt::format("not JSON: {}", e.what()));
  }
  const std::string format = R.string(doc, "format", "");
  if (format == kRunRecordFormat)
    R.fail(fmt::format("is a collective run's record (\"format\": \"{}\", `microddp run --save-record`), not a DDP "
                       "training run's (\"{}\", `microddp ddp --record`)",
                       kRunRecordFormat, kDdpRecordFormat));
  if (format != kDdpRecordFormat)
    R.fail(fmt::format("field 'format' is \"{}\", not \"{}\"", format, kDdpRecordFormat));
  if (const int64_t v = R.integer(doc, "version", "", 0, kBig); v != 1)
    R.fail(fmt::format("field 'version' is {}, not 1 (this microddp reads version 1)", v));
  DdpRecord rec;
  Result& r = rec.run;
  r.options = read_settings(R, R.at(doc, "settings", ""));
  const int n = r.options.ranks;
  r.params = R.int32(doc, "params", "", 0, 2 * 256);
  r.param_elements = R.integer(doc, "param_elements", "", 0, kBig);
  const json& buckets = R.array(doc, "buckets", "");
  for (size_t i = 0; i < buckets.size(); ++i) {
    const std::string q = fmt::format("buckets[{}].", i);
    Bucket b;
    const json& ps = R.array(buckets[i], "params", q);
    const json& offs = R.array(buckets[i], "offsets", q);
    if (ps.size() != offs.size())
      R.fail(fmt::format("field '{}offsets' has {} entries for {} params", q, offs.size(), ps.size()));
    for (size_t k = 0; k < ps.size(); ++k) {
      const std::string pk = fmt::format("{}params[{}]", q, k), ok = fmt::format("{}offsets[{}]", q, k);
      if (!ps[k].is_number_integer() || ps[k].get<int64_t>() < 0 || ps[k].get<int64_t>() >= r.params)
        R.fail(fmt::format("field '{}' is {}, not a parameter in 0..{}", pk, ps[k].dump(), r.params - 1));
      if (!offs[k].is_number_integer() || offs[k].get<int64_t>() < 0)
        R.fail(fmt::format("field '{}' is {}, not an element offset >= 0", ok, offs[k].dump()));
      b.params.push_back(ps[k].get<int>());
      b.offsets.push_back(offs[k].get<int64_t>());
    }
    b.elements = R.integer(buckets[i], "elements", q, 0, kBig);
    b.bytes = R.integer(buckets[i], "bytes", q, 0, kBig);
    r.buckets.push_back(std::move(b));
  }
  r.warmup_iterations = R.int32(doc, "warmup_iterations", "", 0, 10);
  r.warmup_calls = R.int32(doc, "warmup_calls", "", 0, std::numeric_limits<int>::max());
  r.replicas_identical = R.boolean(doc, "replicas_identical", "");
  r.max_reference_rel_error = R.number_or_nan(doc, "max_reference_rel_error", "");
  const json& its = R.array(doc, "iterations", "");
  if (its.size() != size_t(r.options.iterations))
    R.fail(fmt::format("field 'iterations' has {} entries, but settings.iterations is {}", its.size(),
                       r.options.iterations));
  for (size_t i = 0; i < its.size(); ++i) {
    const std::string q = fmt::format("iterations[{}].", i);
    IterationStats s;
    s.loss = R.number_or_nan(its[i], "loss", q);
    s.reference_loss = R.number_or_nan(its[i], "reference_loss", q);
    s.compute_ms = ms(R.integer(its[i], "compute_ns", q, 0, kBig));
    s.comm_ms = ms(R.integer(its[i], "comm_ns", q, 0, kBig));
    s.waited_ms = ms(R.integer(its[i], "waited_ns", q, 0, kBig));
    s.exposed_comm_ms = ms(R.integer(its[i], "exposed_comm_ns", q, 0, kBig));
    s.overlap_fraction = R.number(its[i], "overlap_fraction", q);
    if (!(s.overlap_fraction >= 0 && s.overlap_fraction <= 1))
      R.fail(fmt::format("field '{}overlap_fraction' is {}, outside 0..1", q, s.overlap_fraction));
    s.calls = R.int32(its[i], "calls", q, 0, std::numeric_limits<int>::max());
    s.model_comm_ms = s.model_exposed_comm_ms = s.model_overlap_fraction = std::numeric_limits<double>::quiet_NaN();
    r.iterations.push_back(s);
    r.timelines.push_back(read_timeline(R, R.at(its[i], "timeline", q), q + "timeline.", n));
  }
  rec.command = R.string(doc, "command", "");
  return rec;
}

void save_ddp_record(const std::string& path, const DdpRecord& r) {
  write_text_file(path, ddp_record_to_json(r), "DDP record file");
}

DdpRecord load_ddp_record(const std::string& path) {
  require_regular_file(path, "DDP record file");
  std::ifstream f(path);
  if (!f) throw UsageError(fmt::format("cannot read DDP record file '{}'", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ddp_record_from_json(ss.str(), path);
}

void check_record_path(const std::string& path) {
  if (path.empty()) throw UsageError("--record '' is empty: give the record a file name");
  const std::filesystem::path fp(path);
  std::error_code ec;
  if (std::filesystem::is_directory(fp, ec))
    throw UsageError(fmt::format("--record '{}' is a directory: give the record a file name inside it", path));
  const std::filesystem::path dir = fp.has_parent_path() ? fp.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError(fmt::format("--record '{}': the folder '{}' does not exist", path, dir.string()));
  const bool existed = std::filesystem::exists(fp, ec);
  errno = 0;
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    std::fclose(f);
    if (!existed) std::filesystem::remove(fp, ec);  // only a probe: the record is written after the run
    return;
  }
  throw UsageError(fmt::format("--record '{}' cannot be written: {}", path, std::strerror(errno)));
}

std::string record_file_format(const std::string& path) {
  require_regular_file(path, "record file");
  std::ifstream f(path);
  if (!f) throw UsageError(fmt::format("cannot read record file '{}'", path));
  std::stringstream ss;
  ss << f.rdbuf();
  const json doc = json::parse(ss.str(), nullptr, false);
  if (doc.is_object() && doc.contains("format") && doc["format"].is_string()) {
    const std::string fmt = doc["format"].get<std::string>();
    if (fmt == kDdpRecordFormat || fmt == kRunRecordFormat) return fmt;
  }
  return "";
}

}  // namespace microddp::ddp
