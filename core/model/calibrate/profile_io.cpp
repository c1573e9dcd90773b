// Calibration profiles: where they live, JSON write and read with
// validation, and the choice between a profile, a preset and flags
// (core/model/calibrate/calibrate.h).
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/ir/input_file.h"
#include "core/model/calibrate/calibrate.h"

namespace microddp {

std::string default_profile_path() {
  namespace fs = std::filesystem;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return (fs::path(x) / "microddp" / "profile.json").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".config" / "microddp" / "profile.json").string();
  return "microddp-profile.json";
}

void write_profile(const std::string& path, const CostParams& p, const std::vector<FitPoint>& points) {
  nlohmann::json j;
  j["backend"] = p.name;
  j["alpha_s"] = p.alpha;
  j["beta_s_per_byte"] = p.beta;
  j["bandwidth_Bps"] = p.bandwidth();
  j["gamma_s_per_byte"] = p.gamma;
  j["delta_s_per_byte"] = p.delta;
  j["n_half_bytes"] = p.n_half();
  if (p.cores > 0) j["cores"] = p.cores;  // absent = one core per rank (not modelled); a file says >= 1
  j["fused_recv_reduce"] = p.fused_recv_reduce;
  j["break_bytes"] = p.break_bytes;
  j["alpha_small_s"] = p.alpha_small;
  if (p.exchange_32k_s > 0) j["exchange_32k_step_s"] = p.exchange_32k_s;
  if (!p.threads_wait.empty()) j["threads_wait"] = p.threads_wait;
  j["beta_small_s_per_byte"] = p.beta_small;
  j["barrier_s_by_ranks"] = p.barrier_s;      // [n-2]
  j["peer_wait_s_by_ranks"] = p.wait_s;       // [n-2]
  j["mem_bw_Bps_by_threads"] = p.mem_bw_Bps;  // [k-1]
  if (!p.cache.empty()) j["cache_curve"] = cache_curve_json(p.cache);
  // Each protocol's measured line (protocol_model.h); absent: derived on load.
  if (p.protocols.size() == all_protocols().size()) {
    nlohmann::json pj = nlohmann::json::object();
    for (Protocol q : all_protocols()) {
      const ProtocolCost& c = p.protocols[static_cast<int>(q)];
      if (!c.derived) pj[std::string(name(q))] = {{"alpha_s", c.alpha}, {"beta_s_per_byte", c.beta}};
    }
    if (pj.size() == all_protocols().size()) j["protocols"] = pj;
  }
  j["points"] = nlohmann::json::array();
  for (const auto& pt : points) j["points"].push_back({{"bytes", pt.bytes}, {"seconds", pt.seconds}});
  const std::filesystem::path fp(path);
  std::error_code ec;
  if (fp.has_parent_path()) std::filesystem::create_directories(fp.parent_path(), ec);
  std::ofstream f(path);
  if (!f) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
}

void check_profile_writable(const std::string& path) {
  if (path.empty()) throw UsageError("--out is empty: give the profile a file name (or leave --out out for the default)");
  const std::filesystem::path fp(path);
  std::error_code ec;
  if (std::filesystem::is_directory(fp, ec))
    throw UsageError(fmt::format("--out '{}' is a directory: give the profile a file name inside it", path));
  const std::filesystem::path dir = fp.has_parent_path() ? fp.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::exists(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) throw UsageError(fmt::format("--out '{}': cannot create the folder '{}': {}", path, dir.string(), ec.message()));
  } else if (!std::filesystem::is_directory(dir, ec)) {
    throw UsageError(fmt::format("--out '{}': '{}' is not a folder", path, dir.string()));
  }
  const bool existed = std::filesystem::exists(fp, ec);
  errno = 0;
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    std::fclose(f);
    if (!existed) std::filesystem::remove(fp, ec);  // only a probe: the profile is written at the end
    return;
  }
  throw UsageError(fmt::format("--out '{}' cannot be written: {}", path, std::strerror(errno)));
}

