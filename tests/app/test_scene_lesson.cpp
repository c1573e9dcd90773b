// Scene building (app/viz/scene.h) for lesson 02's beats: the single-buffered
// ring's wrong values in red, and a correct run's lettered double buffer.
// No ImGui, no GL.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "app/viz/compare.h"
#include "app/viz/lesson_view.h"
#include "app/viz/scene.h"
#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"
#include "core/model/calibrate/calibrate.h"
#include "core/record/data.h"
#include "core/record/record_io.h"
#include "tests/app/seed_ring.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
using test::seed_ring;
}  // namespace

namespace {

// The values the correct ring holds on the seed data T0 = [1,2,3],
// T1 = [4,5,6], T2 = [7,8,9] after `position` steps of the (one- or
// two-buffer) unchunked ring: what the schedule means each buffer to hold.
// Before step 0 only the input is written (step 0 makes the local copies);
// then send_buff holds the tensor that just arrived (T(r-1) after step 0,
// T(r-2) after step 1), accum the running sum, output the total at the end.
std::vector<double> seed_ring_value(int position, int r, Buf b) {
  const std::vector<std::vector<double>> T = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  auto t = [&](int q) { return T[static_cast<size_t>((q + 3) % 3)]; };
  auto sum = [](std::vector<double> a, const std::vector<double>& c) {
    for (size_t i = 0; i < a.size(); ++i) a[i] += c[i];
    return a;
  };
  switch (b) {
    case Buf::input: return t(r);
    case Buf::send_buff: return position == 0 ? std::vector<double>{} : t(r - position);
    case Buf::accum:
      return position == 0 ? std::vector<double>{} : position == 1 ? sum(t(r), t(r - 1)) : std::vector<double>{12, 15, 18};
    case Buf::output: return position == 2 ? std::vector<double>{12, 15, 18} : std::vector<double>{};
    default: return {};
  }
}

}  // namespace

