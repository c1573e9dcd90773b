// The compare view's sweep plot: time against message size (measured points
// from a quick sweep, predicted lines when the cost model is available) with
// the crossover where the ring wins. (Moved from panel_compare.cpp.)
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "app/viz/compare_panel.h"
#include "app/viz/compare_plot_place.h"
#include "app/viz/lesson_view.h"
#include "app/viz/size_bars.h"
#include "assets/palette.h"
#include "core/algorithms/registry.h"

namespace microddp::viz::compare_panel {

std::string short_crossover(const Compare& cmp) {
  const std::string& ref = compare_reference();
  const auto ring = std::find_if(cmp.sweep.begin(), cmp.sweep.end(), [&](const SweepCurve& c) { return c.algorithm == ref; });
  if (ring == cmp.sweep.end() || ring->bytes.empty() || cmp.crossover.empty()) return "";
  // A source without dots (the model): only its predicted crossover to say.
  if (ring->measured_us.size() != ring->bytes.size())
    return cmp.crossover_predicted_bytes > 0
               ? fmt::format("{} fastest from {} ({})", ref, human_bytes(cmp.crossover_predicted_bytes), cmp.source_word)
               : "";
  std::string out = cmp.crossover_measured < 0
                        ? fmt::format("{} not fastest up to {}", ref, human_bytes(ring->bytes.back()))
                        : fmt::format("{} fastest from {}", ref, human_bytes(ring->bytes[cmp.crossover_measured]));
  if (cmp.crossover_predicted_bytes > 0) out += fmt::format(" ({} predicted)", human_bytes(cmp.crossover_predicted_bytes));
  return out;
}

namespace {

// The source's label, the first line of the sweep: what the dots and lines
// come from (compare_sources.h), before any sweep too.
std::string source_line(const Compare& cmp) {
  if (!cmp.source_label.empty() && (cmp.sweep_source.kind != SweepSource::shm || !cmp.sweep.empty()))
    return cmp.source_note.empty() ? cmp.source_label : cmp.source_label + "\nNote: " + cmp.source_note;
  if (cmp.sweep_source.kind == SweepSource::shm)
    return fmt::format("Source: measured on this machine's shared memory ({} threads, one per rank; no network)",
                       cmp.base.spec.world_size);
  return fmt::format("Source: {}", picker_label(cmp.sweep_source.kind));
}

// The label in a few words (a short plot: it leads the header).
std::string source_tag(const Compare& cmp) {
  if (!cmp.source_error.empty()) return std::string(picker_label(cmp.sweep_source.kind)) + " - not available here";
  if (!cmp.source_tag.empty() && (cmp.sweep_source.kind != SweepSource::shm || !cmp.sweep.empty())) return cmp.source_tag;
  if (cmp.sweep_source.kind == SweepSource::shm) return "measured here (shared memory)";
  return std::string(picker_label(cmp.sweep_source.kind));
}

}  // namespace

std::string what_is_drawn(const Compare& cmp) {
  const bool pred = std::any_of(cmp.sweep.begin(), cmp.sweep.end(), [](const SweepCurve& c) { return !c.predicted_us.empty(); });
  const bool dots = std::any_of(cmp.sweep.begin(), cmp.sweep.end(), [](const SweepCurve& c) { return !c.measured_us.empty(); });
  // One size: a bar per curve and the model as a tick on it (size_bars.h), not dots and lines.
  if (one_size(cmp)) return pred ? "bars measured, ticks predicted" : "bars measured";
  if (dots && pred) return "dots measured, lines predicted";
  if (dots) return "dots measured";
  if (pred) return "lines predicted";
  return "";
}

std::string brief_caption(const Compare& cmp) {
  const std::string what = what_is_drawn(cmp);
  return "Source: " + source_tag(cmp) + (what.empty() ? "" : " · " + what);
}

namespace {

// While the crossover is hidden and the lines stop short of it
// (predicted_points_drawn): "; the lines stop at 256 KiB until then", or
// "; no lines until then" when the ring leads from the first size.
std::string lines_cut(const App& app) {
  const Compare& cmp = app.compare;
  size_t all = 0;
  for (const auto& c : cmp.sweep) all = std::max(all, c.predicted_us.size());
  const size_t n = predicted_points_drawn(cmp, true);
  if (all == 0 || n >= all) return "";
  if (n == 0) return "; no lines until then";
  return "; the lines stop at " + human_bytes(double(cmp.sweep.front().bytes[n - 1])) + " until then";
}

// The sweep's header: one or two lines of text (the title, the crossover
// and what the lines are based on), shortened at large text or in a short
// area (`brief`) so that the plot keeps its height. Returns the text;
// `full` gets the long form (shown on hover when shortened).
std::string sweep_header(const App& app, float width, bool brief, std::string* full) {
  const Compare& cmp = app.compare;
  // A short slide's bars have the source's caption above them (brief_caption):
  // one Source line (issue 37, lesson 09 beats 12-15 at 28 px printed two).
  if (one_size(cmp))
    return *full = (brief && !app.vs.present ? source_line(cmp) + ". " : std::string()) + size_bars_header(cmp);
  int iters = 0;
  for (const auto& c : cmp.sweep)
    for (int n : c.samples) iters = std::max(iters, n);
  const bool pred = std::any_of(cmp.sweep.begin(), cmp.sweep.end(), [](const SweepCurve& c) { return !c.predicted_us.empty(); });
  // The lines say what they are based on (the columns share one source).
  std::string based;
  for (const auto& s : cmp.sessions)
    if (s) {
      based = s->prediction().source;
      break;
    }
  std::string f;
  if (cmp.sweep_source.kind != SweepSource::shm) {
    // Another source's own words (compare_sources.h): what its dots and lines are.
    std::vector<std::string> parts;
    if (!cmp.dots_text.empty())
      parts.push_back("dots " + cmp.dots_text +
                      (iters > 0 ? fmt::format(" (median of {} iterations, bars p10-p90)", iters) : std::string()));
    if (!cmp.lines_text.empty() && pred) parts.push_back("lines " + cmp.lines_text);
    f = fmt::format("Time against message size (log-log){}{}.", parts.empty() ? "" : ": ", fmt::join(parts, ", "));
  } else {
    f = iters > 0 ? fmt::format("Time against message size (log-log): dots measured on this machine (median of {} "
                                "iterations, bars p10-p90), lines {}.",
                                iters, pred ? based : "predicted (" + based + ")")
                  : "Time against message size (log-log): dots measured on this machine, lines predicted.";
  }
  // The crossover's sentence only on a beat about it (crossover_shown); its caption while a question withholds it.
  if (!cmp.crossover.empty() && crossover_hidden(app)) {
    std::string cap = crossover_caption(app);  // a sentence of its own here: capitalised
    if (!cap.empty()) cap[0] = char(std::toupper(static_cast<unsigned char>(cap[0])));
    f += " " + cap + lines_cut(app) + ".";
  }
  else if (!cmp.crossover.empty() && crossover_shown(app)) f += " " + cmp.crossover + ".";
  std::string skipped;
  if (!cmp.skipped.empty()) {
    skipped = fmt::format(" ({} point{} not measured)", cmp.skipped.size(), cmp.skipped.size() == 1 ? "" : "s");
    f += fmt::format(" Not measured: {}{}.", cmp.skipped.front(), cmp.skipped.size() > 1 ? fmt::format(" (and {} more)", cmp.skipped.size() - 1) : "");
  }
  const float lh = ImGui::GetTextLineHeight();
  // Two lines of it at most, one with large text (the plot's height).
  const float lines = ImGui::GetFontSize() >= 24 ? 1.f : 2.f;
  if (brief) f = source_line(cmp) + ". " + f;  // (on hover: the label has no line of its own)
  *full = f;
  if (!brief && ImGui::CalcTextSize(f.c_str(), nullptr, false, width).y <= lines * lh + 1) return f;
  const std::string c = crossover_hidden(app) ? (cmp.crossover.empty() ? "" : crossover_caption(app))
                        : crossover_shown(app) ? short_crossover(cmp)
                                               : "";
  if (c.empty() && cmp.sweep_source.kind != SweepSource::shm && pred && !cmp.lines_text.empty()) {
    // No crossover to tell: say what the line is ("NCCL's model of dgx-h100"), without its parenthesis.
    const std::string line = cmp.lines_text.substr(0, cmp.lines_text.find(" ("));
    return "Time vs size (log-log); line: " + line + skipped;
  }
  return (c.empty() ? std::string("Time against message size (log-log)") : "Time vs size (log-log): " + c) + skipped;
}

}  // namespace

std::string sweep_header_text(const App& app, float width, bool brief) {
  std::string full;
  return sweep_header(app, width, brief, &full);
}

namespace {

// A curve that is no algorithm of the registry ("published": a table's
// rows) with dots and a line: the line is a model's, drawn in the
// predicted colour with a legend entry of its own (issue 37, lesson 09
// beat 17: line and dots were the same grey, the legend said "published").
bool model_line_apart(const Compare& cmp, const SweepCurve& c) {
  return !c.measured_us.empty() && !c.predicted_us.empty() && !find_algorithm(c.algorithm, cmp.base.spec.collective);
}
bool any_model_line_apart(const Compare& cmp) {
  return std::any_of(cmp.sweep.begin(), cmp.sweep.end(), [&](const SweepCurve& c) { return model_line_apart(cmp, c); });
}
constexpr const char* kModelLegend = "model";

float legend_width(const Compare& cmp) {
  const float lh = ImGui::GetTextLineHeight();
  float w = 0;
  for (const auto& c : cmp.sweep) w += lh * 1.0f + ImGui::CalcTextSize(c.algorithm.c_str()).x + lh * 0.6f;
  if (any_model_line_apart(cmp)) w += lh * 1.4f + ImGui::CalcTextSize(kModelLegend).x + lh * 0.6f;
  return w;
}

// The legend goes at the right end of a one-line header when it fits
// there, else on a line of its own below the header.
bool legend_on_header_line(const Compare& cmp, const std::string& header, float width) {
  const ImVec2 h = ImGui::CalcTextSize(header.c_str(), nullptr, false, width);
  return h.y <= ImGui::GetTextLineHeight() + 1 && h.x + ImGui::GetTextLineHeight() * 2 + legend_width(cmp) <= width;
}

}  // namespace

// Height the sweep needs besides its plot box: the header, the legend
// when on a line of its own, the x labels.
float sweep_overhead(const App& app, float width, bool brief) {
  std::string full;
  const std::string h = sweep_header(app, width, brief, &full);
  const float sp = ImGui::GetStyle().ItemSpacing.y, lh = ImGui::GetTextLineHeight();
  const bool own_line = !app.compare.sweep.empty() && !legend_on_header_line(app.compare, h, width);
  // Half a line above the box and below it: the top and bottom y labels
  // are centred on the box's edges.
  const float label_h = brief ? (app.vs.present ? lh + sp : 0.f)
                              : ImGui::CalcTextSize(source_line(app.compare).c_str(), nullptr, false, width).y + sp;
  return label_h + ImGui::CalcTextSize(h.c_str(), nullptr, false, width).y + sp + (own_line ? lh + sp : 0) + lh * 0.5f +
         lh + 6;
}

void draw_sweep_plot(App& app, ImVec2 size, bool brief) {
  ViewState& vs = app.vs;
  Compare& cmp = app.compare;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o0 = ImGui::GetCursorScreenPos();
  rec(vs, "sweep plot", o0, ImVec2(o0.x + size.x, o0.y + size.y));
  if (!brief || vs.present) {
    // The source, labelled on screen (a bold colour: it decides what the
    // picture claims), then the plot below it; a short plot's in one line
    // on a slide (the tag inside the box, on a desk, covered the lines).
    std::string label = brief ? brief_caption(cmp) : source_line(cmp);
    // (--font-px 40: the one line ran off the slide; the tag alone, the rest on hover.)
    if (brief && ImGui::CalcTextSize(label.c_str()).x > size.x) label = "Source: " + source_tag(cmp);
    ImGui::PushTextWrapPos(brief ? -1.f : o0.x + size.x - ImGui::GetWindowPos().x);
    ImGui::PushStyleColor(ImGuiCol_Text, im(text_color_on_light(predicted_color())));
    ImGui::TextUnformatted(label.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    rec_item(vs, "sweep source label");
    if (brief && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", source_line(cmp).c_str());
    const float used = (brief ? ImGui::GetTextLineHeight() : ImGui::GetItemRectSize().y) + ImGui::GetStyle().ItemSpacing.y;
    size.y -= used;
    ImGui::SetCursorScreenPos(ImVec2(o0.x, o0.y + used));
  }
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImU32 ink = im(from_hex(assets::kInk)), faint = im(from_hex(assets::kFaint));
  const float lh = ImGui::GetTextLineHeight(), sp = ImGui::GetStyle().ItemSpacing.y;
  // Header (wrapped), then the legend: on the header's line at its right
  // end when it fits, else on a line of its own; the plot box below both.
  std::string full;
  const std::string header = sweep_header(app, size.x, brief, &full);
  ImGui::PushTextWrapPos(o.x + size.x - ImGui::GetWindowPos().x);
  ImGui::TextUnformatted(header.c_str());
  ImGui::PopTextWrapPos();
  rec_item(vs, "sweep header");
  if (header != full && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", full.c_str());
  const float header_h = ImGui::GetItemRectSize().y, legend_w = legend_width(cmp);
  ImVec2 legend_at(o.x, o.y + header_h + sp);
  float top = header_h + sp;
  if (legend_on_header_line(cmp, header, size.x)) legend_at = ImVec2(o.x + size.x - legend_w, o.y);
  else if (!cmp.sweep.empty()) top += lh + sp;
  top += lh * 0.5f;  // the top y label is centred on the box's top edge
  if (!cmp.sweep.empty()) rec(vs, "sweep legend", legend_at, ImVec2(legend_at.x + legend_w, legend_at.y + lh));
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const auto& c : cmp.sweep) {
    for (size_t i = 0; i < c.bytes.size(); ++i) {
      xmin = std::min(xmin, c.bytes[i]), xmax = std::max(xmax, c.bytes[i]);
      if (i < c.measured_us.size()) ymin = std::min(ymin, c.measured_us[i]), ymax = std::max(ymax, c.measured_us[i]);
      if (i < c.p10_us.size() && c.p10_us[i] > 0) ymin = std::min(ymin, c.p10_us[i]), ymax = std::max(ymax, c.p90_us[i]);
      if (i < c.predicted_us.size()) ymin = std::min(ymin, c.predicted_us[i]), ymax = std::max(ymax, c.predicted_us[i]);
    }
  }
  // One size's bars (size_bars.h) have no y labels nor x labels centred on
  // the box's edges: their box takes the width.
  const bool bars = one_size(cmp);
  const float left = bars ? 0.f : ImGui::CalcTextSize("100 ms ").x, bottom = lh + 6;
  const float right = bars ? 0.f : ImGui::CalcTextSize("256 KiB").x * 0.6f;  // (half an x label's overhang)
  // A slide of a lesson with predicted lines of two algorithms or more: a
  // strip at the right plots each line over the fastest at that size
  // (1x = fastest), where the crossover the beats ask about shows; on the
  // time axis, which must also hold the measured dots, the model lines
  // lie within a few pixels of each other (issue 37, lesson 03 beats 4-8).
  int with_lines = 0;
  for (const auto& c : cmp.sweep) with_lines += c.predicted_us.size() == c.bytes.size() && !c.bytes.empty();
  const float full_right = o.x + size.x - right;
  // (Not while a question withholds the crossover, nor on a beat not about it: the strip shows it.)
  // (Not beside one size's bars either: lesson 09 beat 13's bars kept its room empty, the box 870 px of 1280.)
  const bool ratio_strip =
      !bars && vs.present && app.lesson && with_lines >= 2 && size.x > 30 * lh && crossover_shown(app);
  const float strip_w = ratio_strip ? std::floor((full_right - o.x - left) * 0.3f) : 0.f;
  // The gap holds the strip's "1×" left of its box, a line's height clear of the plot's box.
  const float strip_gap = ratio_strip ? ImGui::CalcTextSize("1×").x + 2 + lh : 0.f;
  const ImVec2 p0(o.x + left, o.y + top),
      p1(full_right - (ratio_strip ? strip_w + strip_gap : 0.f), std::max(o.y + top + 8, o.y + size.y - bottom));
  dl->AddRect(p0, p1, faint);
  rec(vs, "sweep axes", p0, p1);
  if (cmp.sweep.empty() || xmax <= 0) {
    dl->PushClipRect(p0, p1, true);
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(p0.x + 8, p0.y + 4), ink,
                "Press \"Measure sweep\" to time every algorithm over message sizes.", nullptr, p1.x - p0.x - 16);
    dl->PopClipRect();
    ImGui::SetCursorScreenPos(o);
    ImGui::Dummy(size);
    return;
  }
  if (bars) {  // one size (a lab beat's run): bars, not a log-log plot (size_bars.h)
    draw_size_bars(app, dl, p0, p1);
    ImGui::SetCursorScreenPos(o);
    ImGui::Dummy(size);
    return;
  }
  const float cap = std::max(3.f, std::floor(lh * 0.3f));
  // Each algorithm's dots and bars sit a little apart at the same size
  // (centred on the size), so that bars of equal times stay distinct;
  // the predicted lines stay at the size itself. The sizes map inside the
  // box by the outermost offset, so no dot or bar crosses its sides.
  const float spread_px = 2 * cap + 3;
  const size_t K = cmp.sweep.size();
  const float inset = float(K - 1) / 2 * spread_px + std::max(cap, lh * 0.28f) + 2;
  const double lx0 = std::log10(xmin), lx1 = std::log10(std::max(xmax, xmin * 2));
  // The y range fits the data shown, a twentieth of it (at least 0.05
  // decade) spare at each end, not whole decades (issue 37: 1 µs .. 1 s
  // flattened lesson 03's lines into one).
  const double dlo = std::log10(std::max(ymin, 1e-3)), dhi = std::log10(std::max(ymax, std::max(ymin, 1e-3) * 1.5));
  const double ypad = std::max(0.05, (dhi - dlo) * 0.05);
  const double ly0 = dlo - ypad, ly1 = dhi + ypad;
  auto X = [&](double b) { return p0.x + inset + float((std::log10(b) - lx0) / (lx1 - lx0)) * (p1.x - p0.x - 2 * inset); };
  auto Y = [&](double us) {
    return p1.y - float((std::log10(std::max(us, 1e-3)) - ly0) / std::max(ly1 - ly0, 1e-9)) * (p1.y - p0.y);
  };
  // y ticks: decades over a wide range, 1-3 over one to three decades,
  // 1-2-5 below; a grid line each, a label where the one above leaves a
  // line of text (from the top down).
  const double span = ly1 - ly0;
  const std::vector<double> mantissas = span > 3 ? std::vector<double>{1} : span > 1 ? std::vector<double>{1, 3}
                                                                                     : std::vector<double>{1, 2, 5};
  std::vector<double> ticks;
  for (double d = std::floor(ly0); d <= std::ceil(ly1); d += 1)
    for (double m : mantissas)
      if (const double v = m * std::pow(10, d); std::log10(v) >= ly0 && std::log10(v) <= ly1) ticks.push_back(v);
  float last_label_y = -1e9f;
  std::vector<double> labelled;
  for (auto it = ticks.rbegin(); it != ticks.rend(); ++it) {
    const float y = Y(*it);
    dl->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), faint);
    // A label centred on its line must not stick out above the box (issue
    // 37, lesson 09 beat 17: "100 ms" on the top edge was cut by the header).
    if (y - lh / 2 < p0.y - 1) continue;
    if (y - last_label_y < lh * 1.1f) continue;
    last_label_y = y;
    labelled.push_back(*it);
  }
  // A short box with fewer than two ticks labelled: its two edges' times
  // instead (three significant digits), so that the scale reads.
  if (labelled.size() < 2) labelled = {std::pow(10, ly1), std::pow(10, ly0)};
  // Data more than half a line below the lowest label: one more label and
  // grid line at the box's bottom edge's time rounded up to two digits (at
  // or below the lowest point), where it leaves a line above (lesson 12
  // beat 2: the lines at 15 µs ran under "30 µs", the lowest label), so
  // that the axis's labels span every point drawn.
  else if (const float low = Y(labelled.back()); Y(ymin) > low + lh * 0.5f) {
    const double edge = std::pow(10, ly0), unit = std::pow(10, std::floor(std::log10(edge)) - 1);
    const double v = std::ceil(edge / unit) * unit <= ymin ? std::ceil(edge / unit) * unit : edge;
    if (Y(v) - low >= lh * 1.1f) {
      dl->AddLine(ImVec2(p0.x, Y(v)), ImVec2(p1.x, Y(v)), faint);
      labelled.push_back(v);
    }
  }
  for (const double v : labelled) {
    const std::string t = format_us(v);
    const float ty = std::max(Y(v) - lh / 2, p0.y);  // (the edges' labels of a short box: inside it)
    dl->AddText(ImVec2(o.x, ty), ink, t.c_str());
    rec(vs, "sweep y label " + t, ImVec2(o.x, ty), ImVec2(o.x + ImGui::CalcTextSize(t.c_str()).x, ty + lh));
  }
  struct XLabel {
    float x, w;
    std::string t;
  };
  std::vector<XLabel> xl;
  const size_t nx = cmp.sweep.front().bytes.size();
  for (size_t i = 0; i < nx; ++i) {
    const double b = cmp.sweep.front().bytes[i];
    const std::string t = human_bytes(b);
    const float x = X(b), w = ImGui::CalcTextSize(t.c_str()).x;
    dl->AddLine(ImVec2(x, p1.y), ImVec2(x, p1.y + 4), ink);
    // Clear of the y labels (left of the box); with the ratio strip beside
    // it, the largest size's ends by the box's right edge (issue 37,
    // lessons 03/05: "64 MiB" ran on into the strip's "4 KiB").
    float tx = std::max(x - w / 2, p0.x);
    if (ratio_strip) tx = std::min(tx, p1.x - w);
    // A label only where the previous one leaves room; the largest size's
    // always, in place of the one before it when they meet.
    if (!xl.empty() && tx < xl.back().x + xl.back().w + lh * 0.5f) {
      if (i + 1 < nx || xl.size() < 2) continue;
      while (xl.size() >= 2 && tx < xl.back().x + xl.back().w + lh * 0.5f) xl.pop_back();
      if (tx < xl.back().x + xl.back().w + lh * 0.5f) continue;  // (the smallest size's stays)
    }
    xl.push_back(XLabel{tx, w, t});
  }
  for (const XLabel& l : xl) {
    dl->AddText(ImVec2(l.x, p1.y + 4), ink, l.t.c_str());
    rec(vs, "sweep x label " + l.t, ImVec2(l.x, p1.y + 4), ImVec2(l.x + l.w, p1.y + 4 + lh));
  }
  // What the plot's labels keep clear of (compare_plot_place.h): the lines
  // drawn (recorded as "sweep segment <what>": from (x, y) to (x + w, y + h),
  // for the tests), the dots, error bars and labels placed.
  std::vector<Segment> segs;
  std::vector<Rect> marks;
  const auto add_seg = [&](const std::string& what, ImVec2 a, ImVec2 b) {
    segs.push_back(Segment{a.x, a.y, b.x, b.y});
    rec(vs, "sweep segment " + what, a, b);
  };
  const auto add_mark = [&](ImVec2 a, ImVec2 b) { marks.push_back(Rect{a.x, a.y, b.x - a.x, b.y - a.y}); };
  float legend_x = legend_at.x;
  const SmoothLines smooth(dl);  // the plot's diagonals and dots: anti-aliased
  for (size_t k = 0; k < K; ++k) {
    const auto& c = cmp.sweep[k];
    const Rgba col = algorithm_color(c.algorithm);
    const float off = std::round((float(k) - float(K - 1) / 2) * spread_px);
    const Rgba line_col = model_line_apart(cmp, c) ? predicted_color() : col;
    const size_t drawn = std::min(c.predicted_us.size(), predicted_points_drawn(cmp, crossover_hidden(app)));
    for (size_t i = 0; i + 1 < drawn; ++i) {
      const ImVec2 a(X(c.bytes[i]), Y(c.predicted_us[i])), b(X(c.bytes[i + 1]), Y(c.predicted_us[i + 1]));
      dl->AddLine(a, b, im(line_col), 2.5f);
      add_seg("line " + c.algorithm, a, b);
    }
    if (drawn > 1)  // "sweep line ring to 256 KiB": how far the line goes (tests: no crossing before the answer)
      rec(vs, "sweep line " + c.algorithm + " to " + human_bytes(double(c.bytes[drawn - 1])),
          ImVec2(X(c.bytes[0]), p0.y), ImVec2(X(c.bytes[drawn - 1]), p1.y));
    for (size_t i = 0; i < c.bytes.size() && i < c.measured_us.size(); ++i) {  // model curves: no dots
      const ImVec2 p(X(c.bytes[i]) + off, Y(c.measured_us[i]));
      // Error bar p10..p90: whole pixels (filled rectangles, not lines), so
      // that a pixel probe at a cap sees the algorithm's colour exactly.
      const bool spread = i < c.p10_us.size() && i < c.p90_us.size() && c.p10_us[i] > 0 && c.p90_us[i] > 0;
      if (spread) {
        const float x = std::floor(p.x), lo = std::floor(Y(c.p10_us[i])), hi = std::floor(Y(c.p90_us[i]));
        dl->AddRectFilled(ImVec2(x - 1, hi), ImVec2(x + 1, lo + 1), im(col));
        dl->AddRectFilled(ImVec2(x - cap, hi - 1), ImVec2(x + cap + 1, hi + 1), im(col));
        dl->AddRectFilled(ImVec2(x - cap, lo - 1), ImVec2(x + cap + 1, lo + 1), im(col));
        add_mark(ImVec2(x - cap, hi - 1), ImVec2(x + cap + 1, lo + 1));
        if (app.vs.collect_probes) {
          // The caps' end pixels, clear of the dot (radius lh·0.28 < cap).
          const std::string at = fmt::format("{} {}", c.algorithm, human_bytes(c.bytes[i]));
          app.vs.probes.push_back(Probe{int(x + cap), int(hi - 1), col, "error bar p90 " + at});
          app.vs.probes.push_back(Probe{int(x + cap), int(lo - 1), col, "error bar p10 " + at});
        }
      }
      dl->AddCircleFilled(p, lh * 0.28f, im(col), 16);
      add_mark(ImVec2(p.x - lh * 0.3f, p.y - lh * 0.3f), ImVec2(p.x + lh * 0.3f, p.y + lh * 0.3f));
      rec(vs, fmt::format("sweep dot {} {}", c.algorithm, human_bytes(c.bytes[i])), ImVec2(p.x - lh * 0.28f, p.y - lh * 0.28f),
          ImVec2(p.x + lh * 0.28f, p.y + lh * 0.28f));
      if (i + 1 < c.measured_us.size() && c.predicted_us.empty()) {
        const ImVec2 q(X(c.bytes[i + 1]) + off, Y(c.measured_us[i + 1]));
        dl->AddLine(p, q, im(with_alpha(col, 110)), 1.5f);
        add_seg("dots " + c.algorithm, p, q);
      }
      if (hovered_rect(ImVec2(p.x - 6, p.y - 6), ImVec2(p.x + 6, p.y + 6)))
        ImGui::SetTooltip("%s, %s: measured %s (p10 %s, p90 %s, min %s, max %s over %d iterations), predicted %s",
                          c.algorithm.c_str(), human_bytes(c.bytes[i]).c_str(), format_us(c.measured_us[i]).c_str(),
                          format_us(spread ? c.p10_us[i] : -1).c_str(), format_us(spread ? c.p90_us[i] : -1).c_str(),
                          format_us(spread ? c.min_us[i] : -1).c_str(), format_us(spread ? c.max_us[i] : -1).c_str(),
                          i < c.samples.size() ? c.samples[i] : 0,
                          format_us(i < c.predicted_us.size() ? c.predicted_us[i] : -1).c_str());
    }
    dl->AddCircleFilled(ImVec2(legend_x + lh * 0.3f, legend_at.y + lh * 0.5f), lh * 0.3f, im(col), 16);
    dl->AddText(ImVec2(legend_x + lh * 0.8f, legend_at.y), ink, c.algorithm.c_str());
    legend_x += lh * 1.0f + ImGui::CalcTextSize(c.algorithm.c_str()).x + lh * 0.6f;
  }
  if (any_model_line_apart(cmp)) {  // a stroke of the line's colour, then its word
    const float y = legend_at.y + lh * 0.5f;
    dl->AddLine(ImVec2(legend_x, y), ImVec2(legend_x + lh * 1.1f, y), im(predicted_color()), 2.5f);
    dl->AddText(ImVec2(legend_x + lh * 1.4f, legend_at.y), ink, kModelLegend);
    rec(vs, "sweep legend model", ImVec2(legend_x, legend_at.y),
        ImVec2(legend_x + lh * 1.4f + ImGui::CalcTextSize(kModelLegend).x, legend_at.y + lh));
    if (app.vs.collect_probes)
      app.vs.probes.push_back(Probe{int(legend_x + lh * 0.5f), int(y), predicted_color(), "legend model line"});
  }
  std::vector<Rect> texts;  // the labels placed in the box
  draw_plot_labels(app, dl, PlotFrame{p0, p1, xmin, xmax, inset, spread_px, X, Y}, segs, marks, texts);
  if (ratio_strip)
    draw_ratio_strip(app, dl, ImVec2(p1.x + strip_gap, p0.y), ImVec2(full_right, p1.y), xmin, xmax, o.x + size.x);
  if (brief && !vs.present && p1.y - p0.y >= lh + 4) {
    // A short plot on a desk has no line for the source's label: its tag
    // goes on the header's line, left of the legend, where both fit there
    // (issue 37, lesson 03 beat 9: inside the box it lay over the lines),
    // else inside the box at the bottom right (large sizes take long, small
    // ones short: the corner a log-log time plot leaves empty), or the
    // nearest row up clear of the labels, over the data on a light backing.
    const std::string tag = "Source: " + source_tag(cmp);
    const ImVec2 ts = ImGui::CalcTextSize(tag.c_str());
    const float header_w = ImGui::CalcTextSize(header.c_str()).x;
    const bool on_header = legend_on_header_line(cmp, header, size.x) &&
                           o.x + header_w + lh * 2 + ts.x <= legend_at.x - lh;
    ImVec2 ta(std::max(p0.x + 2, p1.x - ts.x - 4), p1.y - ts.y - 2);
    if (on_header) {
      ta = ImVec2(legend_at.x - lh * 1.5f - ts.x, o.y);
    } else {
      std::vector<Rect> cands;
      for (float y = ta.y; y >= p0.y + 1; y -= lh * 0.5f) cands.push_back(Rect{ta.x - 2, y, ts.x + 4, ts.y});
      if (const int i = pick_clear_of_text(cands, segs, marks, texts); i >= 0) ta.y = cands[size_t(i)].y;
    }
    dl->AddRectFilled(ImVec2(ta.x - 2, ta.y), ImVec2(ta.x + ts.x + 2, ta.y + ts.y), im(with_alpha(from_hex(assets::kBackground), 215)));
    dl->AddText(ta, im(text_color_on_light(predicted_color())), tag.c_str());
    rec(vs, "sweep source label", ta, ImVec2(ta.x + ts.x, ta.y + ts.y));
  }
  ImGui::SetCursorScreenPos(o);
  ImGui::Dummy(size);
}

}  // namespace microddp::viz::compare_panel
