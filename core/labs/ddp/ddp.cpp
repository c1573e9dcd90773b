// Data-parallel training on the threads backend (see core/ddp.h for the
// execution model). Three parts: bucket assignment (PyTorch's rule), a small
// threads "process group" whose communication thread runs each collective
// with run_threads once every rank posted it, and the MLP (Eigen) with its
// DDP and FSDP-style loops.
#include "core/labs/ddp/ddp.h"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/exec/executor.h"
#include "core/ir/spec.h"

namespace microddp::ddp {

using Clock = std::chrono::steady_clock;
using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Mat = Eigen::MatrixXf;  // activations: features x samples (column = sample)

// ---- buckets ---------------------------------------------------------------

std::vector<Bucket> assign_buckets(const std::vector<int64_t>& param_elements, int elem_bytes,
                                   double cap_mb) {
  if (!(cap_mb > 0)) throw UsageError(fmt::format("bucket cap {} MB: must be > 0", cap_mb));
  if (elem_bytes < 1) throw UsageError(fmt::format("element size {} bytes: must be >= 1", elem_bytes));
  const double cap_bytes = cap_mb * 1024.0 * 1024.0;
  std::vector<Bucket> out;
  Bucket open;
  for (int p = static_cast<int>(param_elements.size()) - 1; p >= 0; --p) {
    open.params.push_back(p);
    open.offsets.push_back(open.elements);
    open.elements += param_elements[p];
    open.bytes = open.elements * elem_bytes;
    if (static_cast<double>(open.bytes) >= cap_bytes) {
      out.push_back(std::move(open));
      open = Bucket{};
    }
  }
  if (!open.params.empty()) out.push_back(std::move(open));  // the last, partial bucket
  return out;
}

std::string_view name(Overlap o) {
  switch (o) {
    case Overlap::none: return "none";
    case Overlap::per_param: return "per-param";
    case Overlap::bucketed: return "bucketed";
  }
  return "?";
}

Overlap parse_overlap(std::string_view s) {
  if (s == "none") return Overlap::none;
  if (s == "per-param" || s == "per_param") return Overlap::per_param;
  if (s == "bucketed") return Overlap::bucketed;
  throw UsageError(fmt::format("unknown overlap mode '{}' (none, per-param, bucketed)", s));
}

void Options::validate() const {
  if (ranks < 1 || ranks > 64) throw UsageError(fmt::format("ranks {}: must be in 1..64", ranks));
  if (depth < 1 || depth > 256) throw UsageError(fmt::format("depth {}: must be in 1..256", depth));
  // Every rank holds the parameters, gradients and buckets: width^2 * depth
  // floats several times over. 4096 keeps one replica of 8 layers at 512 MiB.
  if (width < 1 || width > 4096) throw UsageError(fmt::format("width {}: must be in 1..4096", width));
  if (batch < 1) throw UsageError(fmt::format("batch {}: must be >= 1", batch));
  if (batch % ranks != 0)
    throw UsageError(fmt::format("batch {} is not divisible by {} ranks (every rank gets batch / ranks samples)",
                                 batch, ranks));
  if (iterations < 1) throw UsageError(fmt::format("iterations {}: must be >= 1", iterations));
  if (!(lr > 0)) throw UsageError(fmt::format("lr {}: must be > 0", lr));
  if (!(bucket_cap_mb > 0)) throw UsageError(fmt::format("bucket cap {} MB: must be > 0", bucket_cap_mb));
  if (layer_delay_us < 0) throw UsageError(fmt::format("layer delay {} us: must be >= 0", layer_delay_us));
  if (!(link_us_per_mb >= 0 && link_us_per_mb <= 1e6))
    throw UsageError(fmt::format("link delay {} us per MB: must be in 0..1000000", link_us_per_mb));
  const auto& algs = algorithms_for(Collective::all_reduce);
  if (std::find(algs.begin(), algs.end(), algorithm) == algs.end()) {
    std::string list;
    for (const auto& a : algs) list += (list.empty() ? "" : ", ") + a;
    throw UsageError(fmt::format("unknown all_reduce algorithm '{}' ({})", algorithm, list));
  }
}

// ---- model and data --------------------------------------------------------

namespace {

// A portable uniform in [-1, 1) (std::uniform_real_distribution differs
// between standard libraries; the reference must match the ranks exactly).
struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  float uniform() { return static_cast<float>(static_cast<double>(g() >> 40) * 0x1p-24 * 2.0 - 1.0); }
};

struct Model {
  int depth = 0, width = 0;
  // params[2l] = W_l (width x width, row-major), params[2l+1] = b_l.
  std::vector<std::vector<float>> params;
};

Model init_model(const Options& o) {
  Model m{o.depth, o.width, {}};
  Rng rng(o.seed);
  const float bound = 1.0f / std::sqrt(static_cast<float>(o.width));  // nn.Linear's init range
  for (int l = 0; l < o.depth; ++l) {
    std::vector<float> w(static_cast<size_t>(o.width) * o.width), b(o.width);
    for (auto& x : w) x = bound * rng.uniform();
    for (auto& x : b) x = bound * rng.uniform();
    m.params.push_back(std::move(w));
    m.params.push_back(std::move(b));
  }
  return m;
}

// Synthetic regression data: X uniform in [-1, 1), Y = tanh(T X) for a fixed
// random "teacher" T. Columns are samples.
struct Data {
  Mat x, y;
};
Data make_data(const Options& o) {
  Rng rng(o.seed * 7919 + 17);
  Data d{Mat(o.width, o.batch), Mat(o.width, o.batch)};
  for (int64_t j = 0; j < o.batch; ++j)
    for (int i = 0; i < o.width; ++i) d.x(i, j) = rng.uniform();
  Mat t(o.width, o.width);
  const float s = 1.0f / std::sqrt(static_cast<float>(o.width));
  for (int i = 0; i < o.width; ++i)
    for (int k = 0; k < o.width; ++k) t(i, k) = 2.0f * s * rng.uniform();
  d.y = (t * d.x).array().tanh().matrix();
  return d;
}

using WMap = Eigen::Map<const RowMat>;
using BMap = Eigen::Map<const Eigen::VectorXf>;

struct Activations {
  std::vector<Mat> a;  // a[0] = input, a[l+1] = output of layer l
  std::vector<Mat> z;  // pre-activations
};

// One linear layer forward (ReLU on every layer but the last).
void layer_forward(const float* w, const float* b, int width, int l, int depth, Activations& act) {
  WMap W(w, width, width);
  BMap B(b, width);
  Mat z = W * act.a[l];
  z.colwise() += B;
  act.z[l] = z;
  act.a[l + 1] = (l + 1 < depth) ? Mat(z.cwiseMax(0.0f)) : z;
}

float mse_and_grad(const Mat& yhat, const Mat& y, Mat& dz) {
  const float scale = 1.0f / static_cast<float>(yhat.size());
  Mat diff = yhat - y;
  dz = diff * (2.0f * scale);
  return diff.squaredNorm() * scale;
}

// Gradients of layer l into gw (width*width) and gb (width); dz becomes the
// gradient of layer l-1's pre-activation (when l > 0).
void layer_backward(const float* w, int width, int l, const Activations& act, Mat& dz, float* gw,
                    float* gb) {
  Eigen::Map<RowMat> GW(gw, width, width);
  Eigen::Map<Eigen::VectorXf> GB(gb, width);
  GW.noalias() = dz * act.a[l].transpose();
  GB = dz.rowwise().sum();
  if (l > 0) {
    WMap W(w, width, width);
    Mat da = W.transpose() * dz;
    dz = (act.z[l - 1].array() > 0.0f).select(da, 0.0f);
  }
}

void delay(int us) {
  if (us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
}

double ms_since(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(t - t0).count();
}

// ---- a threads process group -----------------------------------------------
// Rank r's k-th post() is call k. The communication thread runs call k (in
// order) once all ranks posted it, with run_threads over the ranks' inputs.

struct CallMeta {
  std::string what;
  int bucket = -1, layer = -1;
};

class Group {
 public:
  Group(int n, int total_calls, Clock::time_point t0, std::map<std::string, Schedule>* cache,
        double link_us_per_mb)
      : n_(n), total_(total_calls), t0_(t0), cache_(cache), link_us_per_mb_(link_us_per_mb), calls_(total_calls),
        next_(n, 0) {
    comm_ = std::thread([this] { comm_loop(); });
  }
  ~Group() {
    abort("group destroyed");
    if (comm_.joinable()) comm_.join();
  }
  void join() {
    if (comm_.joinable()) comm_.join();
  }

  int post(int rank, const CollectiveSpec& spec, const float* data, int64_t count, const CallMeta& meta) {
    std::lock_guard<std::mutex> lk(m_);
    const int k = next_[rank]++;
    if (k >= total_) throw std::logic_error("ddp: more collectives posted than planned");
    Call& c = calls_[k];
    if (c.inputs.empty()) {
      c.inputs.resize(n_);
      c.spec = spec;
      c.meta = meta;
    } else if (c.spec.collective != spec.collective || c.spec.count != spec.count || c.spec.counts != spec.counts) {
      c.mismatch = fmt::format("call {}: rank {} posted {} count {}, another rank posted {} count {}", k, rank,
                               name(spec.collective), spec.count, name(c.spec.collective), c.spec.count);
    }
    c.inputs[rank].resize(static_cast<size_t>(count) * sizeof(float));
    if (count) std::memcpy(c.inputs[rank].data(), data, c.inputs[rank].size());
    ++c.posted;
    cv_.notify_all();
    return k;
  }

  // Blocks until call k ran; copies rank's output. Returns the wait span.
  WaitSpan wait(int rank, int k, float* out, int64_t count) {
    std::unique_lock<std::mutex> lk(m_);
    WaitSpan w{rank, k, ms_since(t0_, Clock::now()), 0};
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (!calls_[k].done && error_.empty())
      if (cv_.wait_until(lk, deadline) == std::cv_status::timeout)
        throw std::runtime_error(fmt::format("ddp: rank {} waited 60 s for call {}", rank, k));
    if (!error_.empty()) throw std::runtime_error(error_);
    const auto& o = calls_[k].outputs[rank];
    if (static_cast<int64_t>(o.size()) != count * static_cast<int64_t>(sizeof(float)))
      throw std::logic_error("ddp: output size mismatch");
    if (count) std::memcpy(out, o.data(), o.size());
    w.end_ms = ms_since(t0_, Clock::now());
    return w;
  }

  void abort(const std::string& why) {
    std::lock_guard<std::mutex> lk(m_);
    if (error_.empty()) error_ = why;
    stop_ = true;
    cv_.notify_all();
  }

  std::vector<CommSpan> spans;  // written by the communication thread; read after join()
  std::vector<int> order;

 private:
  struct Call {
    CollectiveSpec spec;
    CallMeta meta;
    RankData inputs, outputs;
    int posted = 0;
    bool done = false;
    std::string mismatch;
  };

  void comm_loop() {
    try {
      for (int k = 0; k < total_; ++k) {
        CollectiveSpec spec;
        RankData inputs;
        CallMeta meta;
        {
          std::unique_lock<std::mutex> lk(m_);
          cv_.wait(lk, [&] { return calls_[k].posted == n_ || stop_; });
          if (stop_) return;
          if (!calls_[k].mismatch.empty()) {
            error_ = "ddp: collective mismatch: " + calls_[k].mismatch;
            cv_.notify_all();
            return;
          }
          spec = calls_[k].spec;
          inputs = std::move(calls_[k].inputs);
          meta = calls_[k].meta;
        }
        std::string key = fmt::format("{}/{}/{}/{}", name(spec.collective), spec.algorithm, spec.count,
                                      fmt::join(spec.counts, ","));
        auto it = cache_->find(key);
        if (it == cache_->end()) {
          Schedule s = make_schedule(spec);
          check_schedule(s);
          it = cache_->emplace(key, std::move(s)).first;
        }
        RunOptions ro;
        ro.mode = Mode::free;
        ro.record = false;
        ro.snapshot_limit = 0;
        const auto b = Clock::now();
        RunResult r = run_threads(it->second, inputs, ro);
        if (link_us_per_mb_ > 0 && !inputs.empty())
          std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(
              link_us_per_mb_ * static_cast<double>(inputs[0].size()) / (1024.0 * 1024.0)));
        const auto e = Clock::now();
        CommSpan span;
        span.call = k;
        span.collective = std::string(name(spec.collective));
        span.what = meta.what;
        span.bucket = meta.bucket;
        span.layer = meta.layer;
        span.bytes = static_cast<int64_t>(inputs.empty() ? 0 : inputs[0].size());
        span.begin_ms = ms_since(t0_, b);
        span.end_ms = ms_since(t0_, e);
        spans.push_back(span);
        order.push_back(meta.bucket >= 0 ? meta.bucket : meta.layer);
        std::lock_guard<std::mutex> lk(m_);
        calls_[k].outputs = std::move(r.outputs);
        calls_[k].done = true;
        cv_.notify_all();
      }
    } catch (const std::exception& e) {
      abort(std::string("ddp: communication thread: ") + e.what());
    }
  }

  int n_, total_;
  Clock::time_point t0_;
  std::map<std::string, Schedule>* cache_;
  double link_us_per_mb_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Call> calls_;
  std::vector<int> next_;
  bool stop_ = false;
  std::string error_;
  std::thread comm_;
};

// Per-rank record of one iteration.
struct RankRecord {
  std::vector<LayerSpan> layers;
  std::vector<BucketFill> fills;
  std::vector<WaitSpan> waits;
  double backward_end_ms = 0, end_ms = 0;
  float loss = 0;
};

// The DDP iteration's schedule on the model clock (IterationStats): forward
// takes depth layers, then a rank that had finished `layers_done` backward
// layers when it posted bucket k posted it at (depth + layers_done) layer
// times; call k starts when the last rank posted it and the previous call
// ended, and lasts link_us_per_mb per MB of its bytes.
void model_clock(const Options& o, const std::vector<RankRecord>& rec, const std::vector<CommSpan>& comm,
                 IterationStats& st) {
  const double layer_ms = o.layer_delay_us / 1000.0;
  const double backward_end = 2.0 * o.depth * layer_ms;
  double end = 0, total = 0;
  for (const CommSpan& c : comm) {
    double post = 0;
    for (const RankRecord& R : rec)
      for (const BucketFill& f : R.fills)
        if (f.bucket == c.bucket) post = std::max(post, (o.depth + f.layers_done) * layer_ms);
    const double d = o.link_us_per_mb / 1000.0 * static_cast<double>(c.bytes) / (1024.0 * 1024.0);
    end = std::max(post, end) + d;
    total += d;
  }
  st.model_comm_ms = total;
  st.model_exposed_comm_ms = std::max(end, backward_end) - backward_end;
  st.model_overlap_fraction = total > 0 ? std::clamp(1.0 - st.model_exposed_comm_ms / total, 0.0, 1.0) : 0.0;
}

// Merges the ranks' records of one iteration into its timeline and stats.
// Exposed communication per rank: DDP (after_backward) counts from the end
// of the rank's backward until its last result arrived — everything it
// still waits for once it has nothing left to compute, so with --overlap
// none (collectives start after the last backward) the overlap is exactly
// 0; the sharded mode waits inside forward and backward too, so there it
// is the time blocked in waits.
void summarize_iteration(const Options& o, const std::vector<RankRecord>& rec, std::vector<CommSpan> comm, int calls,
                         bool after_backward, Result& res) {
  const int n = static_cast<int>(rec.size());
  IterationTimeline tl;
  IterationStats st;
  double loss = 0, waits = 0, compute = 0;
  for (const auto& R : rec) {
    tl.layers.insert(tl.layers.end(), R.layers.begin(), R.layers.end());
    tl.fills.insert(tl.fills.end(), R.fills.begin(), R.fills.end());
    tl.waits.insert(tl.waits.end(), R.waits.begin(), R.waits.end());
    tl.backward_end_ms = std::max(tl.backward_end_ms, R.backward_end_ms);
    tl.end_ms = std::max(tl.end_ms, R.end_ms);
    loss += R.loss;
    double w = 0;
    if (after_backward) {
      double last = R.backward_end_ms;
      for (const auto& ws : R.waits) last = std::max(last, ws.end_ms);
      w = last - R.backward_end_ms;
    } else {
      for (const auto& ws : R.waits) w += ws.end_ms - ws.begin_ms;
    }
    waits += w;
    compute += R.end_ms - w;
  }
  tl.comm = std::move(comm);
  st.loss = loss / n;
  st.compute_ms = compute / n;
  st.exposed_comm_ms = waits / n;
  for (const auto& c : tl.comm) st.comm_ms += c.end_ms - c.begin_ms;
  st.overlap_fraction = st.comm_ms > 0 ? std::clamp(1.0 - st.exposed_comm_ms / st.comm_ms, 0.0, 1.0) : 0.0;
  st.calls = calls;
  st.reference_loss = std::numeric_limits<double>::quiet_NaN();
  if (after_backward) {
    model_clock(o, rec, tl.comm, st);
  } else {
    st.model_comm_ms = st.model_exposed_comm_ms = st.model_overlap_fraction = std::numeric_limits<double>::quiet_NaN();
  }
  res.iterations.push_back(st);
  res.timelines.push_back(std::move(tl));
}

// A start barrier for the worker threads (std::barrier would do; this keeps
// the release moment explicit).
class StartGate {
 public:
  explicit StartGate(int n) : n_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lk(m_);
    const int gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
    } else {
      cv_.wait(lk, [&] { return gen_ != gen; });
    }
  }

 private:
  int n_, count_ = 0, gen_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
};

