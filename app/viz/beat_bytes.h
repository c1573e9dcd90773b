// The bytes each rank has moved so far, as a line under a lesson beat
// (lesson 03 beats 1-3 are about bytes per rank; --present has no stats
// panel beside the lesson): counted from the schedule's messages, the way
// the `bytes` check counts the run's trace (send = sent, recv and
// recv_reduce = received). No ImGui.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "app/viz/scene.h"
#include "core/ir/schedule.h"
#include "core/labs/lesson/lesson.h"

namespace microddp::viz {

struct RankBytes {
  std::vector<int64_t> sent, received;  // bytes per rank, steps 0..position-1
};
// Bytes of the first `position` steps (0 = none, num_steps = the whole run),
// elements times `elem_bytes`; ranks only (no switches).
RankBytes rank_bytes(const Schedule& s, int position, size_t elem_bytes);

// "Bytes per rank after 6 of 12 steps, sent + received: R0 0 + 336, R1 56 + 0, ...";
// ranks with the same figures as the one before are kept (every rank is named).
// Before the last step it ends with the whole run's busiest rank (the most
// sent + received, the lowest such rank on a tie), so that an answer about
// the whole run reads beside it (issue 37, lesson 03 beat 1: "Answer: 672"
// beside "R0 0 + 336"): "; whole run: R0 336 + 336 = 672".
std::string bytes_line(const Schedule& s, int position, size_t elem_bytes);
// "whole run: R0 336 + 336 = 672": rank `rank`'s bytes over every step.
std::string whole_run_line(const Schedule& s, int rank, size_t elem_bytes);
// `note` without its "; whole run: R0 a + b = c" part when a LATER beat's
// numeric question (lesson order: `later`, the beats after the shown one)
// is answered by a, b or c: lesson 02 beat 2's answer slide would otherwise
// show beat 4's answer (24 bytes sent per rank). Unchanged otherwise.
std::string without_later_answer(const std::string& note, const std::vector<const lesson::Beat*>& later);

// The Stats tab beside a lesson beat whose question is open
// (LessonView::checks_hidden): lesson 02 beat 4 asks "How many bytes does
// each rank send?" and the Ranks table would answer it one click away. Returns
// `st` with the bytes per rank, per pair of ranks, per link class and per
// port, S, algbw and busbw emptied (zero) and bytes_held set; the panel
// shows kStatsBytesWait instead (the Ranks and the Links & ports tabs).
// Times, steps and the prediction stay.
Stats hold_stats_bytes(Stats st);
inline constexpr std::string_view kStatsBytesWait = "bytes per rank shown once you answer";

}  // namespace microddp::viz