CostParams load_profile(const std::string& path) {
  // A FIFO would block the read, a device could stream forever, and a
  // directory "parses" as empty: only a regular file (through symlinks) is
  // a profile.
  require_regular_file(path, "profile", "run `microddp calibrate` to write one");
  std::ifstream f(path);
  if (!f) throw UsageError(fmt::format("profile '{}' cannot be read (run `microddp calibrate` first)", path));
  std::stringstream ss;
  ss << f.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("profile '{}' does not parse as JSON: {}", path, e.what()));
  }
  if (j.is_object() && !j.contains("alpha_s") && j.contains("fit") && j["fit"].is_object() &&
      j["fit"].value("model", "") == "nccl-tuner")
    throw UsageError(fmt::format("profile '{}' is a fit of the NCCL-shaped tuner to published tables (microddp fit): "
                                 "only predict --profile reads it; this command needs a calibrated profile (microddp "
                                 "calibrate, or fit --model alpha-beta)",
                                 path));
  if (!j.is_object() || !j.contains("alpha_s") || !j.contains("beta_s_per_byte") || !j["alpha_s"].is_number() ||
      !j["beta_s_per_byte"].is_number())
    throw UsageError(fmt::format("profile '{}' lacks numeric alpha_s and beta_s_per_byte", path));
  CostParams p;
  // Every scalar: a number, finite, in its range (an absurd value such as
  // 1e308 or a negative latency would give absurd predictions silently).
  // open_lo: the lower bound itself is refused (β = 0 is infinite bandwidth).
  auto num = [&](const char* k, double d, double lo, double hi, bool open_lo = false, const char* unit = "") {
    if (!j.contains(k)) return d;
    const auto& x = j[k];
    const double v = x.is_number() ? x.get<double>() : std::nan("");
    if (!x.is_number() || !std::isfinite(v) || v > hi || (open_lo ? !(v > lo) : !(v >= lo)))
      throw UsageError(fmt::format("profile '{}': {} = {} (expected a finite number{} in {}{:g}, {:g}])", path, k,
                                   x.dump(), unit, open_lo ? "(" : "[", lo, hi));
    return v;
  };
  auto integer = [&](const char* k, double lo, double hi) {
    const double v = num(k, 0, lo, hi);
    if (j.contains(k) && v != std::floor(v))
      throw UsageError(fmt::format("profile '{}': {} = {} (expected a whole number)", path, k, j[k].dump()));
    return v;
  };
  constexpr double kMaxBytes = 1125899906842624.0;  // 2^50
  p.name = j.contains("backend") && j["backend"].is_string() ? j["backend"].get<std::string>() : "profile";
  p.alpha = num("alpha_s", 0, 0.0, 1.0, false, " of seconds");
  p.beta = num("beta_s_per_byte", 0, 0.0, 1.0, true, " of seconds per byte");
  num("bandwidth_Bps", 0, 0.0, 1e15, true, " of bytes per second");  // derived from β; checked, not used
  p.gamma = num("gamma_s_per_byte", 0, 0.0, 1.0, false, " of seconds per byte");
  p.delta = num("delta_s_per_byte", 0, 0.0, 1.0, false, " of seconds per byte");
  num("n_half_bytes", 0, 0.0, kMaxBytes, false, " of bytes");  // derived; checked, not used
  p.cores = j.contains("cores") ? static_cast<int>(integer("cores", 1, 65536)) : 0;
  // Flags and labels of the wrong JSON type are refused, not read as their
  // default: "quick": "yes" would otherwise say a full calibration.
  auto typed = [&](const char* k, bool (nlohmann::json::*is)() const noexcept, const char* expected) {
    if (j.contains(k) && !(j[k].*is)())
      throw UsageError(fmt::format("profile '{}': {} = {} (expected {})", path, k, j[k].dump(), expected));
  };
  typed("fused_recv_reduce", &nlohmann::json::is_boolean, "true or false");
  typed("quick", &nlohmann::json::is_boolean, "true or false");  // calibrate --quick's mark (profile_stamp)
  typed("calibrated_on", &nlohmann::json::is_string, "a date string \"YYYY-MM-DD\"");
  typed("backend", &nlohmann::json::is_string, "a string");
  typed("threads_wait", &nlohmann::json::is_string, "\"spin\"");
  if (j.contains("threads_wait")) {
    p.threads_wait = j["threads_wait"].get<std::string>();
    if (p.threads_wait != "spin")
      throw UsageError(fmt::format("profile '{}': threads_wait = \"{}\" (expected \"spin\", or no such key)", path,
                                   p.threads_wait));
  }
  p.fused_recv_reduce = j.contains("fused_recv_reduce") && j["fused_recv_reduce"].get<bool>();
  p.break_bytes = static_cast<int64_t>(integer("break_bytes", 0, kMaxBytes));
  p.alpha_small = num("alpha_small_s", 0, 0.0, 1.0, false, " of seconds");
  p.exchange_32k_s = num("exchange_32k_step_s", 0, 0.0, 1.0, false, " of seconds");
  // A 32 KiB step takes far more than a nanosecond: a smaller time is not a
  // measurement, and would make every probe ratio absurd.
  if (p.exchange_32k_s > 0 && p.exchange_32k_s < 1e-9)
    throw UsageError(fmt::format("profile '{}': exchange_32k_step_s = {:g} (expected 0, absent, or at least 1e-09 "
                                 "seconds: a 32 KiB step takes far more than a nanosecond)",
                                 path, p.exchange_32k_s));
  p.beta_small = num("beta_small_s_per_byte", 0, 0.0, 1.0, false, " of seconds per byte");
  // "protocols": {"simple": {"alpha_s": .., "beta_s_per_byte": ..}, "ll": .., "ll128": ..}
  // (calibrate's protocol probe). Absent (profiles before it): left empty,
  // and protocol_costs() derives each line from simple's and the wire ratio.
  if (j.contains("protocols")) {
    const auto& pj = j["protocols"];
    if (!pj.is_object()) throw UsageError(fmt::format("profile '{}': protocols must be an object", path));
    for (Protocol q : all_protocols()) {
      const std::string k(name(q));
      const auto& e = pj.contains(k) ? pj[k] : nlohmann::json();
      const bool ok = e.is_object() && e.contains("alpha_s") && e["alpha_s"].is_number() &&
                      e.contains("beta_s_per_byte") && e["beta_s_per_byte"].is_number() &&
                      std::isfinite(e["alpha_s"].get<double>()) && e["alpha_s"].get<double>() >= 0 &&
                      e["alpha_s"].get<double>() <= 1 && std::isfinite(e["beta_s_per_byte"].get<double>()) &&
                      e["beta_s_per_byte"].get<double>() > 0 && e["beta_s_per_byte"].get<double>() <= 1;
      if (!ok)
        throw UsageError(fmt::format("profile '{}': protocols.{} = {} (expected {{\"alpha_s\": seconds in [0, 1], "
                                     "\"beta_s_per_byte\": in (0, 1]}})",
                                     path, k, pj.contains(k) ? e.dump() : "missing"));
      p.protocols.push_back({e["alpha_s"].get<double>(), e["beta_s_per_byte"].get<double>(), false});
    }
  }
  if (j.contains("points")) {
    const auto& pts = j["points"];
    if (!pts.is_array()) throw UsageError(fmt::format("profile '{}': points must be an array", path));
    for (size_t i = 0; i < pts.size(); ++i) {
      const auto& pt = pts[i];
      const bool ok = pt.is_object() && pt.contains("bytes") && pt["bytes"].is_number() && pt.contains("seconds") &&
                      pt["seconds"].is_number() && pt["bytes"].get<double>() >= 1 &&
                      pt["bytes"].get<double>() <= kMaxBytes && pt["seconds"].get<double>() > 0 &&
                      pt["seconds"].get<double>() <= 1e3;
      if (!ok)
        throw UsageError(fmt::format(
            "profile '{}': points[{}] = {} (expected {{\"bytes\": 1..2^50, \"seconds\": a number in (0, 1000]}})", path, i,
            pt.dump()));
      // The first entry at 32 KiB, as calibrate writes one per size.
      if (pt["bytes"].get<double>() == static_cast<double>(kStateProbeBytes) && p.point_32k_s == 0)
        p.point_32k_s = pt["seconds"].get<double>();
    }
  }
  if (j.contains("cache_curve")) p.cache = cache_curve_from_json(j["cache_curve"], path);
  // A table is an array of numbers in [lo, hi]; anything else names the
  // key and the entry (a shifted or absurd table would skew every prediction).
  auto nums = [&](const char* k, double lo, double hi) {
    std::vector<double> v;
    if (!j.contains(k)) return v;
    if (!j[k].is_array()) throw UsageError(fmt::format("profile '{}': {} must be an array of numbers", path, k));
    for (size_t i = 0; i < j[k].size(); ++i) {
      const auto& x = j[k][i];
      if (!x.is_number() || !(x.get<double>() >= lo && x.get<double>() <= hi))
        throw UsageError(fmt::format("profile '{}': {}[{}] = {} (expected a number in [{:g}, {:g}])", path, k, i,
                                     x.dump(), lo, hi));
      v.push_back(x.get<double>());
    }
    return v;
  };
  p.barrier_s = nums("barrier_s_by_ranks", 0.0, 1.0);     // seconds
  p.wait_s = nums("peer_wait_s_by_ranks", 0.0, 1.0);      // seconds
  p.mem_bw_Bps = nums("mem_bw_Bps_by_threads", 1.0, 1e15);  // bytes/s
  return p;
}

