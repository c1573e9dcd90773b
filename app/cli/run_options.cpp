#include "app/cli/run_options.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/exec/rank_program.h"
#include "core/ir/checker.h"
#include "core/ir/limits.h"
#include "core/labs/hang/hang.h"
#include "core/record/data.h"

namespace microddp::cli {

void add_run_options(CLI::App& app, RunArgs& a) {
  app.add_option("--collective,-c", a.collective,
                 "broadcast reduce gather scatter barrier all_reduce all_gather reduce_scatter all_to_all")
      ->capture_default_str();
  app.add_option("--algorithm,-a", a.algorithm, "naive tree binomial ring ring_unchunked recursive_doubling "
                                                "halving_doubling dissemination hierarchical (per collective), or "
                                                "auto: the fastest predicted")
      ->capture_default_str();
  app.add_option("--ranks,-n", a.ranks, "world size")->capture_default_str();
  app.add_option("--count", a.count, "elements per rank (see the shape table); default: from --data, else 8");
  app.add_option("--counts", a.counts, "per-rank block sizes a,b,... (gather, scatter, all_gather, reduce_scatter)");
  app.add_option("--dtype", a.dtype, "int32 int64 float16 bfloat16 float32 float64")->capture_default_str();
  app.add_option("--op", a.op, "sum prod min max avg")->capture_default_str();
  app.add_option("--root", a.root, "root rank")->capture_default_str();
  app.add_flag("--in-place", a.in_place, "output overwrites the input (NCCL's in-place convention)");
  app.add_option("--segments", a.segments, "ring: pipeline each chunk in this many segments")->capture_default_str();
  app.add_option("--channels", a.channels,
                 "ring, double_binary_tree: split the vector into this many slices run at once (NCCL's channels)")
      ->capture_default_str();
  auto* d = app.add_option("--data", a.data, "per-rank values: \"1,2,3;4,5,6;7,8,9\" (';' between ranks)")
                ->each([&a](const std::string&) { a.data_given = true; });
  auto* f = app.add_option("--input", a.input_file, "JSON file {\"inputs\": [[...], ...]}");
  auto* fl = app.add_option("--fill", a.fill,
                            "iota | rank | random:SEED. iota: rank r, element i holds (r*count + i) mod 1000 + 1 "
                            "(wraps at 1000: every value exact in float16, sums exact in float32 in any order); "
                            "rank: r + 1; random:SEED: integers -8..8");
  d->excludes(f)->excludes(fl);
  f->excludes(fl);
  app.add_option("--nodes", a.nodes, "ranks on this many nodes, contiguously (hierarchical; auto's model)")
      ->capture_default_str();
  app.add_option("--nics-per-node", a.nics, "auto's model: NICs per node (1..ranks per node)")->capture_default_str();
  app.add_option("--intra", a.intra, "auto's model: intra-node link, preset or ALPHA,BW (seconds, bytes/s)");
  app.add_option("--inter", a.inter, "auto's model: inter-node link, preset or ALPHA,BW (seconds, bytes/s)");
  app.add_option("--backend", a.backend, "threads | mpi | cuda | nccl")->capture_default_str();
  app.add_option("--mode", a.mode, "lockstep (barrier after each step) | free (ranks run ahead)")
      ->capture_default_str();
  app.add_option("--protocol", a.protocol,
                 "simple | ll | ll128 | auto: how each message travels (threads backend; auto: the lowest predicted "
                 "time)")
      ->capture_default_str();
}

Protocol parse_protocol_arg(const std::string& text) {
  if (text == "simple" || text == "ll" || text == "ll128") return parse_protocol(text);
  throw UsageError(fmt::format("--protocol '{}' is unknown (expected one of: simple, ll, ll128, auto)", text));
}

std::vector<std::pair<std::string, std::string>> given_options(const CLI::App& app) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->count() == 0 || o->get_name() == "--help") continue;
    std::string value;
    if (o->get_expected_min() > 0)
      for (const std::string& r : o->results()) value += (value.empty() ? "" : ",") + r;
    out.emplace_back(o->get_name(), value);
  }
  return out;
}

