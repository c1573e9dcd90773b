// Shared by the window-layout tests (test_layout*.cpp): a headless App at a
// chosen size and text height (Sized), and the checks they make: every
// control and panel inside the window, the seed's rows in view, cell texts
// whole, the DDP lanes, the compare view's parts, bars apart.
#pragma once
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

namespace microddp::viz::test {

inline const std::string kLesson02 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml";

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

inline std::string show(const Rect& r) { return fmt::format("({}, {}) {} x {}", r.x, r.y, r.w, r.h); }

inline Rect box(const float (&b)[4]) { return Rect{b[0], b[1], b[2] - b[0], b[3] - b[1]}; }

inline void check_all_inside(const App& app) {
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

inline const ViewState::Drawn* panel(const App& app, const std::string& what) {
  for (const auto& d : app.vs.panels_drawn)
    if (d.what == what) return &d;
  return nullptr;
}

// Every buffer row of every rank of the seed was drawn, whole, inside the
// buffers panel (a row is drawn only where it shows; the panel records each
// row's rectangle, tag to last cell).
inline void check_seed_rows_visible(const App& app, float px) {
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
inline void check_nothing_runs_off() {
  ImGuiWindow* w = ImGui::FindWindowByName("microddp-viz");
  REQUIRE(w != nullptr);
  const float pad = ImGui::GetStyle().WindowPadding.x;
  CHECK(w->DC.CursorMaxPos.x <= 1280 - pad + 0.5f);
  CHECK(w->DC.CursorMaxPos.y <= 720 - pad + 0.5f);
}

// The panels that do not scroll (topology, timeline) drew nothing past
// their own edges either.
inline void check_fixed_panels_hold_their_content() {
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
inline void check_cell_texts(const App& app, int ranks, float min_px) {
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

inline void frames(Sized& h, App& app, int k = 4) {
  for (int i = 0; i < k; ++i) h.frame(app);
}

// The DDP view's legend and timeline, as drawn (DdpDrawn's boxes), both
// inside the view's region `view`, the legend above the timeline.
struct DdpBoxes {
  Rect legend, timeline;
};
inline DdpBoxes check_ddp_boxes(const DdpDrawn& d, const Rect& view) {
  const DdpBoxes b{box(d.legend_box), box(d.timeline_box)};
  INFO("legend ", show(b.legend), ", timeline ", show(b.timeline), ", lane ", d.lane_h, ", view ", show(view));
  CHECK(b.legend.inside(view));
  CHECK(b.timeline.inside(view));
  CHECK(b.legend.bottom() <= b.timeline.y);
  return b;
}

inline const std::string kLesson03 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/03-naive-tree-ring.yaml";
inline const std::string kLesson10 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/10-fsdp-prefetch.yaml";

inline const ViewState::Drawn* drawn(const std::vector<ViewState::Drawn>& v, const std::string& what) {
  for (const auto& d : v)
    if (d.what == what) return &d;
  return nullptr;
}

inline bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// The compare view as last drawn: its controls inside the window, each
// column's three text lines inside the column, the sweep plot at least 30%
// of the area below the controls, its header and legend clear of the axis
// labels and of the plot box, its axis labels apart, and each column's
// small topology either with every rank labelled, labels apart, or left out
// (text only).
inline void check_compare(const App& app, int ranks) {
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
inline void check_bars_apart(const App& app) {
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

}  // namespace microddp::viz::test
