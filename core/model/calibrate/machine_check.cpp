// The machine-state check before a bench: the profile's step measured
// again, and how busy the CPUs are (/proc/stat)
// (core/model/calibrate/calibrate.h).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include "core/exec/executor.h"
#include "core/model/calibrate/calibrate.h"

namespace microddp {

namespace {
// What a threads profile without "threads_wait": "spin" is, for the check and the note.
const std::string kYieldedProfile =
    "the profile is from before waiting ranks spin (it has no \"threads_wait\": \"spin\"): its barriers, peer waits "
    "and steps were measured with ranks that yielded at once";
}  // namespace

std::optional<ProfileCheck> check_profile(const CostParams& p, int rounds) {
  ProfileCheck c;
  c.profile_s = p.message_s(4) + p.barrier_for(2);
  if (p.barrier_s.empty() || !(c.profile_s > 0)) return std::nullopt;
  c.cores_profile = p.cores;
  c.cores_now = allowed_cpu_count();
  c.profile_spins = p.threads_wait == "spin";
  c.now_s = measure_message_step_s(4, rounds);
  return c;
}

std::optional<PeerWaitCheck> check_peer_wait(const CostParams& p, int ranks, int rounds) {
  // only where calibrate measured this world size (an extrapolated w(n) was
  // never a measurement to compare with), and with the CPUs it measured on
  // (the profile check says when those differ)
  if (p.barrier_s.empty() || p.wait_s.empty() || p.cores <= 0 || ranks <= p.cores) return std::nullopt;
  if (static_cast<size_t>(ranks - 2) >= std::min(p.wait_s.size(), p.barrier_s.size())) return std::nullopt;
  if (allowed_cpu_count() != p.cores) return std::nullopt;
  PeerWaitCheck c;
  c.ranks = ranks;
  c.cores = p.cores;
  c.wait_s = p.wait_for(ranks);
  c.profile_s = p.barrier_for(ranks) + p.message_s(4) + c.wait_s;
  if (!(c.profile_s > 0)) return std::nullopt;
  // At most one second of rounds: a round takes about 7 ms on an idle
  // 2-CPU guest, but under load every yield of a shared core gives it away
  // for a time slice, and nine rounds took 41 s beside a build.
  c.now_s = measure_ring_shift_step_s(ranks, p.barrier_for(ranks), rounds, 1.0);
  return c;
}

std::string peer_wait_check_text(const PeerWaitCheck& c) {
  std::string s = fmt::format(
      "peer-wait check: a lockstep ring shift of one 4-byte message among {} ranks on {} CPUs (message + barrier + "
      "peer wait) takes {:.3f} µs a step now, {:.3f} µs by the profile (x{:.2f}; its w({}) = {:.3f} µs)",
      c.ranks, c.cores, c.now_s * 1e6, c.profile_s * 1e6, c.ratio(), c.ranks, c.wait_s * 1e6);
  if (c.matches()) return s + ": matches (only this probe's step is checked; each algorithm's steps wait differently)";
  const double d = (c.now_s - c.profile_s) * 1e6;
  return s + fmt::format(": does NOT match: if it holds, each step at {} ranks takes about {:.1f} µs {} than "
                         "predicted (mostly its peer wait), so small sizes will read {}-predicted; `microddp "
                         "calibrate` again on an idle machine",
                         c.ranks, std::abs(d), d > 0 ? "more" : "less", d > 0 ? "under" : "over");
}

double state_probe_ratio(const CostParams& p, double point_s) {
  const double profile_s = point_s + p.barrier_for(2);
  if (p.barrier_s.empty() || !(point_s > 0) || !(profile_s > 0)) return 0;
  const double one_way = measure_message_step_s(kStateProbeBytes, 3) / profile_s;
  if (!(p.exchange_32k_s > 0)) return farther_state_ratio(one_way, 0);
  return farther_state_ratio(one_way, measure_exchange_step_s(kStateProbeBytes, 3) / p.exchange_32k_s);
}

double farther_state_ratio(double one_way, double both) {
  // A ratio that is not a finite positive number (a reference time of
  // 5e-324 s in a hand-edited profile) says nothing: 0, as not probed.
  if (!std::isfinite(one_way) || !(one_way > 0)) one_way = 0;
  if (!std::isfinite(both) || !(both > 0)) return one_way;
  if (one_way == 0) return both;
  return std::abs(std::log(both)) > std::abs(std::log(one_way)) ? both : one_way;
}

std::string profile_check_text(const ProfileCheck& c) {
  std::string s = fmt::format(
      "profile check: a lockstep step of one 4-byte message between 2 ranks (message + barrier) takes {:.3f} µs now, "
      "{:.3f} µs by the profile (x{:.2f}); {} CPUs now, {} in the profile",
      c.now_s * 1e6, c.profile_s * 1e6, c.ratio(), c.cores_now, c.cores_profile);
  if (c.matches()) return s + ": matches (only this step and the CPU count are checked)";
  if (!c.profile_spins)
    return s + ": does NOT match: " + kYieldedProfile +
           ", which this build's ranks no longer do, whatever this one step says; run `microddp calibrate` again";
  return s + ": does NOT match, so the predictions below will miss (other work on the CPUs now or during the "
             "calibration, another CPU set, a VM whose host moved the virtual CPUs, or a profile from an older "
             "build); on an idle machine, run `microddp calibrate` again";
}

std::string stale_profile_note(const CostParams& p) {
  if (p.name != "threads" || p.barrier_s.empty() || p.threads_wait == "spin") return "";
  return kYieldedProfile + "; run `microddp calibrate` again";
}

namespace {
// Sums of the "cpu " line of /proc/stat: {busy, total} jiffies; {-1, -1}
// when it cannot be read. Fields: user nice system idle iowait irq softirq
// steal (guest time is already inside user).
std::pair<double, double> cpu_jiffies() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (!(f >> cpu) || cpu != "cpu") return {-1, -1};
  for (double& x : v)
    if (!(f >> x)) return {-1, -1};
  const double idle = v[3] + v[4], total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  return {total - idle, total};
}
}  // namespace

double cpu_busy_fraction(double seconds) {
  const auto a = cpu_jiffies();
  std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.01, seconds)));
  const auto b = cpu_jiffies();
  if (a.second < 0 || b.second < 0 || !(b.second > a.second)) return -1;
  return std::clamp((b.first - a.first) / (b.second - a.second), 0.0, 1.0);
}

}  // namespace microddp
