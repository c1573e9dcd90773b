// The NCCL-shaped tuner's constants (see nccl_tuning_table.h). Values read
// from NVIDIA/nccl at tag v2.30.7-1; each row names the file and the array
// or function. The layout of the arrays follows NCCL's (algorithm order
// TREE, RING, ..., NVLS, NVLS_TREE; protocols LL, LL128, SIMPLE), but the
// rows are our own.
#include "core/model/nccl_tuning_table.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace microddp::nccl {
namespace {

constexpr std::string_view kTuneDefaults = "src/graph/tuning.cc ncclTunerConstantsDefaults, NCCL v2.30.7-1";
constexpr std::string_view kTuneModel = "src/graph/tuning.cc ncclTopoTuneModel, NCCL v2.30.7-1";
constexpr std::string_view kAlgoTime = "src/graph/tuning.cc ncclTopoGetAlgoTime, NCCL v2.30.7-1";
constexpr std::string_view kTreeCorr = "src/graph/tuning.cc treeCorrectionFactor (used by ncclTopoGetAlgoTime), NCCL v2.30.7-1";
constexpr std::string_view kNvlsEff = "src/graph/tuning.cc nvlsEfficiency, NCCL v2.30.7-1";
constexpr std::string_view kNetOverhead = "src/graph/tuning.cc getNetOverhead, NCCL v2.30.7-1";
constexpr std::string_view kCommH = "src/include/comm.h NCCL_*_THREAD_THRESHOLD, NCCL v2.30.7-1";
constexpr std::string_view kDeviceH = "src/include/device.h NCCL_*_MAX_NTHREADS / MAXCHANNELS, NCCL v2.30.7-1";
constexpr std::string_view kTopoH = "src/graph/topo.h *_NVLINK_BW / PCI_BW, NCCL v2.30.7-1";
constexpr std::string_view kSearch = "src/graph/search.cc ncclTopoCompute speed arrays, NCCL v2.30.7-1";
constexpr std::string_view kDup = "src/graph/search.cc ncclTopoDupChannels, NCCL v2.30.7-1";
constexpr std::string_view kNvlsCc = "src/transport/nvls.cc NVLS_NCHANNELS_*, NCCL v2.30.7-1";
constexpr std::string_view kConnect = "src/graph/connect.cc ncclTopoPostset, NCCL v2.30.7-1";
constexpr std::string_view kPlan = "src/enqueue.cc scheduleCollTasksToPlan / ncclFuncTrafficPerByte, NCCL v2.30.7-1";
constexpr std::string_view kInit = "src/init.cc (ringGraph->maxChannels = MAXCHANNELS/2), NCCL v2.30.7-1";

constexpr const char* kAlgoName[kNumAlgos] = {"TREE", "RING", "NVLS", "NVLS_TREE"};
constexpr const char* kProtoName[kNumProtos] = {"LL", "LL128", "SIMPLE"};
constexpr const char* kHwName[3] = {"NVLINK", "PCI", "NET"};
constexpr const char* kArchName[4] = {"Volta", "Ampere", "Hopper", "Blackwell"};

// Values, in NCCL's array shapes.
constexpr double kBaseLat[kNumAlgos][kNumProtos] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}};
constexpr double kHwLat[3][kNumAlgos][kNumProtos] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 25}, {0, 0, 25}},      // NVLink
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}},         // PCI
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, 20.9}}};    // NET
constexpr double kLlMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
constexpr double kRingLL128[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}};
constexpr double kTreeLL128[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kTree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kNvlsTree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};
constexpr double kNvlsEffV[4] = {0.0, 0.0, 0.85, 0.74};
constexpr double kTreeCorrV[kNumProtos][kTreeCorrectionBuckets] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

