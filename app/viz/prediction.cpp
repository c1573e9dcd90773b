#include "app/viz/prediction.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>

#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"

namespace microddp::viz {

std::string existing_profile() {
  std::string path;
  try {
    path = default_profile_path();
  } catch (const std::exception&) {
    return "";
  }
  std::error_code ec;
  return !path.empty() && std::filesystem::is_regular_file(path, ec) ? path : "";
}

namespace {

// The profile's date: when calibrate wrote it (the file's modification time).
std::string file_date(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "undated";
  std::tm tm{};
  localtime_r(&st.st_mtime, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

}  // namespace

std::optional<LabReplay> lab_replay_source(const std::string& cluster_json) {
  if (cluster_json.empty()) return std::nullopt;
  const auto j = nlohmann::json::parse(cluster_json, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto num = [&](const char* k, double fallback) {
    const auto it = j.find(k);
    return it != j.end() && it->is_number() ? it->get<double>() : fallback;
  };
  const double nic_bps = num("nic_bps", 0);
  if (!(nic_bps > 0 && std::isfinite(nic_bps))) return std::nullopt;
  const int nics = std::clamp(static_cast<int>(num("nics_per_node", 1)), 1, 64);
  LabReplay r;
  const NamedNetwork& lab = network_preset("lab");
  r.source.kind = PredictionSource::Kind::topology;
  r.source.intra = fmt::format("{:g},{:g}", lab.intra.alpha, lab.intra.bandwidth());
  r.source.inter = fmt::format("{:g},{:g}", lab.inter.alpha, nic_bps / 8);
  r.source.nics_per_node = nics;
  r.note = fmt::format("measured: cluster lab, {:g} Mbit/s NIC{}", nic_bps / 1e6, nics > 1 ? fmt::format(" x {}", nics) : "");
  return r;
}

ModelInForce resolve_model(const CollectiveSpec& spec, const PredictionSource& src) {
  ModelInForce m;
  const std::string profile = existing_profile();
  if (profile.empty()) m.hint = kCalibrateHint;
  switch (src.kind) {
    case PredictionSource::Kind::profile:
      if (!profile.empty()) {
        // The threads backend's α, β, γ (and the shared-machine terms), as
        // `microddp calibrate` measured them here.
        m.flat = load_profile(profile);
        m.this_machine = true;
        // A quick calibration says so, with the date it recorded.
        if (const ProfileStamp st = profile_stamp(profile); st.quick)
          m.label = fmt::format("predicted (calibrated profile, quick, {})", st.date.empty() ? file_date(profile) : st.date);
        else
          m.label = fmt::format("predicted (calibrated profile, {})", file_date(profile));
        // measured before waiting ranks spun: the label says to calibrate again
        if (!stale_profile_note(m.flat).empty())
          m.label.insert(m.label.size() - 1, "; older than this build's waits: calibrate again");
      } else {
        // Without a profile, a named what-if class rather than nothing,
        // labelled as a chosen preset is (issue 37: "(preset nvlink)" on one
        // beat, "(preset nvlink: no calibration yet)" on the next); the hint
        // and the plot's note (model_not_here_label) say it is not this machine.
        m.flat = preset(src.preset.empty() ? kFallbackPreset : src.preset);
        m.label = fmt::format("predicted (preset {})", m.flat.name);
      }
      break;
    case PredictionSource::Kind::preset:
      m.flat = preset(src.preset);
      m.label = fmt::format("predicted (preset {})", m.flat.name);
      break;
    case PredictionSource::Kind::topology: {
      Network net;
      const int nodes = std::max(spec.nodes, 1);
      int nics = src.nics_per_node;
      if (!src.topology.empty()) {
        const NamedNetwork& nn = network_preset(src.topology);
        net.name = nn.name;
        net.intra = nn.intra;
        net.inter = nn.inter;
        nics = nn.nics_per_node;
      } else {
        net.intra = parse_link("intra", src.intra);
        net.inter = parse_link("inter", src.inter);
      }
      // A named topology's NICs follow the run's ranks per node (rail-optimised
      // stays rail-optimised on fewer ranks).
      const int g = spec.world_size % nodes == 0 ? spec.world_size / nodes : 1;
      if (!src.topology.empty()) nics = std::clamp(nics, 1, std::max(g, 1));
      net.topo = Topology::make(spec.world_size, nodes, nics);
      m.flat = net.intra;
      m.label = fmt::format("predicted (topology {}{}x{}, intra {}, inter {}, {} NIC{}/node)",
                            src.topology.empty() ? "" : src.topology + " ", net.topo.nodes, net.topo.ranks_per_node,
                            net.intra.name, net.inter.name, net.topo.nics_per_node,
                            net.topo.nics_per_node == 1 ? "" : "s");
      m.network = std::move(net);
      break;
    }
  }
  return m;
}

Prediction predict(const Schedule& s, const PredictionSource& src) {
  Prediction p;
  try {
    const ModelInForce m = resolve_model(s.spec, src);
    p.source = m.label;
    p.hint = m.hint;
    p.this_machine = m.this_machine;
    p.flat = m.flat;
    if (m.network) {
      const NetworkPrediction np = predict(s, *m.network);
      for (double sec : np.pr.step_s) p.step_us.push_back(sec * 1e6);
      p.network = m.network;
    } else {
      const microddp::Prediction fp = microddp::predict(s, m.flat);
      for (double sec : fp.step_s) p.step_us.push_back(sec * 1e6);
      p.terms = fp.lockstep;
    }
    for (double us : p.step_us) p.total_us += us;
    p.available = true;
  } catch (const std::exception& e) {
    p.source = fmt::format("predicted n/a: {}", e.what());
  }
  return p;
}

}  // namespace microddp::viz
