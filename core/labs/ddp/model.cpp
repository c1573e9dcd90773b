// The single-process reference: the same model, data and SGD in one
// process (see ddp.h).
#include "core/labs/ddp/model.h"

namespace microddp::ddp {

using namespace detail;

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

}  // namespace microddp::ddp
