// Agreement: every rank describes its call; rank 0 judges
// (core/exec/mpi/backend_mpi.h, step 1 of a run).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "core/exec/mpi/mpi_internal.h"

namespace microddp::mpi_detail {

namespace {
struct Verdict {
  int32_t bad_rank;  // -1: all agree
  int32_t sync_clocks = 1;  // run_mpi: measure the clocks again (rank 0 decides)
  Header first, bad;
};
}  // namespace

Header make_header(int kind, const CollectiveSpec& sp, const RunOptions* opt, int num_steps, bool inputs_ok) {
  Header h{};
  h.kind = kind;
  h.collective = static_cast<int32_t>(sp.collective);
  h.dtype = static_cast<int32_t>(sp.dtype);
  h.op = static_cast<int32_t>(sp.op);
  h.root = sp.root;
  h.in_place = sp.in_place;
  h.segments = sp.segments;
  h.channels = sp.channels;
  h.world_size = sp.world_size;
  h.count = sp.count;
  h.total = sp.total();
  h.counts_hash = fnv1a(sp.counts.data(), sp.counts.size() * sizeof(int64_t));
  h.num_steps = num_steps;
  h.inputs_ok = inputs_ok;
  if (kind == 1) {
    h.algo_hash = fnv1a(sp.algorithm.data(), sp.algorithm.size());
    std::snprintf(h.algorithm, sizeof h.algorithm, "%s", sp.algorithm.c_str());
  }
  if (opt) {
    h.mode = static_cast<int32_t>(opt->mode);
    h.iterations = opt->iterations;
    h.record = opt->record;
    h.repeat_steps = opt->repeat_steps;
    h.snapshot_limit = opt->snapshot_limit;
  }
  return h;
}

// Names the first field where b differs from a ("" when none).
std::string difference(const Header& a, const Header& b, int rank_b) {
  auto say = [&](const char* field, const std::string& va, const std::string& vb) {
    return fmt::format("rank {} called with {} {} but rank 0 with {} {}", rank_b, field, vb, field, va);
  };
  // Enum values come from other ranks: name only those in range.
  auto named = [](auto e, int32_t v, size_t count) {
    return v >= 0 && static_cast<size_t>(v) < count ? std::string(name(static_cast<decltype(e)>(v)))
                                                    : fmt::format("<invalid {}>", v);
  };
  auto coll = [&](int32_t c) { return named(Collective{}, c, all_collectives().size()); };
  auto dtype = [&](int32_t t) { return named(DType{}, t, all_dtypes().size()); };
  auto op = [&](int32_t o) { return named(ReduceOp{}, o, static_cast<size_t>(ReduceOp::avg) + 1); };
  if (a.kind != b.kind)
    return fmt::format("rank {} called {} but rank 0 called {}", rank_b, b.kind == 1 ? "run_mpi" : "the library collective",
                       a.kind == 1 ? "run_mpi" : "the library collective");
  if (a.collective != b.collective) return say("collective", coll(a.collective), coll(b.collective));
  // The names come from other ranks: read at most the field, NUL or not.
  auto algo = [](const Header& h) { return std::string(h.algorithm, strnlen(h.algorithm, sizeof h.algorithm)); };
  if (a.algo_hash != b.algo_hash) return say("algorithm", algo(a), algo(b));
  if (a.world_size != b.world_size)
    return say("world size", std::to_string(a.world_size), std::to_string(b.world_size));
  if (a.count != b.count) return say("count", std::to_string(a.count), std::to_string(b.count));
  if (a.counts_hash != b.counts_hash || a.total != b.total)
    return say("counts totalling", std::to_string(a.total), std::to_string(b.total));
  if (a.dtype != b.dtype)
    return say("dtype", dtype(a.dtype), dtype(b.dtype));
  if (a.op != b.op)
    return say("op", op(a.op), op(b.op));
  if (a.root != b.root) return say("root", std::to_string(a.root), std::to_string(b.root));
  if (a.in_place != b.in_place) return say("in_place", std::to_string(a.in_place), std::to_string(b.in_place));
  if (a.segments != b.segments) return say("segments", std::to_string(a.segments), std::to_string(b.segments));
  if (a.channels != b.channels) return say("channels", std::to_string(a.channels), std::to_string(b.channels));
  if (a.num_steps != b.num_steps) return say("a schedule of steps", std::to_string(a.num_steps), std::to_string(b.num_steps));
  if (a.mode != b.mode)
    return say("mode", std::string(name(static_cast<Mode>(a.mode))), std::string(name(static_cast<Mode>(b.mode))));
  if (a.iterations != b.iterations) return say("iterations", std::to_string(a.iterations), std::to_string(b.iterations));
  if (a.record != b.record) return say("record", std::to_string(a.record), std::to_string(b.record));
  if (a.repeat_steps != b.repeat_steps) {
    auto reps = [](int32_t v) { return v == kRepeatStepsAuto ? std::string("auto") : std::to_string(v); };
    return say("repeat_steps", reps(a.repeat_steps), reps(b.repeat_steps));
  }
  if (a.snapshot_limit != b.snapshot_limit)
    return say("snapshot limit", std::to_string(a.snapshot_limit), std::to_string(b.snapshot_limit));
  if (!b.inputs_ok) return fmt::format("rank {} was given inputs of the wrong shape", rank_b);
  return "";
}

// Throws the same UsageError on every rank when the ranks disagree. Aborts
// the job when a rank never arrives.
// my_problem: this rank's own complaint (its inputs), thrown here instead of
// the general verdict.
// Rank 0's memory of the last clock alignment: on one machine the offsets
// are exactly 0 for good; otherwise they are measured again when older than
// kResyncNs (clocks drift by some ppm).
bool g_clocks_known = false, g_clocks_shared = false;
int64_t g_clocks_at = 0;
constexpr int64_t kResyncNs = 10'000'000'000;
bool force_pingpong();
bool clocks_need_sync() {
  return !g_clocks_known || force_pingpong() || (!g_clocks_shared && clock_ns() - g_clocks_at > kResyncNs);
}

// Returns whether run_mpi must align the clocks (the same answer on every rank).
bool agree(const Header& mine, const std::string& my_problem) {
  int me, n;
  MPI_Comm_rank(g_comm, &me);
  MPI_Comm_size(g_comm, &n);
  Verdict v{};
  v.bad_rank = -1;
  if (me == 0) {
    std::vector<Header> all(n);
    all[0] = mine;
    std::vector<MPI_Request> reqs(n - 1);
    for (int r = 1; r < n; ++r) MPI_Irecv(&all[r], sizeof(Header), MPI_BYTE, r, kTagHeader, g_comm, &reqs[r - 1]);
    wait_reqs(reqs.data(), n - 1, mpi_timeout(), [&] {
      const std::string missing = pending_ranks(reqs);
      return fmt::format("rank 0 waited {} s for {} to join the collective (dead, hung, or running something else)",
                         mpi_timeout(), missing);
    });
    v.first = mine;
    v.bad = mine;
    v.sync_clocks = clocks_need_sync();
    if (!mine.inputs_ok) v.bad_rank = 0;
    for (int r = 1; r < n && v.bad_rank < 0; ++r)
      if (!difference(mine, all[r], r).empty()) {
        v.bad_rank = r;
        v.bad = all[r];
      }
    std::vector<MPI_Request> sends(n - 1);
    for (int r = 1; r < n; ++r) MPI_Isend(&v, sizeof v, MPI_BYTE, r, kTagVerdict, g_comm, &sends[r - 1]);
    wait_reqs(sends.data(), n - 1, mpi_timeout(), [&] { return std::string("rank 0 could not deliver its verdict"); });
  } else {
    send_wait(&mine, sizeof mine, 0, kTagHeader, follower_timeout(),
              [&] { return fmt::format("rank {} waited {} s for rank 0 to take its call header", me, follower_timeout()); });
    recv_wait(&v, sizeof v, 0, kTagVerdict, follower_timeout(), [&] {
      return fmt::format("rank {} waited {} s for rank 0 to judge the call (rank 0 is dead or hung)", me,
                         follower_timeout());
    });
  }
  if (v.bad_rank >= 0 && !my_problem.empty()) throw MpiJobUsageError(my_problem);
  if (v.bad_rank == 0) throw MpiJobUsageError("mpi backend: ranks disagree: rank 0 was given inputs of the wrong shape");
  if (v.bad_rank > 0) throw MpiJobUsageError("mpi backend: ranks disagree: " + difference(v.first, v.bad, v.bad_rank));
  return v.sync_clocks != 0;
}

// ---- the options each rank was given (the command line's agreement) ----

namespace {

// name \0 value \0, for each option.
std::vector<std::byte> encode_options(const std::vector<std::pair<std::string, std::string>>& given) {
  std::vector<std::byte> out;
  for (const auto& [name, value] : given)
    for (const std::string* s : {&name, &value}) {
      const auto* p = reinterpret_cast<const std::byte*>(s->c_str());
      out.insert(out.end(), p, p + s->size() + 1);
    }
  return out;
}

// Another rank's bytes: malformed ones (no trailing NUL, odd count) give
// what decodes, and a final partial entry is dropped.
std::vector<std::pair<std::string, std::string>> decode_options(const std::vector<std::byte>& blob) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i < blob.size(); ++i)
    if (blob[i] == std::byte{0}) {
      parts.emplace_back(reinterpret_cast<const char*>(blob.data()) + start, i - start);
      start = i + 1;
    }
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i + 1 < parts.size(); i += 2) out.emplace_back(parts[i], parts[i + 1]);
  return out;
}

