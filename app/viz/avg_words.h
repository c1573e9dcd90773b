// The integer average's pending division in words, one wording for the
// buffers' avg line (buffer_notes.h avg_note), the Stats tab and the
// topology's chunk badges on the last step (issue 37: the badges and the
// Stats tab said nothing of it, so the sums read as the result).
//
// An integer avg (rank_program.h needs_finish_avg: int32, int64) reduces
// sums over every step and divides each output by the world size after
// the last step, toward zero; a floating avg scales its inputs before
// step 0, so its sums already are the averages (no words here).
#pragma once
#include <string>

#include "app/viz/session.h"

namespace microddp::viz {

// position: the steps shown (0 = before step 0; num_steps = after the
// last). "sum, ÷ 3 next" (3: the world size) when `position` shows the
// last step of an integer avg: what its complete chunks and outputs hold;
// "" otherwise (other ops, a floating avg, an earlier step, no session).
std::string avg_pending_words(const Session& ses, int position);

// The Stats tab's avg line (scene_stats.cpp), for an integer avg only:
// on the last step "int32 avg: the outputs hold the sum, ÷ 3 next (after
// the last step, toward zero)"; before it "int32 avg: the buffers hold
// sums; each output ÷ 3 after the last step (toward zero)". "" otherwise.
// position: as above; -1: the session's position.
std::string avg_stats_line(const Session& ses, int position = -1);

}  // namespace microddp::viz
