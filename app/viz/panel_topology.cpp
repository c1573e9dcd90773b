// Topology canvas: ranks as labelled nodes (ring, tree, star or hypercube
// pairs), the links that carry data in the shown step as arrows, and the
// chunks in flight as striped badges that travel along them while a step
// animates. On several nodes (--nodes): node boxes with their NICs, arrows
// and NICs coloured by load (bytes this step over the busiest port's), the
// bottleneck port in the predicted-time colour, a legend per link class.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "app/viz/avg_words.h"
#include "app/viz/layout.h"
#include "app/viz/panels.h"
#include "app/viz/stand_in_bottleneck.h"
#include "app/viz/step_total.h"
#include "app/viz/step_anim.h"
#include "core/algorithms/registry.h"
#include "assets/palette.h"

namespace microddp::viz {

std::string run_algorithm_name(const RunParams& p) {
  // The session runs a broken form only in place of the algorithm whose
  // record has one (the registry: ring_unchunked's single_buffered_ring).
  const AlgorithmInfo* a = p.broken ? find_algorithm(p.spec.algorithm, p.spec.collective) : nullptr;
  if (!a || !a->broken) return p.spec.algorithm;
  return a->broken_name + (p.broken->max_delay_us > 0 ? " (one buffer, sends delayed)" : " (one buffer)");
}

void draw_topology(App& app, const Session& ses, int position, ImVec2 size, bool compact) {
  const ViewState& vs = app.vs;
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const ImVec2 cap_pos = ImGui::GetCursorScreenPos();
  // On several nodes the legend takes four more lines below the canvas.
  // With large text in a short panel the legend folds into one line (the
  // rest on hover), so the canvas keeps room for the node boxes.
  const bool nodes_legend = !compact && ses.configured() && ses.schedule().spec.nodes > 1;
  bool legend_full = size.y - 6 * line_h >= 140;
  float legend_h = nodes_legend ? (legend_full ? 4 * line_h : line_h) : 0;
  // The notes (the switch's up and down, what each tree carries) under the
  // canvas, wrapped: measured on the first build, the canvas rebuilt.
  float notes_h = 0;
  // A still picture: the messages half-way. In the window: they arrive at
  // kArriveAt and stay there while the buffers take them in, swap, and
  // after (step_anim.h): no message is back on its link once its data
  // shows in the buffers.
  const float t = vs.static_frame ? 0.5f : travel_progress(vs.anim);
  const Network* net = ses.prediction().network ? &*ses.prediction().network : nullptr;
  // The caption wraps in a narrow panel (large text): the canvas is what
  // its lines leave.
  const auto canvas_for = [&](float cap_text_h) {
    return ImVec2(std::max(size.x, 40.f),
                  std::max(size.y - cap_text_h - spacing - (compact ? 0 : line_h) - legend_h - notes_h, 40.f));
  };
  float cap_text_h = ImGui::GetTextLineHeight();
  ImVec2 canvas = canvas_for(cap_text_h);
  // The labels at the panel's text size (the shapes grow with it), measured
  // in its font; never below the least text size (14 px in --present).
  const float fs = ImGui::GetFontSize();
  ImFont* font = ImGui::GetFont();
  TopologyText text;
  text.font_px = fs;
  text.min_px = std::min(fs, min_text_px(vs.present));
  text.width = [font](const std::string& l, float px) { return font->CalcTextSizeA(px, FLT_MAX, 0, l.c_str()).x; };
  TopologyScene sc = build_topology(ses, position, Vec2{canvas.x, canvas.y}, t, net, &text);
  const bool question_open = app.lesson && !compact && app.lesson->checks_hidden();
  if (question_open) withhold_bytes(sc);
  const bool stand_in = app.lesson && vs.lesson_note.rfind(kStandInNote, 0) == 0;
  if (stand_in) label_stand_in_bytes(sc);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Schedule& s = ses.schedule();
  const int n = s.world_size();

  const std::string caption = shown_steps(  // no "of N" while a question asks for N (step_total.h)
      app, fmt::format("{} {} - {}", name(s.spec.collective), run_algorithm_name(ses.params()), sc.caption));
  const float wrap_w = std::max(size.x, 40.f);
  const float wrapped_h = ImGui::CalcTextSize(caption.c_str(), nullptr, false, wrap_w).y;
  bool rebuild = false;
  if (wrapped_h > cap_text_h + 0.5f) cap_text_h = wrapped_h, rebuild = true;
  // The legend's lines wrap too: shown in full while the canvas keeps
  // 140 px, else folded into its bottleneck line.
  const auto legend_lines = [&](const TopologyScene& t_sc) {
    std::vector<std::string> lines = {t_sc.network_note};
    lines.insert(lines.end(), t_sc.legend.begin(), t_sc.legend.end());
    // A stand-in's orange is its own bottleneck, not the beat's (lesson 12 beat 4): both named.
    lines.push_back(stand_in ? stand_in_legend(t_sc.bottleneck, note_bottleneck(vs.lesson_note), false)
                             : fmt::format("colour = load; orange = bottleneck: {}", t_sc.bottleneck));
    return lines;
  };
  // (A slide has no pointer: no "hover" there.)
  const auto folded_line = [&](const TopologyScene& t_sc) {
    return fmt::format("{}{}",
                       stand_in ? stand_in_legend(t_sc.bottleneck, note_bottleneck(vs.lesson_note), true)
                                : "bottleneck: " + t_sc.bottleneck,
                       app.vs.present ? "" : " (legend: hover)");
  };
  if (nodes_legend && !sc.boxes.empty()) {
    float full_h = 0;
    for (const std::string& l : legend_lines(sc)) full_h += ImGui::CalcTextSize(l.c_str(), nullptr, false, wrap_w).y + spacing;
    const bool full = size.y - cap_text_h - spacing - line_h - full_h >= 140;
    const float h = full ? full_h : ImGui::CalcTextSize(folded_line(sc).c_str(), nullptr, false, wrap_w).y + spacing;
    if (full != legend_full || std::abs(h - legend_h) > 0.5f) legend_full = full, legend_h = h, rebuild = true;
  }
  if (!compact && !sc.notes.empty()) {
    float h = 0;
    for (const std::string& l : sc.notes) h += ImGui::CalcTextSize(l.c_str(), nullptr, false, wrap_w).y + spacing;
    if (std::abs(h - notes_h) > 0.5f) notes_h = h, rebuild = true;
  }
  if (rebuild) {
    canvas = canvas_for(cap_text_h);
    sc = build_topology(ses, position, Vec2{canvas.x, canvas.y}, t, net, &text);
    if (question_open) withhold_bytes(sc);
    if (stand_in) label_stand_in_bytes(sc);
  }
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), cap_pos, ImGui::GetColorU32(ImGuiCol_Text), caption.c_str(),
              nullptr, wrap_w);
  ImGui::Dummy(ImVec2(0, cap_text_h));
  const ImVec2 origin = ImGui::GetCursorScreenPos();

  dl->PushClipRect(origin, ImVec2(origin.x + canvas.x, origin.y + canvas.y), true);
  const SmoothLines smooth(dl);  // curves and circles: anti-aliased
  for (const NodeBoxDraw& b : sc.boxes) {
    dl->AddRectFilled(iv(b.min, origin), iv(b.max, origin), im(from_hex(assets::kPanel)), 6);
    dl->AddRect(iv(b.min, origin), iv(b.max, origin), im(from_hex(assets::kInk)), 6, 0, 1.5f);
    const std::string label = fmt::format("node {}", b.node);
    // At most 18 px: the scene keeps a fixed head row above the ranks.
    // Where the scene put it (clear of the chain's wrap arrow).
    const float lpx = std::min(ImGui::GetFontSize(), 18.f);
    dl->AddText(ImGui::GetFont(), lpx, ImVec2(origin.x + b.min.x + b.label_x, origin.y + b.min.y + 3),
                im(from_hex(assets::kInk)), label.c_str());
    // Compact nodes: the node's link totals in the shown step, a line each
    // while the box holds them, all of them on hover.
    const ImVec2 b0 = iv(b.min, origin), b1 = iv(b.max, origin);
    dl->PushClipRect(b0, b1, true);
    for (size_t i = 0; i < b.totals.size(); ++i) {
      const float y = b0.y + 3 + float(i + 1) * (lpx + 4);
      if (y + lpx > b1.y - 2) break;
      dl->AddText(ImGui::GetFont(), lpx, ImVec2(b0.x + b.label_x, y), im(from_hex(assets::kInk)), b.totals[i].c_str());
    }
    dl->PopClipRect();
    if (!b.totals.empty() && hovered_rect(b0, b1))
      ImGui::SetTooltip("%s", fmt::format("{}\n{}", label, fmt::join(b.totals, "\n")).c_str());
  }
  for (const LinkDraw& l : sc.links)  // a tree's links in its colour, faint
    dl->AddLine(iv(sc.nodes[l.a].pos, origin), iv(sc.nodes[l.b].pos, origin),
                l.part >= 0 ? im(with_alpha(part_color(l.part), 90)) : im(from_hex(assets::kFaint)), l.part >= 0 ? 3.f : 2.f);
  for (const LabelDraw& l : sc.labels)
    dl->AddText(ImVec2(origin.x + l.pos.x, origin.y + l.pos.y), im(l.color), l.text.c_str());

  const ImU32 ink = im(from_hex(assets::kInk));
  // Lesson highlights (links): a wide underlay beneath the link's arrow, or
  // beneath the straight link when the shown step has no arrow on it.
  const LessonView* lesson = app.lesson && !compact ? app.lesson.get() : nullptr;
  if (lesson)
    for (const auto& [from, to] : lesson->current().highlight.links) {
      if (from < 0 || to < 0 || from >= n || to >= n) continue;
      const ImU32 hl = (lesson_highlight_color() & ~IM_COL32_A_MASK) | IM_COL32(0, 0, 0, 150);
      const auto it = std::find_if(sc.arrows.begin(), sc.arrows.end(),
                                   [&](const ArrowDraw& a) { return a.from == from && a.to == to; });
      if (it != sc.arrows.end() && !it->via.empty()) {
        std::vector<ImVec2> line;
        for (const Vec2& v : arrow_path(*it)) line.push_back(iv(v, origin));
        dl->AddPolyline(line.data(), static_cast<int>(line.size()), hl, 0, 9.f);
      } else if (it != sc.arrows.end()) {
        dl->AddBezierQuadratic(iv(it->a, origin), iv(it->ctrl, origin), iv(it->b, origin), hl, 9.f, 24);
      }
      else
        dl->AddLine(iv(sc.nodes[from].pos, origin), iv(sc.nodes[to].pos, origin), hl, 9.f);
    }
  const ImU32 arrow_col_base = sc.upcoming ? im(from_hex(assets::kFaint)) : im(from_hex(assets::kActive));
  // Whole-pixel line widths and ImGui's automatic segment counts (0): ImGui
  // then draws each line segment as one textured quad instead of three
  // strips, and a small circle with ~16 segments instead of 40 -
  // the same picture for a software rasteriser at a fraction of the triangles.
  // The strokes as the scene sized them at the text size.
  const float thick = sc.line_w, outline = sc.outline_w;
  for (size_t ai = 0; ai < sc.arrows.size(); ++ai) {
    const ArrowDraw& a = sc.arrows[ai];
    const ImVec2 p = iv(a.a, origin), c = iv(a.ctrl, origin), q = iv(a.b, origin);
    ImU32 arrow_col = arrow_col_base;
    if (a.tinted) arrow_col = im(sc.upcoming ? with_alpha(a.tint, 110) : a.tint);  // the tree's or channel's colour
    float w = thick;
    if (ai < sc.loads.size() && !sc.upcoming) {  // load: faint (idle) to full (busiest port)
      const ArrowLoad& l = sc.loads[ai];
      arrow_col = im(from_hex(l.bottleneck ? assets::kPredicted : assets::kActive,
                              static_cast<uint8_t>(60 + 195 * std::clamp(l.load, 0.f, 1.f))));
      w = std::round(thick * (l.inter ? 1.8f : 1.f));
    }
    if (a.via.empty()) {
      dl->AddBezierQuadratic(p, c, q, arrow_col, w, 0);
    } else {  // between nodes: through the NICs
      std::vector<ImVec2> line;
      for (const Vec2& v : arrow_path(a)) line.push_back(iv(v, origin));
      dl->AddPolyline(line.data(), static_cast<int>(line.size()), arrow_col, 0, w);
    }
    // Arrow head along the end tangent.
    float dx = q.x - c.x, dy = q.y - c.y;
    const float len = std::max(std::sqrt(dx * dx + dy * dy), 1e-3f);
    dx /= len, dy /= len;
    const float hs = sc.head_len;
    const auto head = [&](ImVec2 tip, float ux, float uy) {
      dl->AddTriangleFilled(ImVec2(tip.x + ux * 2, tip.y + uy * 2),
                            ImVec2(tip.x - ux * hs - uy * hs * 0.55f, tip.y - uy * hs + ux * hs * 0.55f),
                            ImVec2(tip.x - ux * hs + uy * hs * 0.55f, tip.y - uy * hs - ux * hs * 0.55f), arrow_col);
    };
    head(q, dx, dy);
    if (a.lane_head) head(iv(a.lane_tip, origin), a.lane_dir.x, a.lane_dir.y);  // between the NICs: the way it goes
  }
  // Every endpoint labelled where the scene put it: inside its circle (the
  // circle grown for it, the label shrunk down to the least text size at
  // most), or beside the circle on a plate where even that does not fit,
  // left out (named on hover) where it would cover a label already drawn,
  // so 32 or 64 ranks show every few ranks' names.
  std::vector<Rect> placed;  // the rank labels drawn (screen pixels)
  bool crowded = false;      // some label did not fit its circle
  const NodeDraw* hover_node = nullptr;
  for (const NodeDraw& nd : sc.compact_nodes ? std::vector<NodeDraw>{} : sc.nodes) {
    const ImVec2 c = iv(nd.pos, origin);
    // The fill needs no anti-aliased fringe: the outline drawn next covers its edge.
    const ImDrawListFlags flags = dl->Flags;
    const float ow = nd.busy && !sc.upcoming ? 3.f : outline;
    if (nd.is_switch) {  // a switch: a box
      const ImVec2 b0(c.x - nd.radius, c.y - nd.radius * 0.75f), b1(c.x + nd.radius, c.y + nd.radius * 0.75f);
      dl->AddRectFilled(b0, b1, im(nd.fill), 4);
      dl->AddRect(b0, b1, ink, 4, 0, ow);
    } else {
      dl->Flags &= ~ImDrawListFlags_AntiAliasedFill;
      dl->AddCircleFilled(c, nd.radius, im(nd.fill), 0);
      dl->Flags = flags;
      // A tree's copy of the rank: its outline in the tree's colour.
      dl->AddCircle(c, nd.radius, nd.part >= 0 ? im(part_color(nd.part)) : ink, 0, nd.part >= 0 ? std::max(ow, 2.5f) : ow);
    }
    if (hovered_rect(ImVec2(c.x - nd.radius, c.y - nd.radius), ImVec2(c.x + nd.radius, c.y + nd.radius))) hover_node = &nd;
    if (lesson && lesson->rank_lit(nd.rank))  // lesson highlight: a ring around the rank
      dl->AddCircle(c, nd.radius + 5, lesson_highlight_color(), 40, 3.5f);
    const std::string& label = nd.label;
    const float lpx = nd.label_px > 0 ? nd.label_px : fs;
    const ImVec2 ts(nd.label_size.x, nd.label_size.y);
    const ImVec2 l0 = iv(nd.label_min, origin);
    // Beside the circle, or wider than it (a canvas too small for either).
    const bool on_plate = nd.label_outside || ts.x > 2 * nd.radius - 2.5f;
    const Rect lr{l0.x - 2, l0.y, ts.x + 4, ts.y};
    const bool clear = std::none_of(placed.begin(), placed.end(), [&](const Rect& o) { return o.overlaps(lr); });
    crowded = crowded || on_plate;
    if (clear) {
      if (on_plate) {
        dl->AddRectFilled(ImVec2(lr.x, lr.y), ImVec2(lr.right(), lr.bottom()), im(nd.fill), 3);
        dl->AddRect(ImVec2(lr.x, lr.y), ImVec2(lr.right(), lr.bottom()), ink, 3, 0, 1);
      }
      dl->AddText(font, lpx, l0, im(text_on(nd.fill)), label.c_str());
      placed.push_back(lr);
      // A compare column's small drawing records its labels apart (the
      // column names them after its algorithm).
      (compact ? app.vs.compare_drawn : app.vs.labels_drawn)
          .push_back({"topology " + label, Rect{l0.x, l0.y, ts.x, ts.y}});
    }
    if (nd.root) {
      // A compare column's small drawing: "root" at its ranks' label size,
      // so that it does not cover the ranks around it.
      if (compact) {
        const ImVec2 rs(font->CalcTextSizeA(lpx, FLT_MAX, 0, "root").x, lpx);
        dl->AddText(font, lpx, ImVec2(c.x - rs.x / 2, c.y + nd.radius + 1), ink, "root");
      } else {
        const ImVec2 rs = ImGui::CalcTextSize("root");
        dl->AddText(ImVec2(c.x - rs.x / 2, c.y + nd.radius + 1), ink, "root");
      }
    }
  }
  for (const NicDraw& d : sc.nics) {  // a NIC: a square on its node's lower edge, filled by load
    const ImVec2 c = iv(d.pos, origin);
    const ImVec2 a0(c.x - d.half.x, c.y - d.half.y), a1(c.x + d.half.x, c.y + d.half.y);
    dl->AddRectFilled(a0, a1, im(from_hex(d.bottleneck ? assets::kPredicted : assets::kActive,
                                          static_cast<uint8_t>(40 + 215 * std::clamp(d.load, 0.f, 1.f)))));
    dl->AddRect(a0, a1, ink, 0, 0, d.bottleneck ? 2.5f : 1.f);
    if (hovered_rect(a0, a1))
      ImGui::SetTooltip("node %d NIC %d\n%lld bytes this step (out + in)%s", d.node, d.nic,
                        static_cast<long long>(d.bytes), d.bottleneck ? "\nthe bottleneck" : "");
  }
  // Badges last: the chunks in flight sit on top.
  const ArrowDraw* hover = nullptr;
  for (const ArrowDraw& a : sc.arrows) {
    const ImVec2 bc = iv(a.badge, origin);
    const ImVec2 b0(bc.x - a.badge_w / 2, bc.y - a.badge_h / 2), b1(bc.x + a.badge_w / 2, bc.y + a.badge_h / 2);
    // Compact nodes: an arrow sums many chunks; no clear place: left out.
    if (a.badge_w <= 0 || !a.badge_shown) continue;
    // Many ranks (labels on plates): no badge over a rank's name.
    const Rect br{b0.x, b0.y, b1.x - b0.x, b1.y - b0.y};
    if (crowded && std::any_of(placed.begin(), placed.end(), [&](const Rect& o) { return o.overlaps(br); })) continue;
    if (sc.upcoming) {
      dl->AddRect(b0, b1, im(from_hex(assets::kFaint)), 2, 0, outline);
    } else {
      fill_stripes(dl, b0, b1, a.stripes);
      // The chunk's tree or channel: its badge framed in that colour.
      if (a.tinted) dl->AddRect(ImVec2(b0.x - 1, b0.y - 1), ImVec2(b1.x + 1, b1.y + 1), im(a.tint), 0, 0, 2.5f);
      else dl->AddRect(b0, b1, ink, 0, 0, outline);
    }
    if (lesson && lesson->chunk_lit(a.chunk))  // lesson highlight: the chunk's badge
      dl->AddRect(ImVec2(b0.x - 3, b0.y - 3), ImVec2(b1.x + 3, b1.y + 3), lesson_highlight_color(), 2, 0, 2.5f);
    if (!a.carried_text.empty())  // not what the schedule sends: framed in the error colour
      dl->AddRect(ImVec2(b0.x - 3, b0.y - 3), ImVec2(b1.x + 3, b1.y + 3), im(error_color()), 0, 0, 3.f);
    if (hovered_rect(b0, b1)) hover = &a;
  }
  {
    // The data that really travelled on those messages, one line each,
    // stacked up from the canvas's bottom edge (clear of the ranks' labels).
    std::vector<std::string> lines;
    for (const ArrowDraw& a : sc.arrows)
      if (!a.carried_text.empty() && a.badge_w > 0)  // drawn or not: the line names the message
        lines.push_back(fmt::format("{} -> {}: {}", endpoint_name(s, a.from), endpoint_name(s, a.to), a.carried_text));
    const ImU32 err = im(error_color());
    float y = origin.y + canvas.y - 2;
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
      const ImVec2 ts = ImGui::CalcTextSize(it->c_str());
      y -= ts.y + 4;
      const ImVec2 t0(origin.x + 4, y);
      dl->AddRectFilled(ImVec2(t0.x - 2, t0.y - 1), ImVec2(t0.x + ts.x + 2, t0.y + ts.y + 1), im(from_hex(0xFFFFFF)));
      dl->AddRect(ImVec2(t0.x - 2, t0.y - 1), ImVec2(t0.x + ts.x + 2, t0.y + ts.y + 1), err);
      dl->AddText(t0, err, it->c_str());
    }
  }
  draw_nccl_strips(dl, origin, sc);
  dl->PopClipRect();
  ImGui::Dummy(canvas);
  if (hover) {
    const size_t es = dtype_size(s.spec.dtype);
    const std::string parts = (hover->part >= 0 ? fmt::format(", tree {}", hover->part) : std::string()) +
                              (hover->channel >= 0 && s.spec.channels > 1 ? fmt::format(", channel {}", hover->channel)
                                                                          : std::string());
    const std::string avg = hover->complete ? avg_pending_words(ses, position) : "";  // an integer avg's last step
    ImGui::SetTooltip("%s -> %s%s\nchunk %d%s%s\n%lld elements, %lld bytes\ncarries: %s%s%s%s",
                      endpoint_name(s, hover->from).c_str(), endpoint_name(s, hover->to).c_str(),
                      sc.upcoming ? " (next step)" : "", hover->chunk, parts.c_str(),
                      hover->segment >= 0 ? fmt::format(", segment {}", hover->segment).c_str() : "",
                      static_cast<long long>(hover->len), static_cast<long long>(hover->len * es),
                      contributors_text(hover->mask, n).c_str(), avg.empty() ? "" : (" (" + avg + ")").c_str(),
                      hover->carried_text.empty() ? "" : "\nreally ", hover->carried_text.c_str());
  }
  if (!hover && hover_node) ImGui::SetTooltip("%s", hover_node->label.c_str());
  if (!compact) {
    // The badge's meaning moves to the hover where the line would be cut.
    // Compact nodes: transfers between ranks counted, arrows sum them, no badges.
    // Before a step the arrows are the next step's ("next: 3 transfers"), and
    // the badge's meaning is named only where a badge is drawn (lesson 12 b4
    // draws none, 02 b1 is before step 0; lecturer pass 7).
    const std::string transfers = (sc.upcoming ? "next: " : "") + transfers_text(sc, false);
    const bool red = std::any_of(sc.arrows.begin(), sc.arrows.end(), [](const ArrowDraw& a) { return !a.carried_text.empty(); });
    const bool badges = std::any_of(sc.arrows.begin(), sc.arrows.end(),
                                    [](const ArrowDraw& a) { return a.badge_shown && a.badge_w > 0; });
    // An integer avg's last step: its chunks are sums, divided after it (avg_words.h).
    const std::string avg = sc.upcoming ? "" : avg_pending_words(ses, position);
    const std::string badge_meaning = sc.upcoming      ? "badge = the chunk it will carry"
                                      : avg.empty() ? "badge = the chunk in flight"
                                                    : "badge = the chunk in flight (" + avg + ")";
    const std::string line = sc.compact_nodes ? transfers_text(sc)
                             : badges ? transfers + "; " + badge_meaning + (red ? "; red: not the data the schedule sends" : "")
                                      : transfers;
    if (ImGui::CalcTextSize(line.c_str()).x <= size.x) {
      ImGui::TextDisabled("%s", line.c_str());
    } else if (badges && !avg.empty() && ImGui::CalcTextSize(("badges: " + avg).c_str()).x <= size.x) {
      // A narrow panel (a slide): what an integer avg's last badges hold before the count.
      ImGui::TextDisabled("badges: %s", avg.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s; %s", transfers.c_str(), badge_meaning.c_str());
    } else if (ImGui::CalcTextSize(transfers.c_str()).x <= size.x || sc.badges_left_out == 0) {
      ImGui::TextDisabled("%s", transfers.c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", sc.compact_nodes ? transfers_text(sc).c_str() : badge_meaning.c_str());
    } else {
      // A narrow panel at a large size: "16 transfers, 4 left out" (badges
      // named on hover).
      const std::string shorter = fmt::format("{} transfers, {} left out", sc.arrows.size(), sc.badges_left_out);
      ImGui::TextDisabled("%s", ImGui::CalcTextSize(shorter.c_str()).x <= size.x
                                    ? shorter.c_str()
                                    : fmt::format("{} transfers", sc.arrows.size()).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s; %s", transfers.c_str(), badge_meaning.c_str());
    }
    if (!sc.notes.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
      for (const std::string& l : sc.notes) ImGui::TextWrapped("%s", l.c_str());
      ImGui::PopStyleColor();
    }
    if (!sc.boxes.empty()) {
      // Where the times come from first: the line a short panel must keep.
      const std::vector<std::string> lines = legend_lines(sc);
      if (legend_full) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
        for (const std::string& l : lines) ImGui::TextWrapped("%s", l.c_str());
        ImGui::PopStyleColor();
      } else {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", folded_line(sc).c_str());
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) {
          std::string all;
          for (const std::string& l : lines) all += (all.empty() ? "" : "\n") + l;
          ImGui::SetTooltip("%s", all.c_str());
        }
      }
    }
  }
}

}  // namespace microddp::viz
