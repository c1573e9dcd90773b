// The parts of `microddp predict` (app/cli/cmd_predict.cpp) shared by its
// files: the parsed options (Args), the flat-link views (predict_flat.cpp:
// one algorithm's terms, every algorithm, the sweep) and the two-level
// network views (predict_network.cpp: the per-port table, what auto picks
// over sizes, a profile's topology). Times are in seconds, sizes in bytes;
// every function throws UsageError (app/cli/parse_error.h) on a bad value,
// naming it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/schedule.h"
#include "core/ir/spec.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/topology_model.h"

namespace microddp::cli::pred {

struct Args {
  std::string collective = "all_reduce", algorithm = "ring", dtype = "float32", bytes = "1e9";
  int ranks = 8, segments = 1, channels = 1, root = 0;
  ParamChoice params;
  bool sweep = false;
  std::string from = "1K", to = "1G";
  // Topology (any of these switches the two-level model on).
  int nodes = 0, nics = -1;  // 0 / -1 = not given
  std::string intra, inter, topology;
  bool json = false, table = false;
  std::string min_bytes = "8", max_bytes = "1G";
  std::string factor = "2";  // parse_step_factor (core/model/sweep.h), as bench
  std::string protocol = "simple";  // simple | ll | ll128 | auto (core/model/protocol_model.h)
  std::string against;  // --against FILE: a published nccl-tests table (app/cli/against.h)
  // --textbook: on a system the NCCL-shaped tuner knows, auto and --table
  // choose among microddp's algorithms by the α-β model (the lessons' choice)
  // instead of NCCL's algorithm × protocol × channels.
  bool textbook = false;
};

inline bool topology_mode(const Args& a) {
  return a.nodes > 0 || a.nics >= 0 || !a.intra.empty() || !a.inter.empty() || !a.topology.empty();
}

// The network asked for: a named topology's defaults, overridden by
// --nodes, --nics-per-node, --intra, --inter. --intra falls back to the flat
// link (--preset, --alpha/--bandwidth, a profile) when one is given.
Network network(const Args& a);
// Where the last network()'s preset switch figure comes from ("" when it has no switch class).
extern std::string nvls_source;

// A time unit for one block of figures: µs below 1 ms, ms below 1 s, else s
// (name "us", "ms" or "s"; decimals 2, 4, 6), chosen on the value as printed.
struct Unit {
  double scale;  // seconds per unit
  int decimals;
  const char* name;
};
Unit unit_for(double seconds);
// seconds in u, with u's decimals and no unit name ("2.9307"): a table's cell.
std::string unit_number(double seconds, const Unit& u);
// A table cell's width on a terminal: its UTF-8 code points ("α term (µs)"
// is 11 wide in 14 bytes; printf's %14s counts bytes and would pad it 3
// short). Every character counts one column.
inline int display_width(const std::string& s) {
  int w = 0;
  for (char ch : s) w += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return w;
}
// s padded with spaces to w columns (display_width), right- or left-aligned;
// s as is when it is wider.
inline std::string align_right(const std::string& s, int w) {
  return std::string(static_cast<size_t>(std::max(0, w - display_width(s))), ' ') + s;
}
inline std::string align_left(const std::string& s, int w) {
  return s + std::string(static_cast<size_t>(std::max(0, w - display_width(s))), ' ');
}
// One time alone, in its own unit (µs below 1 ms, ms below 1 s, else s).
std::string time_text(double seconds);
std::string describe(const Network& n);
// The parameters as they apply to a call on n ranks.
std::string describe(const CostParams& p, int n);
CollectiveSpec make_spec(const Args& a, const std::string& alg, int64_t bytes);
// The flat links asked for (--preset list, --alpha/--bandwidth, a profile).
std::vector<CostParams> chosen(const Args& a);

// nvls on a flat link. The flat model runs the switch as one endpoint with
// one port each way (the threads backend's switch thread), right for a
// profile or --alpha/--bandwidth of this machine, wrong for a GPU preset:
//  - --preset nvlink (an NVSwitch fabric): priced on one node whose switch
//    has a port per rank at nvlink's own α and bandwidth and reduces at line
//    rate (topology_model.h's switch class), not as a CPU thread;
//  - the other presets (pcie5, infiniband, ethernet-*): no reducing switch,
//    so nvls is refused alone and left out of all / auto / --sweep / --table
//    with a line saying why (nvls_note).
// The one-node network for p when p is the nvlink preset, else nullopt.
std::optional<Network> nvls_switch(const Args& a, const CostParams& p);
// True when p is a preset with no reducing switch (nvls has no price on it).
bool nvls_refused(const Args& a, const CostParams& p);
// One line (with its newline) on how nvls is priced or why it is left out
// on p; "" when p is not a preset.
std::string nvls_note(const Args& a, const CostParams& p);
// The flat prediction of sch on p, nvls by the rule above (UsageError
// naming the preset when it is refused).
Prediction flat_predict(const Args& a, const Schedule& sch, const CostParams& p);
// choose_algorithm on a flat link, nvls priced or left out by the rule above.
AutoChoice flat_choose(const Args& a, const CollectiveSpec& s, const CostParams& p);

// The cache-curve values the schedule's steps were priced at, beside the
// flat β and γ of the closed form (predict_flat.cpp says which steps count).
struct CurvePricing {
  bool beta_any = false, gamma_any = false, small_any = false;
  double beta_lo = 0, beta_hi = 0, gamma_lo = 0, gamma_hi = 0;  // s/B
  double fp_lo = 0, fp_hi = 0;                                  // bytes, over the steps counted
};
CurvePricing curve_pricing(const Schedule& sch, const Prediction& pr, const CostParams& p);

// Flat-link views (predict_flat.cpp).
void one(const Args& a, const std::vector<CostParams>& ps, int64_t bytes);
void all_algorithms(const Args& a, const CostParams& p, int64_t bytes);
void sweep(const Args& a, const CostParams* flat, const Network* net);

// Network views (predict_network.cpp).
void network_table(const Args& a, const Network& net, int64_t bytes, const CostParams* flat = nullptr);
// --channels C for an algorithm without channels of its own, on a network:
// its phases as a pipeline over C channels (core/model/channel_pipeline.h),
// text or one JSON line.
void pipeline_report(const Args& a, const Network& net, int64_t bytes);
void auto_table(const Args& a, const CostParams* flat, const Network* net);
std::optional<Network> profile_network(Args& a, bool ranks_given);

}  // namespace microddp::cli::pred
