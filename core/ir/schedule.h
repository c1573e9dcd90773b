// The schedule IR: a collective as a short program over chunks (in the
// spirit of MSCCL's IR). A Schedule is a list of numbered steps grouped into
// named phases; each step holds, per rank, an ordered list of chunk-level
// ops on named buffers. Offsets and lengths are in ELEMENTS.
//
// Execution semantics of one rank's ops in one step (shared by every
// backend and by the symbolic checker, core/checker.h):
//  - send, recv, recv_reduce are POSTED (non-blocking, like MPI_Isend /
//    MPI_Irecv) in list order.
//  - copy and reduce run when reached, after waiting for the posted recvs
//    that write any element they read or write, and for the posted sends
//    that read any element they write (a send's buffer is not reused before
//    the send completes: MPI's rule).
//  - swap exchanges which storage two buffer names refer to (double
//    buffering). Ops already posted keep the storage they were posted on.
//  - At the end of the step every posted op completes. In lockstep mode all
//    ranks then meet at a barrier.
//  - The k-th send from rank a to rank b in a step matches the k-th recv
//    (or recv_reduce) on b from a in that step; their lengths are equal.
//  - recv_reduce: dst = dst OP incoming, done by the receiver as the data
//    arrives; reduce: dst = dst OP src; copy: dst = src.
#pragma once
#include <array>
#include <cstddef>
#include <stdexcept>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/spec.h"

namespace microddp {

enum class Buf : uint8_t { input, output, send_buff, recv_buff, accum, scratch };
constexpr int kNumBufs = 6;
std::string_view name(Buf b);

enum class OpKind : uint8_t { send, recv, recv_reduce, copy, reduce, swap };
std::string_view name(OpKind k);
inline bool is_comm(OpKind k) { return k == OpKind::send || k == OpKind::recv || k == OpKind::recv_reduce; }

struct BufRange {
  Buf buf = Buf::input;
  int64_t offset = 0;  // elements
};

struct Op {
  OpKind kind = OpKind::copy;
  int peer = -1;   // send: destination endpoint; recv / recv_reduce: source endpoint (a rank or a switch)
  BufRange src;    // send, copy, reduce: data read; swap: first buffer
  BufRange dst;    // recv, recv_reduce, copy, reduce: data written; swap: second buffer
  int64_t len = 0; // elements (0 for swap; 0 is legal for messages)
  int chunk = -1;  // logical chunk (or block) index, for display; -1 = none
  int segment = -1;
  int channel = -1;  // the channel (CollectiveSpec::channels) this op belongs to, for display; -1 = none
};

struct Step {
  int phase = 0;                       // index into Schedule::phases
  std::vector<std::vector<Op>> ranks;  // ranks[e] = endpoint e's ops, in order (ranks, then switches)
};

struct Phase {
  std::string name;  // "scatter-reduce", "all-gather", "reduce", "broadcast", ...
};

// How big each named buffer is on one rank, and which storage it starts in.
// Two names share a storage only for in-place input/output.
struct BufferPlan {
  std::array<int64_t, kNumBufs> size{};  // elements of each named buffer
};

// Raw per-rank data: bytes of `dtype` elements. inputs[r] has
// spec.input_count(r) elements; outputs[r] has spec.output_count(r)
// elements (empty for ranks without an output).
using RankData = std::vector<std::vector<std::byte>>;

// A schedule that breaks the IR's rules: an unmatched send/recv, a
// deadlock, an out-of-range op or a wrong result (core/ir/checker.h); also
// thrown by the executors when they meet such a schedule.
struct ScheduleError : std::logic_error {
  using std::logic_error::logic_error;
};

// Endpoints. A schedule's ops run on ENDPOINTS: the world_size ranks
// 0..n-1, then `switches` switch endpoints n..n+switches-1 (in-network
// reduction: NVLS on NVSwitch, SHARP, CollNet; core/algorithms/nvls.cpp).
// A switch owns only work buffers (no input, no output: rank_layout gives it
// none), takes part in messages like a rank, and may reduce what it
// received; it is one more thread of the threads backend (the MPI and CUDA
// backends refuse a schedule with switches). Step::ranks, Schedule::buffers
// and the trace's per-rank arrays hold num_endpoints() entries; everything
// about inputs and outputs (spec.input_count, RankData) stays per rank.
struct Schedule {
  CollectiveSpec spec;
  std::vector<Phase> phases;
  std::vector<Step> steps;
  std::vector<BufferPlan> buffers;  // per endpoint; sizes of the work buffers
  int switches = 0;                 // switch endpoints after the ranks (0: ranks only)
  // Chunk boundaries the algorithm uses (for display): chunk i is
  // [chunk_offsets[i], chunk_offsets[i+1]) of a count-long vector.
  std::vector<int64_t> chunk_offsets;

