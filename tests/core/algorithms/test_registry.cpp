// The algorithm registry (core/algorithms/registry.h): the built-in records
// and a toy algorithm registered at run time, seen by every consumer: the
// list, the generator, the checker, the threads backend, the cost model.
#include <doctest/doctest.h>

#include <cstring>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/checker.h"
#include "core/model/cost_model.h"
#include "core/record/data.h"

using namespace microddp;

namespace {

// toy_star: a broadcast in ONE step, the root sending to every other rank
// at once (so its port serializes n-1 messages).
Schedule toy_star(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  b.set_chunks({0, s.count});
  b.copy_first(s.root, {Buf::input, 0}, {Buf::output, 0}, s.count);
  b.step("broadcast");
  for (int r = 0; r < s.world_size; ++r) {
    if (r == s.root) continue;
    b.send(s.root, r, {Buf::input, 0}, s.count);
    b.recv(r, s.root, {Buf::output, 0}, s.count);
  }
  return b.finish();
}

AlgorithmInfo toy_info() {
  AlgorithmInfo a;
  a.name = "toy_star";
  a.description = "test toy: the root sends to every rank in one step";
  a.layout = Layout::star;
  a.uses_root = true;
  a.refuse = [](const CollectiveSpec& s) {
    if (s.count > 1000) throw UsageError("toy_star takes at most 1000 elements, got " + std::to_string(s.count));
  };
  a.serves.push_back({Collective::broadcast, toy_star,
                      ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                                   return static_cast<double>(sp.world_size - 1) * m.msgs(1, spec_bytes(sp));
                                 },
                                 fixed_text("(n-1)·(α + S·β)  (one port at the root)")}});
  return a;
}

// Registers the toy for one test case and removes it again, so other suites
// in this binary see only the built-in algorithms.
struct ToyRegistered {
  ToyRegistered() { register_algorithm(toy_info()); }
  ~ToyRegistered() { unregister_algorithm("toy_star", Collective::broadcast); }
};

CollectiveSpec toy_spec(int n, int64_t count, int root) {
  CollectiveSpec s;
  s.collective = Collective::broadcast;
  s.algorithm = "toy_star";
  s.world_size = n;
  s.count = count;
  s.root = root;
  s.dtype = DType::int32;
  return s;
}

}  // namespace

