#include "app/viz/prediction.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"

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
        m.label = fmt::format("predicted (calibrated profile, {})", file_date(profile));
      } else {
        // Without a profile, a named what-if class rather than nothing; the
        // label says it is not this machine.
        m.flat = preset(src.preset.empty() ? kFallbackPreset : src.preset);
        m.label = fmt::format("predicted (preset {}: no calibration yet)", m.flat.name);
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
