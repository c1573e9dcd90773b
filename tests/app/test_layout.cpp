// The window at projector sizes: 1280x720 with 18 and 28 px text, in the
// main and compare views and with a lesson open. Every control and panel
// lies inside the window, the seed's three ranks' buffer rows are inside the
// buffers panel, present mode draws no controls and its keys step (in the
// DDP view and lesson 10's FSDP beat too, their lanes a line of text tall;
// at 36 and 40 px and in 640x480 the lanes keep 1.25 lines and the texts
// above shrink), and the 16-rank topology's labels do not overlap. The compare view, alone and above
// lesson 03: its controls, its columns' text, its sweep plot and the small
// topologies' rank labels are where they can be read. Every defined buffer
// cell draws its values whole inside the cell (lesson 02, the seed at
// --present, 8 ranks with 3-digit sums).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/headless.h"
#include "core/algorithms/registry.h"
#include "app/viz/keys.h"
#include "app/viz/layout.h"
#include "app/viz/lesson_view.h"
#include "app/viz/options.h"
#include "app/viz/platform.h"
#include "app/viz/scene.h"
#include "app/viz/view_state.h"
#include "tests/app/seed_ring.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLesson02 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml";

// A headless ImGui context whose text is the window's font at px (DejaVu
// Sans where installed, as on screen).
struct Sized : test::Headless {
  explicit Sized(float px) {
    add_fonts(px);
    unsigned char* data = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&data, &w, &h);
  }
};

using test::seed_ring;

std::string show(const Rect& r) { return fmt::format("({}, {}) {} x {}", r.x, r.y, r.w, r.h); }

Rect box(const float (&b)[4]) { return Rect{b[0], b[1], b[2] - b[0], b[3] - b[1]}; }

void check_all_inside(const App& app) {
  const Rect win{0, 0, 1280, 720};
  for (const auto& d : app.vs.controls_drawn) {
    INFO("control ", d.what, " at ", show(d.r));
    CHECK(d.r.inside(win));
  }
  for (const auto& d : app.vs.panels_drawn) {
    INFO("panel ", d.what, " at ", show(d.r));
    CHECK(d.r.inside(win));
    CHECK(d.r.w > 50);
    CHECK(d.r.h > 50);
  }
}

const ViewState::Drawn* panel(const App& app, const std::string& what) {
  for (const auto& d : app.vs.panels_drawn)
    if (d.what == what) return &d;
  return nullptr;
}

// Every buffer row of every rank of the seed was drawn, whole, inside the
// buffers panel (a row is drawn only where it shows; the panel records each
// row's rectangle, tag to last cell).
void check_seed_rows_visible(const App& app, float px) {
  const auto* buf = panel(app, "buffers");
  REQUIRE(buf != nullptr);
  std::map<std::string, int> rows;
  for (const auto& d : app.vs.rows_drawn) {
    ++rows[d.what];
    INFO(d.what, " at ", show(d.r), "; panel ", show(buf->r));
    CHECK(d.r.inside(buf->r));
  }
  for (int r = 0; r < 3; ++r)
    for (const char* b : {"input", "send_buff", "recv_buff", "accum", "output"}) {
      INFO("R", r, " ", b, " at ", px, " px, buffers scale ", app.vs.buffers_scale);
      CHECK(rows[fmt::format("R{} {}", r, b)] == 1);
    }
}

// What the last frame drew in the full-screen window reached no further
// than the window (ImGui's extent of the items placed, in screen pixels):
// no control or line runs off the right or the bottom.
void check_nothing_runs_off() {
  ImGuiWindow* w = ImGui::FindWindowByName("microddp-viz");
  REQUIRE(w != nullptr);
  const float pad = ImGui::GetStyle().WindowPadding.x;
  CHECK(w->DC.CursorMaxPos.x <= 1280 - pad + 0.5f);
  CHECK(w->DC.CursorMaxPos.y <= 720 - pad + 0.5f);
}

// The panels that do not scroll (topology, timeline) drew nothing past
// their own edges either.
void check_fixed_panels_hold_their_content() {
  ImGuiWindow* w = ImGui::FindWindowByName("microddp-viz");
  REQUIRE(w != nullptr);
  for (ImGuiWindow* c : w->DC.ChildWindows) {
    const std::string name = c->Name;
    if (name.find("/topology_") == std::string::npos && name.find("/timeline_") == std::string::npos) continue;
    INFO(name, " content to (", c->DC.CursorMaxPos.x, ", ", c->DC.CursorMaxPos.y, "), window to (",
         c->Pos.x + c->Size.x, ", ", c->Pos.y + c->Size.y, ")");
    CHECK(c->DC.CursorMaxPos.x <= c->Pos.x + c->Size.x - c->WindowPadding.x + 0.5f);
    CHECK(c->DC.CursorMaxPos.y <= c->Pos.y + c->Size.y - c->WindowPadding.y + 0.5f);
  }
}

// Every defined buffer cell with recorded values was drawn with its values
// whole ("12", not elided), the text inside the cell, at least min_px tall;
// ranks 0..ranks-1 each have such cells. The cells with values come from
// the scene at the session's position (values do not depend on the layout).
void check_cell_texts(const App& app, int ranks, float min_px) {
  BuffersScene sc = build_buffers(app.session, app.session.position(), BuffersLayout{});
  REQUIRE(sc.values);
  int with_value = 0;
  for (const auto& row : sc.rows)
    for (const auto& c : row.cells) with_value += !c.value.empty();
  CHECK(int(app.vs.cell_texts.size()) == with_value);
  std::map<int, int> per_rank;
  for (const auto& t : app.vs.cell_texts) {
    INFO(t.what, " value ", t.value, " shown ", t.shown, " at ", t.px, " px, text ", show(t.text), " in cell ",
         show(t.cell));
    CHECK(t.shown == t.value);
    CHECK(t.text.inside(t.cell));
    CHECK(t.px >= min_px);
    ++per_rank[std::stoi(t.what.substr(1))];
  }
  for (int r = 0; r < ranks; ++r) {
    INFO("R", r);
    CHECK(per_rank[r] >= 3);
  }
}

