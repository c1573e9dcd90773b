// Adapter between the viewer and the cost models: the flat α-β model
// (core/model/cost_model.h) with a calibrated profile or a link preset, or the
// two-level per-port model (core/model/topology_model.h). The viewer asks for
// per-step predicted times and for a label that says what they are based on;
// the run itself always executes on this machine's threads.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/ir/schedule.h"
#include "core/model/topology_model.h"

namespace microddp::viz {

// What the prediction is based on (the controls' "predict with" selector).
struct PredictionSource {
  enum class Kind {
    profile,   // the calibrated profile of this machine; a named preset while there is none
    preset,    // a link preset of cost_model.h for every pair of ranks
    topology,  // ranks on spec.nodes nodes, an intra and an inter link class
  };
  Kind kind = Kind::profile;
  std::string preset = "nvlink";  // kind preset; also the stand-in for a missing profile
  // kind topology: a named topology (network_presets(): its intra and inter
  // links and NICs per node, capped at the ranks per node) or, when empty,
  // the links below. The node count is always the run's (spec.nodes).
  std::string topology;
  std::string intra = "nvlink", inter = "infiniband";  // preset names or "ALPHA,BW"
  int nics_per_node = 1;
  bool operator==(const PredictionSource&) const = default;
};

// The preset shown while no calibration profile exists (the seed notes'
// NVLink example).
inline constexpr const char* kFallbackPreset = "nvlink";
inline constexpr const char* kCalibrateHint = "run `microddp calibrate` for this machine's numbers";

// The default calibration profile's path when that file exists, else "".
std::string existing_profile();

// A record from the cluster lab (RunRecord::cluster, core/record/record_io.h):
// the topology it ran on as a source (the record's NIC rate; the `lab`
// network's latencies and shared-memory link: network_presets()) and the
// note saying where the measured times come from ("measured: cluster lab,
// 100 Mbit/s NIC"). nullopt for "" or a cluster without a NIC rate.
struct LabReplay {
  PredictionSource source;
  std::string note;
};
std::optional<LabReplay> lab_replay_source(const std::string& cluster_json);

// The model a source resolves to for one spec.
struct ModelInForce {
  CostParams flat;                 // the flat model (kinds profile, preset); the intra class for a topology
  std::optional<Network> network;  // kind topology
  std::string label;               // "predicted (preset nvlink)" (a preset chosen, or standing in for a
                                   // missing profile: one form, the hint says which), "predicted
                                   // (calibrated profile, 2026-12-01)",
                                   // "predicted (calibrated profile, quick, 2026-12-01)",
                                   // "predicted (topology 2x4, intra nvlink, inter infiniband)"
  std::string hint;                // kCalibrateHint while no profile exists, else ""
  bool this_machine = false;       // the calibrated profile is in force
};
// Throws UsageError naming a bad preset, link or topology (e.g. the run's
// ranks not divisible by its nodes).
ModelInForce resolve_model(const CollectiveSpec& spec, const PredictionSource& src);

struct Prediction {
  bool available = false;
  std::vector<double> step_us;  // predicted time of each step, MICROSECONDS
  double total_us = 0;          // lockstep total (sum of the steps)
  std::string source;           // the label of ModelInForce; or why n/a
  std::string hint;             // ModelInForce::hint
  bool this_machine = false;    // the calibrated profile: measured vs predicted is a model error
  std::optional<Network> network;  // the topology priced on (kind topology)
  CostParams flat;                 // the flat model priced on (otherwise)
  CostTerms terms;                 // lockstep α, β, γ, δ, barrier terms (seconds); flat model only
};

// Never throws: a source that does not resolve gives available = false and
// the reason in `source`.
Prediction predict(const Schedule& s, const PredictionSource& src = {});

}  // namespace microddp::viz