std::optional<CostParams> resolve_params(const ParamChoice& c) {
  if (std::isnan(c.alpha) || std::isinf(c.alpha) || (c.alpha < 0 && c.alpha != -1))
    throw UsageError(fmt::format("--alpha {} must be a finite number of seconds >= 0", c.alpha));
  if (std::isnan(c.bandwidth) || std::isinf(c.bandwidth) || (c.bandwidth <= 0 && c.bandwidth != -1))
    throw UsageError(fmt::format("--bandwidth {} must be a finite, positive number of bytes per second", c.bandwidth));
  if (std::isnan(c.gamma) || std::isinf(c.gamma) || c.gamma < 0)
    throw UsageError(fmt::format("--gamma {} must be a finite number of seconds per byte >= 0", c.gamma));
  if (c.alpha >= 0 || c.bandwidth >= 0) {
    if (c.alpha < 0) throw UsageError(fmt::format("--bandwidth {} needs --alpha SECONDS too", c.bandwidth));
    if (c.bandwidth < 0) throw UsageError(fmt::format("--alpha {} needs --bandwidth BYTES_PER_S too", c.alpha));
    if (!(c.bandwidth > 0))
      throw UsageError(fmt::format("--bandwidth {} must be a positive number of bytes per second", c.bandwidth));
    if (c.gamma < 0) throw UsageError(fmt::format("--gamma {} must not be negative", c.gamma));
    CostParams p;
    p.name = "custom";
    p.alpha = c.alpha;
    p.beta = 1.0 / c.bandwidth;
    p.gamma = c.gamma;
    return p;
  }
  if (!c.preset.empty()) return preset(c.preset);
  if (!c.profile.empty()) return load_profile(c.profile);
  const std::string def = default_profile_path();
  if (std::filesystem::exists(def)) return load_profile(def);
  return std::nullopt;
}