// "--data 1,2;3" as typed, long values shortened; "--in-place" for a flag.
std::string shown(const std::string& name, const std::string& value) {
  if (value.empty()) return name;
  constexpr size_t kMost = 60;
  return name + " " + (value.size() > kMost ? value.substr(0, kMost) + "..." : value);
}

// The first option where rank r's differ from rank 0's ("" when none).
std::string option_difference(const std::vector<std::pair<std::string, std::string>>& a,
                              const std::vector<std::pair<std::string, std::string>>& b, int r) {
  auto find = [](const auto& list, const std::string& name) -> const std::string* {
    for (const auto& [n, v] : list)
      if (n == name) return &v;
    return nullptr;
  };
  auto side = [](const std::string& name, const std::string* v) {
    return v ? "with " + shown(name, *v) : "without " + name;
  };
  std::vector<std::string> names;
  for (const auto* list : {&a, &b})
    for (const auto& [n, v] : *list)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  for (const auto& name : names) {
    const std::string* va = find(a, name);
    const std::string* vb = find(b, name);
    if (va && vb && *va == *vb) continue;
    return fmt::format("rank {} called {} but rank 0 {}", r, side(name, vb), side(name, va));
  }
  return "";
}

constexpr int64_t kMaxOptionsBytes = int64_t{16} << 20;  // far above any command line (ARG_MAX)

}  // namespace

}  // namespace microddp::mpi_detail

