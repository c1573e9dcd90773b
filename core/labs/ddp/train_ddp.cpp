// The DDP loop: every rank a full replica, gradients all-reduced in
// buckets launched as soon as they are full (see ddp.h).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/labs/ddp/train.h"

namespace microddp::ddp::detail {

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

  const Options quiet = warmup_options(o);
  for (int it = -o.warmup; it < o.iterations; ++it) {
    const bool warm = it < 0;  // untimed: its record goes to `scratch`, and no SGD step
    const Options& oi = warm ? quiet : o;
    Result scratch;
    run_iteration(oi, B, true, cache, warm ? scratch : res, [&](int r, RankRecord& R, Group& group, Clock::time_point t0) {
      Model& m = replicas[r];
      Activations act{std::vector<Mat>(L + 1), std::vector<Mat>(L)};
      act.a[0] = data.x.middleCols(r * b, b);
      const Mat y = data.y.middleCols(r * b, b);
      for (int l = 0; l < L; ++l) {
        const double s = ms_since(t0, Clock::now());
        layer_forward(m.params[2 * l].data(), m.params[2 * l + 1].data(), W, l, L, act);
        delay(oi.layer_delay_us);
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
        delay(oi.layer_delay_us);
        R.layers.push_back({r, l, true, s, ms_since(t0, Clock::now())});
        // Backward's compute ends with layer 0, before its gradients are
        // copied and the last bucket is posted: a bucket's all-reduce can
        // then never start before the "backward ends" line.
        if (l == 0) R.backward_end_ms = R.layers.back().end_ms;
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
      while (next_post < B) post_bucket(next_post++);  // none: everything after backward
      // From here the rank only waits: its first wait starts now, not when
      // the OS next ran its thread (on a busy CPU the collective's threads
      // may take it for a while, which would leave its lane blank).
      const double posted_all_ms = ms_since(t0, Clock::now());
      for (int k = 0; k < B; ++k)
        R.waits.push_back(group.wait(r, seq[k], bucket_buf[k].data(), buckets[k].elements));
      if (!R.waits.empty()) R.waits.front().begin_ms = std::min(R.waits.front().begin_ms, posted_all_ms);
      for (int p = 0; p < P && !warm; ++p) {
        const float* avg = bucket_buf[bucket_of[p]].data() + buckets[bucket_of[p]].offsets[index_in[p]];
        for (int64_t i = 0; i < elems[p]; ++i) m.params[p][i] -= static_cast<float>(o.lr) * avg[i];
      }
      R.end_ms = ms_since(t0, Clock::now());
    });
    if (warm) count_warmup(scratch, res);
  }

  res.replicas_identical = true;
  for (int r = 1; r < n; ++r)
    for (int p = 0; p < P; ++p)
      if (std::memcmp(replicas[r].params[p].data(), replicas[0].params[p].data(), elems[p] * sizeof(float)) != 0)
        res.replicas_identical = false;
  for (int p = 0; p < P; ++p)
    res.final_params.insert(res.final_params.end(), replicas[0].params[p].begin(), replicas[0].params[p].end());
}

}  // namespace microddp::ddp::detail