void frames(Sized& h, App& app, int k = 4) {
  for (int i = 0; i < k; ++i) h.frame(app);
}

// The DDP view's legend and timeline, as drawn (DdpDrawn's boxes), both
// inside the view's region `view`, the legend above the timeline.
struct DdpBoxes {
  Rect legend, timeline;
};
DdpBoxes check_ddp_boxes(const DdpDrawn& d, const Rect& view) {
  const DdpBoxes b{box(d.legend_box), box(d.timeline_box)};
  INFO("legend ", show(b.legend), ", timeline ", show(b.timeline), ", lane ", d.lane_h, ", view ", show(view));
  CHECK(b.legend.inside(view));
  CHECK(b.timeline.inside(view));
  CHECK(b.legend.bottom() <= b.timeline.y);
  return b;
}

const std::string kLesson03 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/03-naive-tree-ring.yaml";
const std::string kLesson10 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/10-fsdp-prefetch.yaml";

const ViewState::Drawn* drawn(const std::vector<ViewState::Drawn>& v, const std::string& what) {
  for (const auto& d : v)
    if (d.what == what) return &d;
  return nullptr;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// The compare view as last drawn: its controls inside the window, each
// column's three text lines inside the column, the sweep plot at least 30%
// of the area below the controls, its header and legend clear of the axis
// labels and of the plot box, its axis labels apart, and each column's
// small topology either with every rank labelled, labels apart, or left out
// (text only).
void check_compare(const App& app, int ranks) {
  const Rect win{0, 0, 1280, 720};
  const auto& cd = app.vs.compare_drawn;
  for (const auto& d : app.vs.controls_drawn) {
    INFO("control ", d.what, " at ", show(d.r));
    CHECK(d.r.inside(win));
  }
  int boxes = 0;
  for (const auto& d : app.vs.controls_drawn) boxes += starts_with(d.what, "compare algorithm ");
  // all_reduce: a box per algorithm of the compare set (naive, tree, ring)
  // and per algorithm compared; the other eight of the eleven behind "more".
  REQUIRE(app.vs.edit.spec.collective == Collective::all_reduce);
  int in_set = 0;
  for (const auto& a : algorithms_for(Collective::all_reduce))
    in_set += find_algorithm(a, Collective::all_reduce)->compare_order > 0 ||
              std::find(app.vs.compare_algorithms.begin(), app.vs.compare_algorithms.end(), a) !=
                  app.vs.compare_algorithms.end();
  CHECK(in_set >= 3);
  CHECK(boxes == in_set);
  const bool more = std::any_of(app.vs.controls_drawn.begin(), app.vs.controls_drawn.end(),
                                [](const auto& d) { return d.what == "compare more"; });
  CHECK(more == (in_set < static_cast<int>(algorithms_for(Collective::all_reduce).size())));
  const auto* area = drawn(cd, "area");
  REQUIRE(area != nullptr);
  CHECK(area->r.inside(win));
  REQUIRE(app.compare.algorithms.size() == app.vs.compare_text_only.size());
  for (size_t i = 0; i < app.compare.algorithms.size(); ++i) {
    const std::string& a = app.compare.algorithms[i];
    const auto* col = drawn(cd, "column " + a);
    REQUIRE(col != nullptr);
    INFO("column ", a, " at ", show(col->r), ", area ", show(area->r));
    CHECK(col->r.inside(area->r));
    for (int k = 0; k < 3; ++k) {
      const auto* t = drawn(cd, fmt::format("{} text {}", a, k));
      REQUIRE(t != nullptr);
      INFO("line ", k, " at ", show(t->r));
      CHECK(t->r.inside(col->r));
      CHECK(t->r.bottom() <= col->r.bottom() - 8 + 0.5f);  // above the column's padding
    }
    std::vector<Rect> labels;
    for (const auto& d : cd)
      if (starts_with(d.what, a + " R")) labels.push_back(d.r);
    if (app.vs.compare_text_only[i]) {
      CHECK(labels.empty());
      continue;
    }
    CHECK(static_cast<int>(labels.size()) == ranks);
    for (size_t x = 0; x < labels.size(); ++x) {
      INFO("label ", show(labels[x]));
      CHECK(labels[x].inside(col->r));
      CHECK(labels[x].h >= 8);
      for (size_t y = x + 1; y < labels.size(); ++y) CHECK_FALSE(labels[x].overlaps(labels[y]));
    }
  }
  const auto* plot = drawn(cd, "sweep plot");
  const auto* axes = drawn(cd, "sweep axes");
  const auto* header = drawn(cd, "sweep header");
  REQUIRE(plot != nullptr);
  REQUIRE(axes != nullptr);
  REQUIRE(header != nullptr);
  INFO("sweep at ", show(plot->r), ", box ", show(axes->r), ", area ", show(area->r));
  CHECK(plot->r.inside(area->r));
  CHECK(plot->r.h >= 0.3f * area->r.h);
  CHECK(axes->r.h >= 40);
  CHECK(header->r.inside(plot->r));
  CHECK_FALSE(header->r.overlaps(axes->r));
  std::vector<Rect> ylab, xlab;
  for (const auto& d : cd) {
    if (starts_with(d.what, "sweep y label")) ylab.push_back(d.r);
    if (starts_with(d.what, "sweep x label")) xlab.push_back(d.r);
  }
  if (app.compare.sweep.empty()) return;
  const auto* legend = drawn(cd, "sweep legend");
  REQUIRE(legend != nullptr);
  INFO("legend at ", show(legend->r), ", header ", show(header->r));
  CHECK(legend->r.inside(plot->r));
  CHECK_FALSE(legend->r.overlaps(axes->r));
  CHECK_FALSE(legend->r.overlaps(header->r));
  CHECK(ylab.size() >= 2);
  CHECK(xlab.size() >= 2);
  for (const auto* v : {&ylab, &xlab})
    for (size_t x = 0; x < v->size(); ++x) {
      INFO("axis label ", show((*v)[x]));
      CHECK((*v)[x].inside(plot->r));
      CHECK_FALSE((*v)[x].overlaps(legend->r));
      CHECK_FALSE((*v)[x].overlaps(header->r));
      for (size_t y = x + 1; y < v->size(); ++y) CHECK_FALSE((*v)[x].overlaps((*v)[y]));
    }
  for (const Rect& y : ylab)
    for (const Rect& x : xlab) CHECK_FALSE(y.overlaps(x));
  for (const auto& d : cd)
    if (starts_with(d.what, "sweep crossover")) {
      INFO(d.what, " at ", show(d.r));
      CHECK(d.r.inside(axes->r));
    }
}

// Each algorithm's error bars at one size stand apart: the bars' probes
// (cap ends, "error bar p90 naive 64 B") of one size and end at distinct x,
// at least a cap's width apart.
void check_bars_apart(const App& app) {
  std::map<std::string, std::vector<int>> xs;  // "p90 64 B" -> x of each algorithm's cap
  for (const auto& p : app.vs.probes) {
    if (!starts_with(p.what, "error bar ")) continue;
    const std::string rest = p.what.substr(10);  // "p90 naive 64 B"
    const size_t a = rest.find(' '), b = rest.find(' ', a + 1);
    xs[rest.substr(0, a) + rest.substr(b)].push_back(p.x);
  }
  CHECK(!xs.empty());
  for (auto& [k, v] : xs) {
    INFO(k);
    CHECK(v.size() == 3);
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i) CHECK(v[i] - v[i - 1] >= 8);
  }
}

}  // namespace

