// A note after a buffer row's name in the buffers panel: for the double
// buffer's storage that received in the shown step and whose name a swap in
// that step changed (lesson 02 beat 2: storage B received T2, then the swap
// named it send_buff), what it received: "(got T2)" when it holds one
// rank's input alone, else "(got R2's)". So the lit row reads "send_buff
// (got T2)" beside the beat's "receives ... into recv_buff ... it becomes
// send_buff". The buffers panel draws it in a lesson (the name column
// widens by the note, the cells give that room). "" for every other row,
// before step 0, or with no configured run. position: steps run (0 =
// before step 0), as build_buffers takes it; r: the endpoint.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/viz/session.h"

namespace microddp::viz {

std::string received_note(const Session& ses, int position, int r, Buf b);

// Whether the shown step (position - 1; position as above) moves elements
// [begin, begin + len) of endpoint r's buffer b: a send reads them, a recv
// or recv_reduce writes them, or a copy or reduce of the step writes them
// from elements it received (accum reduced from recv_buff). b is the name
// the step's ops use (before a swap at its end). false at position 0.
bool moved_in_step(const Session& ses, int position, int r, Buf b, int64_t begin, int64_t len);

// A lesson's chunk highlight (Highlights::chunks) in the buffers panel: a
// highlight of every chunk of the schedule, when the shown step moves any of
// them (a message of the chunk), lights only the cells it moves (lesson 02
// beat 6: each rank's chunk sent and chunk received in step 1, not every
// cell of chunks 0-2); otherwise (some of the chunks picked out, as lesson
// 04 beat 5's two larger ones; before step 0; a step that moves none of
// them) every cell of the chunks is.
// Returns whether the cell [begin, begin + len) of r's buffer b may be lit.
bool lit_where_moved(const Session& ses, int position, const std::vector<int>& chunks, int r, Buf b, int64_t begin,
                     int64_t len);

// The line above the buffers of an avg (what the buffers hold against the
// run's outputs): an integer avg's buffers hold sums and each output is
// divided after the last step (rank_program.h needs_finish_avg), so at the
// end "int32 avg: the outputs hold the sums; ÷ 2 next, after the last step
// (toward zero): R0 [5, 9] → [2, 4]" (the last snapshot's output of the
// first rank with one, then the run's output), before it "int32 avg: the
// buffers hold sums; each output is divided by 2 after the last step"; a
// floating avg scales the inputs before step 0 (needs_premul): "float32
// avg: each input × 1/2 before step 0 (R0 [1, 2] → [0.5, 1]), so the sums
// are the averages". "" for other ops.
std::string avg_note(const Session& ses, int position);

}  // namespace microddp::viz
