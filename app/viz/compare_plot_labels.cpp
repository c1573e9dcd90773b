// The compare plot's markers and labels (compare_panel.h, draw_plot_labels):
// the crossovers' dashed lines and marked points, the beat's size on the x
// axis and the model's "not this machine" note, each label placed where no
// drawn line crosses it (compare_plot_place.h; issue 37, lecturer pass 4:
// lesson 03 beat 4's "this beat: 4 KiB" lay on the tree's line, beat 9's
// model note across all three). (Moved from panel_compare_plot.cpp.)
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "app/viz/compare_panel.h"
#include "app/viz/compare_plot_place.h"
#include "assets/palette.h"

namespace microddp::viz::compare_panel {

namespace {

// The first free candidate clear of the labels placed (pick_clear_of_text);
// its box joins `marks` and `texts`. nullopt when every candidate covers a
// label, a dot or an error bar, or is crossed by a line (a short box on a
// desk): the label is left out, its line or tick stays (the header says the
// crossover in words).
std::optional<ImVec2> place(const std::vector<Rect>& cands, const std::vector<Segment>& segs, std::vector<Rect>& marks,
                            std::vector<Rect>& texts, ImVec2 size) {
  const int i = pick_clear_of_text(cands, segs, marks, texts);
  if (i < 0) return std::nullopt;
  const Rect& r = cands[size_t(i)];
  if (std::any_of(segs.begin(), segs.end(), [&](const Segment& s) { return crosses(r, s); }) ||
      std::any_of(marks.begin(), marks.end(), [&](const Rect& m) { return r.overlaps(m); }))
    return std::nullopt;
  const ImVec2 at(cands[size_t(i)].x, cands[size_t(i)].y);
  marks.push_back(Rect{at.x, at.y, size.x, size.y});
  texts.push_back(marks.back());
  return at;
}

// The model's note `text` above the lines' first point (y0, µs) where that
// is free, else the nearest free row (up first), left to right; its box's
// top left, with 2 px of backing each side; `free` false when no spot is
// (then the least crossed).
struct Spot {
  ImVec2 at;
  bool free;
};
std::optional<Spot> model_note_at(const PlotFrame& f, const Rect& plot, const std::string& text, double y0,
                                  const std::vector<Segment>& segs, const std::vector<Rect>& marks,
                                  const std::vector<Rect>& texts) {
  const float lh = ImGui::GetTextLineHeight();
  const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
  const float want = std::clamp(f.Y(y0) - ts.y - lh * 0.3f, f.p0.y + 2, std::max(f.p0.y + 2, f.p1.y - ts.y - 2));
  const float x0 = f.p0.x + f.inset - 2, span = std::max(0.f, f.p1.x - 2 - (ts.x + 4) - x0), step = lh * 0.5f;
  std::vector<Rect> cands;
  for (int k = 0; k < 2 * int((f.p1.y - f.p0.y) / step) + 2; ++k) {
    const float y = want + step * float((k + 1) / 2) * (k % 2 ? -1.f : 1.f);  // want, one up, one down, two up, ...
    if (y < plot.y || y + ts.y > plot.bottom()) continue;
    for (int i = 0; i <= 8; ++i) cands.push_back(Rect{x0 + span * float(i) / 8, y, ts.x + 4, ts.y});
  }
  const int i = pick_clear_of_text(cands, segs, marks, texts);
  if (i < 0) return std::nullopt;
  const Rect& r = cands[size_t(i)];
  const bool crossed = std::any_of(segs.begin(), segs.end(), [&](const Segment& s) { return crosses(r, s); });
  const bool covers = std::any_of(marks.begin(), marks.end(), [&](const Rect& m) { return r.overlaps(m); });
  return Spot{ImVec2(r.x, r.y), !crossed && !covers};
}

struct VLine {
  double bytes;
  ImU32 line, text;  // the line's colour; its label's, darkened to read on white (text_color_on_light)
  std::string label;
  int row;  // the label's preferred row from the top
};

}  // namespace

void draw_plot_labels(App& app, ImDrawList* dl, const PlotFrame& f, std::vector<Segment>& segs, std::vector<Rect>& marks,
                      std::vector<Rect>& texts) {
  ViewState& vs = app.vs;
  const Compare& cmp = app.compare;
  const ImU32 ink = im(from_hex(assets::kInk)), backing = im(with_alpha(from_hex(assets::kBackground), 215));
  const float lh = ImGui::GetTextLineHeight();
  const ImVec2 p0 = f.p0, p1 = f.p1;
  const Rect plot{p0.x + 1, p0.y + 1, p1.x - p0.x - 2, p1.y - p0.y - 2};
  // Where ring becomes and stays the fastest, if it does in the sizes
  // measured (ring's dot ringed) and predicted (on ring's line): a dashed
  // line each, drawn before any label so that the labels keep clear of both.
  std::vector<VLine> vl;
  const auto ring = std::find_if(cmp.sweep.begin(), cmp.sweep.end(),
                                 [](const SweepCurve& c) { return c.algorithm == compare_reference(); });
  if (ring != cmp.sweep.end() && crossover_shown(app)) {
    const float K = float(cmp.sweep.size());
    const float ring_off = std::round((float(ring - cmp.sweep.begin()) - (K - 1) / 2) * f.spread_px);
    if (const int j = cmp.crossover_measured; j >= 0 && j < int(ring->measured_us.size())) {
      vl.push_back(VLine{ring->bytes[size_t(j)], ink, ink, fmt::format("crossover ({})", cmp.source_word), 0});
      const ImVec2 q(f.X(ring->bytes[size_t(j)]) + ring_off, f.Y(ring->measured_us[size_t(j)]));
      dl->AddCircle(q, lh * 0.6f, ink, 20, 2.f);
      marks.push_back(Rect{q.x - lh * 0.6f, q.y - lh * 0.6f, lh * 1.2f, lh * 1.2f});
    }
    if (cmp.crossover_predicted_bytes > 0 && cmp.crossover_predicted_us > 0) {
      const bool here = cmp.sweep_source.kind == SweepSource::shm;
      vl.push_back(VLine{cmp.crossover_predicted_bytes, im(predicted_color()), im(text_color_on_light(predicted_color())),
                         here                              ? "crossover (predicted)"
                         : cmp.source_word == "model" ? "crossover (model)"
                                                           : "crossover (lab model)",
                         here || cmp.crossover_measured >= 0 ? 1 : 0});
      const ImVec2 q(f.X(cmp.crossover_predicted_bytes), f.Y(cmp.crossover_predicted_us));
      dl->AddRect(ImVec2(q.x - lh * 0.45f, q.y - lh * 0.45f), ImVec2(q.x + lh * 0.45f, q.y + lh * 0.45f),
                  im(predicted_color()), 0, 0, 2.f);
      marks.push_back(Rect{q.x - lh * 0.45f, q.y - lh * 0.45f, lh * 0.9f, lh * 0.9f});
    }
  }
  for (const VLine& v : vl) {
    const float x = f.X(v.bytes);
    for (float y = p0.y; y < p1.y; y += 8) dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 4, p1.y)), v.line, 1.5f);
    segs.push_back(Segment{x, p0.y, x, p1.y});
    rec(vs, "sweep segment " + v.label, ImVec2(x, p0.y), ImVec2(x, p1.y));
  }
  // Their labels: right of the line, else left of it, from the label's row
  // down half a line at a time, clear of the lines, the dots and each other.
  for (const VLine& v : vl) {
    const float x = f.X(v.bytes), w = ImGui::CalcTextSize(v.label.c_str()).x, y = p0.y + 2 + lh * float(v.row);
    if (y + lh > p1.y) continue;  // no room in a short box: the line and the marked point stay
    const auto spot = place(beside_candidates(plot, x, w, lh, y, lh * 0.5f, 3), segs, marks, texts, ImVec2(w, lh));
    if (!spot) continue;
    const ImVec2 at = *spot;
    dl->AddText(at, v.text, v.label.c_str());
    rec(vs, "sweep " + v.label, at, ImVec2(at.x + w, at.y + lh));
  }
  // A lesson beat's own size (its run's elements per rank × dtype bytes)
  // marked on the x axis (issue 37, lesson 03 beats 6-7 priced 363 and 383
  // KiB between the 256 KiB and 1 MiB ticks): a tick into the box and
  // "this beat: 363 KiB" beside it, on a light backing, just above the axis
  // or as far up as the lines leave it free (the tick reaches it); not
  // while a question asks for the size.
  if (const double b = beat_size_bytes(app); b > 0 && b >= f.xmin && b <= f.xmax) {
    const float x = f.X(b);
    const std::string t = "this beat: " + human_bytes(b);
    const float w = ImGui::CalcTextSize(t.c_str()).x;
    // Left of the tick first when the predicted crossover's line is just right of it (beat 6: 363 against 373 KiB).
    const bool left_first = x + 6 + w > p1.x || (cmp.crossover_predicted_bytes > b && crossover_shown(app));
    const float y = p1.y - lh * 1.05f;
    const auto spot = place(beside_candidates(plot, x, w + 4, lh, y, -lh * 0.5f, 2, left_first), segs, marks, texts,
                            ImVec2(w + 4, lh));
    const float top = std::min(p1.y - lh * 0.8f, spot ? spot->y + lh * 0.5f : p1.y);
    dl->AddRectFilled(ImVec2(x - 1, top), ImVec2(x + 1, p1.y + 6), ink);
    segs.push_back(Segment{x, top, x, p1.y});  // (the model's note keeps clear of the tick)
    if (spot) {
      const ImVec2 at = *spot;
      dl->AddRectFilled(at, ImVec2(at.x + w + 4, at.y + lh), backing);
      dl->AddText(ImVec2(at.x + 2, at.y), ink, t.c_str());
      rec(vs, "sweep beat size " + human_bytes(b), ImVec2(at.x + 2, at.y), ImVec2(at.x + 2 + w, at.y + lh));
    }
  }
  // Lines of a preset standing in for a missing calibration: said on the
  // plot (model_not_here_label), where no line crosses it (model_note_at).
  if (const std::string nh = model_not_here_label(cmp); !nh.empty() && predicted_points_drawn(cmp, false) > 0) {
    double y0 = 1e300;
    for (const auto& c : cmp.sweep)
      if (!c.predicted_us.empty()) y0 = std::min(y0, c.predicted_us.front());
    // One line where a free spot holds it, else in two lines at its dash (lesson 03 beat 9: the
    // crossovers' dashed lines left no stretch of the box as wide as the one line).
    // A spot that crosses a line or covers a dot takes neither form: the
    // note is left out (the controls' hint and the columns' "(preset ...)"
    // still say it; issue 37, lesson 03 beat 9 in the desk window and at 28
    // px laid it over the dots).
    std::string text = nh;
    std::optional<Spot> spot = model_note_at(f, plot, nh, y0, segs, marks, texts);
    if (const size_t dash = nh.find(" — "); dash != std::string::npos && !(spot && spot->free)) {
      text = nh.substr(0, dash) + "\n" + nh.substr(dash + 1);
      spot = model_note_at(f, plot, text, y0, segs, marks, texts);
    }
    if (!spot || !spot->free) return;
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    const ImVec2 at = spot->at;
    marks.push_back(Rect{at.x, at.y, ts.x + 4, ts.y});
    texts.push_back(marks.back());
    dl->AddRectFilled(at, ImVec2(at.x + ts.x + 4, at.y + ts.y), backing);
    dl->AddText(ImVec2(at.x + 2, at.y), im(text_color_on_light(predicted_color())), text.c_str());
    rec(vs, "sweep model not here", ImVec2(at.x + 2, at.y), ImVec2(at.x + 2 + ts.x, at.y + ts.y));
  }
}

}  // namespace microddp::viz::compare_panel
