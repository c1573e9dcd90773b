// The named systems of the NCCL-shaped tuner (nccl_tuner.h): what hardware
// each describes and where that comes from. Only what NCCL's tuner reads
// is set: GPU class, NVLinks per GPU, NVSwitch with NVLS or not, PCIe,
// NICs and their speed, CPU vendor. The efficiency factors stay NCCL's
// defaults (Efficiency{}). The systems named after a published table
// (oci-a100-g8, oci-a100-roce-2node, a3mega-h100-2node) are a base
// system's hardware plus the two constants fitted to that table
// (SystemDesc::launch_us, bw_scale; values and sources in
// nccl_tuning_table.h fitted_table()): their table measured what NCCL's
// model leaves out (one process driving 8 GPUs, RoCE, a network not stated).
#include <fmt/format.h>

#include <algorithm>

#include "core/model/nccl_tuner.h"

namespace microddp::nccl {
namespace {

SystemDesc dgx_a100() {
  SystemDesc s;
  s.name = "dgx-a100";
  s.hardware = "8x A100-SXM4 (Ampere), NVLink 3 (12 links per GPU) into 6 NVSwitches (no in-switch reduction), "
               "8x ConnectX-6 HDR 200 Gb/s compute NICs, 2x AMD EPYC 7742";
  s.source = "NVIDIA DGX A100 Datasheet; NVIDIA DGX A100 System Architecture (technical white paper)";
  s.gpus_per_node = 8;
  s.nics_per_node = 8;
  s.arch = Arch::ampere;
  s.intra = IntraLink::nvlink;
  s.nvlink_links = 12;
  s.nvls = false;
  s.nic_bw = 25;  // 200 Gb/s
  s.cpu = CpuVendor::amd;
  return s;
}

SystemDesc dgx_h100() {
  SystemDesc s;
  s.name = "dgx-h100";
  s.hardware = "8x H100-SXM5 (Hopper), NVLink 4 (18 links per GPU) into 4 third-generation NVSwitches with NVLink "
               "SHARP (NVLS), 8x ConnectX-7 NDR 400 Gb/s compute NICs, 2x Intel Xeon Platinum 8480C";
  s.source = "NVIDIA DGX H100 Datasheet; NVIDIA DGX H100 User Guide (hardware overview)";
  s.gpus_per_node = 8;
  s.nics_per_node = 8;
  s.arch = Arch::hopper;
  s.intra = IntraLink::nvlink;
  s.nvlink_links = 18;
  s.nvls = true;
  s.nic_bw = 50;  // 400 Gb/s
  s.cpu = CpuVendor::intel;
  return s;
}

SystemDesc hgx_h200() {
  SystemDesc s = dgx_h100();
  s.name = "hgx-h200";
  s.hardware = "8x H200-SXM (Hopper, 141 GB HBM3e), NVLink 4 (18 links per GPU, 900 GB/s) into NVSwitches with "
               "NVLink SHARP (NVLS), 8x 400 Gb/s NDR NICs (ConnectX-7), Intel Xeon host";
  s.source = "NVIDIA H200 Tensor Core GPU Datasheet; NVIDIA HGX AI Supercomputer platform page (HGX H200 8-GPU)";
  return s;
}

SystemDesc pcie_a100() {
  SystemDesc s;
  s.name = "pcie-a100";
  s.hardware = "8x A100 80GB PCIe (Ampere), no NVLink bridges, every GPU on a PCIe Gen4 x16 link behind PCIe "
               "switches (peer-to-peer through the switch), 1x 200 Gb/s NIC, Intel Xeon host";
  s.source = "NVIDIA A100 Tensor Core GPU Datasheet (A100 80GB PCIe column)";
  s.gpus_per_node = 8;
  s.nics_per_node = 1;
  s.arch = Arch::ampere;
  s.intra = IntraLink::pcie;
  s.nvlink_links = 0;
  s.pcie_bw = scalar("pciGen4x16Bw").value;
  s.nvls = false;
  s.nic_bw = 25;
  s.cpu = CpuVendor::intel;
  return s;
}

// A base system with the two constants fitted to one published table.
SystemDesc fitted_system(SystemDesc s, const std::string& name, int nodes, const std::string& what) {
  s.hardware = what + "; priced as " + s.name + "'s hardware: " + s.hardware;
  s.name = name;
  s.nodes = nodes;
  s.launch_us = fitted("launchUs[" + name + "]").value;
  s.bw_scale = fitted("bwScale[" + name + "]").value;
  const std::string_view src = fitted("launchUs[" + name + "]").source;
  s.fitted_to = std::string(src.substr(std::string_view("fitted to ").size(), src.find(' ', 10) - 10));
  s.source += "; launch and bus-bandwidth scale " + std::string(src);
  return s;
}

SystemDesc two_nodes(SystemDesc s) {
  s.name += "-2node";
  s.hardware = "2 nodes of " + s.hardware + ", one rail-optimised InfiniBand fabric (NIC k of every node on one leaf)";
  s.nodes = 2;
  return s;
}

}  // namespace

const std::vector<SystemDesc>& system_presets() {
  static const std::vector<SystemDesc> v = {
      dgx_a100(), two_nodes(dgx_a100()), dgx_h100(), two_nodes(dgx_h100()), hgx_h200(), two_nodes(hgx_h200()),
      pcie_a100(),
      fitted_system(dgx_a100(), "oci-a100-g8", 1,
                    "OCI BM.GPU4.8 (8x A100-SXM4-40GB, NVSwitch) measured by one process driving all 8 GPUs "
                    "(all_reduce_perf -g 8)"),
      fitted_system(dgx_a100(), "oci-a100-roce-2node", 2,
                    "2 OCI BM.GPU4.8 over the OCI cluster network, RDMA over RoCE v2 with 16 RDMA ports per node "
                    "(port speed not stated), one process per GPU"),
      fitted_system(dgx_h100(), "a3mega-h100-2node", 2,
                    "2 nodes of 8x H100 80GB HBM3 (GCP A3 Mega per the repository), network not stated")};
  return v;
}

const SystemDesc& system_preset(std::string_view name) {
  std::string known;
  for (const SystemDesc& s : system_presets()) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw UsageError(fmt::format("unknown NCCL system '{}' (known: {})", name, known));
}

SystemDesc with_ranks(const SystemDesc& s, int ranks) {
  if (ranks < 2) throw UsageError(fmt::format("--ranks {}: the NCCL-shaped tuner needs at least 2 ranks", ranks));
  if (ranks > kMaxTunerRanks)
    throw UsageError(fmt::format("--ranks {} is more than the NCCL-shaped tuner models (at most {})", ranks,
                                 kMaxTunerRanks));
  if (ranks % s.gpus_per_node != 0)
    throw UsageError(fmt::format("--ranks {} is not divisible by the {} GPUs per node of NCCL system {}", ranks,
                                 s.gpus_per_node, s.name));
  SystemDesc r = s;
  r.nodes = ranks / s.gpus_per_node;
  return r;
}

SystemDesc with_node_shape(const SystemDesc& s, int gpus, int nodes) {
  if (gpus < 1 || nodes < 1)
    throw UsageError(fmt::format("{} GPUs per node on {} nodes: both must be at least 1", gpus, nodes));
  SystemDesc r = s;
  if (gpus != s.gpus_per_node) {
    r.name = fmt::format("{} cut to {} GPUs per node", s.name, gpus);
    r.nics_per_node = std::max(1, s.nics_per_node * gpus / s.gpus_per_node);
    r.gpus_per_node = gpus;
  }
  return with_ranks(r, gpus * nodes);
}

}  // namespace microddp::nccl