namespace microddp {

using namespace mpi_detail;

void mpi_agree_on_options(const std::vector<std::pair<std::string, std::string>>& given) {
  int me = 0, n = 1;
  MPI_Comm_rank(g_comm, &me);
  MPI_Comm_size(g_comm, &n);
  if (n == 1) return;
  std::vector<std::byte> mine = encode_options(given);
  std::string verdict;
  if (me == 0) {
    std::vector<int64_t> sizes(n);
    std::vector<MPI_Request> reqs(n - 1);
    for (int r = 1; r < n; ++r) MPI_Irecv(&sizes[r], 1, MPI_INT64_T, r, kTagOptions, g_comm, &reqs[r - 1]);
    wait_reqs(reqs.data(), n - 1, mpi_timeout(), [&] {
      return fmt::format("rank 0 waited {} s for {} to start the command (dead, hung, or running something else)",
                         mpi_timeout(), pending_ranks(reqs));
    });
    for (int r = 1; r < n; ++r) {
      if (sizes[r] < 0 || sizes[r] > kMaxOptionsBytes)
        abort_job(fmt::format("rank {} announced {} bytes of options, more than {} (corrupted message)", r, sizes[r],
                              kMaxOptionsBytes));
      std::vector<std::byte> blob(sizes[r]);
      recv_wait(blob.data(), sizes[r], r, kTagOptions, mpi_timeout(),
                [&] { return fmt::format("rank 0 waited {} s for rank {}'s options (dead or hung)", mpi_timeout(), r); });
      if (verdict.empty()) verdict = option_difference(given, decode_options(blob), r);
    }
    const int64_t len = static_cast<int64_t>(verdict.size());
    for (int r = 1; r < n; ++r) {
      auto what = [&] { return fmt::format("rank 0 could not deliver its verdict on the options to rank {}", r); };
      send_wait(&len, sizeof len, r, kTagOptionsVerdict, mpi_timeout(), what);
      if (len > 0) send_wait(verdict.data(), len, r, kTagOptionsVerdict, mpi_timeout(), what);
    }
  } else {
    const int64_t size = static_cast<int64_t>(mine.size());
    auto what = [&] {
      return fmt::format("rank {} waited {} s for rank 0 to compare the options (rank 0 is dead, hung, or running "
                         "something else)",
                         me, follower_timeout());
    };
    send_wait(&size, sizeof size, 0, kTagOptions, follower_timeout(), what);
    send_wait(mine.data(), size, 0, kTagOptions, follower_timeout(), what);
    int64_t len = 0;
    recv_wait(&len, sizeof len, 0, kTagOptionsVerdict, follower_timeout(), what);
    if (len < 0 || len > kMaxOptionsBytes) abort_job(fmt::format("rank 0 announced a verdict of {} bytes", len));
    verdict.resize(static_cast<size_t>(len));
    if (len > 0) recv_wait(verdict.data(), len, 0, kTagOptionsVerdict, follower_timeout(), what);
  }
  if (!verdict.empty()) throw MpiJobUsageError("mpi backend: ranks disagree: " + verdict);
}

}  // namespace microddp