  int num_steps() const { return static_cast<int>(steps.size()); }
  int world_size() const { return spec.world_size; }
  int num_endpoints() const { return spec.world_size + switches; }
  bool is_switch(int e) const { return e >= spec.world_size; }
};

// "R3" for a rank, "SW" for the one switch ("SW0", "SW1", ... when there are
// several): how the printer, the trace export and the views name endpoint e.
std::string endpoint_name(const Schedule& s, int e);
// "rank 3" or "the switch" ("switch 1" among several): for error messages.
std::string endpoint_words(const Schedule& s, int e);

// Storage layout of one endpoint, shared by the executors and the checker
// (a switch endpoint: input and output of size 0, then its work buffers).
// Storage 0 holds input (and output when in-place), 1 output (when not in
// place), 2.. the work buffers in Buf order. view[b] = {storage, offset}.
struct RankLayout {
  struct View { int storage = -1; int64_t offset = 0; int64_t size = 0; };
  std::array<View, kNumBufs> view{};
  std::vector<int64_t> storage_size;  // elements
};
RankLayout rank_layout(const Schedule& s, int rank);

// Helper used by the generators.
class ScheduleBuilder {
 public:
  // switches > 0 adds that many switch endpoints after the ranks (see
  // Schedule): ops, need() and steps take endpoint numbers n..n+switches-1.
  explicit ScheduleBuilder(const CollectiveSpec& spec, int switches = 0);
  // Starts a new step in the named phase (a new phase if the name differs
  // from the current one). Returns the step index.
  int step(const std::string& phase);
  // Add the following ops to an existing step (generators that fill steps
  // out of order, such as the trees, create a phase's steps first).
  void at(int step) { cursor_ = step; }
  int num_steps() const { return static_cast<int>(s_.steps.size()); }
  const CollectiveSpec& spec() const { return s_.spec; }
  void send(int r, int to, BufRange src, int64_t len, int chunk = -1, int segment = -1);
  void recv(int r, int from, BufRange dst, int64_t len, int chunk = -1, int segment = -1);
  void recv_reduce(int r, int from, BufRange dst, int64_t len, int chunk = -1, int segment = -1);
  // One message written once: the send on rank `from` and its matching recv
  // on rank `to` (a recv_reduce with Arrival::reduce), appended to the two
  // ranks' op lists now. Right where the receiver has nothing to do before
  // the recv in this step (trees, folds); a ring, whose every rank sends
  // before it receives, writes the two halves with send and recv.
  enum class Arrival { store, reduce };
  void transfer(int from, int to, BufRange src, BufRange dst, int64_t len, int chunk = -1,
                Arrival how = Arrival::store);
  void copy(int r, BufRange src, BufRange dst, int64_t len, int chunk = -1);
  void reduce(int r, BufRange src, BufRange dst, int64_t len, int chunk = -1, int segment = -1);
  void swap(int r, Buf a, Buf b);
  // A copy that must precede everything rank r does (filling the work
  // buffer from the input): finish() puts it at the front of step 0,
  // opening a "copy" step when the schedule has none. Left out when src and
  // dst are the same elements (in-place calls).
  void copy_first(int r, BufRange src, BufRange dst, int64_t len, int chunk = -1);
  // Grow a work buffer of rank r (or of all ranks when r < 0) to at least n.
  void need(int r, Buf b, int64_t n);
  void set_chunks(std::vector<int64_t> offsets) { s_.chunk_offsets = std::move(offsets); }
  Schedule finish();

 private:
  void add(int r, Op op);
  Schedule s_;
  int cursor_ = -1;
  std::vector<std::vector<Op>> first_;
};

// True when a and b name the same elements of rank r's storage (only
// possible for input/output of an in-place call).
bool same_elements(const CollectiveSpec& s, int r, BufRange a, BufRange b);

// Even split of `count` elements into `parts` chunks: sizes differ by at most
// one, the larger ones first; returns parts+1 offsets.
std::vector<int64_t> even_chunks(int64_t count, int parts);

}  // namespace microddp
