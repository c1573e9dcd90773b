// Reading nccl-tests output: every shipped published table (exact row
// counts, first and last rows, GPU, ranks, nodes), the column sets and line
// shapes of core/model/nccl_tests.h, broken inputs (exact messages), and the
// α-β fit to a published table.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <string>

#include "approx.h"
#include "core/model/nccl_tests.h"
#include "core/model/nccl_tests_fit.h"

using namespace microddp;

namespace {

std::string data(const std::string& f) { return std::string(MICRODDP_SOURCE_DIR) + "/tests/data/nccl-tests/" + f; }

struct Expect {
  const char* file;
  const char* collective;  // as the test passes it ("" = the file names it)
  size_t rows;
  int ranks, nodes;
  const char* gpu;
  const char* version;
  int64_t first_bytes;
  double first_time_us, first_busbw;
  int64_t last_bytes;
  double last_time_us, last_busbw, last_in_place_time_us;
};

// Hand-read from the files (tests/data/nccl-tests/SOURCES.md names each source).
const Expect kShipped[] = {
    {"a100-1x8-allreduce.txt", "", 28, 8, 1, "NVIDIA A100-SXM4-40GB", "", 64, 32.01, 0.00, 8589934592, 63929, 235.14, 63911},
    {"a100-1x8-sendrecv.txt", "", 4, 0, 0, "", "", 134217728, 1211.2, 110.81, 1073741824, 5503.4, 195.10, 5490.5},
    {"a100-2x8-allreduce.txt", "", 28, 16, 2, "NVIDIA A100-SXM4-40GB", "", 64, 38.75, 0.00, 8589934592, 225083, 71.56,
     225082},
    {"gh200-2x4-allreduce.txt", "", 25, 8, 2, "NVIDIA GH200 120GB", "", 8, 17.93, 0.00, 134217728, 1916.4, 122.57, 1907.8},
    {"h100-2x8-allreduce.txt", "", 31, 16, 2, "NVIDIA H100 80GB HBM3", "", 8, 135.8, 0.00, 8589934592, 47535, 338.82,
     47743},
    {"h100-2x8-b-allreduce.txt", "all_reduce", 14, 16, 2, "NVIDIA H100 80GB HBM3", "", 1048576, 93.25, 21.08, 8589934592,
     34508, 466.73, 34514},
    {"h100-2x8-ib-allreduce.txt", "", 32, 16, 2, "NVIDIA H100 80GB HBM3", "2.26.2+cuda12.8", 8, 68.52, 0.00,
     17179869184, 68652, 469.21, 68668},
    {"h100-8x8-allreduce.txt", "all_reduce", 14, 64, 8, "NVIDIA H100 80GB HBM3", "", 1048576, 117.0, 17.64, 8589934592,
     52733, 320.70, 52754},
    {"h200-2x8-allreduce.txt", "", 5, 16, 2, "NVIDIA H200", "2.27.5+cuda12.8", 1073741824, 4396.8, 457.90, 17179869184,
     66214, 486.49, 66226},
};

// A newest-format header (2 placements, #wrong), as src/common.cu prints it.
const std::string kHead =
    "#  Rank  0 Group  0 Pid   1 on  hostA device  0 [0x01] GPU X\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";

std::string message(const std::string& text, const std::string& collective = "") {
  try {
    parse_nccl_tests(text, "t.txt", collective);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_SUITE("nccl_tests") {
  TEST_CASE("every shipped published table: rows, first and last row, GPU, ranks, nodes") {
    for (const Expect& e : kShipped) {
      CAPTURE(e.file);
      const NcclTestsTable t = load_nccl_tests(data(e.file), e.collective);
      CHECK(t.rows.size() == e.rows);
      CHECK(t.world_size() == e.ranks);
      CHECK(t.nodes() == e.nodes);
      CHECK(t.gpu() == e.gpu);
      CHECK(t.nccl_version == e.version);
      CHECK(t.has_redop);
      CHECK(t.has_root);
      CHECK(t.has_wrong);
      CHECK(t.has_in_place);
      const NcclTestsRow& f = t.rows.front();
      const NcclTestsRow& l = t.rows.back();
      CHECK(f.bytes == e.first_bytes);
      CHECK(f.out_of_place.time_us == rel(e.first_time_us));
      CHECK(f.out_of_place.busbw_GBps == rel(e.first_busbw));
      CHECK(f.type == "float");
      CHECK(f.redop == "sum");
      CHECK(f.root == -1);
      CHECK(l.bytes == e.last_bytes);
      CHECK(l.count * 4 == e.last_bytes);  // float, all_reduce / sendrecv: count = size / 4
      CHECK(l.out_of_place.time_us == rel(e.last_time_us));
      CHECK(l.out_of_place.busbw_GBps == rel(e.last_busbw));
      CHECK(l.out_of_place.wrong == 0);
      CHECK(l.in_place.present);
      CHECK(l.in_place.time_us == rel(e.last_in_place_time_us));
    }
  }

  TEST_CASE("where the collective comes from, and what the files print around the table") {
    const NcclTestsTable gh = load_nccl_tests(data("gh200-2x4-allreduce.txt"));
    CHECK(gh.tool == "all_reduce_perf");  // "# Collective test starting: all_reduce_perf"
    CHECK(gh.collective_from == "tool name");
    CHECK(gh.avg_busbw_GBps == rel(19.7866));
    CHECK(gh.system_text() == "8 ranks on 2 nodes of NVIDIA GH200 120GB");
    const NcclTestsTable ib = load_nccl_tests(data("h100-2x8-ib-allreduce.txt"));
    CHECK(ib.tool == "all_reduce_perf");  // the command line: all_reduce_perf_mpi
    CHECK(ib.ranks.front().line == 25);  // after two Open MPI help lines inside the "Using devices" block
    CHECK(ib.ranks.back().host == "bm-h100-02");
    const NcclTestsTable sr = load_nccl_tests(data("a100-1x8-sendrecv.txt"));
    CHECK(sr.collective == "sendrecv");
    CHECK(sr.system_text() == "ranks not printed");
    CHECK(sr.rows.front().in_place.wrong == -1);  // N/A
    CHECK(sr.rows.front().in_place.present);
    CHECK_FALSE(model_collective("sendrecv").has_value());
    CHECK(*model_collective("alltoall") == Collective::all_to_all);
    // The same file without the tool's name: --collective says, else unknown.
    const NcclTestsTable b = load_nccl_tests(data("h100-2x8-b-allreduce.txt"));
    CHECK(b.collective.empty());
    CHECK(load_nccl_tests(data("h100-2x8-b-allreduce.txt"), "all_reduce").collective_from == "--collective");
  }

  TEST_CASE("column sets: -c 0, old 'error' columns without root or '#', N/A in-place, tagged MPI lines") {
    // -c 0: #wrong printed N/A in both placements.
    const NcclTestsTable c0 = parse_nccl_tests(
        kHead + "        1024           256     float     sum      -1    20.35    0.05    0.09    N/A    20.32    0.05    0.09    N/A\n",
        "t.txt", "all_reduce");
    CHECK(c0.rows.at(0).out_of_place.wrong == -1);
    CHECK(c0.rows.at(0).in_place.wrong == -1);
    CHECK(c0.rows.at(0).out_of_place.time_us == rel(20.35));
    // An old run (2.0-era): no leading '#', no Group, no root column, "error" as 0e+00;
    // two processes each printing their own header and rank lines (-g 2).
    const std::string old =
        " nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
        "   Rank  0 Pid   3591 on   nodeA device  0 [0x03] NVIDIA A100-PCIE-40GB\n"
        "   Rank  1 Pid   3591 on   nodeA device  1 [0x03] NVIDIA A100-PCIE-40GB\n"
        "   Rank  0 Pid   2451 on   nodeB device  0 [0x03] NVIDIA A100-PCIE-40GB\n"
        "   Rank  1 Pid   2451 on   nodeB device  1 [0x03] NVIDIA A100-PCIE-40GB\n"
        "       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
        "           8             2   float     sum    30.11    0.00    0.00  0e+00    29.80    0.00    0.00  0e+00\n"
        "          16             4   float     sum    30.52    0.00    0.00  0e+00    29.91    0.00    0.00  0e+00\n";
    const NcclTestsTable o = parse_nccl_tests(old, "old.txt", "all_reduce");
    CHECK(o.world_size() == 4);
    CHECK(o.nodes() == 2);
    CHECK_FALSE(o.has_root);
    CHECK(o.rows.size() == 2);
    CHECK(o.rows.at(1).root == -1);
    CHECK(o.rows.at(1).out_of_place.time_us == rel(30.52));
    CHECK(o.rows.at(1).out_of_place.wrong == 0);
    // An in-place time of N/A: that placement is absent; mpirun --tag-output
    // prefixes and NCCL INFO lines between the rows are not rows.
    const std::string tagged = "[1,0]<stdout>:# Collective test starting: alltoall_perf\n" +
                               std::string("[1,0]<stdout>:") + kHead.substr(0, kHead.find('\n') + 1) + "[1,0]<stdout>:" +
                               kHead.substr(kHead.find('\n') + 1) +
                               "[1,0]<stdout>:        1024           256     float    none      -1    55.66    0.02    "
                               "0.02       0      N/A     N/A     N/A    N/A\n"
                               "nodeA:123:456 [0] NCCL INFO comm 0x1 rank 0 nranks 1 - Init COMPLETE\n"
                               "[1,0]<stdout>:        2048           512     float    none      -1    29.69    0.07    "
                               "0.06       0      N/A     N/A     N/A    N/A\n";
    const NcclTestsTable a = parse_nccl_tests(tagged, "a2a.txt");
    CHECK(a.collective == "alltoall");
    CHECK(a.rows.size() == 2);
    CHECK(a.world_size() == 1);
    CHECK_FALSE(a.rows.at(0).in_place.present);
    CHECK(a.rows.at(1).out_of_place.time_us == rel(29.69));
    // A rooted tool without its name: root 0 with redop none is broadcast.
    const NcclTestsTable bc = parse_nccl_tests(
        kHead + "        1024           256     float    none       0    20.35    0.05    0.05      0    20.32    0.05    0.05      0\n",
        "b.txt");
    CHECK(bc.collective == "broadcast");
    CHECK(bc.collective_from == "column set (root and redop)");
  }

  TEST_CASE("rows nccl-tests flags wrong (#wrong above 0) are left out of comparisons and fits; 'error' flags none") {
    const NcclTestsTable t = parse_nccl_tests(
        kHead + "        1024           256     float     sum      -1    20.00    0.05    0.09      0    20.32    0.05    0.09      0\n"
                "        2048           512     float     sum      -1    30.00    0.07    0.12      3    20.32    0.05    0.09      0\n"
                "        4096          1024     float     sum      -1    40.00    0.10    0.18      0    20.32    0.05    0.09      7\n",
        "t.txt", "all_reduce");
    CHECK(t.wrong_is_count);
    CHECK_FALSE(t.rows.at(0).out_of_place.flagged_wrong);
    CHECK(t.rows.at(1).out_of_place.flagged_wrong);
    CHECK(t.rows.at(1).out_of_place.wrong == 3);
    CHECK(t.rows.at(2).in_place.flagged_wrong);  // in-place only: the out-of-place row stays
    CHECK(t.wrong_sizes() == std::vector<int64_t>{2048});
    const auto rows = compare_rows(t, 1, [](int64_t b) { return static_cast<double>(b) * 1e-8; });
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].bytes == 1024);
    CHECK(rows[1].bytes == 4096);
    CHECK(rows[1].error_pct == rel((40.96 - 40.0) / 40.0 * 100));
    // An old "error" column is a deviation, not a count: 1e-06 flags nothing.
    const NcclTestsTable o = parse_nccl_tests(
        "       size         count    type   redop     time   algbw   busbw  error\n"
        "           8             2   float     sum    30.11    0.00    0.00  1e-06\n",
        "old.txt", "all_reduce");
    CHECK_FALSE(o.wrong_is_count);
    CHECK(o.rows.at(0).out_of_place.wrong == rel(1e-6));
    CHECK_FALSE(o.rows.at(0).out_of_place.flagged_wrong);
    CHECK(o.wrong_sizes().empty());
  }

  TEST_CASE("broken inputs name the file, the line and what was expected") {
    CHECK(message("") == "t.txt: the file is empty (expected the output of an nccl-tests *_perf tool)");
    CHECK(message("\n  \n") == "t.txt: the file is empty (expected the output of an nccl-tests *_perf tool)");
    CHECK(message("hello\nworld\n") ==
          "t.txt: no column header found (expected the nccl-tests line '#  size  count  type  redop  root  time  "
          "algbw  busbw  #wrong ...' above the rows)");
    CHECK(message("# nThread 1\n           8             2     float     sum      -1    17.93    0.00    0.00      0\n") ==
          "t.txt:2: a data row before any column header (expected the header '#  size  count  type  redop  root  "
          "time  algbw  busbw  #wrong ...' first: is the top of the table missing?)");
    CHECK(message(kHead + "        1024           256     float     sum      -1    20.35    0.05\n") ==
          "t.txt:4: the row has 7 fields (expected 13 fields as the header at line 2 says: size count type redop "
          "root, then time algbw busbw #wrong for out-of-place and for in-place): a truncated row?");
    CHECK(message(kHead + "        1024           256     float     sum      -1    abc    0.05    0.09      0    20.32    "
                          "0.05    0.09      0\n") ==
          "t.txt:4: out-of-place time (us) is 'abc' (expected a number or N/A)");
    CHECK(message(kHead + "        1024          2x56     float     sum      -1    20.35    0.05    0.09      0    20.32    "
                          "0.05    0.09      0\n") ==
          "t.txt:4: count (elements) is '2x56' (expected a whole number >= 0)");
    CHECK(message(kHead + "# Out of bounds values : 0 OK\n") ==
          "t.txt:2: the column header has no data rows after it (expected rows 'SIZE COUNT TYPE ...': a truncated "
          "paste?)");
    const std::string row = "        1024           256     float     sum      -1    20.35    0.05    0.09      0    20.32    "
                            "0.05    0.09      0\n";
    CHECK(message(kHead + row + kHead.substr(kHead.find('\n') + 1) + row) ==
          "t.txt:5: a second column header after 1 data rows (expected one table per file: split the file at this "
          "line)");
    CHECK(message("./build/all_gather_perf -b 8\n" + kHead + row, "all_reduce") ==
          "t.txt: --collective all_reduce contradicts the file, which names all_gather_perf");
    CHECK(message(kHead + row, "allreduce") ==
          "--collective allreduce: not an nccl-tests collective (expected one of all_reduce, all_gather, "
          "reduce_scatter, broadcast, reduce, alltoall, sendrecv, gather, scatter, hypercube)");
    CHECK_THROWS_WITH_AS(load_nccl_tests("/nonexistent/x.txt"),
                         "/nonexistent/x.txt: no such file (expected the saved output of an nccl-tests *_perf tool)",
                         UsageError);
    // Not a regular file: refused by what it is, before a read that would block (a FIFO) or never end (/dev/zero).
    CHECK_THROWS_WITH_AS(load_nccl_tests("/tmp"),
                         "nccl-tests table '/tmp': is a directory (expected the saved output of an nccl-tests *_perf "
                         "tool)",
                         UsageError);
    CHECK_THROWS_WITH_AS(load_nccl_tests("/dev/zero"),
                         "nccl-tests table '/dev/zero': is a character device, not a regular file (expected the saved "
                         "output of an nccl-tests *_perf tool)",
                         UsageError);
  }

  TEST_CASE("tables that would read silently wrong are refused with the line and the value") {
    const std::string hdr =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
        "#wrong\n";
    const auto rank = [](int r, const char* host) {
      return fmt::format("#  Rank {:2d} Group  0 Pid    944 on {} device {:2d} [0x0f] GPU X\n", r, host, r);
    };
    const std::string row = "        1024           256     float     sum      -1    20.35    0.05    0.09      0    20.32    "
                            "0.05    0.09      0\n";
    // The rank lines pasted twice: not 4 ranks.
    CHECK(message(rank(0, "hA") + rank(1, "hA") + rank(0, "hA") + rank(1, "hA") + hdr + row) ==
          "t.txt:3: rank 0 (Pid 944 on hA) is printed again after line 1: one line per rank (the rank lines pasted "
          "twice?)");
    // 1 + 3 ranks over two hosts, and hosts taking turns: not a contiguous 2x2.
    CHECK(message(rank(0, "hA") + rank(1, "hB") + rank(2, "hB") + rank(3, "hB") + hdr + row) ==
          "t.txt:2: hB has 3 ranks but hA has 1: microddp's model places the same count of ranks on every node: not "
          "modelled");
    CHECK(message(rank(0, "hA") + rank(1, "hB") + rank(2, "hA") + rank(3, "hB") + hdr + row) ==
          "t.txt:3: rank 2 is on hA again after ranks on hB (line 2): the ranks of a node are not contiguous, and "
          "microddp's model places ranks contiguously (ranks 0..k-1 on the first node, k..2k-1 on the next): not "
          "modelled");
    // Contiguous 2x2 reads: 4 ranks on 2 nodes.
    const NcclTestsTable ok = parse_nccl_tests(rank(0, "hA") + rank(1, "hA") + rank(2, "hB") + rank(3, "hB") + hdr + row,
                                               "t.txt", "all_reduce");
    CHECK(ok.system_text() == "4 ranks on 2 nodes of GPU X");
    // A negative or fractional size is a broken row, not a line to skip.
    CHECK(message(kHead + "         -64            16     float     sum      -1    32.01    0.00    0.00      0    31.82    "
                          "0.00    0.00      0\n") ==
          "t.txt:4: size (B) is '-64' (expected a whole number >= 0)");
    CHECK(message(kHead + "        64.5            16     float     sum      -1    32.01    0.00    0.00      0    31.82    "
                          "0.00    0.00      0\n") ==
          "t.txt:4: size (B) is '64.5' (expected a whole number >= 0)");
    // A time of 0 cannot be measured: refused, not dropped.
    CHECK(message(kHead + "        1024           256     float     sum      -1        0    0.05    0.09      0    20.32    "
                          "0.05    0.09      0\n") ==
          "t.txt:4: out-of-place time is 0 (expected a time above 0 us, or N/A)");
    // The count contradicts size / the type's size; a type nccl-tests has not.
    CHECK(message(kHead + "          64           999     float     sum      -1    32.01    0.00    0.00      0    31.82    "
                          "0.00    0.00      0\n") ==
          "t.txt:4: count is 999 elements of float (4 B each) = 3996 B, but size is 64 B (expected count = size / 4, "
          "or size / 4 / 1 rank for all_gather, reduce_scatter and alltoall)");
    // all_gather over 8 ranks prints a rank's count: 64 B is 2 floats a rank.
    std::string eight;
    for (int r = 0; r < 8; ++r) eight += rank(r, "hA");
    CHECK(parse_nccl_tests("# all_gather_perf\n" + eight + hdr +
                               "          64             2     float    none      -1    20.35    0.05    0.09      0    "
                               "20.32    0.05    0.09      0\n",
                           "t.txt")
              .rows.at(0)
              .count == 2);
    CHECK(message(kHead + "          64            16       foo     sum      -1    32.01    0.00    0.00      0    31.82    "
                          "0.00    0.00      0\n")
              .rfind("t.txt:4: type is 'foo' (expected one of nccl-tests' types: bfloat16, char, double,", 0) == 0);
    // half: 2 B per element.
    CHECK(parse_nccl_tests(kHead + "          64            32      half     sum      -1    32.01    0.00    0.00      0    "
                                   "31.82    0.00    0.00      0\n",
                           "t.txt", "all_reduce")
              .rows.at(0)
              .count == 32);
  }

  TEST_CASE("a placement the model does not make is recorded for the caller, and counts checked against given ranks") {
    const std::string hdr =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
        "#wrong\n";
    const auto rank = [](int r, const char* host) {
      return fmt::format("#  Rank {:2d} Group  0 Pid    944 on {} device {:2d} [0x0f] GPU X\n", r, host, r);
    };
    const std::string row = "        1024           256     float     sum      -1    20.35    0.05    0.09      0    20.32    "
                            "0.05    0.09      0\n";
    // Round-robin over two hosts: read (predict on a flat link does not
    // place ranks), the reason kept for a model that does.
    const std::string rr = rank(0, "hA") + rank(1, "hB") + rank(2, "hA") + rank(3, "hB") + hdr + row;
    const std::string why =
        "t.txt:3: rank 2 is on hA again after ranks on hB (line 2): the ranks of a node are not contiguous, and "
        "microddp's model places ranks contiguously (ranks 0..k-1 on the first node, k..2k-1 on the next): not "
        "modelled";
    const NcclTestsTable t = parse_nccl_tests(rr, "t.txt", "all_reduce", RankPlacement::record);
    CHECK(t.world_size() == 4);
    CHECK(t.nodes() == 2);
    CHECK(t.placement_problem == why);
    CHECK_THROWS_WITH_AS(t.require_modelled_placement(), why.c_str(), UsageError);
    CHECK(message(rr, "all_reduce") == why);  // the default refuses it, as before
    // Uneven (1 + 3): recorded too.
    CHECK(parse_nccl_tests(rank(0, "hA") + rank(1, "hB") + rank(2, "hB") + rank(3, "hB") + hdr + row, "t.txt",
                           "all_reduce", RankPlacement::record)
              .placement_problem ==
          "t.txt:2: hB has 3 ranks but hA has 1: microddp's model places the same count of ranks on every node: not "
          "modelled");
    // Contiguous: nothing to say, nothing thrown.
    const NcclTestsTable ok = parse_nccl_tests(rank(0, "hA") + rank(1, "hA") + rank(2, "hB") + rank(3, "hB") + hdr + row,
                                               "t.txt", "all_reduce", RankPlacement::record);
    CHECK(ok.placement_problem.empty());
    CHECK_NOTHROW(ok.require_modelled_placement());
    // No rank lines: all_gather's per-rank count of 8 ranks (1024 B = 32
    // floats x 8) reads as any multiple; with 4 ranks given it is refused,
    // with 8 it holds.
    const NcclTestsTable ag = parse_nccl_tests(
        "# all_gather_perf\n" + hdr +
            "        1024            32     float    none      -1    20.35    0.05    0.04      0    20.32    0.05    "
            "0.04      0\n",
        "ag.txt");
    CHECK_THROWS_WITH_AS(ag.check_counts(4, "--ranks"),
                         "ag.txt:3: count is 32 elements of float (4 B each) = 128 B, but size is 1024 B (expected "
                         "count = size / 4, or size / 4 / 4 ranks (--ranks) for all_gather, reduce_scatter and "
                         "alltoall)",
                         UsageError);
    CHECK_NOTHROW(ag.check_counts(8, "--ranks"));
    CHECK_NOTHROW(parse_nccl_tests(kHead + "        1024           256     float     sum      -1    20.35    0.05    0.09 "
                                           "     0    20.32    0.05    0.09      0\n",
                                   "t.txt", "all_reduce")
                      .check_counts(3, "--ranks"));  // the whole size: right at any ranks
  }

  TEST_CASE("the α-β fit gives back the published large-message busbw and the small-message floor") {
    const NcclTestsTable t = load_nccl_tests(data("h100-2x8-ib-allreduce.txt"));
    const PublishedFit f = fit_published({t});
    CHECK(f.ranks == 16);
    CHECK(f.nodes == 2);
    CHECK(f.alpha_messages == rel(30));  // ring all-reduce on 16 ranks: 2(n-1) messages in a row
    CHECK(f.alpha_rows == std::vector<int64_t>{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096});
    CHECK(f.beta_rows.size() == 6);  // 512 MiB .. 16 GiB
    CHECK_FALSE(f.beta_fallback);
    // The ring's busbw at large sizes is the link bandwidth: the fit lands
    // between the published 427 (512 MiB) and 469 GB/s (16 GiB) busbw.
    CHECK(f.bandwidth_Bps > 427e9);
    CHECK(f.bandwidth_Bps < 470e9);
    // The floor: about 25-34 µs over 30 messages.
    CHECK(f.alpha_s * 30 > 24e-6);
    CHECK(f.alpha_s * 30 < 35e-6);
    REQUIRE(f.residuals.size() == 1);
    CHECK(f.residuals[0].size() == 32);
    CHECK(median_abs_error_pct(f.residuals[0]) < 25);
    // A table without small rows cannot give α; two systems are not one fit.
    CHECK_THROWS_WITH_AS(fit_published({load_nccl_tests(data("h200-2x8-allreduce.txt"))}),
                         doctest::Contains("no row of at most 4096 B: α (the small-message floor) cannot be fitted"),
                         UsageError);
    CHECK_THROWS_WITH_AS(fit_published({t, load_nccl_tests(data("a100-2x8-allreduce.txt"))}),
                         doctest::Contains("are not one system: fit one system per profile"), UsageError);
  }
}
