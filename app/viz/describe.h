// What the window's picture shows, as text (microddp-viz --describe FILE):
// one "key: value" line per fact that a slide must get right, so that tests
// compare two pictures exactly and cheaply (an exported slide against
// --screenshot at the same beat) and check that a picture holds no figure
// an open question asks for. Call it after a frame was drawn (the DDP
// view's header is the one drawn). No timings (they differ run to run).
//
// Lines, in order (those that do not apply are left out):
//   view: steps | compare | ddp | topology
//   beat: K of N                       (with a lesson; 1-based)
//   question: none | open | answered
//   lit ranks: 0 2 | none              (the ranks outlined now)
//   note: ...                          (the lesson's note under the text)
//   run: COLLECTIVE ALGORITHM, R ranks, C elements per rank, N nodes
//   buffers: after K of N steps        (what the buffers panel shows)
//   prediction: SOURCE                 (what the model prices with: prediction_source_text)
//   compare: A B C, after K of N steps; sweep P points (running | done)
//   crossover: hidden | none | not drawn (the beat is about something else) | TEXT
//   ddp: HEADER | running run_ddp for real… | no result yet
//   ddp run: sharded S prefetch P overlap O bucket_cap_mb B iterations I
//   hang: HEADER; BARRIER, hang RK: reached #K OP COUNT STATE; barrier STATE [(outlined)], hang verdict: TEXT
//                                      (a hang beat: hang_view.h describe_hang)
//   checks: none | hidden | running | shown | could not run: WHY
#pragma once
#include <string>

#include "app/viz/view_state.h"

namespace microddp::viz {

std::string describe_picture(App& app);
// A prediction source as one line: "preset infiniband", "profile (preset
// nvlink while there is none)", "topology dgx-h100, 8 NICs/node" or
// "topology intra nvlink, inter infiniband, 1 NIC/node".
std::string prediction_source_text(const PredictionSource& s);

}  // namespace microddp::viz
