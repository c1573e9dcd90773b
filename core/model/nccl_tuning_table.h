// Every constant of the NCCL-shaped tuner (core/model/nccl_tuner.h) in one
// table, as NCCL keeps its own tuning in one place (src/graph/tuning.cc).
// Each entry has its value, its unit and its source: the NCCL file, the
// function or array it sits in, and the release tag it was read at.
//
// Version read: NCCL v2.30.7-1 (github.com/NVIDIA/nccl, makefiles/version.mk
// 2.30.7). Older releases differ: v2.21.5-1's tuning.cc had Tree/Simple
// hardware latencies of 28 µs (4.0 in 2.30), a Tree/Simple base latency of
// 0 (8.4), NVLSTree over the network 14 µs (20.9) and Ring/LL128 at 0.7 of
// the bus bandwidth with one rank per node (0.92). Only the 2.30 family is
// tabled here; `kNcclVersion` names it, and a second family would be a
// second table of the same shape.
//
// Units: µs for latencies, GB/s (1e9 B/s, NCCL's unit: it divides bytes by
// 1000·bw to get µs) for bandwidths, plain numbers for factors, bytes per
// thread for thread thresholds.
#pragma once
#include <span>
#include <string_view>

namespace microddp::nccl {

inline constexpr std::string_view kNcclVersion = "2.30.7";

// NCCL's algorithms the tuner models (NCCL's order: TREE, RING, ..., NVLS,
// NVLS_TREE). CollNet (needs a SHARP-capable network plugin) and PAT (one GPU
// per node only) are not modelled.
enum class Algo { tree, ring, nvls, nvls_tree };
inline constexpr int kNumAlgos = 4;
// NCCL's protocols in NCCL's order (NCCL_PROTO_LL, _LL128, _SIMPLE).
enum class Proto { ll, ll128, simple };
inline constexpr int kNumProtos = 3;
// NCCL's hardware classes for latency (NCCL_HW_NVLINK, _PCI, _NET).
enum class Hw { nvlink, pci, net };
// NCCL's compute-capability classes (NCCL_VOLTA/AMPERE/HOPPER/BLACKWELL_COMPCAP_IDX).
enum class Arch { volta, ampere, hopper, blackwell };

struct Constant {
  std::string_view name;    // e.g. "hwLat[NVLINK][RING][LL128]"
  double value;
  std::string_view unit;    // "us", "GB/s", "factor", "B/thread", "threads", "channels"
  std::string_view source;  // "src/graph/tuning.cc ncclTunerConstantsDefaults.hwLatencies, NCCL v2.30.7-1"
};

// The whole table, in the order below (for tests and `predict --nccl-system
// ... --constants`-style listings).
std::span<const Constant> tuning_table();

// Typed look-ups into the same table (no other copy of a value exists).
const Constant& base_latency(Algo a, Proto p);         // µs, baseLatencies
const Constant& hw_latency(Hw h, Algo a, Proto p);     // µs, hwLatencies
// index2 is NCCL's node-count column: 0 = 1 node, 1 = 2 nodes, 2 = more.
// llMaxBws' first index is the compute class on one node and the CPU vendor
// on several (0 = Intel, 1 = AMD), as tuning.cc reads it.
const Constant& ll_max_bw(int index1, int index2);                // GB/s
const Constant& per_channel_max_ring_ll128_bw(Arch a, int index2);  // GB/s
const Constant& per_channel_max_tree_ll128_bw(Arch a, int index2);  // GB/s
const Constant& per_channel_max_tree_bw(Arch a, int index2);        // GB/s
const Constant& per_channel_max_nvls_tree_bw(Arch a, int index2);   // GB/s
const Constant& nvls_efficiency(Arch a);                            // factor
// treeCorrectionFactor[proto][log2(bytes/64)], 24 buckets (64 B .. 512 MiB).
const Constant& tree_correction(Proto p, int log_size);
inline constexpr int kTreeCorrectionBuckets = 24;
// The topology search's per-channel speeds (GB/s), tried from the first:
// intra = one node, inter = several (search.cc speedArrayIntra/Inter, sm90*,
// sm100*; Volta and Ampere share the first pair).
std::span<const Constant> speed_array(Arch a, bool inter);

// Named scalars (factors, thread counts, thresholds): look one up by name;
// an unknown name is a programming error (std::out_of_range).
const Constant& scalar(std::string_view name);

// The system constants NCCL's tuner does not have (SystemDesc::launch_us
// and bw_scale), fitted by microddp to one published nccl-tests table each
// (core/model/nccl_system_fit.h fit_system on the named base system; the
// tests fit them again from the shipped tables and compare). Not NCCL's,
// so not in tuning_table(). Names: "launchUs[SYSTEM]" (µs per call),
// "bwScale[SYSTEM]" (factor); each source names the table's file under
// tests/data/nccl-tests/, its page, the GPU, the NCCL version as the table
// states it, and the base system fitted from.
std::span<const Constant> fitted_table();
const Constant& fitted(std::string_view name);  // std::out_of_range for an unknown name

}  // namespace microddp::nccl
