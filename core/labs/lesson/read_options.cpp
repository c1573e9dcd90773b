// A lesson's run options: `setup:`, `ddp:`, `hang:` and `lab:` (read_options.h).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/algorithms/registry.h"
#include "core/labs/lesson/check_kinds.h"
#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/read_yaml.h"
#include "core/labs/lesson/read_options.h"

namespace microddp::lesson {

using namespace yaml;

// ---- run options ------------------------------------------------------------

void read_setup(const Ctx& c, const YAML::Node& n, Setup& s) {
  only_keys(c, n, "setup",
            {"collective", "algorithm", "ranks", "count", "counts", "dtype", "op", "root", "segments", "channels", "nodes",
             "in_place", "data", "fill", "backend", "mode", "delay"});
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    const YAML::Node v = it->second;  // a copy: it->second is a temporary proxy's member
    if (k == "collective") s.collective = str(c, v, k);
    else if (k == "algorithm") s.algorithm = str(c, v, k);
    else if (k == "ranks") s.ranks = static_cast<int>(integer(c, v, k, 1, 32));
    else if (k == "count") s.count = integer(c, v, k, 0, int64_t{1} << 40);
    else if (k == "counts") {
      s.counts.clear();
      for (const auto& e : seq(c, v, k)) s.counts.push_back(integer(c, e, k, 0, int64_t{1} << 40));
    } else if (k == "dtype") s.dtype = str(c, v, k);
    else if (k == "op") s.op = str(c, v, k);
    else if (k == "root") s.root = static_cast<int>(integer(c, v, k, 0, 31));
    else if (k == "segments") s.segments = static_cast<int>(integer(c, v, k, 1, 16));
    else if (k == "channels") s.channels = static_cast<int>(integer(c, v, k, 1, 64));
    // Divisibility by ranks is the spec's rule, checked when the setup is prepared.
    else if (k == "nodes") s.nodes = static_cast<int>(integer(c, v, k, 1, 32));
    else if (k == "in_place") s.in_place = boolean(c, v, k);
    else if (k == "data") {
      // Either rows "1,2,3;4,5,6" or a list of lists [[1,2,3],[4,5,6]].
      if (v.IsScalar()) {
        s.data = v.Scalar();
      } else {
        std::string rows;
        bool first_row = true;
        for (const auto& row : seq(c, v, k)) {
          if (!first_row) rows += ";";
          first_row = false;
          bool first = true;
          for (const auto& e : seq(c, row, "data row")) {
            // Two appends, not `"," + str(...)`: GCC 12 -O3 warns (-Wrestrict,
            // a false positive) on that temporary once it is inlined here.
            if (!first) rows += ",";
            rows += str(c, e, "data value");
            first = false;
          }
        }
        s.data = rows;
      }
      s.fill.clear();
    } else if (k == "fill") {
      s.fill = str(c, v, k);
      s.data.clear();
    } else if (k == "backend") s.backend = one_of(c, v, k, {"threads"});
    else if (k == "mode") s.mode = one_of(c, v, k, {"lockstep", "free"});
    else if (k == "delay" && v.IsScalar() && v.Scalar() == "none") {
      s.delay.reset();
    } else if (k == "delay") {
      only_keys(c, v, "delay", {"rank", "max_delay_us"});
      DelayHook d;
      if (v["rank"]) d.rank = static_cast<int>(integer(c, v["rank"], "rank", -1, 63));
      if (v["max_delay_us"]) d.max_delay_us = static_cast<int>(integer(c, v["max_delay_us"], "max_delay_us", 0, 100000));
      s.delay = d;
    }
  }
  // Rows and a fill are two ways to give the inputs: one setup takes one
  // (as the CLI refuses --data with --fill).
  if (n["data"] && n["fill"])
    c.fail(n["fill"], "'data' and 'fill' both give the inputs: give one of them, not both");
  // The delayed rank must exist once ranks are known (this setup's, or the
  // one it merges into): a rank past the world size would delay nothing.
  if (s.delay && s.delay->rank >= s.ranks) {
    const YAML::Node at = n["delay"] && n["delay"].IsMap() && n["delay"]["rank"] ? n["delay"]["rank"] : n;
    c.fail(at, fmt::format("delay's rank {} is not a rank of this run: give -1 (every rank) or 0..{} ({} ranks)",
                           s.delay->rank, s.ranks - 1, s.ranks));
  }
}

