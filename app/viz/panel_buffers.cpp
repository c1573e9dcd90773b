// Buffers: for each rank, each of its buffers as a row of chunks coloured by
// whose contributions they hold (stripes = a partial result's contributors;
// dark = complete), values printed in every defined cell (smaller or elided
// to ".." where the cell is too narrow, in full on hover); the cells a step changed
// are outlined. The double buffer's storages keep their rows, each with its
// letter (A / B); a swap moves the names send_buff / recv_buff between them
// (step_anim.h: the data lands, then the names trade rows), and a step that
// swapped has a "swap" marker with two arrows right of the pair. Values judged wrong
// (BuffersScene::judged: the broken single-buffered ring) are filled in the
// error colour and outlined, the first one named above the rows. On a
// lesson beat whose open question its values would answer, the panel shows
// the state before the beat's step (buffers_position) and says so.
#include <fmt/format.h>
#include <imgui.h>

#include <cfloat>
#include <cmath>
#include <set>

#include "app/viz/buffer_notes.h"
#include "app/viz/held_cells.h"
#include "app/viz/layout.h"
#include "app/viz/panels.h"
#include "app/viz/step_anim.h"
#include "assets/palette.h"
#include "core/record/printer.h"

namespace microddp::viz {

namespace {

// The crowd legend: what a cell's colour says, on one wrapped line.
void draw_crowd_legend(int n, bool reducing) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float sz = ImGui::GetTextLineHeight();
  const auto swatch = [&](Rgba c, const char* text, bool first) {
    if (!first) {
      ImGui::SameLine(0, sz);
      if (ImGui::GetCursorScreenPos().x + sz * 2 + ImGui::CalcTextSize(text).x >
          ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x)
        ImGui::NewLine();
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(p, ImVec2(p.x + sz, p.y + sz), im(c));
    ImGui::Dummy(ImVec2(sz + 4, sz));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(text);
  };
  swatch(rank_color(0), "one rank's data (its colour)", true);
  if (reducing && n > 1) {
    swatch(crowd_fill(0b11, n, false), "partial sum", false);
    swatch(crowd_fill(all_ranks(n) >> 1, n, false), "most ranks", false);
    swatch(complete_color(), "all ranks", false);
  }
}

// Many ranks: one row per rank, a bar of its chunks (build_buffers_crowd);
// values in the hover, and what the shown step changed on one line.
void draw_buffers_crowd(App& app, int position) {
  ViewState& vs = app.vs;
  const Session& ses = app.session;
  const Schedule& s = ses.schedule();
  const int n = s.world_size();
  draw_crowd_legend(n, is_reducing(s.spec.collective));
  // The rows' text size: the panel's, or smaller (not below the least text
  // size) when that shows values the panel's size hides (lesson 03's 7
  // ranks x 14 at --font-px 28): a slide has no hover to show them.
  ImFont* font = ImGui::GetFont();
  float fs = ImGui::GetFontSize();
  const auto layout_at = [&](float px) {
    BuffersLayout l;
    // A slide does not scroll: no room kept for a scrollbar.
    l.width = ImGui::GetContentRegionAvail().x - (vs.present ? 0.f : ImGui::GetStyle().ScrollbarSize);
    l.row_h = std::round(px * 1.2f);
    l.row_gap = std::round(px * 0.15f);
    l.char_w = font->CalcTextSizeA(px, FLT_MAX, 0, "0").x;
    l.tag_w = font->CalcTextSizeA(px, FLT_MAX, 0, "R00").x + l.char_w * 1.2f;
    // Half a line between columns (the next column's rank stripe marks it):
    // a whole one left 16 ranks' bars about 35 px wide at --font-px 28 (issue 37, lesson 09 beats 4 and 5).
    l.col_gap = std::round(px * 0.5f);
    return l;
  };
  BuffersLayout lay = layout_at(fs);
  // The two lines above the rows (what a row is, what the step changed)
  // wrap in a narrow panel: the rows get what they leave.
  // (A slide has no pointer: no "hover" there.)
  const char* what = vs.present ? "each row: a rank's result, chunk by chunk (its most complete copy)"
                                : "each row: a rank's result, chunk by chunk (its most complete copy); hover a chunk for "
                                  "its values";
  const float wrap_w = ImGui::GetContentRegionAvail().x, spacing = ImGui::GetStyle().ItemSpacing.y;
  const auto text_h = [&](const std::string& t) {
    return t.empty() ? 0.f : ImGui::CalcTextSize(t.c_str(), nullptr, false, wrap_w).y + spacing;
  };
  const std::string avg = avg_note(ses, position);  // an avg's sums against its outputs
  float above = text_h(what) + text_h(avg) + ImGui::GetTextLineHeightWithSpacing();
  CrowdScene cs = build_buffers_crowd(ses, position, lay, ImGui::GetContentRegionAvail().y - above);
  if (const float h = text_h(what) + text_h(avg) + text_h(cs.step_line); std::abs(h - above) > 0.5f) {
    above = h;
    cs = build_buffers_crowd(ses, position, lay, ImGui::GetContentRegionAvail().y - above);
  }
  for (float px = fs - 1; cs.buffers.values_hidden > 0 && px >= min_text_px(vs.present); --px) {
    BuffersLayout l = layout_at(px);
    CrowdScene c2 = build_buffers_crowd(ses, position, l, ImGui::GetContentRegionAvail().y - above);
    if (c2.buffers.values_hidden < cs.buffers.values_hidden) {
      cs = std::move(c2);
      lay = l;
      fs = px;
    }
  }
  const BuffersScene& sc = cs.buffers;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", what);
  ImGui::PopStyleColor();
  if (!avg.empty()) ImGui::TextWrapped("%s", avg.c_str());
  if (!cs.step_line.empty()) ImGui::TextWrapped("%s", cs.step_line.c_str());
  vs.cell_texts.clear();
  ImGui::BeginChild("rows", ImVec2(0, 0), false);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 ink = im(from_hex(assets::kInk));
  const ImU32 accent = im(from_hex(assets::kActive));
  const bool animating = !vs.static_frame && vs.anim < 1;
  const CellDraw* hover = nullptr;
  const BufferRowDraw* hover_row = nullptr;
  for (const BufferRowDraw& row : sc.rows) {
    const float top = origin.y + row.y, bot = top + lay.row_h;
    const ImVec2 a(origin.x + row.x, top), b(a.x + lay.char_w * 0.5f, bot);
    dl->AddRectFilled(a, b, im(row.is_switch ? from_hex(0xB0B0B0) : rank_color(row.rank)));
    dl->AddText(font, fs, ImVec2(b.x + lay.char_w * 0.3f, top + (lay.row_h - fs) / 2), ink, row.tag.c_str());
    if (!row.cells.empty())
      vs.rows_drawn.push_back({row.tag, Rect{a.x, top, origin.x + row.cells.back().x1 - a.x, lay.row_h}});
    for (const CellDraw& c : row.cells) {
      const ImVec2 p(origin.x + c.x0, top), q(origin.x + c.x1, bot);
      dl->AddRectFilled(p, q, im(c.stripes.front()));
      if (!c.defined && c.x1 - c.x0 > 3) dl->AddRect(p, q, im(with_alpha(from_hex(assets::kInk), 90)), 0, 0, 1);
      if (c.changed && !animating) dl->AddRectFilled(ImVec2(p.x, bot - 3), ImVec2(q.x, bot), accent);
      if (!c.text.empty()) {
        const ImVec2 ts = font->CalcTextSizeA(fs, FLT_MAX, 0, c.text.c_str());
        const ImVec2 tp(std::round((p.x + q.x - ts.x) / 2), std::round((p.y + q.y - ts.y) / 2));
        dl->AddText(font, fs, tp, im(c.text_color), c.text.c_str());
        if (!animating)
          vs.cell_texts.push_back({fmt::format("{} [{}, {})", row.tag, c.begin, c.begin + c.len), c.value, c.text,
                                   fs, Rect{p.x, p.y, q.x - p.x, q.y - p.y},
                                   Rect{tp.x, tp.y, ts.x, ts.y}});
      }
      if (vs.collect_probes && !animating && c.x1 - c.x0 >= 6 && c.defined)
        vs.probes.push_back(Probe{int(std::floor(p.x + 2)), int(std::floor(p.y + 2)), c.stripes.front(),
                                  fmt::format("{} [{}, {})", row.tag, c.begin, c.begin + c.len)});
      if (hovered_rect(p, ImVec2(q.x + 1, q.y))) hover = &c, hover_row = &row;
      if (app.lesson && app.lesson->cell_lit(row.rank, cs.buffer, c.chunk))
        dl->AddRect(ImVec2(p.x - 1, p.y - 2), ImVec2(q.x + 1, q.y + 2), lesson_highlight_color(), 0, 0, 3);
    }
  }
  ImGui::Dummy(ImVec2(lay.width, sc.height));
  if (hover)
    ImGui::SetTooltip("%s %s [%lld, %lld)%s\nholds: %s%s%s", hover_row->tag.c_str(), name(hover_row->buf).data(),
                      static_cast<long long>(hover->begin), static_cast<long long>(hover->begin + hover->len),
                      hover->chunk >= 0 ? fmt::format(", chunk {}", hover->chunk).c_str() : "",
                      contributors_text(hover->mask, n).c_str(), hover->complete ? " (complete)" : "",
                      hover->value.empty() ? "" : ("\nvalues: " + hover->value).c_str());
  ImGui::EndChild();
}

}  // namespace

std::string buffers_wait_text(int position, int current) {
  const std::string done = current - position == 1 ? fmt::format("step {}'s result", position)
                                                    : fmt::format("the results of steps {}-{}", position, current - 1);
  return fmt::format("buffers before step {}; {} once you answer", position, done);
}

void draw_buffers(App& app) {
  ViewState& vs = app.vs;
  const Session& ses = app.session;
  const Schedule& s = ses.schedule();
  const int n = s.world_size();
  if (vs.buffers_crowd) {
    const int position = buffers_position(app);
    if (position != ses.position())
      ImGui::TextDisabled("%s", buffers_wait_text(position, ses.position()).c_str());
    draw_buffers_crowd(app, position);
    return;
  }
  draw_legend(n, is_reducing(s.spec.collective));
  BuffersLayout lay;
  lay.width = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  lay.row_h = std::round(ImGui::GetFontSize() * 1.35f);
  lay.row_gap = std::round(ImGui::GetFontSize() * 0.15f);
  lay.rank_gap = std::round(ImGui::GetFontSize() * 0.7f);
  lay.char_w = ImGui::CalcTextSize("0").x;
  lay.tag_w = rank_tag_width(lay.char_w, ImGui::CalcTextSize("R00").x);
  lay.label_w = ImGui::CalcTextSize("send_buff").x + lay.char_w * 2.5f;
  lay.col_gap = ImGui::GetFontSize();
  lay.swap_w = ImGui::CalcTextSize("swap").x + lay.char_w * 4;
  // Before the beat's step while its question is open (buffers_position):
  // a line says so, as the lesson panel says its checks wait.
  const int position = buffers_position(app);
  // In a lesson, the storage that received and was renamed by the step's
  // swap carries a note after its name ("send_buff (got T2)",
  // buffer_notes.h): the name column widens by the longest note, the cells
  // give that room. Outside a lesson the name and its storage letter say it.
  const auto note_of = [&](const BufferRowDraw& row) {
    return app.lesson ? received_note(ses, position, row.rank, row.buf) : std::string();
  };
  if (app.lesson) {
    float widest = 0;
    for (int r = 0; r < ses.schedule().num_endpoints(); ++r)
      for (Buf b : {Buf::send_buff, Buf::recv_buff})
        if (const std::string note = received_note(ses, position, r, b); !note.empty())
          widest = std::max(widest, ImGui::CalcTextSize(note.c_str()).x + lay.char_w * 1.2f);
    lay.label_w += widest;
  }
  if (position != ses.position())
    ImGui::TextDisabled("%s", buffers_wait_text(position, ses.position()).c_str());
  // Ranks side by side only when the rows would not fit one under the other
  // and every value still fits its cell (build_buffers_arranged).
  // An avg says what the buffers hold against the outputs (avg_note): an
  // integer avg's last step shows the sums, divided after it.
  const std::string avg = avg_note(ses, position);
  const float avg_h = avg.empty() ? 0.f
                                  : ImGui::CalcTextSize(avg.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y +
                                        ImGui::GetStyle().ItemSpacing.y;
  const float avail_h = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() - avg_h;
  BuffersScene sc = build_buffers_arranged(ses, position, lay, avail_h);
  order_by_storage(sc);
  // Held before the beat's steps for its question: a row's empty cells are one
  // bar, so their count (lesson 01 beat 3 asks the root's output size) waits.
  if (position != ses.position()) merge_unwritten_cells(sc);
  vs.cell_texts.clear();
  // While the step just taken animates: the scene before it, for the cells
  // until the data lands and the names until the swap (step_anim.h).
  const bool animating = !vs.static_frame && vs.anim < 1 && position > 0 && position == ses.position();
  BuffersScene before;
  std::set<std::pair<int, int>> landing;
  if (animating) {
    landing = landing_storages(ses, position - 1);
    before = build_buffers(ses, position - 1, lay);
    order_by_storage(before);
  }
  const float font_h = ImGui::GetFontSize();
  const BuffersAnimFrame af = animate_buffers(
      animating ? before : sc, sc, animating ? vs.anim : 1.f, lay,
      [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; }, font_h, landing);

  const ImU32 error = im(error_color());
  // Wrapped at the panel's edge: a replay's banner names the machine and
  // the date before the run (--replay at 1280x720 cut it after "seed 1: c").
  ImGui::PushTextWrapPos(0);
  if (!sc.banner.empty())
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(sc.banner_error ? error : im(from_hex(assets::kInk))), "%s",
                       sc.banner.c_str());
  if (!sc.first_wrong.text.empty())
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(error), "%s (outlined)", sc.first_wrong.text.c_str());
  ImGui::PopTextWrapPos();
  // Order-dependent results (core/ir/order_verdict.h): correct for this
  // algorithm's order, different in another's; one line; the cells get a corner mark.
  if (!sc.order_legend.empty()) ImGui::TextWrapped("%s", sc.order_legend.c_str());
  if (!avg.empty()) ImGui::TextWrapped("%s", avg.c_str());

