// Timeline: one lane per rank with a bar per executed op (measured), then
// three step lanes: the measured step time as benchmarks report it (the
// median of warm repetitions, a whisker from p10 to p90), the first (cold,
// real) run apart, and the predicted step time. Hover shows the numbers.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/viz/layout.h"
#include "app/viz/panels.h"
#include "app/viz/step_total.h"
#include "assets/palette.h"

namespace microddp::viz {


void draw_timeline(App& app) {
  const Session& ses = app.session;
  const TimelineScene sc = build_timeline(ses);
  const int n = ses.schedule().num_endpoints();  // a lane per rank, then the switch's (nvls: "SW")
  // The title on one line: the mode's explanation moves to the hover where
  // it would be cut.
  const std::string title = "Timeline - " + sc.mode_label;
  if (ImGui::CalcTextSize(title.c_str()).x <= ImGui::GetContentRegionAvail().x) {
    ImGui::TextUnformatted(title.c_str());
  } else {
    const std::string short_title = title.substr(0, title.find(" ("));
    ImGui::TextUnformatted(short_title.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", title.c_str());
  }
  // A question that the step count answers (lesson 11 beat 1: "How many
  // steps does the ring take on 8 ranks?"; lesson 04 beat 3's phase): the
  // lanes' step blocks would count it out, so they wait like the captions.
  if (timeline_withheld(app)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s", kTimelineWaits);  // whole in a narrow panel
    ImGui::PopStyleColor();
    return;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Legend of op kinds, wrapped onto the next line where the panel ends;
  // where its line would leave the lanes under 0.9 of a line (large text in
  // a short panel) it moves to the title's hover.
  const float sz = ImGui::GetTextLineHeight() * 0.8f;
  const float lanes_need = float(n + 3) * ImGui::GetFontSize() * 0.9f + 2 * ImGui::GetTextLineHeightWithSpacing();
  if (ImGui::GetContentRegionAvail().y < lanes_need) {
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\nbars: send, recv, recv-reduce, reduce, copy (hover a bar for its op)", title.c_str());
  } else {
    const float legend_right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    bool first = true;
    for (OpKind k : {OpKind::send, OpKind::recv, OpKind::recv_reduce, OpKind::reduce, OpKind::copy}) {
      const std::string kn(name(k));
      if (!first) {
        ImGui::SameLine(0, 12);
        if (ImGui::GetCursorScreenPos().x + sz + 3 + ImGui::CalcTextSize(kn.c_str()).x > legend_right) ImGui::NewLine();
      }
      first = false;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + sz, p.y + 2 + sz), im(op_kind_color(k)));
      ImGui::Dummy(ImVec2(sz + 3, sz));
      ImGui::SameLine(0, 0);
      ImGui::TextUnformatted(kn.c_str());
    }
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = std::max(ImGui::CalcTextSize("predicted ").x, ImGui::CalcTextSize("first run ").x);
  const int lanes = n + 3;
  const float axis_h = ImGui::GetTextLineHeight() + 2;
  // Rank lanes (1.2 lines) and the three step lanes (1.1 lines) shrink
  // together in a short panel, so the ranks' lanes stay as readable as the
  // step lanes; with many ranks the step lanes keep at least 0.7 of a line
  // (their labels shrinking with them) and the ranks share the rest.
  const float fs = ImGui::GetFontSize();
  const float room = avail.y - axis_h;
  const float k = std::clamp(room / (float(n) * fs * 1.2f + 3 * fs * 1.1f), 0.f, 1.f);
  const float step_lane_h = std::max(fs * 1.1f * k, std::min(fs * 0.7f, room * 0.1f));
  const float step_px = std::min(fs, step_lane_h);
  // Rank lanes at least 3 px, fewer (down to 1) where 64 ranks would push
  // the step lanes out of the panel.
  const float lane_floor = std::clamp((room - 3 * step_lane_h) / float(n), 1.f, 3.f);
  float lane_h = std::max(lane_floor, std::min(fs * 1.2f, (room - 3 * step_lane_h) / float(n)));
  // Step lanes are never lower than rank lanes (lane_y): when the rank
  // lanes come out taller, all n + 3 share the room.
  if (lane_h > step_lane_h) lane_h = std::max(step_lane_h, std::min(lane_h, room / float(n + 3)));
  const float w = std::max(avail.x - label_w - 6, 10.f);
  const double scale = w / sc.span_us;
  const float x0 = origin.x + label_w;
  const ImU32 ink = im(from_hex(assets::kInk));
  auto lane_y = [&](int lane) {
    return origin.y + std::min(lane, n) * lane_h + std::max(lane - n, 0) * std::max(step_lane_h, lane_h);
  };
  // Highlight the step being shown.
  const int shown = ses.position() - 1;
  for (const StepSpan& st : sc.steps) {
    const float a = x0 + float(st.begin_us * scale), b = x0 + float(st.end_us * scale);
    if (st.step == shown)
      dl->AddRectFilled(ImVec2(a, origin.y), ImVec2(std::max(b, a + 2), lane_y(lanes)), IM_COL32(0, 114, 178, 28));
    dl->AddLine(ImVec2(a, origin.y), ImVec2(a, lane_y(lanes)), im(from_hex(assets::kFaint)), 1);
  }
  // Every lane carries its rank: in lanes lower than the text the label
  // shrinks to the lane, down to 8 px (in --present to min_text_px, 14 px);
  // below that (16 ranks in a short panel) the labels alternate between two
  // columns, each as tall as two lanes, so neighbours never overlap; where
  // even two lanes are lower than the floor (32 ranks and more in
  // --present, 64 on a desk), every k-th rank is labelled (k a power of
  // two), centred on its lane, the others named on hover.
  const float floor_px = std::min(fs, app.vs.present ? min_text_px(true) : 8.f);
  const float fit_px = std::min(fs, lane_h * 0.95f);
  const bool one_column = fit_px >= floor_px;
  const bool two_columns = !one_column && lane_h * 1.9f >= floor_px;
  int every = 1;
  if (!one_column && !two_columns)
    while (float(every) * lane_h < floor_px * 1.15f && every < n) every *= 2;
  const float label_px = one_column ? fit_px : two_columns ? std::min(fs, std::max(floor_px, lane_h * 1.9f)) : floor_px;
  const float col2_x = origin.x + label_w * 0.5f;
  for (int r = 0; r < n; r += every) {
    const float x = !two_columns || r % 2 == 0 ? origin.x : col2_x, y = lane_y(r) + (lane_h - label_px) / 2;
    const std::string label = endpoint_name(ses.schedule(), r);
    dl->AddText(ImGui::GetFont(), label_px, ImVec2(x, y), ink, label.c_str());
    app.vs.labels_drawn.push_back(
        {"timeline " + label, Rect{x, y, ImGui::CalcTextSize(label.c_str()).x * label_px / fs, label_px}});
  }
  const TimelineBar* hover = nullptr;
  // Level of detail, as zoomed-out profilers (Tracy, Perfetto) do: on one
  // lane, neighbouring bars less than a pixel apart are drawn as one
  // rectangle when they are the same kind, or when each is narrower than
  // kTiny pixels (the merged block takes the colour of its longest op;
  // hover still names every op). With 16 ranks x 30 steps the timeline has
  // 1200 ops, mostly 1-2 px slivers; merging keeps the picture and spares a
  // software rasteriser (llvmpipe) most of its triangles.
  constexpr float kTiny = 3.f;
  struct Run {
    float a = 0, e = -1, longest = -1;
    OpKind kind = OpKind::swap;
    bool tiny = true;
  };
  std::vector<Run> run(static_cast<size_t>(n));
  auto flush = [&](int r) {
    Run& u = run[static_cast<size_t>(r)];
    if (u.e < u.a) return;
    const float y = lane_y(r) + 1;
    dl->AddRectFilled(ImVec2(u.a, y), ImVec2(u.e, y + std::max(lane_h - 2, 1.f)), im(op_kind_color(u.kind)));
    u.e = u.a - 1;
  };
  for (const TimelineBar& b : sc.bars) {
    if (b.kind == OpKind::swap || b.rank < 0 || b.rank >= n) continue;
    const float a = x0 + float(b.begin_us * scale);
    const float e = std::max(a + 1.5f, x0 + float(b.end_us * scale));
    const float y = lane_y(b.rank) + 1;
    const ImVec2 p0(a, y), p1(e, y + std::max(lane_h - 2, 1.f));
    const bool tiny = e - a < kTiny;
    Run& u = run[static_cast<size_t>(b.rank)];
    const bool touches = u.e >= u.a && a >= u.a && a <= u.e + 1.f;
    if (touches && (u.kind == b.kind || (u.tiny && tiny))) {
      if (e - a > u.longest) u.longest = e - a, u.kind = b.kind;
      u.e = std::max(u.e, e);
      u.tiny = u.tiny && tiny;
    } else {
      flush(b.rank);
      u = Run{a, e, e - a, b.kind, tiny};
    }
    if (hovered_rect(p0, p1)) hover = &b;
  }
  for (int r = 0; r < n; ++r) flush(r);
  // Step lanes: measured (median + spread), first run, predicted.
  const int ym = n, yf = n + 1, yp = n + 2;
  const float slh = std::max(step_lane_h, lane_h);
  const ImU32 measured = im(from_hex(assets::kMeasured));
  const float sy = (slh - step_px) / 2;
  dl->AddText(ImGui::GetFont(), step_px, ImVec2(origin.x, lane_y(ym) + sy), ink, "median");
  dl->AddText(ImGui::GetFont(), step_px, ImVec2(origin.x, lane_y(yf) + sy), ink, "first run");
  dl->AddText(ImGui::GetFont(), step_px, ImVec2(origin.x, lane_y(yp) + sy), im(text_color_on_light(predicted_color())), "predicted");
  const StepSpan* hover_step = nullptr;
  bool any_pred = false;
  for (const StepSpan& st : sc.steps) {
    const float a = x0 + float(st.begin_us * scale);
    const float end = std::max(a + 2, x0 + float(st.end_us * scale));
    // The median as a bar, the p10-p90 spread as a whisker through it.
    const ImVec2 m0(a, lane_y(ym) + 2), m1(std::max(a + 2, a + float(st.median_us * scale)), lane_y(ym) + slh - 2);
    dl->AddRectFilled(m0, m1, measured);
    if (st.repetitions > 0) {
      const float ymid = lane_y(ym) + slh / 2, tick = slh * 0.3f;
      const float w10 = a + float(st.p10_us * scale), w90 = std::max(w10 + 1, a + float(st.p90_us * scale));
      dl->AddLine(ImVec2(w10, ymid), ImVec2(w90, ymid), ink, 1.5f);
      dl->AddLine(ImVec2(w10, ymid - tick), ImVec2(w10, ymid + tick), ink, 1.5f);
      dl->AddLine(ImVec2(w90, ymid - tick), ImVec2(w90, ymid + tick), ink, 1.5f);
    }
    // The first run, outlined; cut off at the step's end (with its number)
    // when the cold run is far longer than the warm ones.
    const float f1 = a + float(st.first_run_us * scale);
    const bool cut = f1 > end;
    const ImVec2 f0p(a, lane_y(yf) + 3), f1p(std::max(a + 2, cut ? end : f1), lane_y(yf) + slh - 3);
    dl->AddRect(f0p, f1p, measured, 0, 0, 1.5f);
    if (cut) {
      const std::string label = format_us(st.first_run_us);
      const float tw = ImGui::CalcTextSize(label.c_str()).x * step_px / fs;
      if (tw + 4 < end - a) dl->AddText(ImGui::GetFont(), step_px, ImVec2(end - tw - 2, lane_y(yf) + sy), ink, label.c_str());
    }
    if (st.predicted_us >= 0) {
      any_pred = true;
      const ImVec2 q0(a, lane_y(yp) + 2), q1(std::max(a + 2, a + float(st.predicted_us * scale)), lane_y(yp) + slh - 2);
      dl->AddRectFilled(q0, q1, im(predicted_color()));
    }
    if (hovered_rect(ImVec2(a, lane_y(ym)), ImVec2(x0 + float(st.end_us * scale), lane_y(yp + 1)))) hover_step = &st;
  }
  if (!any_pred && !sc.steps.empty())
    dl->AddText(ImGui::GetFont(), step_px, ImVec2(x0 + 4, lane_y(yp) + sy), im(text_color_on_light(predicted_color())),
                "n/a (no cost model)");
  if (sc.steps.empty())
    dl->AddText(ImGui::GetFont(), fs, ImVec2(x0 + 4, origin.y + 4), ink,
                "Press Step (Right arrow) to run the first step for real.", nullptr, std::max(w - 8, 10.f));
  // The axis, once a step has run: before that the span is a placeholder
  // (1 ns) that would read as a measurement.
  if (!sc.steps.empty()) {
    const float ay = lane_y(lanes) + 1;
    const std::string right = format_us(sc.span_us);
    const float right_w = ImGui::CalcTextSize(right.c_str()).x;
    dl->AddText(ImVec2(x0, ay), ink, "0");
    dl->AddText(ImVec2(x0 + w - right_w, ay), ink, right.c_str());
    app.vs.labels_drawn.push_back({"timeline axis 0", Rect{x0, ay, ImGui::CalcTextSize("0").x, fs}});
    app.vs.labels_drawn.push_back({"timeline axis " + right, Rect{x0 + w - right_w, ay, right_w, fs}});
    // The rank bars are the one real run; where a cold step outgrew its
    // slot they are drawn shorter than the axis says. Say so on the axis,
    // not only in the hover, so nobody reads an op's time off it.
    double most = 1;
    for (const StepSpan& st : sc.steps) most = std::max(most, st.squeeze);
    if (most > 1.05) {
      const std::string note = fmt::format("rank bars: the first run, drawn up to {:.1f}x shorter", most);
      const float nw = ImGui::CalcTextSize(note.c_str()).x * step_px / fs;
      const float left = x0 + ImGui::CalcTextSize("0").x + 8, room = w - right_w - 16 - ImGui::CalcTextSize("0").x;
      if (nw <= room) {
        const float nx = left + (room - nw) / 2;
        dl->AddText(ImGui::GetFont(), step_px, ImVec2(nx, ay + (fs - step_px) / 2), ink, note.c_str());
        app.vs.labels_drawn.push_back({"timeline squeeze note", Rect{nx, ay, nw, step_px}});
      }
    }
  }
  ImGui::Dummy(ImVec2(avail.x, lane_y(lanes) - origin.y + axis_h));
  if (hover) {
    const Schedule& sch = ses.schedule();
    ImGui::SetTooltip("%s step %d: %s%s\nmeasured %s%s\n%lld bytes", endpoint_name(sch, hover->rank).c_str(), hover->step,
                      std::string(name(hover->kind)).c_str(),
                      hover->peer >= 0 ? fmt::format(" {} {}", hover->kind == OpKind::send ? "to" : "from",
                                                     endpoint_name(sch, hover->peer)).c_str()
                                       : "",
                      format_us(hover->dur_us).c_str(),
                      hover->squeeze > 1 ? fmt::format(" (the real, cold run, drawn {:.1f}x shorter to fit the step)",
                                                       hover->squeeze).c_str()
                                         : "",
                      static_cast<long long>(hover->bytes));
  } else if (hover_step) {
    const StepSpan& h = *hover_step;
    const std::string barrier = h.includes_barrier ? ", barrier included" : ", slowest rank, no barrier";
    const std::string measured_line =
        h.repetitions > 0 ? fmt::format("median {} (p10 {}, p90 {}; {} warm reps{})", format_us(h.median_us),
                                        format_us(h.p10_us), format_us(h.p90_us), h.repetitions, barrier)
                          : fmt::format("measured {} (one run{})", format_us(h.median_us), barrier);
    ImGui::SetTooltip("step %d\n%s\nfirst run %s (cold: thread wake-up, first touch of the buffers)\npredicted %s%s",
                      h.step, measured_line.c_str(), format_us(h.first_run_us).c_str(), format_us(h.predicted_us).c_str(),
                      h.includes_barrier ? " (the model's step + barrier b(n), when the profile has b(n))" : "");
  }
}

}  // namespace microddp::viz
