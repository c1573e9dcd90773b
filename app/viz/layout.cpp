#include "app/viz/layout.h"

#include <algorithm>
#include <cmath>

#include "app/viz/view_state.h"

namespace microddp::viz {

bool compact_controls(float width, float font_px) {
  // The run row needs about 66 em (combos and fields sized in em) plus the
  // prediction row; below 64 em of window it would take three or more lines.
  return width < 64.f * font_px;
}

float ddp_lane_gap(float font_px) { return std::max(2.f, font_px * 0.25f); }

float ddp_timeline_height(int lanes, float font_px, float lane_lines) {
  if (lanes < 1) return 0;
  return float(lanes) * lane_lines * font_px + float(lanes - 1) * ddp_lane_gap(font_px) + font_px + 6 + 4;
}

float ddp_timeline_min_height(int lanes, float font_px) { return ddp_timeline_height(lanes, font_px, kDdpMinLaneLines); }

float ddp_label_px(float font_px) { return std::min(font_px, kDdpLabelMaxPx); }

float ddp_label_row_height(float font_px) { return ddp_label_px(font_px) + 6; }

float ddp_text_px(float font_px) { return std::min(font_px, std::max(kDdpMinTextPx, kDdpTextShare * font_px)); }

float ddp_view_min_height(int lanes, float font_px, float gap, float text_h, bool label_row) {
  if (lanes < 1) return 0;
  // The lanes one line of text tall (their names and "L3" still fit), the
  // texts above at ddp_text_px (panel_ddp.cpp gives way in that order).
  const float texts = text_h > 0 ? text_h : kDdpMinHeaderLines * (ddp_text_px(font_px) + gap);
  return ddp_timeline_height(lanes, font_px, 1.f) + (label_row ? ddp_label_row_height(font_px) : 0.f) + texts;
}

Layout compute_layout(const LayoutInput& in) {
  Layout L;
  L.window = Rect{0, 0, in.width, in.height};
  const float top = in.present || in.view == View::ddp ? in.pad : std::max(in.pad, in.controls_bottom);
  L.body = Rect{in.pad, top, std::max(0.f, in.width - 2 * in.pad), std::max(0.f, in.height - in.pad - top)};
  const Rect& b = L.body;
  if (in.view == View::compare) {
    L.compare = b;
    return L;
  }
  if (in.view == View::ddp) {
    // The timeline needs the height more than the lesson's text, which
    // scrolls: 62% above the lesson panel. --present frees the controls'
    // lines inside this region (panel_ddp.cpp), not a different split.
    if (!in.lesson) {
      L.ddp = b;
      return L;
    }
    const float usable = std::max(0.f, b.h - in.gap);
    float ddp_h = std::floor(usable * 0.62f), lanes_h = 0;  // lanes_h: the lanes' least height (and 3 lines)
    if (in.ddp_lanes > 0) {
      const float line = in.font_px + in.gap;
      const float want = ddp_timeline_min_height(in.ddp_lanes, in.font_px) + 3 * line;
      // The lesson keeps its header and two lines, on a 36-40 px slide
      // kDdpPresentLessonLines (the view's lanes give way to one line).
      const bool big_slide = in.present && in.font_px >= 36;
      const float lesson_min = (big_slide ? kDdpPresentLessonLines : 4) * line + 2 * in.pad;
      ddp_h = std::max(ddp_h, std::floor(std::min(want, usable - lesson_min)));
      if (big_slide) ddp_h = std::min(ddp_h, std::floor(usable - lesson_min));
      // The header, stats and legend above the lanes wrap onto more lines in a narrow window.
      const float header = compact_controls(in.width, in.font_px) ? 3 * line : 0.f;
      lanes_h = std::min(ddp_h, std::ceil(want + header));
      // A projector's text (--present at 28 px and up): the narrow
      // window's extra header lines give way first, then the header,
      // stats and legend shrink and the lanes go down to a line of text
      // (panel_ddp.cpp), down to the view's least height (the comm label
      // row counted when the run needs it: lesson 10 b4 at 28 px lost 5 of
      // its 12 labels without it; the texts at ddp_text_px as measured),
      // so that a long text gets the rest (lesson 07 at 28 px kept 440 of
      // 720 px for the view, each beat over 3-5 pages).
      if (in.present && in.font_px >= 28)
        lanes_h = std::min(lanes_h, std::ceil(ddp_view_min_height(in.ddp_lanes, in.font_px, in.gap, in.ddp_text_h, in.ddp_label_row)));
    }
    // --present: a lesson's text that needs more room takes it from the
    // view, down to the lanes' least height and three lines, six in a
    // narrow window (never below
    // the split above when that is already less).
    // A shorter text gives the view the rest (its "How to read it"
    // paragraph below the lanes needs it: lesson 07 beats 6-8).
    if (in.present && in.lesson_want_h > 0 && (in.lesson_may_shrink || in.lesson_want_h > usable - ddp_h))
      ddp_h = std::max(lanes_h, std::floor(usable - std::min(in.lesson_want_h, usable * kDdpLessonMaxShare)));
    L.ddp_base_h = ddp_h;
    // ui.cpp fit_ddp_note: > 0 the region's least height (up to the lesson's
    // header and two lines), < 0 minus its most.
    if (in.ddp_adjust > 0) {
      const float lesson_min = 4 * (in.font_px + in.gap) + 2 * in.pad;
      ddp_h = std::min(std::max(ddp_h, std::floor(in.ddp_adjust)), std::max(ddp_h, usable - lesson_min));
    } else if (in.ddp_adjust < 0) {
      ddp_h = std::min(ddp_h, std::floor(-in.ddp_adjust));
    }
    L.ddp = Rect{b.x, b.y, b.w, ddp_h};
    const float low_y = b.y + ddp_h + in.gap;
    L.side = Rect{b.x, low_y, b.w, std::max(0.f, b.bottom() - low_y)};
    return L;
  }
  // Large text (a projector) or present mode: the buffers' rows are the
  // tallest content, so the top row gets more of the height and the
  // buffers more of its width.
  const bool large = in.present || in.font_px >= 24;
  const float usable_h = std::max(0.f, b.h - in.gap);
  const float top_frac = in.lesson ? 0.5f : large ? 0.64f : 0.60f;
  float top_h = std::floor(usable_h * top_frac);
  // --present: the lesson panel gets the height its text needs, up to
  // kLessonMaxShare (the rest on continuation pages), the picture the rest.
  if (in.lesson && in.present && in.lesson_want_h > 0 && (in.lesson_may_shrink || in.lesson_want_h > usable_h - top_h))
    top_h = std::floor(usable_h - std::min(in.lesson_want_h, in.picture_min_h > 0
                                                                 ? std::clamp(usable_h - in.picture_min_h, usable_h * kLessonMaxShare,
                                                                              usable_h * kDdpLessonMaxShare)
                                                                 : usable_h * kLessonMaxShare));
  const float left_w = std::floor((b.w - in.gap) * (in.topology_first ? 0.62f : large ? 0.32f : 0.38f));
  L.topology = Rect{b.x, b.y, left_w, top_h};
  L.buffers = Rect{b.x + left_w + in.gap, b.y, b.w - left_w - in.gap, top_h};
  const float low_y = b.y + top_h + in.gap, low_h = std::max(0.f, b.bottom() - low_y);
  // With a lesson the lesson panel takes the lower half (the whole width
  // with large text, where a narrow timeline would say nothing); the
  // stats stay in its Stats tab.
  const float tl_frac = in.lesson ? (large ? 0.f : 0.30f) : 0.60f;
  const float tl_w = tl_frac > 0 ? std::floor((b.w - in.gap) * tl_frac) : 0.f;
  L.timeline = Rect{b.x, low_y, tl_w, tl_w > 0 ? low_h : 0.f};
  const float side_x = tl_w > 0 ? b.x + tl_w + in.gap : b.x;
  L.side = Rect{side_x, low_y, b.right() - side_x, low_h};
  return L;
}

}  // namespace microddp::viz
