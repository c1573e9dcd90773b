// The FSDP-style sharded loop: each rank keeps one block of every layer,
// all-gathers a layer before use and reduce-scatters its gradients (see
// ddp.h).
#include <algorithm>
#include <cstring>

#include "core/labs/ddp/train.h"

namespace microddp::ddp::detail {

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

  const Options quiet = warmup_options(o);
  for (int it = -o.warmup; it < o.iterations; ++it) {
    const bool warm = it < 0;  // untimed: its record goes to `scratch`, and no SGD step
    const Options& oi = warm ? quiet : o;
    Result scratch;
    run_iteration(oi, 3 * L, false, cache, warm ? scratch : res, [&](int r, RankRecord& R, Group& group, Clock::time_point t0) {
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
        delay(oi.layer_delay_us);
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
        delay(oi.layer_delay_us);
        R.layers.push_back({r, l, true, s, ms_since(t0, Clock::now())});
        // Backward's compute ends with layer 0, before its gradients'
        // reduce-scatter is posted (as in the DDP loop): that call can then
        // never start before the "backward ends" line.
        if (l == 0) R.backward_end_ms = R.layers.back().end_ms;
        rs_seq[l] = group.post(r, rs, gfull[l].data(), layer_elems, CallMeta{fmt::format("layer {} grads", l), -1, l});
        last_full[r][l] = full[l];
        std::vector<float>().swap(full[l]);
        if (!o.prefetch && l > 0) post_ag(l - 1, false);
      }
      // From here the rank only waits for its reduce-scatters: the first
      // of those waits starts now, not when the OS next runs its thread.
      const double posted_all_ms = ms_since(t0, Clock::now());
      const size_t first_rs_wait = R.waits.size();
      for (int l = L - 1; l >= 0; --l) {
        gshard[l].resize(blocks[r]);
        R.waits.push_back(group.wait(r, rs_seq[l], gshard[l].data(), blocks[r]));
        if (!warm)
          for (int64_t i = 0; i < blocks[r]; ++i) shard[r][l][i] -= static_cast<float>(o.lr) * gshard[l][i];
      }
      if (R.waits.size() > first_rs_wait)
        R.waits[first_rs_wait].begin_ms = std::min(R.waits[first_rs_wait].begin_ms, posted_all_ms);
      R.end_ms = ms_since(t0, Clock::now());
    });
    if (warm) count_warmup(scratch, res);
  }
  res.replicas_identical = true;
  for (int r = 1; r < n; ++r)
    for (int l = 0; l < L; ++l)
      if (last_full[r][l].size() != last_full[0][l].size() ||
          std::memcmp(last_full[r][l].data(), last_full[0][l].data(), last_full[0][l].size() * sizeof(float)) != 0)
        res.replicas_identical = false;  // bits, as the DDP path: float == would call equal NaNs different
  for (int l = 0; l < L; ++l)
    for (int r = 0; r < n; ++r) res.final_params.insert(res.final_params.end(), shard[r][l].begin(), shard[r][l].end());
}

}  // namespace microddp::ddp::detail
