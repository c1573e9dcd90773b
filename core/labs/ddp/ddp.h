// Data-parallel training for real: a small MLP whose backward pass
// produces gradients layer by layer while their all-reduces run on a
// communication thread, as PyTorch DDP does with its gradient buckets; and
// an FSDP-style sharded mode that all-gathers each layer's parameters just
// before use (prefetching the next layer's) and reduce-scatters gradients.
//
// THE EXECUTION MODEL (threads backend; say it when you show it):
//  - n worker threads, one per rank. Each holds a full replica of the MLP
//    (Eigen, float32, CPU) and 1/n of the global batch; forward and backward
//    run layer by layer on that thread.
//  - Collectives go through a small "process group" shared by the workers:
//    every rank posts call number k (its k-th collective, a sequence number
//    as in NCCL/Gloo); when ALL n ranks have posted call k, ONE
//    communication thread runs it with run_threads() (core/exec/executor.h),
//    which itself runs the n ranks of the collective on n threads of its
//    own, the real schedule of the chosen algorithm, step by step. Calls run
//    one at a time in sequence order (one communication stream).
//  - So, while the communication thread all-reduces bucket k, the workers
//    keep computing earlier layers' gradients: the overlap is real, measured
//    with a steady clock. On a machine with few cores the worker threads and
//    the collective's threads compete for them; the overlap fraction then
//    says what this machine achieved, not what a GPU cluster would.
//  - Not modelled: PyTorch's smaller first bucket (1 MB), gradient
//    accumulation (no_sync), unused-parameter detection, bucket rebuilding
//    after the first iteration, the MPI and CUDA backends (the DDP loop runs
//    on threads only; `microddp ddp --backend` accepts "threads").
//
// Parameters are registered as PyTorch's nn.Linear does: layer l has a
// weight W_l (out x in, parameter 2l) and a bias b_l (out, parameter 2l+1).
// Backward produces them in reverse order (b_{L-1}, W_{L-1}, ..., b_0, W_0),
// which is why buckets are filled in reverse parameter order.
//
// Sources (core/labs/ddp/): buckets.cpp (assign_buckets), options.cpp,
// model.h/.cpp (the MLP, its data, the single-process reference),
// process_group.h (the group and its communication thread), train.h/.cpp
// (run_ddp, the iteration both loops share, the model clock), train_ddp.cpp
// and train_sharded.cpp (the two loops).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace microddp::ddp {

// ---- bucket assignment ----------------------------------------------------

// One gradient bucket: the parameters it holds (indices into the model's
// parameter list, in the order they are packed, i.e. reverse parameter
// order), the element offset of each inside the flat bucket, its size.
struct Bucket {
  std::vector<int> params;
  std::vector<int64_t> offsets;  // elements, same length as params
  int64_t elements = 0;
  int64_t bytes = 0;
};

// Buckets as PyTorch DDP builds them (torch/csrc/distributed/c10d/
// reducer.cpp, compute_bucket_assignment_by_size): walk the parameters in
// REVERSE order, append each to the open bucket, and close the bucket as
// soon as its size reaches the cap (so a bucket may exceed the cap by its
// last parameter; a parameter larger than the cap gets a bucket of its
// own). The last, partial bucket is closed too: no parameter is ever left
// out. cap_mb counts MB as PyTorch does: 1 MB = 2^20 bytes (bucket_cap_mb *
// 1024 * 1024). param_elements[p] = elements of parameter p; elem_bytes =
// bytes per element. Throws UsageError when cap_mb <= 0 or elem_bytes < 1.
std::vector<Bucket> assign_buckets(const std::vector<int64_t>& param_elements, int elem_bytes,
                                   double cap_mb);

// ---- options and results ----------------------------------------------------

enum class Overlap {
  none,       // one all-reduce of all gradients after backward (1 call)
  per_param,  // one all-reduce per gradient, launched as soon as it is ready
  bucketed    // one all-reduce per bucket, launched as soon as it is full
};
std::string_view name(Overlap o);
Overlap parse_overlap(std::string_view s);  // throws UsageError naming s