// A beat's highlight against its run: ranks below the world size, link ends
// below the endpoints (ranks, then switches), chunk indices below `chunks`
// (-1: not checked). Each failure is at the offending list entry.
void check_highlights(const Ctx& c, const YAML::Node& n, const Highlights& h, int world, int endpoints, int chunks) {
  for (size_t i = 0; i < h.ranks.size(); ++i)
    if (h.ranks[i] >= world)
      c.fail(n["ranks"][i], fmt::format("highlighted rank {} is not a rank of this run: 0..{} ({} ranks)", h.ranks[i],
                                        world - 1, world));
  for (size_t i = 0; i < h.links.size(); ++i)
    for (int e : {h.links[i].first, h.links[i].second})
      if (e >= endpoints)
        c.fail(n["links"][i], fmt::format("link {}->{}: {} is not a rank of this run: 0..{} ({} {})", h.links[i].first,
                                          h.links[i].second, e, endpoints - 1, endpoints,
                                          endpoints > world ? "ranks and switches" : "ranks"));
  if (chunks < 0) return;
  for (size_t i = 0; i < h.chunks.size(); ++i)
    if (h.chunks[i] >= chunks)
      c.fail(n["chunks"][i], fmt::format("chunk {} does not exist: this run has {} chunks (0..{})", h.chunks[i], chunks,
                                         chunks - 1));
}

// Bounds keep a lesson's run small (a lesson runs in seconds).
void read_ddp(const Ctx& c, const YAML::Node& n, ddp::Options& o) {
  only_keys(c, n, "ddp",
            {"ranks", "depth", "width", "batch", "iterations", "lr", "bucket_cap_mb", "overlap", "algorithm", "seed",
             "layer_delay_us", "link_us_per_mb", "sharded", "prefetch"});
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    const YAML::Node v = it->second;
    if (k == "ranks") o.ranks = static_cast<int>(integer(c, v, k, 1, 16));
    else if (k == "depth") o.depth = static_cast<int>(integer(c, v, k, 1, 64));
    else if (k == "width") o.width = static_cast<int>(integer(c, v, k, 1, 1024));
    else if (k == "batch") o.batch = integer(c, v, k, 1, 4096);
    else if (k == "iterations") o.iterations = static_cast<int>(integer(c, v, k, 1, 100));
    else if (k == "lr") {
      o.lr = number(c, v, k);
      if (!(o.lr > 0)) c.fail(v, fmt::format("'lr' must be > 0, got {}", o.lr));
    } else if (k == "bucket_cap_mb") {
      o.bucket_cap_mb = number(c, v, k);
      if (!(o.bucket_cap_mb > 0)) c.fail(v, fmt::format("'bucket_cap_mb' must be > 0, got {}", o.bucket_cap_mb));
    } else if (k == "overlap") {
      o.overlap = ddp::parse_overlap(one_of(c, v, k, {"none", "per_param", "per-param", "bucketed"}));
    } else if (k == "algorithm") o.algorithm = str(c, v, k);
    else if (k == "seed") o.seed = static_cast<uint64_t>(integer(c, v, k, 0, int64_t{1} << 62));
    else if (k == "layer_delay_us") o.layer_delay_us = static_cast<int>(integer(c, v, k, 0, 100000));
    else if (k == "link_us_per_mb") {
      o.link_us_per_mb = number(c, v, k);
      if (!(o.link_us_per_mb >= 0 && o.link_us_per_mb <= 100000))
        c.fail(v, fmt::format("'link_us_per_mb' must be between 0 and 100000, got {}", o.link_us_per_mb));
    }
    else if (k == "sharded") o.sharded = boolean(c, v, k);
    else if (k == "prefetch") o.prefetch = boolean(c, v, k);
  }
}

