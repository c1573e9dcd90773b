// The cost model (core/model/cost_model.h): per-op traffic, the coherence
// byte lists, predict() and the closed forms; the parameters and their
// lookups are in cost_params.cpp.
#include "core/model/cost_model.h"

#include "core/algorithms/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

namespace microddp {

void count_op(RankStepCost& c, OpKind kind, int64_t b) {
  switch (kind) {
    case OpKind::send:  // no traffic of its own: the receiver reads the sender's buffer
      ++c.sends;
      c.bytes_sent += b;
      break;
    case OpKind::recv:
      ++c.recvs;
      c.bytes_received += b;
      c.bytes_traffic += 2 * b;
      break;
    case OpKind::recv_reduce:
      ++c.recvs;
      c.bytes_received += b;
      c.bytes_reduced += b;
      c.bytes_traffic += 3 * b;
      break;
    case OpKind::reduce:
      c.bytes_reduced += b;
      c.bytes_traffic += 3 * b;
      break;
    case OpKind::copy:
      c.bytes_copied += b;
      c.bytes_traffic += 2 * b;
      break;
    case OpKind::swap: break;
  }
}

namespace {
// Disjoint half-open ranges [a, b) of one storage, each with the global
// step of the access (a peer's read, or the owner's write) that put it
// there; a later access to the same bytes replaces the earlier one.
class AccessRanges {
 public:
  void add(int64_t a, int64_t b, int step) {
    if (a >= b) return;
    take(a, b);
    m_[a] = {b, step};
  }
  // The pieces of [a, b) inside the set, as (length, read step); they leave the set.
  std::vector<std::pair<int64_t, int>> take(int64_t a, int64_t b) {
    std::vector<std::pair<int64_t, int>> got;
    auto it = m_.upper_bound(a);
    if (it != m_.begin()) --it;
    while (it != m_.end() && it->first < b) {
      const int64_t lo = it->first, hi = it->second.first;
      const int step = it->second.second;
      if (hi <= a) {
        ++it;
        continue;
      }
      got.emplace_back(std::min(hi, b) - std::max(lo, a), step);
      it = m_.erase(it);
      if (lo < a) m_[lo] = {a, step};
      if (hi > b) m_[b] = {hi, step};
    }
    return got;
  }

