// The MLP every rank trains (internal to core/labs/ddp): parameters as
// nn.Linear registers them, synthetic data, one layer's forward and
// backward (Eigen, float32), shared by the DDP and sharded loops and the
// single-process reference.
#pragma once
#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/labs/ddp/ddp.h"

namespace microddp::ddp::detail {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Mat = Eigen::MatrixXf;  // activations: features x samples (column = sample)

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

inline Model init_model(const Options& o) {
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
inline Data make_data(const Options& o) {
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
inline void layer_forward(const float* w, const float* b, int width, int l, int depth, Activations& act) {
  WMap W(w, width, width);
  BMap B(b, width);
  Mat z = W * act.a[l];
  z.colwise() += B;
  act.z[l] = z;
  act.a[l + 1] = (l + 1 < depth) ? Mat(z.cwiseMax(0.0f)) : z;
}

inline float mse_and_grad(const Mat& yhat, const Mat& y, Mat& dz) {
  const float scale = 1.0f / static_cast<float>(yhat.size());
  Mat diff = yhat - y;
  dz = diff * (2.0f * scale);
  return diff.squaredNorm() * scale;
}

// Gradients of layer l into gw (width*width) and gb (width); dz becomes the
// gradient of layer l-1's pre-activation (when l > 0).
inline void layer_backward(const float* w, int width, int l, const Activations& act, Mat& dz, float* gw,
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

}  // namespace microddp::ddp::detail
