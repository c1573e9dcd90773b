// The step animation (app/viz/step_anim.h) over the frames the animated
// export samples: in the double buffer's swap the names move and the
// storages stay; a sum shows only once its data has arrived; no name is
// clipped or drawn over another. No ImGui, no GL.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>

#include "app/viz/headless_run.h"
#include "app/viz/scene.h"
#include "app/viz/step_anim.h"
#include "tests/app/seed_ring.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

using test::seed_ring;

BuffersScene scene_at(const Session& ses, int pos, const BuffersLayout& lay) {
  BuffersScene sc = build_buffers(ses, pos, lay);
  order_by_storage(sc);
  return sc;
}

std::string texts(const std::vector<CellDraw>& cells) {
  std::string t;
  for (const CellDraw& c : cells) t += (t.empty() ? "" : " ") + c.value;
  return t;
}

const BufferRowDraw& row_of(const BuffersScene& sc, int rank, Buf b) {
  for (const BufferRowDraw& r : sc.rows)
    if (r.rank == rank && r.buf == b) return r;
  FAIL("no row");
  return sc.rows.front();
}

// Monospaced widths, as the default layout's char_w.
float text_w(const std::string& s) { return 8.f * float(s.size()); }
constexpr float kTextH = 16;

}  // namespace

TEST_SUITE("step_anim") {
  TEST_CASE("storages keep their rows at every position; the names move") {
    Session ses;
    ses.configure(seed_ring());
    ses.seek(2);
    const BuffersLayout lay;
    std::map<std::pair<int, int>, float> storage_y;  // (rank, storage) -> y
    std::map<int, std::string> r0_names;            // R0: letter row "A"/"B" -> name, per position
    for (int pos = 0; pos <= 2; ++pos) {
      const BuffersScene sc = scene_at(ses, pos, lay);
      std::map<float, std::string> r0;  // by y, top first
      for (const BufferRowDraw& r : sc.rows) {
        if (r.letter.empty()) continue;
        const auto key = std::make_pair(r.rank, r.storage);
        if (storage_y.count(key)) CHECK(storage_y[key] == r.y);
        storage_y[key] = r.y;
        if (r.rank == 0) r0[r.y] = r.letter + "=" + r.label + " ";
      }
      for (const auto& [y, t] : r0) r0_names[pos] += t;
    }
    // A above B always; send_buff names A, then B after step 0's swap
    // (the last step, 1, does not swap).
    CHECK(storage_y.size() == 6);
    CHECK(r0_names[0] == "A=send_buff B=recv_buff ");
    CHECK(r0_names[1] == "A=recv_buff B=send_buff ");
    CHECK(r0_names[2] == "A=recv_buff B=send_buff ");
  }

  TEST_CASE("the export's frames: data lands before the sum shows, then the names swap, nothing clipped") {
    Session ses;
    ses.configure(seed_ring());
    ses.seek(2);
    const BuffersLayout lay;
    // Both steps of the seed ring, sampled as export_animation samples them.
    for (int k = 0; k < 2; ++k) {
      CAPTURE(k);
      const BuffersScene before = scene_at(ses, k, lay), after = scene_at(ses, k + 1, lay);
      REQUIRE(before.rows.size() == after.rows.size());
      // What arrives: every rank's recv_buff storage (B in step 0, A in
      // step 1: the names swapped) and its accum, reduced from it; in step
      // 1 also the output, copied from accum.
      const auto landing = landing_storages(ses, k);
      REQUIRE(landing.size() == (k == 0 ? 6 : 9));
      for (int r = 0; r < 3; ++r) {
        CHECK(landing.count({r, row_of(before, r, Buf::recv_buff).storage}) == 1);
        CHECK(landing.count({r, row_of(before, r, Buf::accum).storage}) == 1);
        CHECK(landing.count({r, row_of(after, r, Buf::output).storage}) == (k == 0 ? 0 : 1));
      }
      for (int i = 1; i <= kAnimFramesPerStep; ++i) {
        const float p = float(i) / kAnimFramesPerStep;
        CAPTURE(p);
        const BuffersAnimFrame f = animate_buffers(before, after, p, lay, text_w, kTextH, landing);
        REQUIRE(f.contents.size() == after.rows.size());
        REQUIRE(f.labels.size() == after.rows.size());
        // The messages are on the links until the data lands.
        CHECK(f.arrived == (travel_progress(p) >= 1.f));
        for (size_t ri = 0; ri < after.rows.size(); ++ri) {
          const BufferRowDraw& row = after.rows[ri];
          const BufferRowDraw* shown = f.contents[ri];
          REQUIRE(shown != nullptr);
          // A row draws its own storage's data, before or after the step:
          // never the other storage's (no "recv_buff A holding B's data").
          if (!row.letter.empty()) {
            CHECK(shown->storage == row.storage);
            CHECK(shown->letter == row.letter);
          }
          const bool waits = landing.count({row.rank, row.storage}) == 1;
          if (f.arrived || !waits) CHECK(shown == &row);
          else if (row.letter.empty()) CHECK(shown == &row_of(before, row.rank, row.buf));
          else if (row.swap_partner >= 0) CHECK(shown != &row_of(before, row.rank, row.buf));  // the name moved
          else CHECK(shown == &row_of(before, row.rank, row.buf));
        }
        // R0's accum: empty until T2 arrives (the copy of T0 is part of
        // step 0), then T0 + T2; step 1 adds T1 once it has arrived.
        const auto accum = [&](const BuffersScene& sc) { return &row_of(sc, 0, Buf::accum) - sc.rows.data(); };
        const std::string shown = texts(f.contents[static_cast<size_t>(accum(after))]->cells);
        if (k == 0) CHECK(shown == (f.arrived ? "8 10 12" : ""));
        else CHECK(shown == (f.arrived ? "12 15 18" : "8 10 12"));
        // What goes out is there while it travels: step 0's send_buff (A)
        // holds T0 from the first frame; recv_buff (B) gets T2 on arrival.
        if (k == 0) {
          const BufferRowDraw& a = row_of(before, 0, Buf::send_buff);
          const BufferRowDraw& b = row_of(before, 0, Buf::recv_buff);
          for (size_t ri = 0; ri < after.rows.size(); ++ri) {
            if (after.rows[ri].rank != 0) continue;
            if (after.rows[ri].storage == a.storage) CHECK(texts(f.contents[ri]->cells) == "1 2 3");
            if (after.rows[ri].storage == b.storage) CHECK(texts(f.contents[ri]->cells) == (f.arrived ? "7 8 9" : ""));
          }
        }
        // The names: each inside the name column and the band of its two
        // rows, not below 0.6 of the font, never over another name.
        for (const NameLabelDraw& l : f.labels) {
          const BufferRowDraw& row = after.rows[static_cast<size_t>(l.row)];
          CHECK(l.scale >= 0.6f);
          CHECK(l.x >= name_column_left(row, lay) - 0.01f);
          CHECK(l.x + l.w <= name_column_right(row, lay) + 0.01f);
          float lo = row.y, hi = row.y + lay.row_h;
          if (row.swap_partner >= 0) {
            const BufferRowDraw& q = after.rows[static_cast<size_t>(row.swap_partner)];
            lo = std::min(lo, q.y), hi = std::max(hi, q.y + lay.row_h);
          }
          CHECK(l.y >= lo - 0.01f);
          CHECK(l.y + l.h <= hi + 0.01f);
          for (const NameLabelDraw& o : f.labels) {
            if (&o == &l || o.rank != l.rank) continue;
            const bool apart = l.x + l.w <= o.x || o.x + o.w <= l.x || l.y + l.h <= o.y || o.y + o.h <= l.y;
            CHECK_MESSAGE(apart, fmt::format("'{}' over '{}'", l.text, o.text));
          }
        }
        // Step 0 swaps (step 1, the last, does not): before the swap each
        // name is beside the storage it had; at the end beside the one it
        // has now; in between the pair is moving.
        if (k == 1) {
          for (const NameLabelDraw& l : f.labels) CHECK_FALSE(l.moving);
          continue;
        }
        const NameLabelDraw& send0 = f.labels[static_cast<size_t>(&row_of(after, 0, Buf::send_buff) - after.rows.data())];
        const BufferRowDraw& was = row_of(before, 0, Buf::send_buff);
        const BufferRowDraw& now = row_of(after, 0, Buf::send_buff);
        CHECK(was.storage != now.storage);
        if (!f.swapping) CHECK(send0.y == doctest::Approx(was.y + (lay.row_h - kTextH) / 2));
        if (p == 1.f) {
          CHECK(send0.y == doctest::Approx(now.y + (lay.row_h - kTextH) / 2));
          CHECK(send0.scale == 1.f);
          CHECK_FALSE(send0.moving);
        }
        if (f.swapping && p < 1.f) CHECK(send0.moving);
      }
    }
  }

  TEST_CASE("the timeline: arrival, then swap; a still is the end of the animation") {
    CHECK(travel_progress(0) == 0);
    CHECK(travel_progress(kArriveAt / 2) == doctest::Approx(0.5));
    CHECK(travel_progress(kArriveAt) == 1);
    CHECK(travel_progress(1) == 1);
    CHECK(kArriveAt < kSwapFrom);
    // At least one sampled frame with the data on its way, one landed
    // before the swap, and one mid-swap, for every step of the export.
    int travel = 0, landed = 0, swapping = 0;
    for (int i = 1; i <= kAnimFramesPerStep; ++i) {
      const float p = float(i) / kAnimFramesPerStep;
      travel += p < kArriveAt;
      landed += p >= kArriveAt && p < kSwapFrom;
      swapping += p >= kSwapFrom && p < 1;
    }
    CHECK(travel == 6);
    CHECK(landed == 1);
    CHECK(swapping == 4);
  }
}