 private:
  std::map<int64_t, std::pair<int64_t, int>> m_;  // start -> (end, read step)
};

// Memory traffic of every rank together in each step (count_op's bytes).
std::vector<double> step_traffic(const Schedule& s) {
  const int64_t es = static_cast<int64_t>(dtype_size(s.spec.dtype));
  std::vector<double> t;
  for (const Step& st : s.steps) {
    RankStepCost c;
    for (const auto& ops : st.ranks)
      for (const Op& op : ops) count_op(c, op.kind, op.len * es);
    t.push_back(static_cast<double>(c.bytes_traffic));
  }
  return t;
}
}  // namespace

namespace {
// Both of the coherence terms' byte lists ([step][rank] pieces): what a rank
// writes over bytes a peer read (ε's writes), and what a rank receives that
// its sender wrote (fresh reads), each with its reuse distance.
struct CoherencePieces {
  std::vector<std::vector<std::vector<PeerReadOverwrite>>> overwrites, fresh_reads;
};
CoherencePieces coherence_pieces(const Schedule& s, int cores, int rotation_sets) {
  const int n = s.num_endpoints();  // a switch endpoint is one more thread
  const int S = s.num_steps();
  const int64_t es = static_cast<int64_t>(dtype_size(s.spec.dtype));
  CoherencePieces out;
  out.overwrites.assign(s.steps.size(), std::vector<std::vector<PeerReadOverwrite>>(static_cast<size_t>(n)));
  out.fresh_reads = out.overwrites;
  // Reuse distance from an access in global step g0 (walk 0: the run
  // before) to one in global step g1 (walk 1): the traffic of steps
  // g0 .. g1-1, or of step g0 alone when both fall in it, plus the other
  // buffer sets' runs in between when g0 was one run back.
  const std::vector<double> traffic = step_traffic(s);
  double run_traffic = 0;
  for (double t : traffic) run_traffic += t;
  std::vector<double> prefix(static_cast<size_t>(2 * S) + 1, 0.0);  // traffic of global steps [0, g)
  for (int g = 0; g < 2 * S; ++g) prefix[g + 1] = prefix[g] + traffic[static_cast<size_t>(g % S)];
  const auto distance = [&](int g0, int g1) {
    const double between = g0 == g1 ? traffic[static_cast<size_t>(g0 % S)] : prefix[g1] - prefix[g0];
    return between + (g0 < S ? (std::max(1, rotation_sets) - 1) * run_traffic : 0.0);
  };
  // Only rank r writes its buffers, and a peer reads them only through r's
  // own sends, so each rank's ops in program order say everything.
  for (int r = 0; r < n; ++r) {
    RankLayout layout = rank_layout(s, r);
    // [storage]: read by a peer on another core since r wrote it; written by r since a peer read it
    std::vector<AccessRanges> read(layout.storage_size.size()), written(layout.storage_size.size());
    // elements [a, b) of the storage that the range names now
    const auto place = [&](const BufRange& br, int64_t len) {
      const RankLayout::View& v = layout.view[static_cast<int>(br.buf)];
      return std::tuple{v.storage, v.offset + br.offset, v.offset + br.offset + len};
    };
    for (int walk = 0; walk < 2; ++walk) {  // the first walk leaves what the run before left
      layout = rank_layout(s, r);
      for (int k = 0; k < S; ++k)
        for (const Op& op : s.steps[static_cast<size_t>(k)].ranks[r]) {
          const int g = walk * S + k;
          if (op.kind == OpKind::swap) {
            std::swap(layout.view[static_cast<int>(op.src.buf)], layout.view[static_cast<int>(op.dst.buf)]);
          } else if (op.kind == OpKind::send) {
            const bool other_core = op.peer != r && (cores <= 0 || op.peer % cores != r % cores);
            const auto [sto, lo, hi] = place(op.src, op.len);
            if (!other_core || sto < 0) continue;
            read[static_cast<size_t>(sto)].add(lo, hi, g);
            for (const auto& [len, gw] : written[static_cast<size_t>(sto)].take(lo, hi))
              if (walk == 1 && op.peer >= 0 && op.peer < n)
                out.fresh_reads[static_cast<size_t>(k)][static_cast<size_t>(op.peer)].push_back(
                    {len * es, distance(gw, g)});
          } else {
            const auto [sto, lo, hi] = place(op.dst, op.len);
            if (sto < 0) continue;
            written[static_cast<size_t>(sto)].add(lo, hi, g);
            for (const auto& [len, gr] : read[static_cast<size_t>(sto)].take(lo, hi))
              if (walk == 1)
                out.overwrites[static_cast<size_t>(k)][static_cast<size_t>(r)].push_back({len * es, distance(gr, g)});
          }
        }
    }
  }
  return out;
}
}  // namespace

std::vector<std::vector<std::vector<PeerReadOverwrite>>> peer_read_overwrites(const Schedule& s, int cores,
                                                                              int rotation_sets) {
  return coherence_pieces(s, cores, rotation_sets).overwrites;
}

std::vector<std::vector<std::vector<PeerReadOverwrite>>> fresh_peer_reads(const Schedule& s, int cores,
                                                                          int rotation_sets) {
  return coherence_pieces(s, cores, rotation_sets).fresh_reads;
}

std::vector<std::vector<int64_t>> bytes_over_peer_reads(const Schedule& s, int cores) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& step : peer_read_overwrites(s, cores)) {
    out.emplace_back();
    for (const auto& pieces : step) {
      int64_t b = 0;
      for (const PeerReadOverwrite& p : pieces) b += p.bytes;
      out.back().push_back(b);
    }
  }
  return out;
}

