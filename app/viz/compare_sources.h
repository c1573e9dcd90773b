// Where the compare view's size sweep comes from (the "source" picker,
// --compare-source): each source fills Compare::sweep with curves (dots =
// what was measured or published, lines = a model) and says on screen what
// it is. No ImGui.
//   shm        measured here: `microddp bench` on the threads backend, all
//              ranks in this machine's shared memory (no network);
//   lab        measured now in the cluster lab: `microddp cluster --nodes N
//              --nic RATE -- bench --backend mpi ... --json`, one rank per
//              emulated host (N = the world size), each NIC shaped to RATE
//              (needs root or user namespaces, and mpirun);
//   recorded   a lab run kept as a file (core/model/lab_record.h), labelled
//              "recorded" with its machine and date: for machines without
//              namespaces (default: lessons/data/lab-allreduce-8x1-1gbit.json);
//   model      NCCL's own cost model of a named system (core/model/nccl_tuner.h,
//              `microddp predict --nccl-system NAME`): one line per NCCL
//              algorithm, the best protocol at each size;
//   published  the out-of-place rows of an nccl-tests output (--against FILE,
//              core/model/nccl_tests.h) as dots, the tuner's choice on the
//              named system that matches it as the line.
#pragma once
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/viz/lab_job.h"
#include "core/ir/types.h"
#include "core/model/lab_record.h"
#include "core/model/nccl_tests.h"

namespace microddp::viz {

// One series of the sweep plot: dots (measured or published) and a line
// (predicted), at the same sizes.
struct SweepCurve {
  std::string algorithm;
  std::vector<double> bytes;         // message size S (nccl-tests' size), bytes
  std::vector<double> measured_us;   // bench's time: the median timed iteration, microseconds
  // The spread of each point's timed iterations as bench reports it
  // (BenchRow: quantiles by linear interpolation, microseconds), drawn as
  // p10-p90 error bars; samples = the number of timed iterations.
  std::vector<int> samples;
  std::vector<double> min_us, p10_us, p90_us, max_us;
  std::vector<double> predicted_us;  // empty when there is no line
  // (model sources: measured_us empty and predicted_us full: a line without dots)
  std::vector<int64_t> counts;       // elements per rank of each point (re-pricing)
};

enum class SweepSource { shm, lab, recorded, model, published };
inline constexpr SweepSource kSweepSources[] = {SweepSource::shm, SweepSource::lab, SweepSource::recorded,
                                                SweepSource::model, SweepSource::published};
std::string_view name(SweepSource s);  // "shm", "lab", "recorded", "model", "published"
// The picker's words: "measured: shared memory (this machine)", ...
std::string_view picker_label(SweepSource s);
// Throws UsageError "--compare-source 'X' (expected shm, lab, recorded, model or published)".
SweepSource parse_sweep_source(const std::string& text);

struct SourceSpec {
  SweepSource kind = SweepSource::shm;
  std::string file;    // recorded: the run's JSON; published: the nccl-tests output ("" = the default)
  std::string system;  // model / published: a --nccl-system name ("" = dgx-h100 / from the table's GPU)
  std::string nic = "1gbit";  // lab: each NIC's rate (tc syntax)
  int iters = 5;              // lab: timed iterations per point (bench -n; a lab beat's `iters`)
  int ranks = 0;              // model: the ranks priced (0 = the compare view's world size)
  bool protocols = false;     // model: the ring at each protocol ("ring LL", "ring LL128", "ring SIMPLE")
  bool operator==(const SourceSpec&) const = default;
};

// The shipped files: the bundled recorded lab run and the published tables'
// folder (beside the lessons: lessons_dir()/data, lessons_dir()/../tests/data/nccl-tests).
std::string default_recorded_file();
std::string published_dir();
std::vector<std::string> published_files();  // *.txt in published_dir(), sorted
std::string default_published_file();        // h100-2x8-ib-allreduce.txt there

// A source's curves and its words.
struct SourceSweep {
  std::vector<SweepCurve> curves;
  std::string label;   // the on-screen label: "recorded in the cluster lab: 8 nodes x 1 rank, ..."
  std::string dots, lines;  // what the dots and the lines are ("" = none drawn)
  std::string word;    // the crossover's word: "measured", "recorded", "model", "published"
  std::string tag;     // the label in a few words, for a short plot: "RECORDED lab run, 2026-12-07"
  std::string note;    // what the source left out, a line under the label ("" = nothing)
};

// `algorithms` (empty = all of the record's), their rows in size order.
// Throws UsageError when the record has none of them.
SourceSweep recorded_sweep(const LabRecord& r, const std::vector<std::string>& algorithms);
// The live lab's rows (parse_bench_json_lines of its output) as curves.
SourceSweep lab_sweep(const std::vector<LabRecordRow>& rows, int nodes, const std::string& nic);
// NCCL's algorithms on `system` with `ranks` ranks (nccl::with_ranks), at
// min_bytes, 4·min_bytes, ... max_bytes: predicted lines only, one per
// algorithm NCCL enables (ring, tree, nvls, nvls_tree), each at its best
// protocol. Throws UsageError for an unknown system or a rank count it cannot take.
// protocols: the ring's protocols as the lines instead ("ring LL", ...).
SourceSweep model_sweep(const std::string& system, Collective c, int ranks, int64_t min_bytes, int64_t max_bytes,
                        bool protocols = false);
// The table's usable out-of-place rows (NcclTestsRow::out_of_place_usable:
// not flagged wrong, as `microddp predict --against`) as one curve
// "published" (dots), with the tuner's choice on `system` at each row as its
// line ("" = system_for_table; no line when none fits). note: "left out N
// rows nccl-tests flags wrong (out-of-place #wrong above 0): 64 B, ..." when
// any. Throws UsageError naming the file when no row is left.
SourceSweep published_sweep(const NcclTestsTable& t, const std::string& system);
// The named system of the table's GPU and nodes (dgx-a100, dgx-h100,
// hgx-h200, with -2node on two nodes), or "" when none fits.
std::string system_for_table(const NcclTestsTable& t);

// The live lab: `microddp cluster` run in the background (the window keeps
// drawing). The command it runs, as argv (the microddp binary beside this one):
// sizes min_bytes, 4·min_bytes, ... max_bytes, `iters` timed iterations
// after one warm-up.
std::vector<std::string> lab_command(Collective c, int nodes, const std::string& nic,
                                     const std::vector<std::string>& algorithms, int64_t min_bytes,
                                     int64_t max_bytes, int iters = 5);

}  // namespace microddp::viz