struct Options {
  int ranks = 4;               // world size n
  int depth = 4;               // linear layers
  int width = 256;             // every layer is width x width
  int64_t batch = 64;          // GLOBAL batch; each rank gets batch / n samples
  int iterations = 5;          // timed iterations (what the Result reports)
  // Untimed iterations before the timed ones: the first collectives pay
  // thread start-up, the schedules' construction and the first touch of
  // buffers (one run of lesson 07: 15 ms for the first all-reduce, about
  // 1 ms for the later ones), so the timed iterations are warm, as `run
  // --steps` keeps its cold first run apart. A warm-up iteration runs
  // forward, backward and every collective of a real iteration, without
  // the sleeps (layer_delay_us, link_us_per_mb: they warm nothing) and
  // without the SGD step, so the parameters and losses are those of a run
  // without it. 0 = none: the cold iteration is iteration 0.
  int warmup = 1;
  double lr = 0.05;            // plain SGD
  double bucket_cap_mb = 25;   // 1 MB = 2^20 bytes (PyTorch's convention)
  Overlap overlap = Overlap::bucketed;
  std::string algorithm = "ring";  // any all_reduce algorithm (algorithms_for)
  uint64_t seed = 1;
  bool sharded = false;        // FSDP-style mode (see run_ddp)
  bool prefetch = true;        // sharded: all-gather layer l+1 while computing l
  // Extra "compute" per layer and pass (µs, a sleep): stands in for a bigger
  // model so that the overlap is visible on a small machine.
  int layer_delay_us = 0;
  // Extra "link" time per collective (µs per MB of the rank's buffer, MB =
  // 2^20 bytes; a sleep on the communication thread after the collective
  // ran, inside its CommSpan): stands in for a slower network, so that a
  // collective's duration grows with its bytes by a known lower bound
  // instead of being all thread-scheduling noise on a small machine.
  double link_us_per_mb = 0;
  // Test hook: on this rank (-1 = none) gradients become ready in a
  // shuffled order (all of backward first, then marked ready in a seeded
  // random order), as with a different autograd order. Buckets are still
  // launched strictly in bucket order, so every rank issues the same calls.
  int shuffled_ready_rank = -1;
  bool check_reference = true; // run the single-process reference too
  // Throws UsageError naming the bad value: ranks < 1, depth < 1, width < 1,
  // batch < 1 or not divisible by ranks, iterations < 1, warmup outside
  // 0..10, lr or
  // bucket_cap_mb not a positive finite number (NaN included), layer_delay_us
  // outside 0..1e6, link_us_per_mb < 0 or over 1e6, unknown algorithm,
  // buffer_bytes() beyond the memory budget (core/ir/limits.h).
  void validate() const;
  // An upper estimate of the bytes the run allocates (all ranks and the
  // reference together).
  double buffer_bytes() const;
  bool operator==(const Options&) const = default;
};

// ---- how long a run takes at least -------------------------------------------

// A lower bound on run_ddp's wall time from its sleeps alone, for all
// timed iterations (seconds; the warm-up iterations sleep nothing). Compute: every rank sleeps layer_delay_us in each
// layer's forward and in its backward, 2 x depth sleeps per iteration, the
// ranks side by side. Link: the communication thread sleeps link_us_per_mb
// per MB (2^20 B) of each collective's per-rank input (rank 0's), one call
// after another: DDP all-reduces every gradient once (param_elements x 4 B
// per iteration, whatever the buckets); sharded all-gathers each layer's
// block twice (forward, backward) and reduce-scatters its full gradient
// once. The two overlap at best, so the run takes at least the larger;
// real compute, the collectives themselves and the single-process
// reference come on top.
struct SleepEstimate {
  double compute_s = 0;
  double link_s = 0;
  double link_mb_per_iteration = 0;  // MB (2^20 B) the link delay applies to
  double seconds() const { return compute_s > link_s ? compute_s : link_s; }
  // The larger part as the product it comes from, with the option names
  // `names` gives (lesson keys or CLI flags), e.g. "iterations 100 × 2
  // passes × depth 4 × layer_delay_us 100000 = 80 s".
  struct Names {
    const char* iterations = "iterations";
    const char* depth = "depth";
    const char* layer_delay_us = "layer_delay_us";
    const char* link_us_per_mb = "link_us_per_mb";
  };
  std::string str(const Options& o, const Names& names) const;
};
SleepEstimate min_sleep_time(const Options& o);
// Above this many seconds of sleeps a run is "long": a lesson refuses such
// a ddp beat (a lesson runs in seconds) and `microddp ddp` warns before it
// starts.
inline constexpr double kLongRunSeconds = 30;

// ---- the timeline (what the app's DDP panel draws) --------------------------
// All times are milliseconds since the iteration began (every worker
// released together from a start barrier), on one steady clock.

struct LayerSpan {
  int rank = 0;
  int layer = 0;
  bool backward = true;      // false: forward
  double begin_ms = 0, end_ms = 0;
};
// The moment bucket `bucket` became complete on `rank` (all its gradients
// ready), and the moment that rank posted it (bucketed: buckets are posted
// in order, so a bucket that fills early may wait for an earlier one).
struct BucketFill {
  int rank = 0;
  int bucket = 0;
  double ready_ms = 0, posted_ms = 0;
  // Backward layers the rank had finished when it posted the bucket (its
  // program state, not a clock reading; the model clock starts from it).
  int layers_done = 0;
};
// One collective on the communication thread.
struct CommSpan {
  int call = 0;              // sequence number within the iteration
  std::string collective;    // "all_reduce", "all_gather", "reduce_scatter"
  std::string what;          // "bucket 3", "layer 2 params (prefetch)", ...
  int bucket = -1;           // DDP: the bucket; -1 otherwise
  int layer = -1;            // sharded: the layer; -1 otherwise
  int64_t bytes = 0;         // per rank: bytes of the rank's input buffer
  double begin_ms = 0, end_ms = 0;
};
// Time a rank spent blocked waiting for a collective's result. DDP: a
// rank's first wait begins when it posted its last bucket; sharded: its
// first reduce-scatter wait, when it posted its last reduce-scatter (from
// then on it only waits, whether or not the OS is running its thread).
struct WaitSpan {
  int rank = 0;
  int call = 0;
  double begin_ms = 0, end_ms = 0;
};