TEST_SUITE("scene") {
  TEST_CASE("lesson 02 beat 5: the single-buffered ring runs for real, its wrong values red, the first one named") {
    const lesson::Lesson l =
        lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml");
    lesson::Beat live = l.beats[4];
    live.recorded_run.reset();  // the live seed search (the shipped beat shows its recorded run: test_lesson_recorded_view)
    const BeatTarget t = beat_target(live);
    REQUIRE(t.drive);
    REQUIRE(t.params.broken.has_value());
    CHECK(t.params.broken->max_delay_us == 300);
    CHECK(t.params.broken->delay_rank == -1);
    CHECK(t.params.broken->max_seeds == 30);  // the check's 30 seeds, the window's cap
    CHECK(t.position == 2);
    CHECK(t.note.find("ring_unchunked") == std::string::npos);
    CHECK(t.note.find("one-buffer ring run for real") != std::string::npos);

    Session ses;
    ses.configure(t.params);
    REQUIRE(ses.broken().has_value());
    const BrokenRun& br = *ses.broken();
    CHECK(ses.num_steps() == 2);
    CHECK(ses.steps_run() == 2);  // the whole run happened at configure
    CHECK(ses.real_steps_executed() == 2 * br.tries);
    // The one-buffer ring: no recv_buff, no swap.
    for (const auto& rank_ops : ses.schedule().steps[0].ranks)
      for (const Op& o : rank_ops) CHECK(o.kind != OpKind::swap);
    // The seeds are tried in the check's order: the shown one is the first that corrupts.
    CHECK(br.max_seeds == 30);
    const RankData want = reference_outputs(ses.schedule().spec, ses.inputs());
    std::string why;
    const bool match = outputs_match(ses.schedule().spec, ses.inputs(), ses.outputs(), want, &why);
    CHECK(br.corrupted == !match);
    if (br.corrupted) {
      CHECK(br.seed == static_cast<uint64_t>(br.tries));
      CHECK(br.why == why);
    } else {
      CHECK(br.tries == 30);  // none of the 30 seeds corrupted: the last is shown
    }

    ses.seek(2);
    CHECK(ses.real_steps_executed() == 2 * br.tries);  // stepping replays the recorded snapshots
    int wrong_total = 0;
    for (int pos = 0; pos <= 2; ++pos) {
      const BuffersScene sc = build_buffers(ses, pos, BuffersLayout{});
      CHECK(sc.judged);
      CHECK(sc.swaps.empty());
      CHECK(sc.banner == (br.corrupted ? fmt::format("single-buffered ring, send delays seed {}: corrupted (a real race: the values differ from run to "
                                              "run)",
                                              br.seed)
                                       : fmt::format("single-buffered ring, send delays seed {}: came out right this "
                                                     "time (none of 30 seeds corrupted)",
                                                     br.seed)));
      CHECK(sc.banner_error == br.corrupted);
      // Every cell against the correct ring's value, from the run's own snapshots.
      const RankStepRecord* recs = pos == 0 ? ses.trace().initial.data() : ses.trace().steps[pos - 1].data();
      std::string first, first_out;  // any row's first wrong element, an output row's
      int first_row = -1, first_cell = -1, out_row = -1, out_cell = -1;
      double first_got = 0, first_exp = 0, out_got = 0, out_exp = 0;
      int wrong = 0;
      for (size_t i = 0; i < sc.rows.size(); ++i) {
        const BufferRowDraw& row = sc.rows[i];
        CHECK(row.buf != Buf::recv_buff);
        CHECK(row.letter == "");
        const std::vector<double> exp = seed_ring_value(pos, row.rank, row.buf);
        const std::vector<double>* got = nullptr;
        for (const auto& bs : recs[row.rank].buffers)
          if (bs.buf == row.buf) got = &bs.values;
        REQUIRE(got != nullptr);
        REQUIRE(row.cells.size() == 3);
        for (size_t e = 0; e < 3; ++e) {
          const CellDraw& c = row.cells[e];
          const bool is_wrong = !exp.empty() && (*got)[e] != exp[e];
          INFO("position " << pos << " R" << row.rank << " " << row.label << "[" << e << "]");
          CHECK(c.wrong == is_wrong);
          if (!is_wrong) continue;
          ++wrong;
          CHECK(c.expected == viz::format_value(exp[e]));
          CHECK(c.text == viz::format_value((*got)[e]));
          const std::string text = fmt::format("first wrong: R{} {}[{}] = {}, expected {}", row.rank, row.label, e,
                                               viz::format_value((*got)[e]), viz::format_value(exp[e]));
          if (first.empty()) {
            first = text;
            first_row = static_cast<int>(i), first_cell = static_cast<int>(e);
            first_got = (*got)[e], first_exp = exp[e];
          }
          if (first_out.empty() && row.buf == Buf::output) {
            first_out = text;
            out_row = static_cast<int>(i), out_cell = static_cast<int>(e);
            out_got = (*got)[e], out_exp = exp[e];
          }
        }
      }
      CHECK(sc.wrong_cells == wrong);
      // The result's first wrong element is named before any other.
      if (!first_out.empty()) {
        first = first_out;
        first_row = out_row, first_cell = out_cell, first_got = out_got, first_exp = out_exp;
      }
      CHECK(sc.first_wrong.text == first);
      CHECK(sc.first_wrong.row == first_row);
      CHECK(sc.first_wrong.cell == first_cell);
      if (first_row >= 0) {
        CHECK(sc.first_wrong.element == first_cell);  // one element per cell
        CHECK(sc.first_wrong.got == first_got);
        CHECK(sc.first_wrong.expected == first_exp);
      }
      wrong_total += wrong;
    }
    // A corrupted run's outputs are wrong, so the last position has red cells.
    if (br.corrupted) CHECK(wrong_total > 0);
    else CHECK(wrong_total == 0);

    // Another algorithm picked in the controls runs as itself, checked.
    RunParams other = t.params;
    other.spec.algorithm = "ring";
    ses.configure(other);
    CHECK_FALSE(ses.broken().has_value());
    CHECK(ses.num_steps() == 4);
    ses.seek(4);
    const BuffersScene sc = build_buffers(ses, 4, BuffersLayout{});
    CHECK(sc.banner == "");
    CHECK_FALSE(sc.judged);  // the chunked ring's buffers are not whole vectors
    CHECK(sc.wrong_cells == 0);
  }

  TEST_CASE("a correct run is judged and has no red cell; the double buffer is lettered and its swap marked") {
    Session ses;
    ses.configure(seed_ring());
    CHECK_FALSE(ses.broken().has_value());
    BuffersLayout lay;
    for (int pos = 0; pos <= 2; ++pos) {
      ses.seek(pos);
      const BuffersScene sc = build_buffers(ses, pos, lay);
      CHECK(sc.judged);
      CHECK(sc.wrong_cells == 0);
      CHECK(sc.first_wrong.row == -1);
      CHECK(sc.first_wrong.text == "");
      CHECK(sc.banner == "");
      for (const auto& row : sc.rows)
        for (const auto& c : row.cells) CHECK_FALSE(c.wrong);
      // Letters: send_buff starts on storage A, recv_buff on B; the swap after
      // step 0 trades them; step 1 does not swap. Other rows have none.
      for (const auto& row : sc.rows) {
        const bool traded = pos >= 1;
        if (row.buf == Buf::send_buff) CHECK(row.letter == (traded ? "B" : "A"));
        else if (row.buf == Buf::recv_buff) CHECK(row.letter == (traded ? "A" : "B"));
        else CHECK(row.letter == "");
      }
      if (pos != 1) {
        CHECK(sc.swaps.empty());
        continue;
      }
      // Position 1 shows step 0, which swapped on every rank: one marker each,
      // right of the cells, spanning the send_buff and recv_buff rows.
      REQUIRE(sc.swaps.size() == 3);
      for (int r = 0; r < 3; ++r) {
        const SwapMarkDraw& m = sc.swaps[static_cast<size_t>(r)];
        CHECK(m.rank == r);
        CHECK(m.text == "swap");
        const BufferRowDraw& a = sc.rows[static_cast<size_t>(m.row_a)];
        const BufferRowDraw& b = sc.rows[static_cast<size_t>(m.row_b)];
        CHECK(a.rank == r);
        CHECK(a.buf == Buf::send_buff);
        CHECK(b.buf == Buf::recv_buff);
        CHECK(m.y0 == a.y);
        CHECK(m.y1 == b.y + lay.row_h);
        CHECK(m.x0 > a.cells.back().x1);
        CHECK(m.x1 - m.x0 >= lay.swap_w - 4 - 1e-3f);
        CHECK(m.x1 <= lay.width + 1e-3f);
      }
    }
    // No false alarm on other data: every dtype and judged op, random fill.
    for (DType dt : {DType::int32, DType::int64, DType::float16, DType::bfloat16, DType::float32, DType::float64})
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
        RunParams p;
        p.spec.algorithm = "ring_unchunked";
        p.spec.world_size = 4;
        p.spec.count = 5;
        p.spec.dtype = dt;
        p.spec.op = op;
        p.data = "random:7";
        Session s2;
        s2.configure(p);
        s2.seek(s2.num_steps());
        const BuffersScene sc = build_buffers(s2, s2.num_steps(), lay);
        INFO(name(dt) << " " << name(op));
        CHECK(sc.judged);
        CHECK(sc.wrong_cells == 0);
      }
  }
}
