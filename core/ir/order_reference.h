// The order-exact reference: every rank's bit-exact result under a
// schedule's own reduction order.
//
// A schedule fixes, for every output element, which contributions are
// combined in which order on which rank (core/ir/schedule.h). This evaluates
// that program sequentially (no threads, no transport) on the real input
// bytes, one element at a time in the dtype's own arithmetic
// (core/ir/order_arith.h, written apart from kernels/cpu), so two algorithms
// may give two different correct answers for the same float inputs, and a run
// is right exactly when its bits equal its own order's.
//
// Execution rules implemented (those of core/ir/schedule.h as the executors
// of core/exec apply them, rank_program.cpp):
//  - a rank's ops run in list order; a send carries the sender's elements as
//    they are when it is POSTED (a checked schedule leaves them unchanged
//    until the receiver consumed them);
//  - the k-th send a -> b of a step meets the k-th recv / recv_reduce on b
//    from a; a recv completes (lands, or reduces dst = dst OP incoming) at
//    the first later copy / reduce that reads or writes an element of any
//    still-pending recv, or at the end of the step, and pending recvs
//    always complete in the order posted (so two recv-reduces into the
//    same elements combine in list order);
//  - copy: dst = src; reduce: dst = dst OP src (src read before dst is
//    written); swap exchanges the storages behind two buffer names, and the
//    names stay swapped across steps;
//  - before the schedule, floating avg pre-scales every input element by
//    1/n; after it, integer avg divides every output element by n.
// Buffers follow rank_layout (core/ir/schedule.h); outputs are read from the
// output view the layout gives (as the executors read them).
//
// Shapes: inputs[r] holds spec.input_count(r) elements of spec.dtype
// (bytes); the outputs have spec.output_count(r) elements (empty where a rank
// has none, and for barrier). Cost: one scalar operation per element of every
// op, and 8 bytes per element of every buffer.
//
// Errors: std::invalid_argument when an input row has the wrong size;
// ScheduleError when the schedule deadlocks or sends and receives mismatch
// (never for a schedule check_schedule accepted).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/schedule.h"

namespace microddp {

// An operation whose rounded result left the path of exact arithmetic in a
// way no error bound covers: two finite operands giving an infinity
// (overflow), non-NaN operands giving a NaN (invalid), or two nonzero finite
// factors giving zero (underflow).
struct OrderEvent {
  enum class Kind : uint8_t { overflow, invalid, underflow };
  Kind kind = Kind::overflow;
  int step = 0;        // schedule step (0-based, as the printer numbers them)
  int rank = 0;        // the rank that computed it
  uint64_t a = 0, b = 0, result = 0;  // dst, src and result bits (order_arith.h)
};

struct OrderResult {
  RankData outputs;
  // Only when asked (track): per rank, per output element, the index into
  // `events` of the first such event in that element's history (-1: none).
  std::vector<std::vector<int32_t>> first_event;
  std::vector<OrderEvent> events;
};

// Evaluate s on inputs; track = true also records the events above (about
// 4 more bytes per element; used only to explain a disagreement).
OrderResult evaluate_order(const Schedule& s, const RankData& inputs, bool track = false);

// evaluate_order(s, inputs).outputs.
RankData order_exact_outputs(const Schedule& s, const RankData& inputs);

// "300 × 300 = 90000 overflows float16", "inf + -inf is nan",
// "1e-30 × 1e-30 = 1e-60 underflows float32 to 0": the exact value in double.
std::string describe(const OrderEvent& e, DType t, ReduceOp op);

}  // namespace microddp
