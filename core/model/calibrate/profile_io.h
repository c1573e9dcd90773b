// Calibration profiles on disk (profile_io.cpp, quick.cpp): where the
// default profile lives, its JSON fields, quick calibration, which
// parameters a command was asked for, and a cluster-lab profile's topology.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/ir/protocol.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"
#include "core/model/calibrate/fits.h"

namespace microddp {

// $XDG_CONFIG_HOME/microddp/profile.json, else ~/.config/microddp/profile.json.
std::string default_profile_path();

// JSON profile: {"backend", "alpha_s", "beta_s_per_byte", "bandwidth_Bps",
// "gamma_s_per_byte", "delta_s_per_byte", "n_half_bytes", "cores",
// "fused_recv_reduce", "break_bytes", "alpha_small_s", "beta_small_s_per_byte",
// "exchange_32k_step_s" (seconds, the state probe's both-ranks step; absent
// in older profiles), "barrier_s_by_ranks" ([n-2], seconds), "peer_wait_s_by_ranks" ([n-2],
// seconds), "mem_bw_Bps_by_threads" ([k-1],
// bytes/s), "points": [{"bytes", "seconds"}]}. Profiles written before the
// barrier and bus fields existed still load (missing = empty = not modelled);
// a table that is not an array of numbers in range (b, w: 0..1 s; B: 1..1e15
// B/s) is refused with a UsageError naming the key and the entry. Every
// scalar is checked too (validate_profile_number): alpha_s, alpha_small_s,
// exchange_32k_step_s in [0, 1] s; beta_s_per_byte in (0, 1] s/B; beta_small_s_per_byte,
// gamma_s_per_byte, delta_s_per_byte in [0, 1] s/B; bandwidth_Bps in
// (0, 1e15] B/s; n_half_bytes, break_bytes in [0, 2^50]; cores an integer
// in [1, 65536] (write_profile leaves it out for cores = 0, one per rank); points' bytes in [1, 2^50] and seconds in (0, 1e3]. NaN,
// infinities and absurd magnitudes (1e308) are refused with a UsageError
// naming the file and the field. The optional "cache_curve" object is read
// by cache_curve_from_json.
// calibrate keeps b(n) and w(n) non-decreasing in n (running max: a dip is
// noise, and the last entry decides every larger world size).
// write_profile creates missing parent folders and throws
// std::runtime_error naming the path when it cannot write.
// Refuses a profile path that cannot be written, before anything is
// measured: empty, a directory, a parent that is not (or cannot become) a
// directory, or a file this process may not write. Throws UsageError naming
// the path and the reason (the system's words).
void check_profile_writable(const std::string& path);
void write_profile(const std::string& path, const CostParams& p, const std::vector<FitPoint>& points);
// Throws UsageError naming the path when it is missing, does not parse, or
// lacks alpha_s / beta_s_per_byte, and naming the path, the field and the
// expected type or range for a field that has the wrong one (a number out
// of range, a flag such as "quick" or "fused_recv_reduce" that is not true
// or false, a "backend" or "calibrated_on" that is not a string).
CostParams load_profile(const std::string& path);

// A quick calibration's mark in its profile: "quick": true and
// "calibrated_on": "YYYY-MM-DD" beside the fields above (load_profile
// checks their types and otherwise ignores them). mark_profile_quick adds
// them to the file at `path` (written by write_profile first), throwing
// std::runtime_error naming the path when it cannot read or write it. profile_stamp reads them back:
// quick false and date "" when absent or unreadable (a full calibration's
// profile; its date is the file's).
struct ProfileStamp {
  bool quick = false;
  std::string date;  // "YYYY-MM-DD", or ""
};
void mark_profile_quick(const std::string& path, const std::string& date);
ProfileStamp profile_stamp(const std::string& path);

// The parameters a command was asked for, in this order of precedence:
// --alpha/--bandwidth (gamma optional; alpha < 0 = not given), --preset,
// --profile, then the default profile when it exists. nullopt when none was
// given and there is no default profile. Throws UsageError naming a bad
// value (unknown preset, bandwidth <= 0, alpha without bandwidth, an
// unreadable profile).
struct ParamChoice {
  std::string preset, profile;
  double alpha = -1, bandwidth = -1, gamma = 0;
};
std::optional<CostParams> resolve_params(const ParamChoice& c);


// The profile's "topology" object (kept apart from the flat fields):
//   "topology": {"nodes", "ranks_per_node", "nics_per_node", "barrier_s",
//                "intra": {"alpha_s", "bandwidth_Bps"},
//                "inter": {"alpha_s", "bandwidth_Bps", "shaped_Bps"}}
// seconds, bytes/s per direction; a class that was not measured is absent.
// write_profile_topology adds it to the profile file at `path` (written by
// write_profile first), throwing std::runtime_error naming the path when
// it cannot read or write it. load_profile_topology: nullopt when the
// profile has no "topology"; UsageError naming the key when a count is not
// a positive integer or a number is out of range (α: 0..1 s, bandwidth
// and shaped rate: 1..1e15 B/s, barrier 0..1 s).
void write_profile_topology(const std::string& path, const TopologyProfile& t);
std::optional<TopologyProfile> load_profile_topology(const std::string& path);

}  // namespace microddp