struct Scalar {
  const char* name;
  double value;
  std::string_view unit, source;
};
const Scalar kScalars[] = {
    {"ringLLBusBwFactor", 0.5, "factor", kTuneModel},
    {"ringLL128BusBwFactor", 0.92, "factor", kTuneModel},
    {"treeAllReduceBusBwFactor", 0.92, "factor", kTuneModel},
    {"treeLLBusBwFactor", 1.0 / 3.8, "factor", kTuneModel},
    {"treeLL128BusBwFactorOneNode", 7.0 / 9.0, "factor", kTuneModel},
    {"treeLL128BusBwFactorMultiNode", 120.0 / 128.0, "factor", kTuneModel},
    {"treeAlgBwPerBusBw", 0.5, "factor", kTuneModel},
    {"netOverheadIntel", 1.0, "us", kNetOverhead},
    {"netOverheadAmd", 2.0, "us", kNetOverhead},
    {"netOverheadSimpleFactor", 3.0, "factor", kTuneModel},
    {"ringSimplePlateauFactor", 1.4, "factor", kAlgoTime},            // minCompCap >= 80
    {"ringSimplePlateauFactorPreAmpere", 1.9, "factor", kAlgoTime},   // minCompCap < 80
    {"ringSimplePlateauMinBytes", 64, "B per channel per rank", kAlgoTime},
    {"treeCorrectionLogSizeLimit", 23, "log2(bytes/64)", kAlgoTime},
    {"nvlsMinGraphChannels", 2, "channels", kTuneModel},
    {"llThreadThreshold", 8, "B/thread", kCommH},
    {"ll128ThreadThreshold", 8, "B/thread", kCommH},
    {"simpleThreadThreshold", 64, "B/thread", kCommH},
    {"llMaxThreads", 512, "threads", kDeviceH},
    {"ll128MaxThreads", 640, "threads", kDeviceH},
    {"simpleMaxThreads", 512, "threads", kDeviceH},
    {"simpleRingThreadsSlowBus", 256, "threads", kTuneModel},
    {"pciBw", 12.0, "GB/s", kTopoH},
    {"pciGen4x16Bw", 16 * 120 / 80.0, "GB/s", "src/graph/topo.cc kvDictPciGen (16 lanes x 120 [100 Mb/s] / 80), NCCL v2.30.7-1"},
    {"nvlinkBwAmpere", 20.0, "GB/s per link", kTopoH},
    {"nvlinkBwHopper", 20.6, "GB/s per link", kTopoH},
    {"nvlinkBwBlackwell", 40.1, "GB/s per link", kTopoH},
    {"ringGraphMaxChannels", 32, "channels", kInit},
    {"maxChannels", 64, "channels", kDeviceH},
    {"searchSpeedMinRatio", 0.49, "factor", kSearch},
    {"dupChannelsMinBw", 25.0, "GB/s", kDup},
    {"dupChannelsHopperMinBw", 50.0, "GB/s", kDup},
    {"dupChannelsHopperMaxChannels", 4, "channels", kDup},
    {"hopperMultiNodeBoostMinBw", 45.0, "GB/s", kConnect},
    {"hopperMultiNodeBoostMaxChannels", 16, "channels", kConnect},
    {"minTrafficPerChannel", 32768, "B", kPlan},
    {"allReduceTrafficPerByte", 2, "factor", kPlan},
    {"llTrafficFactor", 4, "factor", kPlan},
    {"cellAlignment", 16, "B", kPlan},
    {"nvlsChannelsHopper", 16, "channels", kNvlsCc},
    {"nvlsChannelsBlackwellMultiNode", 32, "channels", kNvlsCc},
    {"nvlsChannelsBlackwellOneNode", 24, "channels", kNvlsCc},
};

