// Internal helpers shared by the generator files (not a public header).
#pragma once
#include "core/algorithms/registry.h"

namespace microddp::detail {

// copy unless same_elements.
void copy_unless_same(ScheduleBuilder& b, int r, BufRange src, BufRange dst, int64_t len, int chunk = -1);

// A step with no communication, for world size 1 (local copies only).
void local_step(ScheduleBuilder& b, const std::string& phase);

inline int mod(int a, int n) { return ((a % n) + n) % n; }

// Tree-based phases (algo_tree.cpp), reused by the compositions.
// reduce `count` elements of every rank's input[in_off..] up the tree; the
// root's result lands in root_dst (its offset 0 = element 0).
void tree_reduce_phase(ScheduleBuilder& b, const Tree& T, const std::string& phase, int64_t count,
                       BufRange root_dst);
// broadcast root's src range (count elements) to every other rank's dst.
void tree_broadcast_phase(ScheduleBuilder& b, const Tree& T, const std::string& phase, int64_t count,
                          BufRange root_src, Buf dst);

}  // namespace microddp::detail