struct IterationTimeline {
  std::vector<LayerSpan> layers;
  std::vector<BucketFill> fills;
  std::vector<CommSpan> comm;
  std::vector<WaitSpan> waits;
  // The last rank's end of backward's compute (its layer 0 backward ends;
  // DDP's last gradient copies and posts, the sharded run's reduce-scatter
  // of layer 0, come after).
  double backward_end_ms = 0;
  double end_ms = 0;           // the last rank's end of the iteration
};

struct IterationStats {
  double loss = 0;             // global mean-squared error before the step
  double reference_loss = 0;   // single-process run on the whole batch (NaN if not run)
  double compute_ms = 0;       // mean over ranks: iteration time minus waited_ms
  double comm_ms = 0;          // sum of the collectives' durations (one at a time)
  // Mean over ranks of the time a rank waited: DDP: its last result minus
  // its end of backward; sharded: its time blocked in waits. It includes
  // waiting for a slower rank to post a call and the hand-off to and from
  // the communication thread, so it can exceed comm_ms.
  double waited_ms = 0;
  // Mean over ranks of the part of that wait during which a collective ran
  // (communication not hidden behind compute): 0 <= exposed <= comm_ms.
  double exposed_comm_ms = 0;
  double overlap_fraction = 0; // 1 - exposed / comm (0..1); 0 when comm = 0
  int calls = 0;               // collectives issued (DDP: all-reduces)
  // The same iteration's schedule on the MODEL CLOCK (DDP only; NaN for
  // sharded runs): every layer's forward and backward take exactly
  // layer_delay_us, every all-reduce takes exactly link_us_per_mb per MB of
  // its bucket, one at a time in bucket order, each starting when the last
  // rank posted it, i.e. after the backward layers that rank had finished
  // (BucketFill::layers_done). Real compute and the per-call thread cost
  // are left out: they are what a loaded machine changes from run to run.
  // So these figures say what the run's schedule (its buckets and when they
  // were posted) does, identically on any machine; the measured figures
  // above say what this machine did.
  double model_comm_ms = 0, model_exposed_comm_ms = 0, model_overlap_fraction = 0;
};

struct Result {
  Options options;
  int params = 0;                      // parameter tensors (2 * depth)
  int64_t param_elements = 0;          // elements in all of them
  std::vector<Bucket> buckets;         // DDP: as used (none: one bucket of all)
  std::vector<IterationStats> iterations;   // the timed ones only (Options::iterations)
  std::vector<IterationTimeline> timelines;
  // The untimed warm-up before them (Options::warmup): the iterations run
  // and the collectives the communication thread ran in them (DDP: the
  // buckets' all-reduces, once per warm-up iteration).
  int warmup_iterations = 0;
  int warmup_calls = 0;
  // Every rank's parameters are the same bytes after the run (sharded: the
  // all-gathered full parameters every rank used last are the same bytes).
  bool replicas_identical = false;
  // Max over iterations of |loss - reference| / max(|reference|, 1e-12);
  // +inf when any loss or reference loss is not finite; NaN when the
  // reference was not run.
  double max_reference_rel_error = 0;
  // Launch order of the collectives of the LAST iteration (DDP: bucket
  // indices; sharded: the layer of each call), as the communication thread
  // ran them.
  std::vector<int> launch_order;
  std::vector<float> final_params;     // rank 0's parameters, flattened in parameter order
};

// The single-process reference: the same model, data and SGD on the whole
// batch in one process; losses per iteration (before each step).
std::vector<double> reference_losses(const Options& o);

// Runs the data-parallel training for real (see the model above).
// DDP: per iteration, forward; backward layer by layer, each gradient copied
// into its bucket as it is produced; a bucket is posted for all-reduce (op
// avg: every rank's gradient scaled by 1/n, then summed, as NCCL's avg) once
// it is full and every earlier bucket was posted; after backward the last
// partial bucket is posted, every rank waits for all its buckets, copies the
// averages back and takes the SGD step.
// Sharded (FSDP-style, "full shard"): rank r keeps block r (even_chunks) of
// each layer's flattened [W_l, b_l]; forward all-gathers layer l before
// using it (prefetch: the all-gather of l+1 is posted before computing l),
// drops it after; backward all-gathers again in reverse (prefetching l-1),
// computes layer l's gradients and posts their reduce-scatter (op avg) at
// once; after backward each rank waits and steps its own shard.
// Numerics: with "naive", "tree" or "recursive_doubling" each element is
// summed in the same order whatever the bucket layout, so all overlap modes
// end with the same bits; "ring" and "halving_doubling" sum an element in an
// order that depends on its position in the bucket, so different bucket
// layouts may differ in the last bits (ranks never do).
// Throws UsageError (Options::validate) and std::runtime_error when a
// collective does not complete within 60 s (a bug: it would otherwise hang).
Result run_ddp(const Options& o);

}  // namespace microddp::ddp