void read_hang(const Ctx& c, const YAML::Node& n, hang::LabOptions& o) {
  only_keys(c, n, "hang", {"ranks", "fault", "fault_ranks", "timeout_s", "count", "algorithm", "fault_call", "log"});
  const bool default_fault_ranks = o.fault_ranks == hang::LabOptions{}.fault_ranks;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    const YAML::Node v = it->second;
    if (k == "ranks") o.ranks = static_cast<int>(integer(c, v, k, 2, 16));
    else if (k == "fault")
      o.fault = hang::parse_fault(one_of(c, v, k, {"none", "skip-collective", "wrong-count", "wrong-order", "sleep"}));
    else if (k == "fault_ranks") {
      // One rank (fault_ranks: 2) or a list (fault_ranks: [3, 1]).
      o.fault_ranks.clear();
      if (v.IsScalar()) o.fault_ranks.push_back(static_cast<int>(integer(c, v, k, 0, 15)));
      else
        for (const auto& e : seq(c, v, k)) o.fault_ranks.push_back(static_cast<int>(integer(c, e, k, 0, 15)));
    } else if (k == "timeout_s") {
      o.timeout_s = number(c, v, k);
      if (!(o.timeout_s >= 0.01 && o.timeout_s <= 10))
        c.fail(v, fmt::format("'timeout_s' must be between 0.01 and 10 (seconds), got {}", o.timeout_s));
    } else if (k == "count") o.count = integer(c, v, k, 4, int64_t{1} << 20);
    else if (k == "algorithm") o.algorithm = str(c, v, k);
    else if (k == "fault_call") o.fault_call = static_cast<int>(integer(c, v, k, 0, 1));
    else if (k == "log") {
      // The run's own MICRODDP_DEBUG level, its lines kept with the run
      // (hang.h LabOptions::log); none: the ranks log as the environment says.
      const std::string l = one_of(c, v, k, {"WARN", "INFO", "TRACE", "none"});
      if (l == "none") o.log.reset();
      else o.log = hang::parse_log_level(l);
    }
  }
  // The default faulty rank (2) does not exist on 2 ranks: there the last
  // rank takes it, as `microddp hang-lab` does without --rank. A rank the
  // lesson names stays as written (and is refused when out of range).
  if (n["ranks"] && !n["fault_ranks"] && default_fault_ranks && o.fault_ranks.front() >= o.ranks)
    o.fault_ranks = {o.ranks - 1};
}

// A lab beat's request. Bounds keep a lab beat to seconds on a small
// machine (every rank is a process; bench runs iters + 1 all-reduces).
void read_lab(const Ctx& c, const YAML::Node& n, LabRequest& q) {
  only_keys(c, n, "lab", {"nodes", "ranks_per_node", "nic", "collective", "algorithms", "bytes", "iters"});
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    const YAML::Node v = it->second;
    if (k == "nodes") q.nodes = static_cast<int>(integer(c, v, k, 1, 8));
    else if (k == "ranks_per_node") q.ranks_per_node = static_cast<int>(integer(c, v, k, 1, 8));
    else if (k == "nic") {
      q.nic = str(c, v, k);
      double bps = 0;
      try {
        bps = q.nic_bps();
      } catch (const UsageError&) {
        c.fail(v, fmt::format("'nic' must be a rate such as 100mbit (units: kbit, mbit, gbit); got '{}'", q.nic));
      }
      // The bounds `microddp cluster --nic` accepts.
      if (bps < 1e6 || bps > 1e11) c.fail(v, fmt::format("'nic' must be between 1mbit and 100gbit, got '{}'", q.nic));
    } else if (k == "collective") q.collective = one_of(c, v, k, {"all_reduce", "all_gather", "reduce_scatter", "broadcast"});
    else if (k == "algorithms") {
      q.algorithms.clear();
      for (const auto& e : seq(c, v, k)) q.algorithms.push_back(str(c, e, k));
      if (q.algorithms.empty()) c.fail(v, "'algorithms' needs at least one algorithm");
    } else if (k == "bytes") {
      // An integer, or one with K or M (powers of 1024, as bench's -b).
      const int64_t b = bytes_with_unit(str(c, v, k));
      if (b < 4 || b > (int64_t{64} << 20) || b % 4 != 0)
        c.fail(v, fmt::format("'bytes' must be a multiple of 4 from 4 to 64M (K, M = powers of 1024); got '{}'",
                              v.Scalar()));
      q.bytes = b;
    } else if (k == "iters") q.iters = static_cast<int>(integer(c, v, k, 1, 50));
  }
}

}  // namespace microddp::lesson