PreparedRun prepare_run(const RunArgs& a, const std::optional<CostParams>& model) {
  PreparedRun p;
  CollectiveSpec& s = p.spec;
  s.collective = parse_collective(a.collective);
  s.algorithm = a.algorithm;
  s.dtype = parse_dtype(a.dtype);
  s.op = parse_op(a.op);
  check_ranks(a.ranks);
  s.world_size = a.ranks;
  s.root = a.root;
  s.in_place = a.in_place;
  s.segments = a.segments;
  s.channels = a.channels;
  p.mode = parse_mode(a.mode);
  if (a.data_given && a.data.empty())
    throw UsageError("--data is empty (give one row per rank, e.g. \"1,2,3;4,5,6;7,8,9\", or leave it out)");
  if (a.counts && a.count)
    throw UsageError(fmt::format("--count {} and --counts {} both given: use --counts for uneven blocks, --count "
                                 "otherwise",
                                 *a.count, *a.counts));
  if (a.counts) s.counts = parse_counts_text("--counts", *a.counts);
  std::string input_text;
  if (!a.input_file.empty()) {
    std::ifstream in(a.input_file, std::ios::binary);
    if (!in) throw UsageError(fmt::format("cannot read input file '{}'", a.input_file));
    // Read in pieces, so an endless file (/dev/zero) meets the memory budget
    // instead of bad_alloc: JSON text takes several times its size once parsed.
    const double cap = memory_budget_bytes() / 8;
    std::string piece(1 << 20, '\0');
    while (in.read(piece.data(), static_cast<std::streamsize>(piece.size())) || in.gcount() > 0) {
      input_text.append(piece.data(), static_cast<size_t>(in.gcount()));
      if (static_cast<double>(input_text.size()) > cap)
        throw UsageError(fmt::format("input file '{}' is larger than {:.1f} GB, more than this machine's memory "
                                     "budget lets it parse",
                                     a.input_file, cap / 1e9));
    }
    if (in.bad()) throw UsageError(fmt::format("cannot read input file '{}'", a.input_file));
  }
  if (a.count) s.count = parse_count_text("--count", *a.count);
  else s.count = infer_count(s, a.data, input_text, 8);
  if (s.collective == Collective::barrier) s.count = 0;
  // Topology::make names a bad --nodes / --nics-per-node.
  const Topology topo = Topology::make(s.world_size, a.nodes, a.nics);
  s.nodes = a.nodes;
  s.validate();
  if (s.algorithm == "auto") {
    const CostParams flat = !a.intra.empty() ? parse_link("--intra", a.intra) : model ? *model : preset("nvlink");
    if (!a.inter.empty() || topo.nodes > 1) {
      if (a.inter.empty())
        throw UsageError(fmt::format("--inter is missing: --algorithm auto on --nodes {} needs the inter-node link "
                                     "(--inter PRESET|ALPHA,BW)",
                                     topo.nodes));
      Network net;
      net.topo = topo;
      net.intra = flat;
      net.inter = parse_link("--inter", a.inter);
      p.auto_choice = choose_algorithm(s, flat, &net);
      p.auto_model = fmt::format("{} node(s) x {}, {} NIC(s) per node, intra {}, inter {}", topo.nodes,
                                 topo.ranks_per_node, topo.nics_per_node, net.intra.name, net.inter.name);
    } else {
      // As predict prices a flat link: nvlink's nvls on its NVSwitch, no
      // nvls on a preset without a reducing switch (a profile's or an
      // ALPHA,BW link's name is never a preset's: unchanged).
      p.auto_choice = choose_algorithm_flat(s, flat, true);
      p.auto_model = flat.name == "custom" || flat.name.empty() ? "the given link" : flat.name;
    }
    s.algorithm = p.auto_choice->chosen;
  }
  p.schedule = make_schedule(s);
  if (a.protocol == "auto") {
    // threads and cuda run every protocol; the others simple only (check_protocol_supported).
    const std::vector<Protocol> allowed = a.backend == "threads" || a.backend == "cuda"
                                              ? all_protocols()
                                              : std::vector<Protocol>{Protocol::simple};
    const CostParams flat = model ? *model : preset("nvlink");
    p.protocol_choice = choose_protocol(p.schedule, flat, p.mode == Mode::lockstep, allowed);
    p.protocol = p.protocol_choice->chosen;
    p.protocol_model = fmt::format("{}{}", flat.name.empty() ? "the given link" : flat.name,
                                   p.protocol_choice->derived ? ", protocol lines derived (not measured)" : "");
  } else {
    p.protocol = parse_protocol_arg(a.protocol);
  }
  check_protocol_supported(a.backend, p.protocol);
  // Refuse runs that cannot fit in memory before allocating anything.
  double bytes = 0;
  for (int r = 0; r < s.world_size; ++r)
    for (int64_t e : rank_layout(p.schedule, r).storage_size) bytes += static_cast<double>(e) * dtype_size(s.dtype);
  check_memory(bytes, fmt::format("count {} on {} ranks", s.count, s.world_size));
  check_schedule(p.schedule);
  p.inputs = make_inputs(s, a.data, a.input_file.empty() ? std::nullopt : std::optional<std::string>(input_text),
                         a.fill);
  return p;
}


}  // namespace microddp::cli