// ---- The per-link-class "topology" object (calibrate in the cluster lab) ----

void write_profile_topology(const std::string& path, const TopologyProfile& t) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read profile '{}' to add its topology", path));
  std::stringstream ss;
  ss << in.rdbuf();
  in.close();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (!j.is_object()) throw std::runtime_error(fmt::format("profile '{}' is not a JSON object", path));
  nlohmann::json o;
  o["nodes"] = t.nodes;
  o["ranks_per_node"] = t.ranks_per_node;
  o["nics_per_node"] = t.nics_per_node;
  o["barrier_s"] = t.barrier_s;
  if (t.intra.bandwidth_Bps > 0) o["intra"] = {{"alpha_s", t.intra.alpha_s}, {"bandwidth_Bps", t.intra.bandwidth_Bps}};
  if (t.inter.bandwidth_Bps > 0)
    o["inter"] = {{"alpha_s", t.inter.alpha_s}, {"bandwidth_Bps", t.inter.bandwidth_Bps}, {"shaped_Bps", t.shaped_Bps}};
  j["topology"] = o;
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
}

std::optional<TopologyProfile> load_profile_topology(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("profile '{}' cannot be read", path));
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (!j.is_object()) throw UsageError(fmt::format("profile '{}' does not parse as a JSON object", path));
  if (!j.contains("topology")) return std::nullopt;
  const nlohmann::json& o = j["topology"];
  if (!o.is_object()) throw UsageError(fmt::format("profile '{}': topology must be an object", path));
  auto count = [&](const char* k, int def) {
    if (!o.contains(k)) return def;
    const auto& x = o[k];
    if (!x.is_number_integer() || x.get<int64_t>() < 1 || x.get<int64_t>() > 65536)
      throw UsageError(fmt::format("profile '{}': topology.{} = {} (expected an integer in [1, 65536])", path, k,
                                   x.dump()));
    return x.get<int>();
  };
  auto number = [&](const nlohmann::json& obj, const std::string& where, const char* k, double lo, double hi) {
    if (!obj.contains(k)) return 0.0;
    const auto& x = obj[k];
    if (!x.is_number() || !(x.get<double>() >= lo && x.get<double>() <= hi))
      throw UsageError(fmt::format("profile '{}': {}.{} = {} (expected a number in [{:g}, {:g}])", path, where, k,
                                   x.dump(), lo, hi));
    return x.get<double>();
  };
  TopologyProfile t;
  t.nodes = count("nodes", 1);
  t.ranks_per_node = count("ranks_per_node", 1);
  t.nics_per_node = count("nics_per_node", 1);
  t.barrier_s = number(o, "topology", "barrier_s", 0.0, 1.0);
  for (const char* cls : {"intra", "inter"}) {
    if (!o.contains(cls)) continue;
    const nlohmann::json& c = o[cls];
    const std::string where = std::string("topology.") + cls;
    if (!c.is_object()) throw UsageError(fmt::format("profile '{}': {} must be an object", path, where));
    if (!c.contains("bandwidth_Bps"))
      throw UsageError(fmt::format("profile '{}': {} lacks bandwidth_Bps", path, where));
    LinkClassProfile& l = std::string(cls) == "intra" ? t.intra : t.inter;
    l.alpha_s = number(c, where, "alpha_s", 0.0, 1.0);
    l.bandwidth_Bps = number(c, where, "bandwidth_Bps", 1.0, 1e15);
    if (std::string(cls) == "inter" && c.contains("shaped_Bps") && c["shaped_Bps"] != 0)
      t.shaped_Bps = number(c, where, "shaped_Bps", 1.0, 1e15);
  }
  return t;
}

}  // namespace microddp