namespace {

// k messages of `bytes` bytes each.
CostTerms msgs(const CostParams& p, double k, double bytes) {
  CostTerms t;
  t.alpha_s = k * p.alpha_for(bytes);
  t.beta_s = k * bytes * p.beta_for(bytes);
  return t;
}
CostTerms red(const CostParams& p, double bytes) {
  CostTerms t;
  t.gamma_s = bytes * p.gamma;
  return t;
}
// One message of `bytes` bytes in a step of footprint `fp` bytes.
CostTerms msg_at(const CostParams& p, double bytes, double fp) {
  CostTerms t;
  t.alpha_s = p.alpha_for(bytes);
  t.beta_s = bytes * p.beta_at(bytes, fp);
  return t;
}
RankStepCost rank_cost(const std::vector<Op>& ops, size_t es, const CostParams& p, double fp) {
  RankStepCost c;
  CostTerms out, in;
  for (const Op& op : ops) {
    const int64_t b = op.len * static_cast<int64_t>(es);
    count_op(c, op.kind, b);
    const double m = static_cast<double>(b);
    // shared memory: the receiver moves the bytes; the sender only posts
    if (op.kind == OpKind::send)
      out += p.fused_recv_reduce ? CostTerms{p.alpha_for(m), 0, 0, 0} : msg_at(p, m, fp);
    else if (op.kind == OpKind::recv)
      in += msg_at(p, m, fp);
    else if (op.kind == OpKind::recv_reduce)
      in += p.fused_recv_reduce ? CostTerms{p.alpha_for(m), 0, 0, 0} : msg_at(p, m, fp);
  }
  // the protocol's extra cost per received byte (protocol_model.h)
  if (p.protocol_extra_s_per_byte != 0)
    in.beta_s = std::max(0.0, in.beta_s + static_cast<double>(c.bytes_received) * p.protocol_extra_s_per_byte);
  c.terms = out.total() >= in.total() ? out : in;
  c.terms.gamma_s = c.bytes_reduced * p.gamma_at(fp);
  c.terms.delta_s = c.bytes_copied * p.delta_at(fp);
  return c;
}

// The step's footprint (cost_model.h): the largest per-rank traffic times
// the ranks with traffic, who share the cache while the step runs.
double step_footprint(const Step& st, size_t es) {
  int64_t most = 0;
  int sharing = 0;
  for (const auto& ops : st.ranks) {
    RankStepCost c;
    for (const Op& op : ops) count_op(c, op.kind, op.len * static_cast<int64_t>(es));
    if (c.bytes_traffic > 0) ++sharing;
    most = std::max(most, c.bytes_traffic);
  }
  return static_cast<double>(most) * sharing;
}

}  // namespace

