// Internal helpers shared by the generator files (not a public header).
#pragma once
#include "core/algorithms/registry.h"

namespace microddp::detail {

// copy unless same_elements.
void copy_unless_same(ScheduleBuilder& b, int r, BufRange src, BufRange dst, int64_t len, int chunk = -1);

// A step with no communication, for world size 1 (local copies only).
void local_step(ScheduleBuilder& b, const std::string& phase);

inline int mod(int a, int n) { return ((a % n) + n) % n; }

// The records of each family file, in teaching order (registry.cpp calls
// them once, in the order that fixes algorithms_for).
std::vector<AlgorithmInfo> tree_algorithms();            // tree.cpp
std::vector<AlgorithmInfo> ring_algorithms();            // ring.cpp
std::vector<AlgorithmInfo> ring_unchunked_algorithms();  // ring_unchunked.cpp
std::vector<AlgorithmInfo> recursive_algorithms();       // recursive.cpp
std::vector<AlgorithmInfo> pairwise_algorithms();        // pairwise.cpp
std::vector<AlgorithmInfo> hierarchical_algorithms();    // hierarchical.cpp
std::vector<AlgorithmInfo> double_tree_algorithms();     // double_tree.cpp
std::vector<AlgorithmInfo> direct_algorithms();          // direct.cpp
std::vector<AlgorithmInfo> nvls_algorithms();            // nvls.cpp

// A vector cut into chunks: chunk c is [off[c], off[c+1]) (elements).
struct Chunks {
  std::vector<int64_t> off;
  int64_t len(int c) const { return off[c + 1] - off[c]; }
};
// Chunk r = rank r's block (displ(r), block(r)): the reduce_scatter and
// all_gather layout.
Chunks rank_block_chunks(const CollectiveSpec& s);

// Ring segments > 1 (ring_pipelined.cpp), for ring.cpp's generators.
Schedule ring_pipelined(const CollectiveSpec& s);

// Tree-based phases (tree.cpp), reused by the compositions.
// reduce `count` elements of every rank's input[in_off..] up the tree; the
// root's result lands in root_dst (its offset 0 = element 0).
void tree_reduce_phase(ScheduleBuilder& b, const Tree& T, const std::string& phase, int64_t count,
                       BufRange root_dst);
// broadcast root's src range (count elements) to every other rank's dst.
void tree_broadcast_phase(ScheduleBuilder& b, const Tree& T, const std::string& phase, int64_t count,
                          BufRange root_src, Buf dst);

}  // namespace microddp::detail
