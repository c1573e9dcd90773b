// Mismatched calls fail on every rank with the same clear error naming the
// rank that differs; afterwards the ranks still work together.
#include <fmt/format.h>

#include "tests/mpi/mpi_test_util.h"

using namespace microddp;
using namespace microddp::mpitest;

namespace {

CollectiveSpec base() {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = mpi_world_size();
  s.count = 8;
  return s;
}

// Every rank calls run_mpi with its own spec; returns the error text ("" if none).
std::string run_expecting_error(const CollectiveSpec& s) {
  const Schedule sch = make_schedule(s);
  try {
    run_mpi(sch, mixed_inputs(s, 2));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

void still_works() {
  const CollectiveSpec s = base();
  CHECK(same_as_threads(s, Mode::lockstep, 4) == 1);
}

}  // namespace

TEST_SUITE("mpi_agreement") {
  TEST_CASE("a world size other than mpirun's is refused on every rank, naming both") {
    CollectiveSpec s = base();
    s.world_size = mpi_world_size() + 1;
    const std::string err = run_expecting_error(s);
    CHECK(err.find(fmt::format("world size {}", s.world_size)) != std::string::npos);
    CHECK(err.find(fmt::format("started {} ranks", mpi_world_size())) != std::string::npos);
    still_works();
  }
  TEST_CASE("a rank called with another count: every rank names it") {
    const int n = mpi_world_size();
    if (n < 2) return;
    CollectiveSpec s = base();
    if (mpi_rank() == n - 1) s.count = 9;
    const std::string err = run_expecting_error(s);
    CHECK(err == fmt::format("mpi backend: ranks disagree: rank {} called with count 9 but rank 0 with count 8", n - 1));
    still_works();
  }
  TEST_CASE("a rank called with another repeat_steps: every rank names it") {
    const int n = mpi_world_size();
    if (n < 2) return;
    const CollectiveSpec s = base();
    const Schedule sch = make_schedule(s);
    RunOptions opt;
    opt.repeat_steps = mpi_rank() == n - 1 ? kRepeatStepsAuto : 3;
    std::string err;
    try {
      run_mpi(sch, mixed_inputs(s, 2), opt);
    } catch (const UsageError& e) {
      err = e.what();
    }
    CHECK(err == fmt::format("mpi backend: ranks disagree: rank {} called with repeat_steps auto but rank 0 with "
                             "repeat_steps 3",
                             n - 1));
    still_works();
  }
  TEST_CASE("a rank called with another collective or algorithm: every rank names it") {
    const int n = mpi_world_size();
    if (n < 2) return;
    CollectiveSpec s = base();
    if (mpi_rank() == 1) s.collective = Collective::all_gather;
    std::string err = run_expecting_error(s);
    CHECK(err == "mpi backend: ranks disagree: rank 1 called with collective all_gather but rank 0 with collective "
                 "all_reduce");
    s = base();
    if (mpi_rank() == n - 1) s.algorithm = "tree";
    err = run_expecting_error(s);
    CHECK(err == fmt::format("mpi backend: ranks disagree: rank {} called with algorithm tree but rank 0 with "
                             "algorithm ring",
                             n - 1));
    s = base();
    if (mpi_rank() == n - 1) s.dtype = DType::int64;
    err = run_expecting_error(s);
    CHECK(err.find(fmt::format("rank {} called with dtype int64", n - 1)) != std::string::npos);
    still_works();
  }
  TEST_CASE("inputs of the wrong shape on one rank") {
    const int n = mpi_world_size();
    if (n < 2) return;
    const CollectiveSpec s = base();
    const Schedule sch = make_schedule(s);
    RankData in = mixed_inputs(s, 1);
    if (mpi_rank() == n - 1) in[n - 1].resize(4);
    std::string err;
    try {
      run_mpi(sch, in);
    } catch (const UsageError& e) {
      err = e.what();
    }
    if (mpi_rank() == n - 1) CHECK(err == fmt::format("rank {} input has 1 elements but all_reduce needs 8", n - 1));
    else CHECK(err == fmt::format("mpi backend: ranks disagree: rank {} was given inputs of the wrong shape", n - 1));
    still_works();
  }
  TEST_CASE("timeout setting") {
    const double keep = mpi_timeout();
    CHECK_THROWS_AS(mpi_set_timeout(0), UsageError);
    mpi_set_timeout(12.5);
    CHECK(mpi_timeout() == 12.5);
    mpi_set_timeout(keep);
  }
}

TEST_SUITE("mpi_agreement") {
  TEST_CASE("MICRODDP_MPI_TIMEOUT: a positive finite number of seconds, at most one day") {
    CHECK(parse_mpi_timeout("30") == 30);
    CHECK(parse_mpi_timeout("0.5") == 0.5);
    CHECK(parse_mpi_timeout("86400") == 86400);
    const std::string give = "; give a number of seconds, > 0 and at most 86400 (one day)";
    auto refused = [](const std::string& text) -> std::string {
      try {
        parse_mpi_timeout(text);
      } catch (const UsageError& e) {
        return e.what();
      }
      return "accepted";
    };
    CHECK(refused("inf") == "MICRODDP_MPI_TIMEOUT='inf': more than one day" + give);
    CHECK(refused("1e30") == "MICRODDP_MPI_TIMEOUT='1e30': more than one day" + give);
    CHECK(refused("86400.5") == "MICRODDP_MPI_TIMEOUT='86400.5': more than one day" + give);
    CHECK(refused("0") == "MICRODDP_MPI_TIMEOUT='0': not above 0" + give);
    CHECK(refused("-5") == "MICRODDP_MPI_TIMEOUT='-5': not above 0" + give);
    CHECK(refused("-0") == "MICRODDP_MPI_TIMEOUT='-0': not above 0" + give);
    CHECK(refused("nan") == "MICRODDP_MPI_TIMEOUT='nan': not a number" + give);
    CHECK(refused("abc") == "MICRODDP_MPI_TIMEOUT='abc': not a number" + give);
    CHECK(refused("30s") == "MICRODDP_MPI_TIMEOUT='30s': not a number" + give);
    CHECK(refused(" 30") == "MICRODDP_MPI_TIMEOUT=' 30': not a number" + give);
    CHECK(refused("") == "MICRODDP_MPI_TIMEOUT='' (empty): not a number" + give);
    CHECK_THROWS_AS(mpi_set_timeout(1e30), UsageError);
  }
  TEST_CASE("options: ranks given the same agree; one given other options is named on every rank") {
    const int n = mpi_world_size();
    using Options = std::vector<std::pair<std::string, std::string>>;
    auto agree_error = [](const Options& mine) -> std::string {
      try {
        mpi_agree_on_options(mine);
      } catch (const MpiJobUsageError& e) {
        return e.what();
      }
      return "";
    };
    const Options same{{"--ranks", "4"}, {"--data", "1;2;3;4"}, {"--in-place", ""}};
    CHECK(agree_error(same) == "");
    if (n < 2) return;
    Options mine = same;
    if (mpi_rank() == n - 1) mine[1].second = "1;2;3;5";
    CHECK(agree_error(mine) ==
          fmt::format("mpi backend: ranks disagree: rank {} called with --data 1;2;3;5 but rank 0 with --data 1;2;3;4",
                      n - 1));
    mine = same;
    if (mpi_rank() == 1) mine.emplace_back("--trace", "t.json");
    CHECK(agree_error(mine) ==
          "mpi backend: ranks disagree: rank 1 called with --trace t.json but rank 0 without --trace");
    mine = same;
    if (mpi_rank() == 1) mine.pop_back();
    CHECK(agree_error(mine) == "mpi backend: ranks disagree: rank 1 called without --in-place but rank 0 with --in-place");
    // A long value is shown shortened (60 characters, then "...").
    mine = same;
    if (mpi_rank() == 1) mine[1].second = std::string(100, '7');
    CHECK(agree_error(mine) == "mpi backend: ranks disagree: rank 1 called with --data " + std::string(60, '7') +
                                   "... but rank 0 with --data 1;2;3;4");
    CHECK(agree_error(same) == "");  // and they still work together
  }
}