Prediction predict(const Schedule& s, const CostParams& p) {
  Prediction pr;
  // Every endpoint is priced as a rank: a switch endpoint (Schedule::switches)
  // is one more thread with one port here, as the threads backend runs it,
  // and it takes part in the barrier b(n) and the core packing. The switch
  // with a port per rank is topology_model.h's (Network::nvls).
  const int n = s.num_endpoints();
  const size_t es = dtype_size(s.spec.dtype);
  std::vector<double> prev(n, 0.0);
  // ε's and φ's bytes, when the schedule runs back to back and the profile measured either
  const CoherencePieces coh = p.back_to_back && (p.cache.has_coherence() || p.cache.has_fresh_read())
                                  ? coherence_pieces(s, p.cores, p.rotation_sets)
                                  : CoherencePieces{};
  for (size_t si = 0; si < s.steps.size(); ++si) {
    const Step& st = s.steps[si];
    std::vector<RankStepCost> rc(n);
    double worst = -1;
    int worst_r = 0;
    const double fp = std::max(step_footprint(st, es), p.min_footprint_bytes);
    for (int r = 0; r < n; ++r) {
      rc[r] = rank_cost(st.ranks[r], es, p, fp);
      if (!coh.overwrites.empty()) {
        for (const PeerReadOverwrite& w : coh.overwrites[si][static_cast<size_t>(r)]) {
          rc[r].bytes_over_peer_reads += w.bytes;
          rc[r].terms.coherence_s += static_cast<double>(w.bytes) * p.coherence_at(w.distance_bytes);
        }
        for (const PeerReadOverwrite& w : coh.fresh_reads[si][static_cast<size_t>(r)]) {
          rc[r].bytes_fresh_from_peers += w.bytes;
          rc[r].terms.coherence_s += static_cast<double>(w.bytes) * p.fresh_read_at(w.distance_bytes);
        }
      }
      if (rc[r].terms.total() > worst) {
        worst = rc[r].terms.total();
        worst_r = r;
      }
    }
    // Peer wait: once per step, to a rank that receives while it or one of
    // its senders shares a core with another rank busy in this step (they
    // take turns, so the sender may be switched out). Ranks with a core to
    // themselves, or with only idle ranks beside them, wait for nobody.
    // (Only when ranks outnumber cores, so the packing below always runs
    // after it and finds the slowest rank.)
    if (const double w = p.wait_for(n); w > 0 && p.cores > 0 && n > p.cores) {
      std::vector<int> busy(static_cast<size_t>(p.cores), 0);
      for (int r = 0; r < n; ++r)
        if (!st.ranks[r].empty()) ++busy[static_cast<size_t>(r % p.cores)];
      const auto crowded = [&](int r) { return busy[static_cast<size_t>(r % p.cores)] >= 2; };
      for (int r = 0; r < n; ++r) {
        if (rc[r].recvs == 0) continue;
        bool waits = crowded(r);
        for (const Op& op : st.ranks[r])
          if ((op.kind == OpKind::recv || op.kind == OpKind::recv_reduce) && op.peer >= 0 && op.peer < n)
            waits = waits || crowded(op.peer);
        if (waits) rc[r].terms.wait_s = w;
      }
    }
    // Oversubscribed cores: the rank threads are bound round-robin, rank r
    // to core r mod cores (RunOptions::pin_threads), and a core runs the
    // byte work of its ranks one after another, so a rank's byte terms
    // (β, γ, δ, ε) stretch to the byte work of every rank on its core. Equal
    // works on 3 ranks and 2 cores take 2× one rank's work on the shared
    // core, not the 1.5× of perfect time slicing (measured here: ring at
    // n = 3 runs 1.9–2.1× at 64 MiB). The placement is fixed, so this is
    // the makespan of that assignment; no better packing is assumed.
    if (p.cores > 0 && n > p.cores) {
      std::vector<double> load(static_cast<size_t>(p.cores), 0.0);
      for (int r = 0; r < n; ++r) {
        const auto& t = rc[r].terms;
        load[static_cast<size_t>(r % p.cores)] += t.beta_s + t.gamma_s + t.delta_s + t.coherence_s;
      }
      worst = -1;
      for (int r = 0; r < n; ++r) {
        auto& t = rc[r].terms;
        const double own = t.beta_s + t.gamma_s + t.delta_s + t.coherence_s;
        const double k = own > 0 ? load[static_cast<size_t>(r % p.cores)] / own : 1.0;
        t.beta_s *= k;
        t.gamma_s *= k;
        t.delta_s *= k;
        t.coherence_s *= k;
        if (t.total() > worst) {
          worst = t.total();
          worst_r = r;
        }
      }
    }
    // Shared memory bus (roofline): the step's traffic over the aggregate
    // bandwidth of the threads that can stream at once.
    double bus = 0;
    if (const double B = p.mem_bw_at(p.bus_threads(n), fp); B > 0) {
      int64_t traffic = 0;
      for (int r = 0; r < n; ++r) traffic += rc[r].bytes_traffic;
      bus = static_cast<double>(traffic) / B;
    }
    worst = std::max(0.0, worst);
    std::vector<double> fin(n);
    for (int r = 0; r < n; ++r) {
      double start = prev[r];
      for (const Op& op : st.ranks[r])
        if (is_comm(op.kind) && op.peer >= 0 && op.peer < n) start = std::max(start, prev[op.peer]);
      const double own = rc[r].terms.total();
      fin[r] = start + (rc[r].bytes_traffic > 0 ? std::max(own, bus) : own);
    }
    CostTerms crit = rc[worst_r].terms;
    crit.bus_s = std::max(0.0, bus - worst);
    crit.barrier_s = p.barrier_for(n);
    pr.step_s.push_back(crit.total());
    pr.critical_rank.push_back(worst_r);
    pr.bus_s.push_back(bus);
    pr.footprint_bytes.push_back(fp);
    pr.lockstep += crit;
    pr.ranks.push_back(std::move(rc));
    pr.finish_s.push_back(fin);
    prev = std::move(fin);
  }
  pr.lockstep_s = pr.lockstep.total();
  pr.pipelined_s = n > 0 ? *std::max_element(prev.begin(), prev.end()) : 0.0;
  return pr;
}