TEST_SUITE("registry") {
  TEST_CASE("the built-in algorithms, in teaching order") {
    using V = std::vector<std::string>;
    CHECK(algorithms_for(Collective::broadcast) == V{"naive", "tree", "binomial"});
    CHECK(algorithms_for(Collective::gather) == V{"naive", "tree", "binomial"});
    CHECK(algorithms_for(Collective::barrier) == V{"naive", "tree", "dissemination"});
    CHECK(algorithms_for(Collective::all_reduce) ==
          V{"naive", "tree", "ring", "ring_unchunked", "recursive_doubling", "halving_doubling", "hierarchical",
            "double_binary_tree", "one_shot", "two_shot", "nvls"});
    CHECK(algorithms_for(Collective::all_gather) == V{"naive", "ring", "recursive_doubling"});
    CHECK(algorithms_for(Collective::reduce_scatter) == V{"naive", "ring", "halving_doubling"});
    CHECK(algorithms_for(Collective::all_to_all) == V{"naive"});
    CHECK(preferred_algorithm(Collective::all_reduce) == "ring");
    CHECK(preferred_algorithm(Collective::broadcast) == "naive");
  }

  TEST_CASE("records carry the layout and the flags the viewer and printer use") {
    CollectiveSpec s;
    s.algorithm = "ring_unchunked";
    CHECK(layout_of(s) == Layout::ring);
    CHECK(algorithm_info(s).whole_input_chunks);
    s.algorithm = "ring";
    CHECK(algorithm_info(s).pipelines);
    CHECK_FALSE(algorithm_info(s).whole_input_chunks);
    s.algorithm = "halving_doubling";
    CHECK(layout_of(s) == Layout::hypercube);
    s.collective = Collective::broadcast;
    s.algorithm = "binomial";
    CHECK(layout_of(s) == Layout::binomial_tree);
    s.algorithm = "naive";
    CHECK(layout_of(s) == Layout::star);
    CHECK(algorithm_info(s).uses_root);
    // The same name, another record: all_to_all's naive is the pairwise exchange.
    s.collective = Collective::all_to_all;
    CHECK(layout_of(s) == Layout::none);
    CHECK_FALSE(algorithm_info(s).uses_root);
    s.algorithm = "nope";
    CHECK(layout_of(s) == Layout::none);
    CHECK(find_algorithm("nope", Collective::all_to_all) == nullptr);
    CHECK_THROWS_WITH_AS(algorithm_info(s), "unknown algorithm 'nope' for all_to_all (expected one of: naive)",
                         UsageError);
  }

  TEST_CASE("refusals come before generation and name the value") {
    CollectiveSpec s;
    s.algorithm = "tree";
    s.world_size = 3;
    s.count = 4;
    s.segments = 2;
    CHECK_THROWS_WITH_AS(make_schedule(s), "segments = 2 needs the chunked ring; algorithm 'tree' does not pipeline",
                         UsageError);
    s.algorithm = "ring";
    CHECK(make_schedule(s).num_steps() == 4);
  }

  TEST_CASE("duplicates and incomplete records are refused") {
    const ToyRegistered toy;
    CHECK_THROWS_WITH_AS(register_algorithm(toy_info()),
                         "register_algorithm: algorithm 'toy_star' for broadcast is already registered",
                         std::logic_error);
    AlgorithmInfo ring = toy_info();
    ring.name = "ring";
    ring.serves[0].collective = Collective::all_reduce;
    CHECK_THROWS_WITH_AS(register_algorithm(ring),
                         "register_algorithm: algorithm 'ring' for all_reduce is already registered", std::logic_error);
    AlgorithmInfo empty;
    CHECK_THROWS_AS(register_algorithm(empty), std::logic_error);
    AlgorithmInfo no_gen = toy_info();
    no_gen.name = "toy_without_generator";
    no_gen.serves[0].generate = nullptr;
    CHECK_THROWS_WITH_AS(register_algorithm(no_gen),
                         "register_algorithm: 'toy_without_generator' for broadcast has no generator",
                         std::logic_error);
    // A refused record leaves nothing behind.
    CHECK(algorithms_for(Collective::broadcast).size() == 4);
    CHECK(algorithms_for(Collective::all_reduce).size() == 11);
  }

  TEST_CASE("a toy registered at run time is listed, generated, checked, run and predicted") {
    {
      const ToyRegistered toy;
      CHECK(algorithms_for(Collective::broadcast) == std::vector<std::string>{"naive", "tree", "binomial", "toy_star"});
      CHECK(algorithms_for(Collective::reduce).size() == 3);  // it serves broadcast only

      const CollectiveSpec s = toy_spec(4, 5, 2);
      const Schedule sch = make_schedule(s);
      REQUIRE(sch.num_steps() == 1);
      CHECK(sch.steps[0].ranks[2].size() == 4);  // the root: its copy, then 3 sends
      CHECK_NOTHROW(check_schedule(sch));

      // Rank r holds 10r+1..10r+5; every rank must end with the root's 21..25.
      const RunResult res = run_threads(sch, parse_data(s, "1,2,3,4,5;11,12,13,14,15;21,22,23,24,25;31,32,33,34,35"));
      for (int r = 0; r < 4; ++r) {
        CAPTURE(r);
        REQUIRE(res.outputs[r].size() == 5 * sizeof(int32_t));
        int32_t got[5];
        std::memcpy(got, res.outputs[r].data(), sizeof got);
        for (int i = 0; i < 5; ++i) CHECK(got[i] == 21 + i);
      }

      // The cost model prices the toy's own closed form, and it agrees with
      // the schedule: the root's port carries 3 messages of 20 bytes.
      CostParams p;
      p.alpha = 1e-6;
      p.beta = 1e-9;
      const auto cf = closed_form(s, p);
      REQUIRE(cf);
      CHECK(cf->alpha_s == doctest::Approx(3e-6));
      CHECK(cf->beta_s == doctest::Approx(3 * 20 * 1e-9));
      CHECK(cf->gamma_s == 0);
      CHECK(predict(sch, p).lockstep_s == doctest::Approx(cf->total()).epsilon(1e-12));
      CHECK(closed_form_text(s) == "(n-1)·(α + S·β)  (one port at the root)");

      // The layout hint and the flags the app reads.
      CHECK(layout_of(s) == Layout::star);
      CHECK(algorithm_info(s).uses_root);
      CHECK_FALSE(algorithm_info(s).pipelines);

      // Its own refusal, before generation.
      CHECK_THROWS_WITH_AS(make_schedule(toy_spec(4, 2000, 0)), "toy_star takes at most 1000 elements, got 2000",
                           UsageError);
    }
    // Unregistered again: gone from the list and refused by name.
    CHECK(algorithms_for(Collective::broadcast).size() == 3);
    CHECK_THROWS_AS(make_schedule(toy_spec(4, 5, 2)), UsageError);
    CHECK(closed_form_text(toy_spec(4, 5, 2)).empty());
    CHECK_FALSE(unregister_algorithm("toy_star", Collective::broadcast));
  }
}
