// A lesson's lab beat (app/cli/lesson_lab.h) on a lab's saved output, given
// through the LabCommand seam: no lab starts, and the shipped binary reads no
// variable for it. What the runner passes on (the NIC check, bench's
// "# warning: the CPUs were N% busy ..." line), the rows it reads back and
// prints, the command line it runs, and how it reads an exit of 2 (no lab
// here) and a failed run (tried once more).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/lesson_lab.h"

using namespace microddp;
using namespace microddp::cli;
using lesson::LabRequest;
using lesson::LabRun;

namespace {

// What a FILE* received, read back (std::tmpfile: removed when closed).
struct Captured {
  std::FILE* f = std::tmpfile();
  ~Captured() {
    if (f) std::fclose(f);
  }
  std::string text() const {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
    return s;
  }
};

// A LabCommand that "prints" `lines` and exits with `rc`, recording each
// command line it was given.
struct Saved {
  std::vector<std::string> lines;
  int rc = 0;
  std::vector<std::string> commands;
  LabCommand command() {
    return [this](const std::string& cmd, const LabLine& on_line) {
      commands.push_back(cmd);
      for (const auto& l : lines) on_line(l);
      return rc;
    };
  }
};

const char* kNic = "cluster: NIC check node0 -> node1: shaped 100.0 Mbit/s, measured 93.3 Mbit/s (93 %)";
const char* kBusy =
    "# warning: the CPUs were 87% busy with other work before this run; the times below are disturbed";
const char* kRow = R"({"algorithm": "ring", "bytes": 4096, "time_us": 1500.0, "p10_us": 1400.0, "p90_us": 1600.0})";

// As `microddp lesson` runs a lab beat: run_lab records the request, print_lab prints it.
std::string beat(const LabRequest& q, Saved& saved, LabRun* got = nullptr) {
  Captured out;
  const LabRun r =
      lesson::run_lab([&](const LabRequest& x) { return run_cluster_lab_with(x, saved.command(), out.f); }, q);
  print_lab(r, out.f);
  if (got) *got = r;
  return out.text();
}

LabRequest two_nodes() {
  LabRequest q;
  q.nodes = 2;
  q.ranks_per_node = 1;
  q.nic = "100mbit";
  q.algorithms = {"ring"};
  q.bytes = 4096;
  q.iters = 5;
  return q;
}

}  // namespace

TEST_SUITE("lesson_lab_output") {
  TEST_CASE("bench's busy warning and the NIC check are passed on above the beat's times") {
    Saved busy{{kNic, "some other line of the lab", kBusy, kRow}, 0, {}};
    LabRun r;
    const std::string text = beat(two_nodes(), busy, &r);
    CHECK(r.status == LabRun::Status::ok);
    REQUIRE(r.rows.size() == 1);
    CHECK(r.rows[0].algorithm == "ring");
    CHECK(r.rows[0].seconds == doctest::Approx(1.5e-3));
    CHECK(r.rows[0].p10 == doctest::Approx(1.4e-3));
    CHECK(r.rows[0].p90 == doctest::Approx(1.6e-3));
    // The two lines, in the lab's order, then the row (its model time after it), then the note.
    const std::string head = std::string(kNic) + "\n" + kBusy + "\n" +
                             "  ring           0.002 s median (p10 0.001, p90 0.002)";
    CHECK(text.rfind(head, 0) == 0);
    CHECK(text.find("some other line") == std::string::npos);
    CHECK(text.size() > head.size());
    CHECK(text.substr(text.size() - 44) == "(times measured in the lab on this machine)\n");
    // The command: this executable's cluster lab with bench's JSON rows.
    REQUIRE(busy.commands.size() == 1);
    const std::string& cmd = busy.commands[0];
    CHECK(cmd.find(" cluster --nodes 2 --ranks-per-node 1 --nic '100mbit' -- bench --backend mpi --collective "
                   "all_reduce --algorithm 'ring' -b 4096 -e 4096 -n 5 -w 1 --json 2>&1") != std::string::npos);
  }

  TEST_CASE("no warning when bench printed none") {
    Saved idle{{kNic, kRow}, 0, {}};
    const std::string text = beat(two_nodes(), idle);
    CHECK(text.rfind(std::string(kNic) + "\n  ring           0.002 s median (p10 0.001, p90 0.002)", 0) == 0);
    CHECK(text.find("warning") == std::string::npos);
  }

  TEST_CASE("exit 2 is no lab here (skipped, with its reason); a failed run is tried once more") {
    Saved none{{"error: the cluster lab needs root or unprivileged user namespaces"}, 2, {}};
    LabRun r;
    CHECK(beat(two_nodes(), none, &r) ==
          "lab beat skipped: the cluster lab needs root or unprivileged user namespaces; its checks are skipped, the "
          "model-only beats stand\n");
    CHECK(r.status == LabRun::Status::unavailable);
    CHECK(none.commands.size() == 1);
    Saved broken{{kNic}, 1, {}};  // exits 1 without its row
    CHECK(beat(two_nodes(), broken, &r) ==
          std::string(kNic) + "\n(the lab run failed: `microddp cluster` exited 1 with 0 of 1 rows; trying once more)\n" +
              kNic + "\nthe lab run failed: `microddp cluster` exited 1 with 0 of 1 rows\n");
    CHECK(r.status == LabRun::Status::failed);
    CHECK(broken.commands.size() == 2);
    Saved garbled{{R"({"algorithm": "ring"})"}, 0, {}};  // a row without its time
    CHECK(beat(two_nodes(), garbled, &r).find("the lab run failed: unreadable bench row (") != std::string::npos);
    CHECK(r.rows.empty());
  }
}