std::vector<double> predicted_step_us(const Schedule& s, const CostParams& p) {
  std::vector<double> us;
  for (double t : predict(s, p).step_s) us.push_back(t * 1e6);
  return us;
}

namespace {
// The cost model's prices for the closed forms the algorithm files state:
// the same message and reduction terms as msgs() and red() above.
class ParamsPrices final : public HockneyPrices {
 public:
  explicit ParamsPrices(const CostParams& p) : p_(p) {}
  HockneyTime msgs(double k, double bytes) const override {
    const CostTerms t = microddp::msgs(p_, k, bytes);
    return {t.alpha_s, t.beta_s, t.gamma_s};
  }
  HockneyTime reduce(double bytes) const override {
    const CostTerms t = red(p_, bytes);
    return {t.alpha_s, t.beta_s, t.gamma_s};
  }

 private:
  const CostParams& p_;
};

const ClosedForm* registered_closed_form(const CollectiveSpec& sp) {
  const AlgorithmInfo* a = find_algorithm(sp.algorithm, sp.collective);
  if (!a) return nullptr;
  const auto& cf = a->variant(sp.collective)->closed_form;
  return cf ? &*cf : nullptr;
}
}  // namespace

std::optional<CostTerms> closed_form(const CollectiveSpec& sp, const CostParams& p) {
  if (sp.world_size <= 1) return CostTerms{};
  const ClosedForm* cf = registered_closed_form(sp);
  if (!cf || !cf->time) return std::nullopt;
  const std::optional<HockneyTime> h = cf->time(sp, ParamsPrices(p));
  if (!h) return std::nullopt;
  CostTerms t;
  t.alpha_s = h->alpha_s;
  t.beta_s = h->beta_s;
  t.gamma_s = h->gamma_s;
  return t;
}

std::string closed_form_text(const CollectiveSpec& sp) {
  const ClosedForm* cf = registered_closed_form(sp);
  return cf && cf->text ? cf->text(sp) : "";
}

double busbw_factor(Collective c, int n) {
  if (n <= 0) return 0;
  switch (c) {
    case Collective::all_reduce: return 2.0 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::gather:
    case Collective::scatter:
    case Collective::all_to_all: return static_cast<double>(n - 1) / n;
    case Collective::broadcast:
    case Collective::reduce: return 1.0;
    case Collective::barrier: return 0.0;
  }
  return 0.0;
}

int64_t bench_bytes(const CollectiveSpec& spec) {
  int64_t m = 0;
  for (int r = 0; r < spec.world_size; ++r)
    m = std::max({m, spec.input_count(r), spec.output_count(r)});
  return m * static_cast<int64_t>(dtype_size(spec.dtype));
}

}  // namespace microddp
