// What NCCL runs (issue 35): the double binary tree's two trees and its
// pipelined schedule, one_shot and two_shot, and channels: exact trees
// against hand-derived ones, exact step / message / byte counts per rank,
// channels bit-exact against the reference in every dtype and op, and the
// refusals with their messages.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/checker.h"
#include "core/ir/reference.h"
#include "core/record/data.h"

using namespace microddp;

namespace {

CollectiveSpec spec(const std::string& alg, int n, int64_t count, int segments = 1, int channels = 1,
                    Collective c = Collective::all_reduce) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.segments = segments;
  s.channels = channels;
  return s;
}

// Small integers, exact in every dtype and op (as test_matrix.cpp's).
RankData exact_inputs(const CollectiveSpec& s, uint64_t salt) {
  RankData in(s.world_size);
  const int n = s.world_size;
  for (int r = 0; r < n; ++r) {
    const int64_t c = s.input_count(r);
    in[r].resize(c * dtype_size(s.dtype));
    for (int64_t i = 0; i < c; ++i) {
      const int64_t h = static_cast<int64_t>((r * 131 + i * 31 + salt * 7) % 5) - 2;
      double v = static_cast<double>(h);
      if (s.op == ReduceOp::prod) v = (h >= 0 ? 1 : -1) * ((r == 0 && i % 3 == 0) ? 2 : 1);
      if (s.op == ReduceOp::avg) v = h * n;
      kernels::store_double(s.dtype, in[r].data(), i, v);
    }
  }
  return in;
}

struct Counts {
  std::vector<int> sends, recvs;
  std::vector<int64_t> sent_elems;
};
Counts count_messages(const Schedule& s) {
  Counts c;
  const int n = s.world_size();
  c.sends.assign(n, 0);
  c.recvs.assign(n, 0);
  c.sent_elems.assign(n, 0);
  for (const auto& st : s.steps)
    for (int r = 0; r < n; ++r)
      for (const Op& o : st.ranks[r]) {
        if (o.kind == OpKind::send) ++c.sends[r], c.sent_elems[r] += o.len;
        if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) ++c.recvs[r];
      }
  return c;
}

// Runs s on threads (checked first) and compares with the reference bit for bit.
void check_exact(const CollectiveSpec& s, uint64_t salt) {
  const Schedule sch = make_schedule(s);
  check_schedule(sch);
  const RankData in = exact_inputs(s, salt);
  const RunResult res = run_threads(sch, in);
  const RankData want = reference_outputs(s, in);
  for (int r = 0; r < s.world_size; ++r) CHECK(res.outputs[r] == want[r]);
}

bool interior(const DoubleTree& T, int t, int r) { return !T.children[t][r].empty(); }

}  // namespace