// Speed arrays of the topology search (GB/s per channel, tried in order).
constexpr double kSpeedIntra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr double kSpeedInter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                  7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSpeedIntraSm90[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double kSpeedInterSm90[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                      15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSpeedIntraSm100[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr double kSpeedInterSm100[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                       20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

struct Table {
  std::vector<std::string> names;  // storage for the entries' names
  std::vector<Constant> rows;
  size_t base = 0, hw = 0, ll = 0, ring128 = 0, tree128 = 0, tree = 0, nvlstree = 0, eff = 0, corr = 0, scal = 0;
  size_t speed[6] = {}, speed_n[6] = {};
};

const Table& table() {
  static const Table t = [] {
    Table t;
    std::vector<std::pair<std::string, Constant>> tmp;
    const auto add = [&](std::string name, double v, std::string_view unit, std::string_view src) {
      tmp.push_back({std::move(name), Constant{{}, v, unit, src}});
    };
    t.base = tmp.size();
    for (int a = 0; a < kNumAlgos; ++a)
      for (int p = 0; p < kNumProtos; ++p)
        add(std::string("baseLat[") + kAlgoName[a] + "][" + kProtoName[p] + "]", kBaseLat[a][p], "us", kTuneDefaults);
    t.hw = tmp.size();
    for (int h = 0; h < 3; ++h)
      for (int a = 0; a < kNumAlgos; ++a)
        for (int p = 0; p < kNumProtos; ++p)
          add(std::string("hwLat[") + kHwName[h] + "][" + kAlgoName[a] + "][" + kProtoName[p] + "]", kHwLat[h][a][p],
              "us", kTuneDefaults);
    const auto grid = [&](size_t& at, const char* what, const double (*v)[3]) {
      at = tmp.size();
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
          add(std::string(what) + "[" + kArchName[i] + "][N" + std::to_string(j == 2 ? 4 : j + 1) + "]", v[i][j],
              "GB/s", kTuneDefaults);
    };
    grid(t.ll, "llMaxBws", kLlMaxBw);
    grid(t.ring128, "perChMaxRingLL128Bws", kRingLL128);
    grid(t.tree128, "perChMaxTreeLL128Bws", kTreeLL128);
    grid(t.tree, "perChMaxTreeBws", kTree);
    grid(t.nvlstree, "perChMaxNVLSTreeBws", kNvlsTree);
    t.eff = tmp.size();
    for (int i = 0; i < 4; ++i) add(std::string("nvlsEfficiency[") + kArchName[i] + "]", kNvlsEffV[i], "factor", kNvlsEff);
    t.corr = tmp.size();
    for (int p = 0; p < kNumProtos; ++p)
      for (int k = 0; k < kTreeCorrectionBuckets; ++k)
        add(std::string("treeCorrectionFactor[") + kProtoName[p] + "][" + std::to_string(64LL << k) + " B]",
            kTreeCorrV[p][k], "factor", kTreeCorr);
    t.scal = tmp.size();
    for (const Scalar& s : kScalars) add(s.name, s.value, s.unit, s.source);
    const auto speeds = [&](int i, const char* what, const double* v, size_t n) {
      t.speed[i] = tmp.size();
      t.speed_n[i] = n;
      for (size_t k = 0; k < n; ++k) add(std::string(what) + "[" + std::to_string(k) + "]", v[k], "GB/s", kSearch);
    };
    speeds(0, "speedArrayIntra", kSpeedIntra, std::size(kSpeedIntra));
    speeds(1, "speedArrayInter", kSpeedInter, std::size(kSpeedInter));
    speeds(2, "sm90SpeedArrayIntra", kSpeedIntraSm90, std::size(kSpeedIntraSm90));
    speeds(3, "sm90SpeedArrayInter", kSpeedInterSm90, std::size(kSpeedInterSm90));
    speeds(4, "sm100SpeedArrayIntra", kSpeedIntraSm100, std::size(kSpeedIntraSm100));
    speeds(5, "sm100SpeedArrayInter", kSpeedInterSm100, std::size(kSpeedInterSm100));
    t.names.reserve(tmp.size());
    for (auto& [n, c] : tmp) t.names.push_back(n);
    for (size_t i = 0; i < tmp.size(); ++i) {
      Constant c = tmp[i].second;
      c.name = t.names[i];
      t.rows.push_back(c);
    }
    return t;
  }();
  return t;
}

int idx(auto e) { return static_cast<int>(e); }

}  // namespace

std::span<const Constant> tuning_table() { return table().rows; }

const Constant& base_latency(Algo a, Proto p) { return table().rows[table().base + idx(a) * kNumProtos + idx(p)]; }
const Constant& hw_latency(Hw h, Algo a, Proto p) {
  return table().rows[table().hw + (idx(h) * kNumAlgos + idx(a)) * kNumProtos + idx(p)];
}
const Constant& ll_max_bw(int i1, int i2) { return table().rows[table().ll + i1 * 3 + i2]; }
const Constant& per_channel_max_ring_ll128_bw(Arch a, int i2) { return table().rows[table().ring128 + idx(a) * 3 + i2]; }
const Constant& per_channel_max_tree_ll128_bw(Arch a, int i2) { return table().rows[table().tree128 + idx(a) * 3 + i2]; }
const Constant& per_channel_max_tree_bw(Arch a, int i2) { return table().rows[table().tree + idx(a) * 3 + i2]; }
const Constant& per_channel_max_nvls_tree_bw(Arch a, int i2) {
  return table().rows[table().nvlstree + idx(a) * 3 + i2];
}
const Constant& nvls_efficiency(Arch a) { return table().rows[table().eff + idx(a)]; }
const Constant& tree_correction(Proto p, int log_size) {
  return table().rows[table().corr + idx(p) * kTreeCorrectionBuckets + log_size];
}

std::span<const Constant> speed_array(Arch a, bool inter) {
  const int i = (a == Arch::blackwell ? 4 : a == Arch::hopper ? 2 : 0) + (inter ? 1 : 0);
  return std::span<const Constant>(table().rows).subspan(table().speed[i], table().speed_n[i]);
}

const Constant& scalar(std::string_view name) {
  const Table& t = table();
  for (size_t i = t.scal; i < t.scal + std::size(kScalars); ++i)
    if (t.rows[i].name == name) return t.rows[i];
  throw std::out_of_range("nccl::scalar: no constant named " + std::string(name));
}

namespace {

constexpr std::string_view kFitA100G8 =
    "fitted to tests/data/nccl-tests/a100-1x8-allreduce.txt (oracle-japan/ocitutorials, GPU cluster tutorial under "
    "tutorials/_hpc/, first table: one BM.GPU4.8, all_reduce_perf -g 8, one process); GPU NVIDIA A100-SXM4-40GB; "
    "NCCL not stated; base dgx-a100 (fit_system)";
constexpr std::string_view kFitA100Roce =
    "fitted to tests/data/nccl-tests/a100-2x8-allreduce.txt (oracle-japan/ocitutorials, same page, second table: two "
    "BM.GPU4.8 over the OCI cluster network, RDMA RoCE v2, 16 RDMA ports per node, MPI -g 1); GPU NVIDIA "
    "A100-SXM4-40GB; NCCL not stated; base dgx-a100 (fit_system)";
constexpr std::string_view kFitA3Mega =
    "fitted to tests/data/nccl-tests/h100-2x8-allreduce.txt (lessizzmore/create-a3mega-ztan-fork, "
    "ztan-NCCL-test-result: two nodes, network not stated; the repository sets up GCP A3 Mega nodes); GPU NVIDIA H100 "
    "80GB HBM3; NCCL not stated; base dgx-h100 (fit_system)";

const Constant kFitted[] = {
    {"launchUs[oci-a100-g8]", 17.009, "us", kFitA100G8},
    {"bwScale[oci-a100-g8]", 0.96904, "factor", kFitA100G8},
    {"launchUs[oci-a100-roce-2node]", 14.019, "us", kFitA100Roce},
    {"bwScale[oci-a100-roce-2node]", 0.37186, "factor", kFitA100Roce},
    {"launchUs[a3mega-h100-2node]", 99.396, "us", kFitA3Mega},
    {"bwScale[a3mega-h100-2node]", 0.69897, "factor", kFitA3Mega},
};

}  // namespace

std::span<const Constant> fitted_table() { return kFitted; }

const Constant& fitted(std::string_view name) {
  for (const Constant& c : kFitted)
    if (c.name == name) return c;
  throw std::out_of_range("nccl::fitted: no constant named " + std::string(name));
}

}  // namespace microddp::nccl