CollectiveSpec all_reduce_spec(const Options& o, int64_t count) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = o.algorithm;
  s.world_size = o.ranks;
  s.count = count;
  s.dtype = DType::float32;
  s.op = ReduceOp::avg;
  return s;
}

// Sharded collectives use ring (the all_gather / reduce_scatter algorithm
// that exists for every world size and for uneven blocks).
CollectiveSpec shard_spec(const Options& o, Collective c, const std::vector<int64_t>& blocks) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = "ring";
  s.world_size = o.ranks;
  s.counts = blocks;
  s.dtype = DType::float32;
  s.op = ReduceOp::avg;
  return s;
}

void collect(std::vector<std::exception_ptr>& errs) {
  for (auto& e : errs)
    if (e) std::rethrow_exception(e);
}

}  // namespace

// ---- reference ---------------------------------------------------------------

std::vector<double> reference_losses(const Options& o) {
  o.validate();
  Model m = init_model(o);
  Data d = make_data(o);
  std::vector<double> losses;
  std::vector<std::vector<float>> g(m.params.size());
  for (size_t p = 0; p < g.size(); ++p) g[p].resize(m.params[p].size());
  for (int it = 0; it < o.iterations; ++it) {
    Activations act{std::vector<Mat>(o.depth + 1), std::vector<Mat>(o.depth)};
    act.a[0] = d.x;
    for (int l = 0; l < o.depth; ++l) layer_forward(m.params[2 * l].data(), m.params[2 * l + 1].data(), o.width, l, o.depth, act);
    Mat dz;
    losses.push_back(mse_and_grad(act.a[o.depth], d.y, dz));
    for (int l = o.depth - 1; l >= 0; --l)
      layer_backward(m.params[2 * l].data(), o.width, l, act, dz, g[2 * l].data(), g[2 * l + 1].data());
    for (size_t p = 0; p < g.size(); ++p)
      for (size_t i = 0; i < g[p].size(); ++i) m.params[p][i] -= static_cast<float>(o.lr) * g[p][i];
  }
  return losses;
}