TEST_SUITE("nccl_algorithms") {
  TEST_CASE("double tree: NCCL's trees by hand (n = 3, 4, 5, 8)") {
    {
      const DoubleTree T = make_double_tree(4);  // tree 0: 0-2-{1,3}; tree 1 mirrored: 3-1-{2,0}
      CHECK(T.parent[0] == std::vector<int>{-1, 2, 0, 2});
      CHECK(T.children[0][0] == std::vector<int>{2});
      CHECK(T.children[0][2] == std::vector<int>{1, 3});
      CHECK(T.parent[1] == std::vector<int>{1, 3, 1, -1});
      CHECK(T.children[1][3] == std::vector<int>{1});
      CHECK(T.children[1][1] == std::vector<int>{2, 0});
      CHECK(T.root == std::array<int, 2>{0, 3});
      CHECK(T.height == 2);
    }
    {
      const DoubleTree T = make_double_tree(5);  // tree 0: 0-4-2-{1,3}; tree 1 shifted: 1-0-3-{2,4}
      CHECK(T.parent[0] == std::vector<int>{-1, 2, 4, 2, 0});
      CHECK(T.children[0][4] == std::vector<int>{2});
      CHECK(T.parent[1] == std::vector<int>{1, -1, 3, 0, 3});
      CHECK(T.children[1][3] == std::vector<int>{2, 4});
      CHECK(T.root == std::array<int, 2>{0, 1});
      CHECK(T.height == 3);
    }
    {
      const DoubleTree T = make_double_tree(3);  // 0-2-1 and 1-0-2
      CHECK(T.parent[0] == std::vector<int>{-1, 2, 0});
      CHECK(T.parent[1] == std::vector<int>{1, -1, 0});
    }
    {
      const DoubleTree T = make_double_tree(8);  // NCCL's picture: 0-4, 4-{2,6}, 2-{1,3}, 6-{5,7}
      CHECK(T.parent[0] == std::vector<int>{-1, 2, 4, 2, 0, 6, 4, 6});
      CHECK(T.children[0][4] == std::vector<int>{2, 6});
      CHECK(T.children[0][6] == std::vector<int>{5, 7});
      CHECK(T.parent[1] == std::vector<int>{1, 3, 1, 7, 5, 3, 5, -1});  // mirrored: r -> 7 - r
      CHECK(T.height == 3);
    }
  }

  TEST_CASE("double tree: two spanning trees, interior in at most one (odd n: rank 0 in both, as NCCL's shift)") {
    for (int n = 2; n <= 64; ++n) {
      CAPTURE(n);
      const DoubleTree T = make_double_tree(n);
      for (int t = 0; t < 2; ++t) {
        int roots = 0;
        for (int r = 0; r < n; ++r) {
          if (T.parent[t][r] < 0) {
            ++roots;
            CHECK(T.children[t][r].size() == 1);  // NCCL's roots have one child
          } else {
            const auto& sib = T.children[t][T.parent[t][r]];
            CHECK(std::count(sib.begin(), sib.end(), r) == 1);
            CHECK(T.depth[t][r] == T.depth[t][T.parent[t][r]] + 1);
          }
          CHECK(T.children[t][r].size() <= 2);
        }
        CHECK(roots == 1);
      }
      std::vector<int> both;
      for (int r = 0; r < n; ++r)
        if (interior(T, 0, r) && interior(T, 1, r)) both.push_back(r);
      if (n % 2 == 0) CHECK(both.empty());
      else CHECK(both == std::vector<int>{0});
      CHECK(T.height == ceil_lg(n));  // NCCL's in-order tree: ⌈lg n⌉ levels below the root
    }
  }

  TEST_CASE("double tree: steps k + 2h - 1, messages and bytes per rank") {
    // n = 4, 8 floats, k = 1: trees 0-2-{1,3} and 3-1-{2,0}; each message is
    // a half (4 elements). Sends: rank 0 down to 2 (tree 0) and up to 1
    // (tree 1); rank 2 up to 0, down to 1 and 3, up to 1 (tree 1).
    Schedule s = make_schedule(spec("double_binary_tree", 4, 8));
    CHECK(s.num_steps() == 4);
    Counts c = count_messages(s);
    CHECK(c.sends == std::vector<int>{2, 4, 4, 2});
    CHECK(c.recvs == std::vector<int>{2, 4, 4, 2});
    CHECK(c.sent_elems == std::vector<int64_t>{8, 16, 16, 8});
    // k = 2, C = 2: 2 + 4 - 1 steps, messages x 4, each 16 / (2 halves x 2 x 2) = 2 elements
    s = make_schedule(spec("double_binary_tree", 4, 16, 2, 2));
    CHECK(s.num_steps() == 5);
    c = count_messages(s);
    CHECK(c.sends == std::vector<int>{8, 16, 16, 8});
    CHECK(c.sent_elems == std::vector<int64_t>{16, 32, 32, 16});
    // n = 5, k = 3: h = 3, 3 + 6 - 1 = 8 steps; phases reduce, reduce + broadcast, broadcast
    s = make_schedule(spec("double_binary_tree", 5, 30, 3));
    CHECK(s.num_steps() == 8);
    REQUIRE(s.phases.size() == 3);
    CHECK(s.phases[1].name == "reduce + broadcast");
    c = count_messages(s);
    // per tree: 1 up if not the root + 1 per child, times k = 3; tree 0:
    // 0-4-2-{1,3}, tree 1: 1-0-3-{2,4}
    CHECK(c.sends == std::vector<int>{3 * (1 + 1 + 1), 3 * (1 + 1), 3 * (1 + 2 + 1), 3 * (1 + 1 + 2), 3 * (1 + 1 + 1)});
    // one rank: a local copy
    CHECK(make_schedule(spec("double_binary_tree", 1, 5)).num_steps() == 1);
    CHECK(count_messages(make_schedule(spec("double_binary_tree", 1, 5))).sends == std::vector<int>{0});
  }

  TEST_CASE("double tree: segmented, in place, tiny counts; every rank ends with the root's bits") {
    // (test_matrix.cpp runs it unsegmented over n = 1..9, 16 and every count)
    for (int n : {2, 3, 6})
      for (int64_t count : {int64_t{1}, int64_t{13}})
        for (int k : {3})
          for (bool ip : {false, true}) {
            CAPTURE(n); CAPTURE(count); CAPTURE(k); CAPTURE(ip);
            CollectiveSpec s = spec("double_binary_tree", n, count, k);
            s.in_place = ip;
            s.dtype = DType::float32;
            check_exact(s, static_cast<uint64_t>(n * 7 + count));
          }
    // float sums in a fixed order: identical bits on every rank even when
    // the order matters (values 1e8 and 1 do not associate)
    CollectiveSpec s = spec("double_binary_tree", 7, 9, 2);
    RankData in(7);
    for (int r = 0; r < 7; ++r) {
      in[r].resize(9 * 4);
      for (int i = 0; i < 9; ++i) kernels::store_double(DType::float32, in[r].data(), i, r % 2 ? 1e8 : 1.0 + r * 0.1);
    }
    const RunResult res = run_threads(make_schedule(s), in);
    for (int r = 1; r < 7; ++r) CHECK(res.outputs[r] == res.outputs[0]);
  }

  TEST_CASE("one_shot and two_shot: steps and direct reads per rank") {
    Schedule s = make_schedule(spec("one_shot", 4, 10));
    CHECK(s.num_steps() == 1);
    Counts c = count_messages(s);
    CHECK(c.sends == std::vector<int>{3, 3, 3, 3});
    CHECK(c.recvs == std::vector<int>{3, 3, 3, 3});
    CHECK(c.sent_elems == std::vector<int64_t>{30, 30, 30, 30});
    // two_shot, 10 elements in blocks 3, 3, 2, 2: step 0 rank r sends block
    // q to each peer q, step 1 its own block to every peer.
    s = make_schedule(spec("two_shot", 4, 10));
    CHECK(s.num_steps() == 2);
    c = count_messages(s);
    CHECK(c.sends == std::vector<int>{6, 6, 6, 6});
    CHECK(c.sent_elems == std::vector<int64_t>{7 + 9, 7 + 9, 8 + 6, 8 + 6});
    // (test_matrix.cpp runs them over n = 1..9, 16 and every count)
    for (const char* alg : {"one_shot", "two_shot"})
      for (int n : {3, 4})
        for (int64_t count : {int64_t{1}, int64_t{11}})
          for (bool ip : {false, true}) {
            CAPTURE(alg); CAPTURE(n); CAPTURE(count); CAPTURE(ip);
            CollectiveSpec x = spec(alg, n, count);
            x.in_place = ip;
            x.op = ip ? ReduceOp::max : ReduceOp::sum;
            check_exact(x, static_cast<uint64_t>(n + count));
          }
    // one_shot folds in rank order 0..n-1 on every rank: identical bits
    CollectiveSpec x = spec("one_shot", 5, 4);
    RankData in(5);
    for (int r = 0; r < 5; ++r) {
      in[r].resize(16);
      for (int i = 0; i < 4; ++i) kernels::store_double(DType::float32, in[r].data(), i, r % 2 ? 1e8 : 1.0 + r * 0.1);
    }
    const RunResult res = run_threads(make_schedule(x), in);
    for (int r = 1; r < 5; ++r) CHECK(res.outputs[r] == res.outputs[0]);
  }

  TEST_CASE("channels: ring steps and messages; ops tagged with their channel") {
    // ring all_reduce, n = 4, 16 elements, 2 channels: 6 steps, 2 messages
    // a step (one per channel) of 16 / 2 / 4 = 2 elements
    const Schedule s = make_schedule(spec("ring", 4, 16, 1, 2));
    CHECK(s.num_steps() == 6);
    const Counts c = count_messages(s);
    CHECK(c.sends == std::vector<int>{12, 12, 12, 12});
    CHECK(c.sent_elems == std::vector<int64_t>{24, 24, 24, 24});
    std::set<int> seen;
    for (const auto& st : s.steps)
      for (const auto& ops : st.ranks)
        for (const Op& o : ops) seen.insert(o.channel);
    CHECK(seen == std::set<int>{0, 1});
    CHECK(s.chunk_offsets == std::vector<int64_t>{0, 2, 4, 6, 8, 10, 12, 14, 16});
    // one channel: the untagged ring
    const Schedule one = make_schedule(spec("ring", 4, 16));
    for (const auto& st : one.steps)
      for (const auto& ops : st.ranks)
        for (const Op& o : ops) CHECK(o.channel == -1);
    // reduce_scatter, blocks of 10 in 3 channels (4, 3, 3): 3 steps x 3 messages
    const Schedule rs = make_schedule(spec("ring", 4, 10, 1, 3, Collective::reduce_scatter));
    CHECK(rs.num_steps() == 3);
    CHECK(count_messages(rs).sends == std::vector<int>{9, 9, 9, 9});
    CHECK(count_messages(rs).sent_elems == std::vector<int64_t>{30, 30, 30, 30});
  }

  TEST_CASE("channels x every dtype and op, in place and per-rank counts: bit-exact against the reference") {
    uint64_t salt = 0;
    for (DType t : all_dtypes())
      for (ReduceOp op : all_ops())
        for (const auto& [alg, c] : std::vector<std::pair<std::string, Collective>>{
                 {"ring", Collective::all_reduce},
                 {"ring", Collective::all_gather},
                 {"ring", Collective::reduce_scatter},
                 {"double_binary_tree", Collective::all_reduce}}) {
          if (c == Collective::all_gather && op != ReduceOp::sum) continue;  // no op: once per dtype
          ++salt;
          CollectiveSpec s = spec(alg, 3 + static_cast<int>(salt % 2), 11, 1, 2 + static_cast<int>(salt % 2), c);
          s.dtype = t;
          s.op = op;
          s.in_place = salt % 3 == 0;
          if (c != Collective::all_reduce && salt % 4 == 1) {  // uneven blocks, one empty
            s.counts.assign(s.world_size, 0);
            s.counts[0] = 5;
            s.counts.back() = 2;
          }
          if (alg == "double_binary_tree") s.segments = 1 + static_cast<int>(salt % 3);
          CAPTURE(alg); CAPTURE(name(c)); CAPTURE(name(t)); CAPTURE(name(op)); CAPTURE(s.world_size);
          CAPTURE(s.channels); CAPTURE(s.in_place); CAPTURE(s.segments);
          check_exact(s, salt);
        }
  }

  TEST_CASE("refusals: channels out of range, on an algorithm without channels, with the segmented ring") {
    CHECK_THROWS_WITH_AS(make_schedule(spec("ring", 4, 8, 1, 0)), "channels must be in 1..64, got 0", UsageError);
    CHECK_THROWS_WITH_AS(make_schedule(spec("ring", 4, 8, 1, 65)), "channels must be in 1..64, got 65", UsageError);
    CHECK_THROWS_WITH_AS(make_schedule(spec("naive", 4, 8, 1, 2)),
                         "channels = 2: algorithm 'naive' does not run in channels (for all_reduce: ring, "
                         "double_binary_tree)",
                         UsageError);
    CHECK_THROWS_WITH_AS(make_schedule(spec("one_shot", 4, 8, 1, 3)),
                         "channels = 3: algorithm 'one_shot' does not run in channels (for all_reduce: ring, "
                         "double_binary_tree)",
                         UsageError);
    CHECK_THROWS_WITH_AS(make_schedule(spec("naive", 4, 8, 1, 2, Collective::broadcast)),
                         "channels = 2: algorithm 'naive' does not run in channels (for broadcast: none does)",
                         UsageError);
    CHECK_THROWS_WITH_AS(make_schedule(spec("ring", 4, 8, 2, 2)),
                         "channels = 2 with segments = 2: the segmented ring swaps its two staging buffers, which "
                         "channels would share; use segments or channels, not both",
                         UsageError);
    CHECK_THROWS_WITH_AS(make_schedule(spec("two_shot", 4, 8, 2)),
                         "segments = 2 needs the chunked ring; algorithm 'two_shot' does not pipeline", UsageError);
    // the double tree pipelines and runs in channels
    CHECK(make_schedule(spec("double_binary_tree", 4, 8, 2, 2)).num_steps() == 5);
  }

  TEST_CASE("registry facts the window asks for: compare set, reference, broken form, layouts") {
    CHECK(compare_set(Collective::all_reduce) == std::vector<std::string>{"naive", "tree", "ring"});
    CHECK(compare_set(Collective::all_reduce, 0) == std::vector<std::string>{"naive", "tree", "ring"});
    const auto pal = palette_order();
    REQUIRE(pal.size() >= 3);
    CHECK(std::vector<std::string>(pal.begin(), pal.begin() + 3) == std::vector<std::string>{"naive", "tree", "ring"});
    CHECK(compare_reference() == "ring");
    const AlgorithmInfo* b = broken_variant_of("single_buffered_ring");
    REQUIRE(b);
    CHECK(b->name == "ring_unchunked");
    CHECK(broken_variant_of("ring") == nullptr);
    CHECK(layout_of(spec("double_binary_tree", 4, 8)) == Layout::double_tree);
    CHECK(layout_of(spec("one_shot", 4, 8)) == Layout::full_mesh);
    CHECK(name(Layout::double_tree) == "double tree");
    CHECK(name(Layout::full_mesh) == "full mesh");
  }
}
