// Where the compare plot's labels go (issue 37, lecturer pass 4: lesson 03
// beat 4's "this beat: 4 KiB" and beat 9's "model: preset nvlink, not this
// machine" were crossed by the model's lines): each label takes the first
// of its candidate boxes that no drawn line crosses and that covers no
// dot, bar or other label. Plain geometry in screen pixels, no ImGui:
// tests call it directly. Internal to the compare panel.
#pragma once
#include <vector>

#include "app/viz/layout.h"

namespace microddp::viz::compare_panel {

// A straight piece of a drawn polyline, from (x0, y0) to (x1, y1), pixels.
struct Segment {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Does `s` pass through the box `r` grown by `pad` pixels on every side
// (a line is drawn 2.5 px wide: pad 1.5 covers its half and a pixel of
// anti-aliasing)? True when it only touches the grown box's edge too.
bool crosses(const Rect& r, const Segment& s, float pad = 1.5f);

// The index of the first of `candidates` that no segment of `lines`
// crosses and that overlaps no box of `avoid`; when every one is crossed or
// covers something, the one with the fewest crossings, then the fewest
// overlaps (the first of equals). -1 when there are no candidates.
int pick_label_box(const std::vector<Rect>& candidates, const std::vector<Segment>& lines, const std::vector<Rect>& avoid);

// As pick_label_box, but never a candidate that overlaps a box of `texts`
// (the labels already placed: text on text reads as neither; issue 37,
// lesson 03 beat 9 drew "this beat: 1 MiB" over "crossover (predicted)"):
// of the others the first free one, else the fewest crossings, then the
// fewest overlaps of `avoid`. -1 when every candidate overlaps a text (the
// caller leaves its label out) or there are none.
int pick_clear_of_text(const std::vector<Rect>& candidates, const std::vector<Segment>& lines,
                       const std::vector<Rect>& avoid, const std::vector<Rect>& texts);

// Candidate boxes of a label w x h pixels beside the x position `x` (a
// marker's line), inside the box `plot`: right of x (x + gap), then left
// of it (x - gap - w), on rows from `y` moving by `step` pixels (down when
// step > 0, up when step < 0) while the row stays inside `plot`. With
// left_first the left one comes first on each row. Candidates that would
// leave `plot` sideways are left out.
std::vector<Rect> beside_candidates(const Rect& plot, float x, float w, float h, float y, float step, float gap,
                                    bool left_first = false);

}  // namespace microddp::viz::compare_panel