  ImGui::BeginChild("rows", ImVec2(0, 0), false);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float view_top = ImGui::GetWindowPos().y, view_bot = view_top + ImGui::GetWindowSize().y;
  const ImU32 ink = im(from_hex(assets::kInk));
  const ImU32 accent = im(from_hex(assets::kActive));
  const CellDraw* hover = nullptr;
  const BufferRowDraw* hover_row = nullptr;
  for (size_t ri = 0; ri < sc.rows.size(); ++ri) {
    const BufferRowDraw& row = sc.rows[ri];
    // A lesson's highlight names the buffers as the beat's step found them:
    // after a swap in the shown step it stays on the storage (lesson 02
    // beat 2: the recv_buff that received, now named send_buff), not on
    // the name, which now points at the other storage.
    const std::string& lit_name =
        row.swap_partner >= 0 ? sc.rows[static_cast<size_t>(row.swap_partner)].label : row.label;
    // The storages stay: every row at its own y; its cells are the state
    // before the step until the data lands (none: the row is new, empty).
    static const std::vector<CellDraw> kNoCells;
    const std::vector<CellDraw>& cells = af.contents[ri] ? af.contents[ri]->cells : kNoCells;
    const float top = origin.y + row.y, bot = top + lay.row_h;
    if (bot < view_top || top > view_bot) continue;  // clipped: draw only what shows
    const float ty = origin.y + row.y + (lay.row_h - ImGui::GetFontSize()) / 2;
    if (!row.cells.empty()) {
      const float x0 = origin.x + row.x, x1 = origin.x + row.cells.back().x1;
      vs.rows_drawn.push_back({fmt::format("{} {}", row.tag, row.label), Rect{x0, top, x1 - x0, lay.row_h}});
    }
    if (row.first_of_rank) {
      // Rank tag: the rank's colour as a bar spanning its rows, and its name.
      float last = row.y;
      for (const BufferRowDraw& o : sc.rows)
        if (o.rank == row.rank) last = std::max(last, o.y);
      const ImVec2 a(origin.x + row.x, origin.y + row.y), b(a.x + lay.char_w * 0.6f, origin.y + last + lay.row_h);
      dl->AddRectFilled(a, b, im(row.is_switch ? from_hex(0xB0B0B0) : rank_color(row.rank)));
      dl->AddText(ImVec2(b.x + lay.char_w * 0.4f, ty), ink, row.tag.c_str());
    }
    // Names that traded storage this step (a swap) are drawn in the accent
    // colour, where the animation has them (shrunk while they pass).
    const NameLabelDraw& nl = af.labels[ri];
    dl->AddText(ImGui::GetFont(), font_h * nl.scale, ImVec2(std::round(origin.x + nl.x), std::round(origin.y + nl.y)),
                row.swap_partner >= 0 && af.swapping ? accent : ink, nl.text.c_str());
    if (const std::string note = animating ? "" : note_of(row); !note.empty()) {
      // After the name, once the swap is over: what this storage received
      // in the step ("send_buff (got T2)", buffer_notes.h).
      const ImVec2 at(std::round(origin.x + nl.x + ImGui::CalcTextSize(nl.text.c_str()).x + lay.char_w * 0.5f),
                      std::round(origin.y + nl.y));
      dl->AddText(at, ink, note.c_str());
      const ImVec2 ns = ImGui::CalcTextSize(note.c_str());
      vs.labels_drawn.push_back({fmt::format("buffers {} {} {}", row.tag, row.label, note), Rect{at.x, at.y, ns.x, ns.y}});
    }
    if (!row.letter.empty()) {
      // The storage the name points at: a letter on a pale plate just left of the cells.
      const float bx1 = origin.x + row.x + lay.tag_w + lay.label_w - lay.char_w * 0.4f;
      const ImVec2 a(std::floor(bx1 - lay.char_w * 1.8f), std::floor(top + 1)), b(std::floor(bx1), std::floor(bot - 1));
      const Rgba plate = mix(from_hex(assets::kActive), Rgba{255, 255, 255, 255}, 0.8f);
      dl->AddRectFilled(a, b, im(plate));
      const ImVec2 ts = ImGui::CalcTextSize(row.letter.c_str());
      dl->AddText(ImVec2(std::round((a.x + b.x - ts.x) / 2), ty), ink, row.letter.c_str());
      if (vs.collect_probes && !animating)
        vs.probes.push_back(Probe{int(a.x) + 2, int(a.y) + 2, plate,
                                  fmt::format("{} {} storage {}", row.tag, row.label, row.letter)});
    }
    for (const CellDraw& c : cells) {
      const ImVec2 a(origin.x + c.x0, top), b(origin.x + c.x1, bot);
      if (c.wrong) dl->AddRectFilled(a, b, error);
      else fill_stripes(dl, a, b, c.stripes);
      // Only never-written cells get an outline (their fill is close to the
      // background); coloured cells are told apart by the gap between them.
      // Outlines are thin quads that cost a software rasteriser about as
      // much as the fill they surround, and 16 ranks x 16 chunks is a lot.
      if (!c.defined && c.x1 - c.x0 > 3) dl->AddRect(a, b, im(with_alpha(from_hex(assets::kInk), 90)), 0, 0, 1);
      if (c.changed && !animating && !c.wrong)
        dl->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(b.x - 1, b.y - 1), accent, 0, 0, 3);
      if (c.wrong) dl->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(b.x - 1, b.y - 1), ink, 0, 0, 2);
      if (c.order_dependent) {  // the legend's mark: an ink triangle in the top-left corner
        const float m = std::min(10.f, (b.x - a.x) / 3);
        dl->AddTriangleFilled(a, ImVec2(a.x + m, a.y), ImVec2(a.x, a.y + m), ink);
      }
      bool has_text = false;
      Rect text_r;
      if (!c.value.empty()) {
        // The values at the panel's text size when they fit, else in a font
        // shrunk to the cell (not below 7 px), else elided; never an empty
        // defined cell. The full values are in the hover text.
        ImFont* font = ImGui::GetFont();
        float fs = ImGui::GetFontSize();
        std::string shown = c.value;
        const float room = c.x1 - c.x0 - 6;
        ImVec2 ts = font->CalcTextSizeA(fs, FLT_MAX, 0, shown.c_str());
        if (ts.x > room && c.text != c.value && !c.text.empty()) {  // "301|308" before a smaller font
          shown = c.text;
          ts = font->CalcTextSizeA(fs, FLT_MAX, 0, shown.c_str());
        }
        if (ts.x > room) {
          // In --present nothing below the least text size: the value stays in the hover.
          const float fs2 = std::floor(fs * room / ts.x);
          if (fs2 >= (vs.present ? min_text_px(true) : 7.f)) fs = fs2;
          else if (vs.present) shown.clear();
          else shown = "…", fs = std::min(fs, 9.f);
          ts = font->CalcTextSizeA(fs, FLT_MAX, 0, shown.c_str());
        }
        const float tx = std::round((a.x + b.x - ts.x) / 2), tyc = std::round((a.y + b.y - ts.y) / 2);
        has_text = !shown.empty();
        text_r = Rect{tx, tyc, ts.x, ts.y};
        if (!has_text) {
        } else if (c.wrong) {
          dl->AddText(font, fs, ImVec2(tx, tyc), im(text_on(error_color())), shown.c_str());
        } else if (c.stripes.size() > 1) {  // a plate behind text on stripes keeps it legible
          dl->AddRectFilled(ImVec2(tx - 3, tyc), ImVec2(tx + ts.x + 3, tyc + ts.y), IM_COL32(255, 255, 255, 215), 3);
          dl->AddText(font, fs, ImVec2(tx, tyc), IM_COL32(0, 0, 0, 255), shown.c_str());
        } else {
          dl->AddText(font, fs, ImVec2(tx, tyc), im(c.text_color), shown.c_str());
        }
        if (!animating)
          vs.cell_texts.push_back({fmt::format("{} {} [{}, {})", row.tag, row.label, c.begin, c.begin + c.len), c.value,
                                   shown, fs, Rect{a.x, a.y, b.x - a.x, b.y - a.y}, Rect{tx, tyc, ts.x, ts.y}});
      }
      if (vs.collect_probes && !animating && (c.x1 - c.x0) / float(c.stripes.size()) >= 12 && c.defined &&
          lay.row_h >= 14) {
        // Inside the first stripe, clear of the outline and of the centred
        // text (its plate on stripes): a narrow cell whose value covers the
        // spot gets no probe. A wrong cell has no change outline, so its
        // probe sits closer to the corner.
        const float inset = c.wrong ? 4.5f : 7.f;
        const int px = int(std::floor(a.x + inset)), py = int(std::floor(a.y + inset));
        bool clear = true;
        if (has_text) {
          const float pad = !c.wrong && c.stripes.size() > 1 ? 3.f : 0.f;
          const float tx = text_r.x - pad, tyc = text_r.y;
          clear = float(px + 1) <= tx || float(px) >= tx + text_r.w + 2 * pad || float(py + 1) <= tyc ||
                  float(py) >= tyc + text_r.h;
        }
        if (clear)
          vs.probes.push_back(Probe{px, py, c.wrong ? error_color() : c.stripes.front(),
                                    fmt::format("{} {} [{}, {}){}", row.tag, row.label, c.begin, c.begin + c.len,
                                                c.wrong ? " wrong" : "")});
      }
      if (hovered_rect(a, b)) hover = &c, hover_row = &row;
      // A lesson's chunk highlight, on the cells the shown step moves
      // (lit_where_moved; the name as the step's ops used it).
      if (app.lesson && app.lesson->cell_lit(row.rank, lit_name, c.chunk) &&
          lit_where_moved(ses, position, app.lesson->current().highlight.chunks, row.rank,
                          row.swap_partner >= 0 ? sc.rows[static_cast<size_t>(row.swap_partner)].buf : row.buf,
                          c.begin, c.len))
        dl->AddRect(ImVec2(a.x - 1, a.y - 2), ImVec2(b.x + 1, b.y + 2), lesson_highlight_color(), 0, 0, 3);
    }
    if (app.lesson && !row.cells.empty() && app.lesson->row_lit(row.rank, lit_name)) {  // lesson highlight: a row
      vs.rows_lit.push_back(fmt::format("{} {} {}", row.tag, row.label, row.letter));
      dl->AddRect(ImVec2(origin.x + row.cells.front().x0 - 3, top - 3), ImVec2(origin.x + row.cells.back().x1 + 3, bot + 3),
                  lesson_highlight_color(), 3, 0, 3);
    }
  }
  if (sc.first_wrong.row >= 0) {
    // The first wrong element: a heavy outline, ink outside the cell, clear of its fill.
    const BufferRowDraw& row = sc.rows[static_cast<size_t>(sc.first_wrong.row)];
    const CellDraw& c = row.cells[static_cast<size_t>(sc.first_wrong.cell)];
    dl->AddRect(ImVec2(origin.x + c.x0 - 3, origin.y + c.y0 - 3), ImVec2(origin.x + c.x1 + 3, origin.y + c.y1 + 3), ink,
                0, 0, 3);
  }
  for (const SwapMarkDraw& m : af.swapping ? sc.swaps : std::vector<SwapMarkDraw>{}) {
    // The swap of the shown step: a bracket joining the two rows, an up and a
    // down arrow, and the word, all in the accent colour; readable in a still frame.
    const float x0 = origin.x + m.x0, y0 = origin.y + m.y0, y1 = origin.y + m.y1;
    const float ya = y0 + lay.row_h / 2, yb = y1 - lay.row_h / 2, xm = std::floor(x0 + lay.char_w * 0.6f);
    if (yb < view_top || ya > view_bot) continue;
    dl->AddRectFilled(ImVec2(xm - 1, ya), ImVec2(xm + 2, yb), accent);  // the bracket's spine
    dl->AddLine(ImVec2(x0 - 2, ya), ImVec2(xm, ya), accent, 2);
    dl->AddLine(ImVec2(x0 - 2, yb), ImVec2(xm, yb), accent, 2);
    const float xa = xm + lay.char_w * 1.4f, h = lay.char_w * 0.45f;
    dl->AddLine(ImVec2(xa, ya + 2), ImVec2(xa, yb - 2), accent, 2);
    dl->AddTriangleFilled(ImVec2(xa, ya), ImVec2(xa - h, ya + h * 1.6f), ImVec2(xa + h, ya + h * 1.6f), accent);
    dl->AddTriangleFilled(ImVec2(xa, yb), ImVec2(xa + h, yb - h * 1.6f), ImVec2(xa - h, yb - h * 1.6f), accent);
    const ImVec2 ts = ImGui::CalcTextSize(m.text.c_str());
    dl->AddText(ImVec2(xa + lay.char_w * 0.9f, std::round((ya + yb - ts.y) / 2)), accent, m.text.c_str());
    if (vs.collect_probes && !animating)
      vs.probes.push_back(Probe{int(xm), int(std::floor((ya + yb) / 2)), from_hex(assets::kActive),
                                fmt::format("R{} swap", m.rank)});
  }
  ImGui::Dummy(ImVec2(lay.width, sc.height));
  if (hover) {
    std::string vals;
    if (!hover->value.empty()) vals = "\nvalues: " + hover->value;
    if (hover->wrong) vals += "\nwrong: the correct algorithm holds " + hover->expected;
    if (hover->order_dependent) vals += "\norder-dependent: another algorithm's order gives another result (see the line above)";
    ImGui::SetTooltip("%s %s [%lld, %lld)%s\nholds: %s%s%s%s", hover_row->tag.c_str(), hover_row->label.c_str(),
                      static_cast<long long>(hover->begin), static_cast<long long>(hover->begin + hover->len),
                      hover->chunk >= 0 ? fmt::format(", chunk {}", hover->chunk).c_str() : "",
                      contributors_text(hover->mask, n).c_str(), hover->complete ? " (complete)" : "",
                      hover->uniform ? "" : " (mixed within the cell)", vals.c_str());
  }
  if (!sc.values && !sc.rows.empty()) ImGui::TextDisabled("(values not recorded at this size: colours show provenance)");
  ImGui::EndChild();
}

}  // namespace microddp::viz
