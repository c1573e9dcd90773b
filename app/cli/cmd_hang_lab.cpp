// microddp hang-lab: inject a fault into one or more ranks (skip a
// collective, wrong count, wrong order, sleep), run it for real on threads,
// bounded by --timeout, and let the monitored barrier, the per-rank
// sequence numbers and the flight recorder say who is stuck and where
// (core/hang.h). MICRODDP_DEBUG=WARN|INFO|TRACE logs every call per rank.
// Exit code: 0 all ranks passed; 1 the job failed, every rank together (what
// a fault should produce); 3 the ranks did not agree (a bug).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/run_options.h"
#include "core/labs/hang/hang.h"
#include "core/ir/types.h"

namespace microddp::cli {
namespace {

struct Args {
  int ranks = 4;
  std::string fault = "none", rank, timeout = "2s", algorithm = "ring";
  int64_t count = 1024;
  int call = 1;
  bool json = false;
};

double parse_timeout(const std::string& s) {
  std::string num = s;
  double scale = 1;
  if (num.size() > 2 && num.substr(num.size() - 2) == "ms") {
    num.resize(num.size() - 2);
    scale = 1e-3;
  } else if (!num.empty() && num.back() == 's') {
    num.pop_back();
  }
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(num, &used);
  } catch (...) {
    used = 0;
  }
  if (num.empty() || used != num.size() || !(v > 0))
    throw UsageError(fmt::format("timeout '{}': expected a positive duration such as 2s, 300ms or 0.5", s));
  return v * scale;
}

std::vector<int> parse_ranks(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(item, &used);
    } catch (...) {
      used = 0;
    }
    if (item.empty() || used != item.size()) throw UsageError(fmt::format("rank '{}': expected a rank number or a list such as 1,3", s));
    out.push_back(v);
  }
  return out;
}

int run(const Args& a, bool rank_given) {
  hang::check_debug_env();
  hang::LabOptions o;
  o.ranks = a.ranks;
  o.fault = hang::parse_fault(a.fault);
  // Without --rank: the last rank, which every world size the lab runs (2
  // and up) has. A given --rank is taken as typed: out of range, refused.
  const std::string rank = rank_given ? a.rank : std::to_string(a.ranks - 1);
  o.fault_ranks = parse_ranks(rank);
  o.timeout_s = parse_timeout(a.timeout);
  o.count = a.count;
  o.algorithm = a.algorithm;
  o.fault_call = a.call;
  const hang::LabResult r = hang::run_hang_lab(o);
  if (a.json) {
    nlohmann::json j;
    j["fault"] = std::string(hang::name(o.fault));
    j["ranks"] = o.ranks;
    j["timeout_s"] = o.timeout_s;
    j["verdict"] = r.verdict;
    j["missing"] = r.missing;
    j["mismatched"] = r.mismatched;
    j["all_passed"] = r.all_passed;
    j["all_failed"] = r.all_failed;
    j["seconds"] = r.seconds;
    for (const auto& x : r.ranks)
      j["per_rank"].push_back({{"rank", x.rank}, {"passed", x.passed}, {"state", x.state}, {"error", x.error},
                               {"last_started", x.recorder.last_started}, {"last_completed", x.recorder.last_completed}});
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("hang lab: %d ranks, fault %s on rank(s) %s, monitored barrier timeout %g s\n", o.ranks,
                std::string(hang::name(o.fault)).c_str(), rank.c_str(), o.timeout_s);
    std::printf("program of every rank: #0 all_reduce count %lld, #1 all_reduce count %lld, #2 all_gather count %lld, "
                "then an end-of-step barrier; each call is preceded by a monitored barrier checking its fingerprint\n",
                static_cast<long long>(o.count), static_cast<long long>(o.count / 2), static_cast<long long>(o.count / 4));
    std::fputs(r.report().c_str(), stdout);
  }
  if (r.all_passed) return 0;
  return r.all_failed ? 1 : 3;
}

}  // namespace

std::function<int()> setup_hang_lab(CLI::App* sub) {
  static Args a;
  sub->add_option("--ranks,-n", a.ranks, "world size (threads)")->capture_default_str();
  sub->add_option("--fault", a.fault, "none | skip-collective | wrong-count | wrong-order | sleep")->capture_default_str();
  sub->add_option("--rank", a.rank, "faulty rank, or a list such as 1,3 (default: the last rank, ranks - 1)");
  sub->add_option("--timeout", a.timeout, "monitored barrier timeout (2s, 300ms, 0.5)")->capture_default_str();
  sub->add_option("--count", a.count, "elements of call #0 (call #1: count/2, call #2: count/4)")->capture_default_str();
  sub->add_option("--algorithm", a.algorithm, "all_reduce algorithm")->capture_default_str();
  sub->add_option("--call", a.call, "which call the fault hits (0 or 1)")->capture_default_str();
  sub->add_flag("--json", a.json, "print the result as JSON");
  return [sub] { return run(a, sub->count("--rank") > 0); };
}

}  // namespace microddp::cli