// ---- DDP -------------------------------------------------------------------

namespace {

void run_ddp_iterations(const Options& o, const Data& data, Result& res) {
  const int n = o.ranks, L = o.depth, W = o.width, P = 2 * L;
  const int64_t b = o.batch / n;
  std::vector<int64_t> elems(P);
  for (int p = 0; p < P; ++p) elems[p] = (p % 2 == 0) ? int64_t{W} * W : W;
  std::vector<Bucket> buckets;
  if (o.overlap == Overlap::bucketed) {
    buckets = assign_buckets(elems, sizeof(float), o.bucket_cap_mb);
  } else if (o.overlap == Overlap::per_param) {
    buckets = assign_buckets(elems, sizeof(float), 1e-9);  // every parameter closes its bucket
  } else {
    buckets = assign_buckets(elems, sizeof(float), 1e18);  // one bucket of everything
  }
  res.buckets = buckets;
  const int B = static_cast<int>(buckets.size());
  std::vector<int> bucket_of(P), index_in(P);
  for (int k = 0; k < B; ++k)
    for (size_t j = 0; j < buckets[k].params.size(); ++j) {
      bucket_of[buckets[k].params[j]] = k;
      index_in[buckets[k].params[j]] = static_cast<int>(j);
    }

  Model init = init_model(o);
  std::vector<Model> replicas(n, init);
  std::map<std::string, Schedule> cache;

  for (int it = 0; it < o.iterations; ++it) {
    std::vector<RankRecord> rec(n);
    StartGate gate(n);
    // Times count from just before the workers are released together.
    const Clock::time_point t0 = Clock::now();
    Group group(n, B, t0, &cache, o.link_us_per_mb);
    std::vector<std::exception_ptr> errs(n);
    std::vector<std::thread> workers;
    for (int r = 0; r < n; ++r) {
      workers.emplace_back([&, r] {
        try {
          gate.arrive_and_wait();
          RankRecord& R = rec[r];
          Model& m = replicas[r];
          Activations act{std::vector<Mat>(L + 1), std::vector<Mat>(L)};
          act.a[0] = data.x.middleCols(r * b, b);
          const Mat y = data.y.middleCols(r * b, b);
          for (int l = 0; l < L; ++l) {
            const double s = ms_since(t0, Clock::now());
            layer_forward(m.params[2 * l].data(), m.params[2 * l + 1].data(), W, l, L, act);
            delay(o.layer_delay_us);
            R.layers.push_back({r, l, false, s, ms_since(t0, Clock::now())});
          }
          Mat dz;
          R.loss = mse_and_grad(act.a[L], y, dz);

          std::vector<std::vector<float>> bucket_buf(B);
          for (int k = 0; k < B; ++k) bucket_buf[k].resize(buckets[k].elements);
          std::vector<int> pending(B), seq(B, -1);
          for (int k = 0; k < B; ++k) pending[k] = static_cast<int>(buckets[k].params.size());
          int next_post = 0, backward_layers_done = 0;
          std::vector<std::vector<float>> g(P);
          for (int p = 0; p < P; ++p) g[p].resize(elems[p]);
          auto post_bucket = [&](int k) {
            seq[k] = group.post(r, all_reduce_spec(o, buckets[k].elements), bucket_buf[k].data(),
                                buckets[k].elements, CallMeta{fmt::format("bucket {}", k), k, -1});
            for (auto& f : R.fills)
              if (f.bucket == k) {
                f.posted_ms = ms_since(t0, Clock::now());
                f.layers_done = backward_layers_done;
              }
          };
          auto mark_ready = [&](int p) {
            const int k = bucket_of[p];
            std::copy(g[p].begin(), g[p].end(), bucket_buf[k].begin() + buckets[k].offsets[index_in[p]]);
            if (--pending[k] == 0) R.fills.push_back({r, k, ms_since(t0, Clock::now()), 0});
            // Buckets go out strictly in bucket order: every rank must issue
            // the same sequence of collectives.
            while (o.overlap != Overlap::none && next_post < B && pending[next_post] == 0) post_bucket(next_post++);
          };
          const bool shuffled = (r == o.shuffled_ready_rank);
          for (int l = L - 1; l >= 0; --l) {
            const double s = ms_since(t0, Clock::now());
            layer_backward(m.params[2 * l].data(), W, l, act, dz, g[2 * l].data(), g[2 * l + 1].data());
            delay(o.layer_delay_us);
            R.layers.push_back({r, l, true, s, ms_since(t0, Clock::now())});
            ++backward_layers_done;
            if (!shuffled) {
              mark_ready(2 * l + 1);
              mark_ready(2 * l);
            }
          }
          if (shuffled) {
            std::vector<int> perm(P);
            std::iota(perm.begin(), perm.end(), 0);
            std::shuffle(perm.begin(), perm.end(), std::mt19937_64(o.seed + 99));
            for (int p : perm) mark_ready(p);
          }
          R.backward_end_ms = ms_since(t0, Clock::now());
          while (next_post < B) post_bucket(next_post++);  // none: everything after backward
          for (int k = 0; k < B; ++k)
            R.waits.push_back(group.wait(r, seq[k], bucket_buf[k].data(), buckets[k].elements));
          for (int p = 0; p < P; ++p) {
            const float* avg = bucket_buf[bucket_of[p]].data() + buckets[bucket_of[p]].offsets[index_in[p]];
            for (int64_t i = 0; i < elems[p]; ++i) m.params[p][i] -= static_cast<float>(o.lr) * avg[i];
          }
          R.end_ms = ms_since(t0, Clock::now());
        } catch (...) {
          errs[r] = std::current_exception();
          group.abort("ddp: a rank failed");
        }
      });
    }
    for (auto& w : workers) w.join();
    group.join();
    collect(errs);

    summarize_iteration(o, rec, group.spans, B, true, res);
    res.launch_order = group.order;
  }

  res.replicas_identical = true;
  for (int r = 1; r < n; ++r)
    for (int p = 0; p < P; ++p)
      if (std::memcmp(replicas[r].params[p].data(), replicas[0].params[p].data(), elems[p] * sizeof(float)) != 0)
        res.replicas_identical = false;
  for (int p = 0; p < P; ++p)
    res.final_params.insert(res.final_params.end(), replicas[0].params[p].begin(), replicas[0].params[p].end());
}

// ---- FSDP-style sharded ------------------------------------------------------

void run_sharded_iterations(const Options& o, const Data& data, Result& res) {
  const int n = o.ranks, L = o.depth, W = o.width;
  const int64_t b = o.batch / n;
  const int64_t layer_elems = int64_t{W} * W + W;
  const std::vector<int64_t> offs = even_chunks(layer_elems, n);
  std::vector<int64_t> blocks(n);
  for (int r = 0; r < n; ++r) blocks[r] = offs[r + 1] - offs[r];

  Model init = init_model(o);
  // shard[r][l]: rank r's block of layer l's flat [W_l (row-major), b_l].
  std::vector<std::vector<std::vector<float>>> shard(n, std::vector<std::vector<float>>(L));
  for (int l = 0; l < L; ++l) {
    std::vector<float> flat(init.params[2 * l]);
    flat.insert(flat.end(), init.params[2 * l + 1].begin(), init.params[2 * l + 1].end());
    for (int r = 0; r < n; ++r) shard[r][l].assign(flat.begin() + offs[r], flat.begin() + offs[r + 1]);
  }
  std::vector<std::vector<std::vector<float>>> last_full(n, std::vector<std::vector<float>>(L));
  std::map<std::string, Schedule> cache;
  const CollectiveSpec ag = shard_spec(o, Collective::all_gather, blocks);
  const CollectiveSpec rs = shard_spec(o, Collective::reduce_scatter, blocks);

  for (int it = 0; it < o.iterations; ++it) {
    std::vector<RankRecord> rec(n);
    StartGate gate(n);
    const Clock::time_point t0 = Clock::now();
    Group group(n, 3 * L, t0, &cache, o.link_us_per_mb);
    std::vector<std::exception_ptr> errs(n);
    std::vector<std::thread> workers;
    for (int r = 0; r < n; ++r) {
      workers.emplace_back([&, r] {
        try {
          gate.arrive_and_wait();
          RankRecord& R = rec[r];
          std::vector<std::vector<float>> full(L);
          std::vector<int> ag_seq(L, -1), rs_seq(L, -1);
          auto post_ag = [&](int l, bool pre) {
            ag_seq[l] = group.post(r, ag, shard[r][l].data(), blocks[r],
                                   CallMeta{fmt::format("layer {} params{}", l, pre ? " (prefetch)" : ""), -1, l});
          };
          auto wait_ag = [&](int l) {
            full[l].resize(layer_elems);
            R.waits.push_back(group.wait(r, ag_seq[l], full[l].data(), layer_elems));
          };
          Activations act{std::vector<Mat>(L + 1), std::vector<Mat>(L)};
          act.a[0] = data.x.middleCols(r * b, b);
          const Mat y = data.y.middleCols(r * b, b);
          post_ag(0, false);
          for (int l = 0; l < L; ++l) {
            wait_ag(l);
            if (o.prefetch && l + 1 < L) post_ag(l + 1, true);
            const double s = ms_since(t0, Clock::now());
            layer_forward(full[l].data(), full[l].data() + int64_t{W} * W, W, l, L, act);
            delay(o.layer_delay_us);
            R.layers.push_back({r, l, false, s, ms_since(t0, Clock::now())});
            std::vector<float>().swap(full[l]);  // reshard: drop the gathered parameters
            if (!o.prefetch && l + 1 < L) post_ag(l + 1, false);
          }
          Mat dz;
          R.loss = mse_and_grad(act.a[L], y, dz);
          std::vector<std::vector<float>> gfull(L), gshard(L);
          post_ag(L - 1, false);
          for (int l = L - 1; l >= 0; --l) {
            wait_ag(l);
            if (o.prefetch && l > 0) post_ag(l - 1, true);
            const double s = ms_since(t0, Clock::now());
            gfull[l].resize(layer_elems);
            layer_backward(full[l].data(), W, l, act, dz, gfull[l].data(), gfull[l].data() + int64_t{W} * W);
            delay(o.layer_delay_us);
            R.layers.push_back({r, l, true, s, ms_since(t0, Clock::now())});
            rs_seq[l] = group.post(r, rs, gfull[l].data(), layer_elems, CallMeta{fmt::format("layer {} grads", l), -1, l});
            last_full[r][l] = full[l];
            std::vector<float>().swap(full[l]);
            if (!o.prefetch && l > 0) post_ag(l - 1, false);
          }
          R.backward_end_ms = ms_since(t0, Clock::now());
          for (int l = L - 1; l >= 0; --l) {
            gshard[l].resize(blocks[r]);
            R.waits.push_back(group.wait(r, rs_seq[l], gshard[l].data(), blocks[r]));
            for (int64_t i = 0; i < blocks[r]; ++i) shard[r][l][i] -= static_cast<float>(o.lr) * gshard[l][i];
          }
          R.end_ms = ms_since(t0, Clock::now());
        } catch (...) {
          errs[r] = std::current_exception();
          group.abort("ddp: a rank failed");
        }
      });
    }
    for (auto& w : workers) w.join();
    group.join();
    collect(errs);

    summarize_iteration(o, rec, group.spans, 3 * L, false, res);
    res.launch_order = group.order;
  }
  res.replicas_identical = true;
  for (int r = 1; r < n; ++r)
    for (int l = 0; l < L; ++l)
      if (last_full[r][l] != last_full[0][l]) res.replicas_identical = false;  // float ==: same bits here (no NaN)
  for (int l = 0; l < L; ++l)
    for (int r = 0; r < n; ++r) res.final_params.insert(res.final_params.end(), shard[r][l].begin(), shard[r][l].end());
}

}  // namespace

Result run_ddp(const Options& o) {
  o.validate();
  Result res;
  res.options = o;
  res.params = 2 * o.depth;
  res.param_elements = int64_t{o.depth} * (int64_t{o.width} * o.width + o.width);
  const Data data = make_data(o);
  if (o.sharded)
    run_sharded_iterations(o, data, res);
  else
    run_ddp_iterations(o, data, res);
  res.max_reference_rel_error = std::numeric_limits<double>::quiet_NaN();
  if (o.check_reference) {
    const auto ref = reference_losses(o);
    res.max_reference_rel_error = 0;
    for (size_t i = 0; i < ref.size() && i < res.iterations.size(); ++i) {
      res.iterations[i].reference_loss = ref[i];
      const double e = std::abs(res.iterations[i].loss - ref[i]) / std::max(std::abs(ref[i]), 1e-12);
      res.max_reference_rel_error = std::max(res.max_reference_rel_error, e);
    }
  }
  return res;
}

}  // namespace microddp::ddp
