// The MPI library's own collectives (MPI_Allreduce etc.), timed as the
// reference rows of bench --reference mpi (core/exec/mpi/backend_mpi.h).
#include <algorithm>
#include <cctype>
#include <optional>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "core/exec/mpi/mpi_internal.h"

namespace microddp {

using namespace mpi_detail;

// ============================================================ the library

namespace {

struct LibCall {
  const char* param;                  // coll_tuned_<param>_algorithm
  std::vector<std::string> names;     // index = Open MPI's number
};
// coll/tuned's parameters for c: first the one of the call with equal
// counts (the only call bench --reference mpi makes: MPI_Allgather,
// MPI_Reduce_scatter_block, ...), then the "v" variant's where tuned has
// one. Each has its own numbering. From `ompi_info --param coll tuned
// --level 9` (Open MPI 4.1.4; coll_tuned_<coll>_decision.c).
const std::vector<LibCall>& lib_params(Collective c) {
  static const std::vector<LibCall> allreduce{
      {"allreduce",
       {"ignore", "basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"}}};
  static const std::vector<LibCall> bcast{{"bcast",
                                           {"ignore", "basic_linear", "chain", "pipeline", "split_binary_tree",
                                            "binary_tree", "binomial", "knomial", "scatter_allgather",
                                            "scatter_allgather_ring"}}};
  static const std::vector<LibCall> reduce{
      {"reduce",
       {"ignore", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner"}}};
  static const std::vector<LibCall> allgather{
      {"allgather", {"ignore", "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc"}},
      {"allgatherv", {"ignore", "default", "bruck", "ring", "neighbor", "two_proc"}}};
  static const std::vector<LibCall> reduce_scatter{
      {"reduce_scatter_block", {"ignore", "basic_linear", "recursive_doubling", "recursive_halving", "butterfly"}},
      {"reduce_scatter", {"ignore", "non-overlapping", "recursive_halving", "ring", "butterfly"}}};
  static const std::vector<LibCall> gather{{"gather", {"ignore", "basic_linear", "binomial", "linear_sync"}}};
  static const std::vector<LibCall> scatter{{"scatter", {"ignore", "basic_linear", "binomial", "linear_nb"}}};
  static const std::vector<LibCall> alltoall{
      {"alltoall", {"ignore", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"}}};
  static const std::vector<LibCall> barrier{
      {"barrier", {"ignore", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree"}}};
  switch (c) {
    case Collective::all_reduce: return allreduce;
    case Collective::broadcast: return bcast;
    case Collective::reduce: return reduce;
    case Collective::all_gather: return allgather;
    case Collective::reduce_scatter: return reduce_scatter;
    case Collective::gather: return gather;
    case Collective::scatter: return scatter;
    case Collective::all_to_all: return alltoall;
    case Collective::barrier: return barrier;
  }
  return barrier;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& a : v) out += (out.empty() ? "" : ", ") + a;
  return out;
}

// The reduction MPI should apply for float16 / bfloat16 (no MPI type).
DType g_user_dtype = DType::float16;
ReduceOp g_user_op = ReduceOp::sum;
void user_reduce(void* in, void* inout, int* len, MPI_Datatype*) {
  kernels::reduce(g_user_dtype, g_user_op, inout, in, *len);
}

int as_int(int64_t v, const char* what) {
  if (v > INT_MAX) throw UsageError(fmt::format("{} {} is beyond what one MPI call takes (2^31-1)", what, v));
  return static_cast<int>(v);
}

}  // namespace

std::string mpi_library_function(const CollectiveSpec& sp) {
  const bool v = !sp.counts.empty();
  switch (sp.collective) {
    case Collective::all_reduce: return "MPI_Allreduce";
    case Collective::broadcast: return "MPI_Bcast";
    case Collective::reduce: return "MPI_Reduce";
    case Collective::all_gather: return v ? "MPI_Allgatherv" : "MPI_Allgather";
    case Collective::reduce_scatter: return v ? "MPI_Reduce_scatter" : "MPI_Reduce_scatter_block";
    case Collective::gather: return v ? "MPI_Gatherv" : "MPI_Gather";
    case Collective::scatter: return v ? "MPI_Scatterv" : "MPI_Scatter";
    case Collective::all_to_all: return "MPI_Alltoall";
    case Collective::barrier: return "MPI_Barrier";
  }
  return "?";
}

std::vector<std::string> mpi_library_algorithms(Collective c) {
  const LibCall& p = lib_params(c).front();
  return {p.names.begin() + 1, p.names.end()};
}

MpiTunedChoice mpi_tuned_choice(Collective c, const std::string& algorithm) {
  const auto& params = lib_params(c);
  const LibCall& call = params.front();
  const std::string param = fmt::format("coll_tuned_{}_algorithm", call.param);
  if (auto it = std::find(call.names.begin() + 1, call.names.end(), algorithm); it != call.names.end())
    return {param, static_cast<int>(it - call.names.begin())};
  const std::string valid = join(mpi_library_algorithms(c));
  // A name of the "v" variant only: forcing it would leave the call bench
  // makes to Open MPI's own choice while the header named the forced one.
  const auto function = [](std::string p) {  // "reduce_scatter_block" -> "MPI_Reduce_scatter_block"
    p[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(p[0])));
    return "MPI_" + p;
  };
  for (size_t i = 1; i < params.size(); ++i)
    if (std::find(params[i].names.begin() + 1, params[i].names.end(), algorithm) != params[i].names.end())
      throw UsageError(fmt::format(
          "Open MPI algorithm '{}' is {}'s (counts that differ per rank), but bench calls {} (equal counts), whose "
          "{} has no '{}' (expected one of: {})",
          algorithm, function(params[i].param), function(call.param), param, algorithm, valid));
  throw UsageError(fmt::format("unknown Open MPI algorithm '{}' for {} (expected one of: {})", algorithm, name(c), valid));
}

void mpi_check_library_algorithm_ranks(Collective c, const std::string& algorithm, int world_size) {
  const MpiTunedChoice choice = mpi_tuned_choice(c, algorithm);
  // coll/base's *_intra_two_procs (allgather, alltoall, barrier) return
  // MPI_ERR_UNSUPPORTED_OPERATION on any other size, which
  // MPI_ERRORS_ARE_FATAL turns into an abort of the whole job. On one rank
  // coll/self serves the call and the forced algorithm never runs.
  if (algorithm == "two_proc" && world_size != 2) {
    std::string others;
    for (const auto& a : mpi_library_algorithms(c))
      if (a != algorithm) others += (others.empty() ? "" : ", ") + a;
    throw UsageError(fmt::format(
        "Open MPI algorithm 'two_proc' ({} {}) runs on exactly 2 ranks, not on {}: {}; run it under mpirun -n 2, "
        "or force another {} algorithm: {}",
        choice.param, choice.number, world_size,
        world_size == 1 ? "coll/self serves a 1-rank call, so two_proc would never run"
                        : "Open MPI fails the call (MPI_ERR_UNSUPPORTED_OPERATION) and aborts the job",
        name(c), others));
  }
}

namespace {

// The world size mpirun gave this process, read before MPI starts: 1 for
// a process mpirun did not start (MPI then runs it as a singleton), -1
// when a launcher started it without saying how many.
int launch_world_size() {
  if (!mpi_launched()) return 1;
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* e = std::getenv(v); e && *e) {
      char* end = nullptr;
      const long n = std::strtol(e, &end, 10);
      if (*end == '\0' && n > 0 && n <= INT_MAX) return static_cast<int>(n);
    }
  return -1;
}

}  // namespace

void mpi_force_library_algorithm(Collective c, const std::string& algorithm) {
  const MpiTunedChoice choice = mpi_tuned_choice(c, algorithm);
  int inited = 0;
  MPI_Initialized(&inited);
  if (inited)
    throw UsageError(fmt::format("--mpi-algorithm {} must be chosen before MPI starts", algorithm));
  if (const int n = launch_world_size(); n > 0) mpi_check_library_algorithm_ranks(c, algorithm, n);
  // Numbers rather than names: every Open MPI version parses those.
  setenv(("OMPI_MCA_" + choice.param).c_str(), std::to_string(choice.number).c_str(), 1);
  setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
}

namespace {

// One MPI_T control variable by name, as text (ints and booleans in
// decimal, an enum's value by its item's name when `enum_name`); nullopt
// when no such variable is loaded or it cannot be read.
std::optional<std::string> read_cvar(const std::string& name, bool enum_name = false) {
  int index = -1;
  if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS || index < 0) return std::nullopt;
  char nm[256], desc[8];
  int nl = sizeof nm, dl = sizeof desc, verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum en = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(index, nm, &nl, &verbosity, &type, &en, desc, &dl, &bind, &scope) != MPI_SUCCESS)
    return std::nullopt;
  if (bind != MPI_T_BIND_NO_OBJECT) return std::nullopt;
  MPI_T_cvar_handle h;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &h, &count) != MPI_SUCCESS) return std::nullopt;
  std::optional<std::string> out;
  if (type == MPI_CHAR) {
    std::vector<char> buf(static_cast<size_t>(std::max(count, 1)) + 1, '\0');
    if (MPI_T_cvar_read(h, buf.data()) == MPI_SUCCESS) out = std::string(buf.data());
  } else if (type == MPI_INT || type == MPI_UNSIGNED || type == MPI_C_BOOL) {
    // Read into a zeroed int-sized buffer: a C bool fills its first byte.
    int v = 0;
    if (count == 1 && MPI_T_cvar_read(h, &v) == MPI_SUCCESS) {
      if (type == MPI_C_BOOL) v = *reinterpret_cast<const bool*>(&v) ? 1 : 0;
      out = std::to_string(v);
      int items = 0;
      nl = sizeof nm;
      if (enum_name && en != MPI_T_ENUM_NULL && MPI_T_enum_get_info(en, &items, nm, &nl) == MPI_SUCCESS)
        for (int i = 0; i < items; ++i) {
          int value = 0;
          char item[128];
          int il = sizeof item;
          if (MPI_T_enum_get_item(en, i, &value, item, &il) == MPI_SUCCESS && value == v) out = std::string(item);
        }
    }
  }
  MPI_T_cvar_handle_free(&h);
  return out;
}

}  // namespace

MpiCollSettings mpi_coll_settings(const CollectiveSpec& spec) {
  MpiCollSettings st;
  st.function = mpi_library_function(spec);
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(version, &len);
  st.library = std::string(version, static_cast<size_t>(std::max(len, 0)));
  st.library = st.library.substr(0, st.library.find('\n'));
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return st;
  st.read = true;
  st.coll = read_cvar("coll").value_or("");
  if (auto p = read_cvar("coll_tuned_priority")) st.tuned_priority = std::atoi(p->c_str());
  // Components that serve blocking intra-communicator collectives in place
  // of tuned when their priority is higher (Open MPI 4.1 and 5.0).
  for (const char* c : {"basic", "sm", "han", "adapt", "hcoll", "ucc", "acoll", "xhc", "accelerator", "ftagree"})
    if (auto p = read_cvar(fmt::format("coll_{}_priority", c))) st.priorities.emplace_back(c, std::atoi(p->c_str()));
  st.dynamic_rules = read_cvar("coll_tuned_use_dynamic_rules").value_or("0") != "0";
  st.rules_file = read_cvar("coll_tuned_dynamic_rules_filename").value_or("");
  // MPI_Allreduce -> coll_tuned_allreduce_algorithm (tuned has no v-variant
  // parameter for gatherv / scatterv: no such variable, nothing forced).
  std::string fn = st.function.substr(4);
  std::transform(fn.begin(), fn.end(), fn.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const std::string param = fmt::format("coll_tuned_{}_algorithm", fn);
  if (auto v = read_cvar(param, true)) {
    st.forced_param = param;
    if (*v != "0" && *v != "ignore") st.forced = *v;
  }
  MPI_T_finalize();
  return st;
}

MpiLibraryResult run_mpi_library(const CollectiveSpec& sp, const RankData& inputs, int iterations, int warmup) {
  mpi_init_once();
  sp.validate();
  const int me = me_world();
  const int n = sp.world_size;
  const int np = mpi_world_size();
  const size_t es = dtype_size(sp.dtype);
  const bool inputs_ok = me < n && static_cast<int>(inputs.size()) == n &&
                         inputs[me].size() == static_cast<size_t>(sp.input_count(me)) * es;
  RunOptions o;
  o.iterations = iterations;
  agree(make_header(2, sp, &o, warmup, inputs_ok || me >= n),
        inputs_ok || me >= n ? "" : fmt::format("rank {} input has the wrong shape for {}", me, name(sp.collective)));
  if (np != n)
    throw MpiJobUsageError(fmt::format("the spec is for world size {} but mpirun started {} ranks (use mpirun -n {})", n, np, n));
  if (iterations < 1) throw MpiJobUsageError(fmt::format("iterations must be >= 1, not {}", iterations));

  std::vector<std::byte> in = inputs[me];
  std::vector<std::byte> out(static_cast<size_t>(sp.output_count(me)) * es);
  if (needs_premul(sp) && !in.empty()) kernels::premul_avg(sp.dtype, in.data(), in.data(), sp.input_count(me), n);

  // Types and ops.
  MPI_Datatype type = MPI_BYTE;
  MPI_Datatype owned = MPI_DATATYPE_NULL;
  switch (sp.dtype) {
    case DType::int32: type = MPI_INT32_T; break;
    case DType::int64: type = MPI_INT64_T; break;
    case DType::float32: type = MPI_FLOAT; break;
    case DType::float64: type = MPI_DOUBLE; break;
    case DType::float16:
    case DType::bfloat16:
      MPI_Type_contiguous(2, MPI_BYTE, &owned);
      MPI_Type_commit(&owned);
      type = owned;
      break;
  }
  MPI_Op op = MPI_SUM;
  MPI_Op owned_op = MPI_OP_NULL;
  if (owned != MPI_DATATYPE_NULL) {
    g_user_dtype = sp.dtype;
    g_user_op = sp.op;
    MPI_Op_create(&user_reduce, 1, &owned_op);
    op = owned_op;
  } else {
    switch (sp.op) {
      case ReduceOp::sum:
      case ReduceOp::avg: op = MPI_SUM; break;
      case ReduceOp::prod: op = MPI_PROD; break;
      case ReduceOp::min: op = MPI_MIN; break;
      case ReduceOp::max: op = MPI_MAX; break;
    }
  }

  std::vector<int> counts(n), displs(n);
  for (int r = 0; r < n; ++r) {
    counts[r] = as_int(sp.block(r), "block");
    displs[r] = as_int(sp.displ(r), "displacement");
  }
  const int count = as_int(sp.count, "count");
  const bool v = !sp.counts.empty();
  const int root = sp.root;
  void* ip = in.empty() ? nullptr : in.data();
  void* op_ = out.empty() ? nullptr : out.data();
  if (sp.collective == Collective::broadcast && me == root) std::memcpy(op_, ip, out.size());

  auto call = [&] {
    switch (sp.collective) {
      case Collective::all_reduce: MPI_Allreduce(ip, op_, count, type, op, g_comm); break;
      case Collective::broadcast: MPI_Bcast(op_, count, type, root, g_comm); break;
      case Collective::reduce: MPI_Reduce(ip, op_, count, type, op, root, g_comm); break;
      case Collective::all_gather:
        if (v) MPI_Allgatherv(ip, counts[me], type, op_, counts.data(), displs.data(), type, g_comm);
        else MPI_Allgather(ip, count, type, op_, count, type, g_comm);
        break;
      case Collective::reduce_scatter:
        if (v) MPI_Reduce_scatter(ip, op_, counts.data(), type, op, g_comm);
        else MPI_Reduce_scatter_block(ip, op_, count, type, op, g_comm);
        break;
      case Collective::gather:
        if (v) MPI_Gatherv(ip, counts[me], type, op_, counts.data(), displs.data(), type, root, g_comm);
        else MPI_Gather(ip, count, type, op_, count, type, root, g_comm);
        break;
      case Collective::scatter:
        if (v) MPI_Scatterv(ip, counts.data(), displs.data(), type, op_, counts[me], type, root, g_comm);
        else MPI_Scatter(ip, count, type, op_, count, type, root, g_comm);
        break;
      case Collective::all_to_all: MPI_Alltoall(ip, count, type, op_, count, type, g_comm); break;
      case Collective::barrier: MPI_Barrier(g_comm); break;
    }
  };
  for (int i = 0; i < warmup; ++i) call();
  MPI_Barrier(g_comm);
  const int64_t t0 = clock_ns();
  for (int i = 0; i < iterations; ++i) call();
  const int64_t mine = clock_ns() - t0;
  int64_t slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_INT64_T, MPI_MAX, g_comm);

  if (owned_op != MPI_OP_NULL) MPI_Op_free(&owned_op);
  if (owned != MPI_DATATYPE_NULL) MPI_Type_free(&owned);
  if (needs_finish_avg(sp) && !out.empty()) kernels::finish_avg(sp.dtype, out.data(), sp.output_count(me), n);

  MpiLibraryResult res;
  res.function = mpi_library_function(sp);
  res.seconds = static_cast<double>(slowest) * 1e-9 / iterations;
  res.outputs.resize(n);
  auto blobs = gather_blobs(me, n, out, [&](int r) { return sp.output_count(r) * static_cast<int64_t>(es); });
  if (me == 0)
    for (int r = 0; r < n; ++r) {
      const auto want = static_cast<size_t>(sp.output_count(r)) * es;
      if (blobs[r].size() != want)
        throw wire::WireError(fmt::format("rank {}'s output of {} is {} bytes, expected {}", r, res.function,
                                          blobs[r].size(), want));
      res.outputs[r] = std::move(blobs[r]);
    }
  else
    res.outputs[me] = std::move(out);
  return res;
}

}  // namespace microddp