TEST_SUITE("layout") {
  TEST_CASE("compute_layout: every panel inside the window, the main view's four apart") {
    for (const float px : {12.f, 18.f, 28.f, 40.f})
      for (const bool lesson : {false, true})
        for (const bool present : {false, true}) {
          LayoutInput in;
          in.font_px = px;
          in.view = View::main;
          in.lesson = lesson;
          in.present = present;
          in.controls_bottom = present ? 0 : px * 4;
          const viz::Layout L = compute_layout(in);
          INFO(px, " px, lesson ", lesson, ", present ", present);
          CHECK(L.body.y == doctest::Approx(present ? 8 : px * 4));
          std::vector<Rect> rs = {L.topology, L.buffers, L.side};
          if (L.timeline.w > 0) rs.push_back(L.timeline);
          for (size_t i = 0; i < rs.size(); ++i) {
            CHECK(rs[i].inside(L.window));
            CHECK(rs[i].inside(L.body));
            for (size_t j = i + 1; j < rs.size(); ++j) CHECK_FALSE(rs[i].overlaps(rs[j]));
          }
          // The lesson takes the lower half; with large text the whole width.
          if (lesson) CHECK(L.side.h == doctest::Approx(L.body.h - 8 - std::floor((L.body.h - 8) * 0.5f)));
          if (lesson && px >= 24) CHECK(L.side.w == doctest::Approx(L.body.w));
        }
    LayoutInput in;
    in.view = View::compare;
    in.controls_bottom = 100;
    const viz::Layout L = compute_layout(in);
    CHECK(L.compare.x == 8);
    CHECK(L.compare.y == 100);
    CHECK(L.compare.right() == 1272);
    CHECK(L.compare.bottom() == 712);
    CHECK_FALSE(compact_controls(1280, 18));
    CHECK(compact_controls(1280, 28));
  }

  TEST_CASE("compute_layout, DDP view: the body from the top (its controls are inside), 62% above a lesson") {
    for (const float px : {18.f, 28.f})
      for (const bool present : {false, true}) {
        INFO(px, " px, present ", present);
        LayoutInput in;
        in.font_px = px;
        in.view = View::ddp;
        in.present = present;
        in.controls_bottom = 100;  // the step-through's controls are not drawn above the DDP view
        viz::Layout L = compute_layout(in);
        CHECK(show(L.ddp) == "(8, 8) 1264 x 704");
        CHECK(L.side.h == 0);
        in.lesson = true;
        L = compute_layout(in);
        // floor((704 - 8) * 0.62) = 431 above, the gap, then the lesson to 712.
        CHECK(show(L.ddp) == "(8, 8) 1264 x 431");
        CHECK(show(L.side) == "(8, 447) 1264 x 265");
      }
  }

  TEST_CASE("1280x720 at 18 and 28 px: controls and panels inside, the seed's rows in view") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.edit = seed_ring();
      app.vs.collect_probes = true;
      h.frame(app);
      REQUIRE(app.session.configured());
      app.session.seek(2);  // every buffer written: a probe in each row
      frames(h, app);
      CHECK(app.vs.controls_drawn.size() >= 10);
      CHECK(panel(app, "topology") != nullptr);
      CHECK(panel(app, "timeline") != nullptr);
      CHECK(panel(app, "stats") != nullptr);
      check_all_inside(app);
      check_nothing_runs_off();
      check_fixed_panels_hold_their_content();
      check_seed_rows_visible(app, px);
      // Large text folds the run's parameters into the Setup popup.
      bool setup = false;
      for (const auto& d : app.vs.controls_drawn) setup = setup || d.what == "setup";
      CHECK(setup == (px == 28.f));

      app.vs.view = View::compare;
      frames(h, app);
      check_all_inside(app);
      check_nothing_runs_off();
      const auto* cmp = panel(app, "compare");
      REQUIRE(cmp != nullptr);
      CHECK(cmp->r.bottom() == doctest::Approx(712));
    }
  }

  TEST_CASE("the DDP view at 18 and 28 px: its controls and lines stay inside the window") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.edit = seed_ring();
      app.session.configure(app.vs.edit);
      app.vs.view = View::ddp;
      ddp::Options& o = app.ddp.edit.run;
      o.ranks = 4, o.depth = 2, o.width = 16, o.layer_delay_us = 0;
      h.frame(app);  // requests the run
      app.ddp.runner.wait();
      frames(h, app);
      REQUIRE(app.ddp.runner.result() != nullptr);
      check_nothing_runs_off();
    }
  }

  TEST_CASE("--present in the DDP and FSDP views at 18 and 28 px: no controls, the timeline's lanes a line of text tall") {
    for (const float px : {18.f, 28.f}) {
      // The DDP view alone: the header, stats, legend and timeline take the window.
      {
        INFO("DDP at ", px, " px");
        Sized h(px);
        App app;
        app.vs.font_px = px;
        app.vs.present = true;
        app.vs.view = View::ddp;
        ddp::Options& o = app.ddp.edit.run;
        o.ranks = 4, o.depth = 2, o.width = 16, o.layer_delay_us = 0;
        h.frame(app);  // requests the run: present mode still trains what the options say
        app.ddp.runner.wait();
        frames(h, app);
        REQUIRE(app.ddp.runner.result() != nullptr);
        const DdpDrawn& d = app.ddp.drawn;
        CHECK_FALSE(d.controls);
        CHECK_FALSE(d.bucket_controls);
        CHECK(app.vs.controls_drawn.empty());
        const auto* view = panel(app, "ddp");
        REQUIRE(view != nullptr);
        CHECK(show(view->r) == "(8, 8) 1264 x 704");
        const DdpBoxes boxes = check_ddp_boxes(d, view->r);
        const Rect &legend = boxes.legend, &timeline = boxes.timeline;
        INFO("legend ", show(legend), ", timeline ", show(timeline), ", lane ", d.lane_h);
        // Header, stats and legend take at most 5 lines: the rest is the timeline's.
        CHECK(legend.bottom() <= 8 + 5 * (px + 8));
        CHECK(d.lane_h >= px);
        CHECK(d.note);  // room for the note under the axis
        check_nothing_runs_off();
      }
      // Lesson 10's beat 4 (FSDP with prefetch): the timeline above, the
      // beat's text below, as the layout says.
      {
        INFO("FSDP at ", px, " px");
        Sized h(px);
        App app;
        app.vs.font_px = px;
        app.vs.present = true;
        app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson10));
        app.lesson->go(3);
        h.frame(app);  // lesson_sync: the DDP view, the beat's sharded run requested
        REQUIRE(app.vs.view == View::ddp);
        REQUIRE(app.ddp.edit.run.sharded);
        app.ddp.runner.wait();
        frames(h, app);
        REQUIRE(app.ddp.runner.result() != nullptr);
        const DdpDrawn& d = app.ddp.drawn;
        CHECK_FALSE(d.controls);
        CHECK(d.header.rfind("FSDP, 4 ranks", 0) == 0);
        CHECK(d.legend.size() == 6);
        const auto* view = panel(app, "ddp");
        const auto* lesson = panel(app, "lesson");
        REQUIRE(view != nullptr);
        REQUIRE(lesson != nullptr);
        // The window's ItemSpacing is 6 px: floor((704 - 6) * 0.62) = 432.
        // The beat's text fits there (at 28 px shrunk, present.h).
        CHECK(show(view->r) == "(8, 8) 1264 x 432");
        CHECK(show(lesson->r) == "(8, 446) 1264 x 266");
        CHECK_FALSE(app.vs.lesson_clipped);
        const Rect timeline = check_ddp_boxes(d, view->r).timeline;
        INFO("timeline ", show(timeline), ", lane ", d.lane_h);
        // 4 rank lanes and the comm lane, each at least a line of text
        // tall: every lane's label and the bars' "L3" are drawn.
        CHECK(d.lane_h >= px);
        CHECK(timeline.h >= 5 * px);
        CHECK(d.note == (px == 18.f));  // at 28 px the note gives way to the lanes
        check_all_inside(app);
        check_nothing_runs_off();
        // Esc: the controls return above the same timeline, which shrinks.
        const float present_lane = d.lane_h;
        h.press(app, Key::escape);
        CHECK(d.controls);
        CHECK(d.lane_h < present_lane);
        app.lesson->wait_checks();
      }
    }
  }

  TEST_CASE("compute_layout, DDP view above a lesson: large text takes the lanes' least height and three lines, the lesson keeps four") {
    // 5 lanes (4 ranks and comm) of 1.25 lines, 4 gaps of a quarter line,
    // the axis (a line, 6 and 4 px).
    CHECK(ddp_timeline_min_height(5, 40) == doctest::Approx(5 * 50 + 4 * 10 + 40 + 10));
    CHECK(ddp_timeline_min_height(5, 18) == doctest::Approx(5 * 22.5 + 4 * 4.5 + 18 + 10));
    CHECK(ddp_timeline_min_height(0, 18) == 0);
    LayoutInput in;
    in.view = View::ddp;
    in.lesson = in.present = true;
    in.ddp_lanes = 5;
    // 36 px: 307 + 3 x 44 = 439 above (more than 62%, 431); the lesson from 455.
    in.font_px = 36;
    viz::Layout L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 439");
    CHECK(show(L.side) == "(8, 455) 1264 x 257");
    // 40 px: 340 + 3 x 48 = 484, the lesson keeping 4 x 48 + 16 = 208 of the 696.
    in.font_px = 40;
    L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 484");
    CHECK(show(L.side) == "(8, 500) 1264 x 212");
    // 17 lanes at 40 px do not fit: the lesson still keeps its 208 px.
    in.ddp_lanes = 17;
    L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 488");
    // 640x480 at 18 px: 164.5 + 3 x 26 < 62% of 456: the split stays.
    in.ddp_lanes = 5;
    in.font_px = 18;
    in.width = 640, in.height = 480;
    L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 624 x 282");
    CHECK(show(L.side) == "(8, 298) 624 x 174");
  }

  TEST_CASE("--present at 36 and 40 px (1280x720) and at 640x480 (18 px), DDP and FSDP: the lanes keep their least height, inside the window") {
    struct Size {
      float w, h, px;
    };
    for (const Size sz : {Size{1280, 720, 36}, Size{1280, 720, 40}, Size{640, 480, 18}})
      for (const bool fsdp : {false, true}) {
        INFO(sz.w, "x", sz.h, " at ", sz.px, " px, ", std::string(fsdp ? "FSDP (lesson 10 beat 4)" : "DDP"));
        Sized h(sz.px);
        ImGui::GetIO().DisplaySize = ImVec2(sz.w, sz.h);
        App app;
        app.vs.font_px = sz.px;
        app.vs.present = true;
        if (fsdp) {
          app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson10));
          app.lesson->go(3);
        } else {
          app.vs.view = View::ddp;
          ddp::Options& o = app.ddp.edit.run;
          o.ranks = 4, o.depth = 2, o.width = 16, o.layer_delay_us = 0;
        }
        h.frame(app);  // requests the run
        REQUIRE(app.vs.view == View::ddp);
        app.ddp.runner.wait();
        frames(h, app);
        REQUIRE(app.ddp.runner.result() != nullptr);
        REQUIRE(app.ddp.runner.result()->options.ranks == 4);
        const DdpDrawn& d = app.ddp.drawn;
        const Rect window{0, 0, sz.w, sz.h};
        const auto* view = panel(app, "ddp");
        REQUIRE(view != nullptr);
        CHECK(view->r.inside(window));
        const Rect timeline = check_ddp_boxes(d, view->r).timeline;
        INFO("view ", show(view->r), ", timeline ", show(timeline), ", lane ", d.lane_h, ", text scale ", d.text_scale,
             std::string(d.text_clipped ? " (cut off)" : ""));
        CHECK(timeline.inside(window));
        CHECK(d.lane_h >= kDdpMinLaneLines * sz.px);
        // 4 rank lanes and the comm lane, their gaps and the axis.
        CHECK(timeline.h >= ddp_timeline_min_height(5, sz.px) - 4 - 0.5f);
        // The texts above gave way (the DDP view alone has room: 1 x), no
        // smaller than 14 px, and they fit whole.
        CHECK(d.text_scale * sz.px >= kDdpMinTextPx - 0.01f);
        CHECK(d.text_scale <= 1.f);
        if (!fsdp) CHECK(d.text_scale == 1.f);
        CHECK_FALSE(d.text_clipped);
        if (fsdp) {
          const auto* lesson = panel(app, "lesson");
          REQUIRE(lesson != nullptr);
          CHECK(lesson->r.inside(window));
          CHECK(view->r.bottom() < lesson->r.y);
        }
        app.ddp.runner.wait();
        if (app.lesson) app.lesson->wait_checks();
      }
  }

  TEST_CASE("28 px: the Setup button opens the run's controls in a popup inside the window") {
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    app.vs.edit = seed_ring();
    frames(h, app, 2);
    const ViewState::Drawn* setup = nullptr;
    for (const auto& d : app.vs.controls_drawn)
      if (d.what == "setup") setup = &d;
    REQUIRE(setup != nullptr);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(setup->r.x + setup->r.w / 2, setup->r.y + setup->r.h / 2);
    h.frame(app);
    io.MouseDown[0] = true;
    h.frame(app);
    io.MouseDown[0] = false;
    frames(h, app, 3);
    ImGuiWindow* popup = nullptr;
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
      if (w->Active && (w->Flags & ImGuiWindowFlags_Popup)) popup = w;
    REQUIRE(popup != nullptr);
    INFO("popup at (", popup->Pos.x, ", ", popup->Pos.y, ") ", popup->Size.x, " x ", popup->Size.y);
    CHECK(popup->Pos.x >= 0);
    CHECK(popup->Pos.y >= 0);
    CHECK(popup->Pos.x + popup->Size.x <= 1280);
    CHECK(popup->Pos.y + popup->Size.y <= 720);
    // What it holds (the run row, the prediction source, speed and text
    // size: several lines at 28 px) wrapped inside it.
    CHECK(popup->DC.CursorMaxPos.x <= popup->Pos.x + popup->Size.x);
    CHECK(popup->Size.y >= 3 * 28);
    // With the popup open the edits still apply (a fill, then 4 ranks).
    app.vs.edit.data = "iota";
    app.vs.edit.spec.world_size = 4;
    h.frame(app);
    CHECK(app.vs.error.empty());
    CHECK(app.session.schedule().world_size() == 4);
  }

  TEST_CASE("a lesson open at 18 and 28 px: the lesson panel in the lower half, the rows in view") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
      app.vs.edit = beat_target(app.lesson->current()).params;
      app.vs.collect_probes = true;
      frames(h, app);
      REQUIRE(app.session.configured());
      app.session.seek(app.session.num_steps());
      frames(h, app);
      check_all_inside(app);
      check_nothing_runs_off();
      check_fixed_panels_hold_their_content();
      const auto* lesson = panel(app, "lesson");
      REQUIRE(lesson != nullptr);
      CHECK(lesson->r.bottom() == doctest::Approx(712));
      CHECK(lesson->r.y >= 360 - 1);
      CHECK((panel(app, "timeline") != nullptr) == (px == 18.f));
      if (app.session.schedule().world_size() == 3) check_seed_rows_visible(app, px);
    }
  }

  TEST_CASE("--present: no controls, the view takes the window; clicker keys step, Esc leaves") {
    std::vector<std::string> args = {"microddp-viz", "--present", "--algorithm", "ring_unchunked",
                                     "--data", "1,2,3;4,5,6;7,8,9"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    Options o;
    REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
    CHECK(o.present);
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    apply_options(app, o);
    CHECK(app.vs.present);
    h.frame(app);
    CHECK(app.vs.controls_drawn.empty());
    REQUIRE(panel(app, "topology") != nullptr);
    CHECK(panel(app, "topology")->r.y == doctest::Approx(8));
    check_all_inside(app);
    CHECK(app.session.position() == 0);
    h.press(app, Key::page_down);
    CHECK(app.session.position() == 1);
    h.press(app, Key::page_up);
    CHECK(app.session.position() == 0);
    h.press(app, Key::play);  // Space steps in present mode (it plays outside it)
    CHECK(app.session.position() == 1);
    CHECK_FALSE(app.vs.playing);
    h.press(app, Key::step);
    CHECK(app.session.position() == 2);
    h.press(app, Key::back);
    CHECK(app.session.position() == 1);
    h.press(app, Key::home);
    CHECK(app.session.position() == 0);
    CHECK(app.vs.controls_drawn.empty());
    h.press(app, Key::escape);
    CHECK_FALSE(app.vs.present);
    CHECK_FALSE(app.vs.controls_drawn.empty());
    h.press(app, Key::present);  // F5 enters it again
    CHECK(app.vs.present);
    CHECK(app.vs.controls_drawn.empty());
  }

  TEST_CASE("--present in the compare view: no algorithm boxes, no sweep size, no Measure button") {
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    app.vs.edit = seed_ring();
    app.vs.view = View::compare;
    frames(h, app, 2);
    const auto compare_controls = [&] {
      return std::count_if(app.vs.controls_drawn.begin(), app.vs.controls_drawn.end(),
                           [](const auto& d) { return starts_with(d.what, "compare "); });
    };
    CHECK(compare_controls() > 0);
    app.vs.present = true;
    frames(h, app, 2);
    CHECK(compare_controls() == 0);
    CHECK(app.vs.controls_drawn.empty());
    REQUIRE(app.compare.sessions.size() >= 2);  // the columns are still there
    app.vs.present = false;
    frames(h, app, 2);
    CHECK(compare_controls() > 0);
  }

  TEST_CASE("--present with a lesson: Page Down / Page Up move between beats, Home goes to the first") {
    Sized h(18);
    App app;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
    app.vs.edit = beat_target(app.lesson->current()).params;
    h.frame(app);
    CHECK(app.lesson->beat() == 0);
    h.press(app, Key::page_down);
    CHECK(app.lesson->beat() == 1);
    h.press(app, Key::play);
    CHECK(app.lesson->beat() == 2);
    h.press(app, Key::page_up);
    CHECK(app.lesson->beat() == 1);
    h.press(app, Key::home);
    CHECK(app.lesson->beat() == 0);
    CHECK(app.vs.controls_drawn.empty());
  }

  TEST_CASE("8 and 16 ranks at 1280x720: every rank labelled in the topology and the timeline, labels apart") {
    for (const float px : {18.f, 28.f})
      for (const auto& [n, nodes] : std::vector<std::pair<int, int>>{{8, 1}, {16, 1}, {16, 2}}) {
        INFO(px, " px, ", n, " ranks on ", nodes, " node(s)");
        Sized h(px);
        App app;
        app.vs.font_px = px;
        app.vs.edit.spec.algorithm = "ring";
        app.vs.edit.spec.world_size = n;
        app.vs.edit.spec.nodes = nodes;
        app.vs.edit.spec.count = n;
        h.frame(app);
        REQUIRE(app.session.configured());
        app.session.seek(3);  // the timeline has bars
        frames(h, app);
        check_all_inside(app);
        check_nothing_runs_off();
        check_fixed_panels_hold_their_content();
        for (const char* where : {"timeline", "topology"}) {
          const auto* p = panel(app, where);
          REQUIRE(p != nullptr);
          std::vector<Rect> rs;
          for (int r = 0; r < n; ++r) {
            const std::string what = fmt::format("{} R{}", where, r);
            int found = 0;
            for (const auto& d : app.vs.labels_drawn)
              if (d.what == what) {
                ++found;
                INFO(what, " at ", show(d.r), " in ", show(p->r));
                CHECK(d.r.inside(p->r));
                CHECK(d.r.h >= 8);
                rs.push_back(d.r);
              }
            INFO(what);
            CHECK(found == 1);
          }
          for (size_t i = 0; i < rs.size(); ++i)
            for (size_t j = i + 1; j < rs.size(); ++j) {
              INFO(where, " labels ", show(rs[i]), " / ", show(rs[j]));
              CHECK_FALSE(rs[i].overlaps(rs[j]));
            }
        }
      }
  }

  TEST_CASE("16 ranks on dgx-h100 (2 x 8) and 8 ranks: rank labels, node labels and badges apart") {
    for (const auto& [n, nodes] : std::vector<std::pair<int, int>>{{16, 2}, {8, 2}, {8, 1}, {16, 1}})
      for (const char* alg : {"ring", "hierarchical"}) {
        RunParams p;
        p.spec.world_size = n;
        p.spec.nodes = nodes;
        p.spec.count = n;
        p.spec.algorithm = alg;
        Session s;
        PredictionSource src;
        src.kind = PredictionSource::Kind::topology;
        src.topology = "dgx-h100";
        s.set_source(src);
        s.configure(p);
        const Network* net = s.prediction().network ? &*s.prediction().network : nullptr;
        // The main view's topology canvas at 1280x720, 18 and 28 px.
        INFO("algorithm ", std::string(alg));
        for (const Vec2 size : {Vec2{460, 190}, Vec2{380, 230}, Vec2{460, 300}})
          for (int pos = 0; pos <= s.num_steps(); pos += std::max(1, s.num_steps() / 6)) {
            const TopologyScene sc = build_topology(s, pos, size, 0.5f, net);
            INFO(n, " ranks on ", nodes, " node(s), ", std::string(alg), ", canvas ", size.x, " x ", size.y, ", position ", pos);
            REQUIRE(sc.nodes.size() == size_t(n));
            // A rank's label: its circle's text, at most 2r - 3 wide
            // (panel_topology.cpp shrinks it to fit) and about 1.3r tall.
            std::vector<Rect> labels;
            for (const NodeDraw& d : sc.nodes) {
              const Rect circle{d.pos.x - d.radius, d.pos.y - d.radius, 2 * d.radius, 2 * d.radius};
              CHECK(circle.inside(Rect{0, 0, size.x, size.y}));
              labels.push_back(Rect{d.pos.x - d.radius + 1.5f, d.pos.y - d.radius * 0.65f, 2 * d.radius - 3,
                                    d.radius * 1.3f});
            }
            for (const NodeBoxDraw& b : sc.boxes)  // "node k", at most 18 px (panel_topology.cpp)
              labels.push_back(Rect{b.min.x + b.label_x, b.min.y + 3, kNodeLabelW, 18});
            for (size_t i = 0; i < labels.size(); ++i)
              for (size_t j = i + 1; j < labels.size(); ++j) {
                INFO("labels ", i, " and ", j, ": ", show(labels[i]), " / ", show(labels[j]));
                CHECK_FALSE(labels[i].overlaps(labels[j]));
              }
            // No arrow runs through a node's label (sampled along its curve).
            for (const ArrowDraw& a : sc.arrows)
              for (int k = 0; k <= 20; ++k) {
                const float u = float(k) / 20, v = 1 - u;
                const float x = v * v * a.a.x + 2 * u * v * a.ctrl.x + u * u * a.b.x;
                const float y = v * v * a.a.y + 2 * u * v * a.ctrl.y + u * u * a.b.y;
                for (size_t i = sc.nodes.size(); i < labels.size(); ++i) {
                  INFO("arrow R", a.from, "->R", a.to, " at (", x, ", ", y, ") through ", show(labels[i]));
                  CHECK_FALSE(Rect{x, y, 0.01f, 0.01f}.overlaps(labels[i]));
                }
              }
            // A badge inside a node covers no rank's label. (Arrows between
            // nodes cross a box - hierarchical's, or the chain's wrap over the
            // label row - and are left out.)
            if (nodes > 1)
              for (const ArrowDraw& a : sc.arrows) {
                if (a.from / (n / nodes) != a.to / (n / nodes)) continue;
                const Rect br{a.badge.x - a.badge_w / 2, a.badge.y - a.badge_h / 2, a.badge_w, a.badge_h};
                for (size_t i = 0; i < sc.nodes.size(); ++i) {
                  INFO("badge R", a.from, "->R", a.to, " ", show(br), " over R", i, " ", show(labels[i]));
                  CHECK_FALSE(br.overlaps(labels[i]));
                }
              }
          }
      }
  }

  TEST_CASE("the compare view at 1280x720, 18 and 28 px: controls, columns' text, the sweep and the small topologies") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px, alone, 8 ranks");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.edit = seed_ring();
      app.vs.edit.data = "iota";
      app.vs.edit.spec.world_size = 8;
      app.vs.edit.spec.count = 8;
      app.vs.view = View::compare;
      frames(h, app, 2);
      REQUIRE(app.compare.sessions.size() == 3);
      check_compare(app, 8);  // before a sweep: the prompt in the box
      app.compare.run_sweep(64, 16384, 3, 1);  // 64 B .. 16 KiB: 6 sizes
      app.vs.collect_probes = true;
      frames(h, app, 2);
      check_compare(app, 8);
      check_bars_apart(app);
      check_nothing_runs_off();
      // Alone at 18 px the columns have room for their drawings.
      if (px == 18.f) CHECK(app.vs.compare_text_only == std::vector<bool>{false, false, false});
      // 16 ranks: drawn with every label apart, or as text.
      app.vs.edit.spec.world_size = 16;
      app.vs.edit.spec.count = 16;
      frames(h, app, 2);
      REQUIRE(app.compare.base.spec.world_size == 16);
      check_compare(app, 16);
    }
  }

  TEST_CASE("compare above lesson 03's beat 4 at 18 and 28 px: text whole, the sweep plot legible") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px, lesson 03 beat 4");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson03));
      REQUIRE(app.lesson->go(3));
      app.vs.edit = beat_target(app.lesson->current()).params;
      frames(h, app, 2);
      REQUIRE(app.vs.view == View::compare);
      REQUIRE(app.compare.sessions.size() == 3);
      // The beat's sweep, run here at small sizes so the test stays quick.
      app.compare.run_sweep(4096, 65536, 3, 1);
      frames(h, app, 2);
      check_compare(app, app.compare.base.spec.world_size);
    }
  }

  TEST_CASE("lesson 03 beat 5 asks where the crossover is: the sweep hides it from beat 4 until the answer") {
    Sized h(18.f);
    App app;
    app.vs.font_px = 18.f;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson03));
    REQUIRE(app.lesson->go(3));  // beat 4: no question of its own; beat 5 asks for the crossover
    REQUIRE_FALSE(app.lesson->current().question.has_value());
    app.vs.edit = beat_target(app.lesson->current()).params;
    frames(h, app, 2);
    REQUIRE(app.vs.view == View::compare);
    app.compare.run_sweep(4096, 4 << 20, 4, 1);  // up to 4 MiB: past the nvlink crossover (373 KiB)
    frames(h, app, 2);
    REQUIRE(app.compare.crossover_predicted_bytes > 0);
    const auto crossover_drawn = [&] {
      return std::any_of(app.vs.compare_drawn.begin(), app.vs.compare_drawn.end(),
                         [](const auto& d) { return starts_with(d.what, "sweep crossover"); });
    };
    CHECK_FALSE(app.lesson->checks_hidden());
    CHECK_FALSE(crossover_drawn());
    REQUIRE(app.lesson->go(4));  // beat 5: the same sweep, kept
    frames(h, app, 2);
    REQUIRE(app.lesson->current().question.has_value());
    REQUIRE(app.compare.crossover_predicted_bytes > 0);
    CHECK(app.lesson->checks_hidden());
    CHECK_FALSE(crossover_drawn());
    app.lesson->submit("380");
    frames(h, app, 2);
    CHECK(crossover_drawn());
    app.lesson->wait_checks();
  }

  TEST_CASE("compare at 3 ranks: naive and tree tie, a line says so and \"Use 8 ranks\" sets 8; at 8 no hint") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.edit = seed_ring();  // 3 ranks, explicit rows
      app.vs.view = View::compare;
      frames(h, app, 2);
      REQUIRE(app.compare.base.spec.world_size == 3);
      const auto* hint = drawn(app.vs.compare_drawn, "hint");
      const auto* use8 = drawn(app.vs.controls_drawn, "compare use 8 ranks");
      REQUIRE(hint != nullptr);
      REQUIRE(use8 != nullptr);
      CHECK(use8->r.inside(Rect{0, 0, 1280, 720}));
      check_compare(app, 3);
      ImGuiIO& io = ImGui::GetIO();
      io.MousePos = ImVec2(use8->r.x + use8->r.w / 2, use8->r.y + use8->r.h / 2);
      h.frame(app);
      io.MouseDown[0] = true;
      h.frame(app);
      io.MouseDown[0] = false;
      frames(h, app, 3);
      CHECK(app.vs.edit.spec.world_size == 8);
      CHECK(app.compare.base.spec.world_size == 8);
      CHECK(app.compare.base.spec.count == 8);
      CHECK(app.compare.base.data == "iota");
      CHECK(drawn(app.vs.compare_drawn, "hint") == nullptr);
      CHECK(drawn(app.vs.controls_drawn, "compare use 8 ranks") == nullptr);
      // At 8 ranks naive's busiest rank moves 448 B, tree's 192 B.
      CHECK(build_stats(*app.compare.sessions[0]).busiest_rank_bytes == 448);
      CHECK(build_stats(*app.compare.sessions[1]).busiest_rank_bytes == 192);
      check_compare(app, 8);
    }
  }

  TEST_CASE("buffer cells show their values: lesson 02 beats 1-4 (positions 0..2) at 18 and 28 px, the seed at --present 28 px") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px, lesson 02 beat 2");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
      REQUIRE(app.lesson->go(1));
      app.vs.edit = beat_target(app.lesson->current()).params;
      frames(h, app);
      REQUIRE(app.session.configured());
      REQUIRE(app.session.schedule().world_size() == 3);
      app.session.seek(1);
      app.lesson->choose(2);  // until answered, the buffers show the state before the beat's step
      frames(h, app);
      // input, send_buff, recv_buff and accum of each of the 3 ranks hold 3 values each.
      CHECK(app.vs.cell_texts.size() == 36);
      check_cell_texts(app, 3, 12);
      // Beats 1, 3 and 4 show the same run before step 0 and after the last step.
      for (const int pos : {0, 2}) {
        INFO("position ", pos);
        app.session.seek(pos);
        frames(h, app);
        check_cell_texts(app, 3, 12);
      }
      CHECK(app.vs.cell_texts.size() == 45);  // after the last step the output rows hold values too
    }
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    app.vs.present = true;
    app.vs.edit = seed_ring();
    frames(h, app);
    REQUIRE(app.session.configured());
    app.session.seek(1);
    frames(h, app);
    CHECK(app.vs.cell_texts.size() == 36);
    check_cell_texts(app, 3, 12);
  }

  TEST_CASE("8 ranks of 8 elements (recursive doubling): every defined cell carries its value, 3-digit sums included") {
    Sized h(18);
    App app;
    app.vs.font_px = 18;
    app.vs.edit.spec.algorithm = "recursive_doubling";
    app.vs.edit.spec.world_size = 8;
    app.vs.edit.spec.count = 8;
    frames(h, app);
    REQUIRE(app.session.configured());
    app.session.seek(app.session.num_steps());
    frames(h, app);
    // iota: rank r holds 8r+1..8r+8, so output element i is the sum over r, 8*(i+1)+224 = 232..288.
    bool three_digits = false;
    for (const auto& t : app.vs.cell_texts) three_digits = three_digits || t.value == "288";
    CHECK(three_digits);
    // The text may be smaller than the panel's (not below 7 px) but whole.
    check_cell_texts(app, 8, 7);
  }

}
