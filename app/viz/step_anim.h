// The step animation's timeline, shared by the topology panel (the messages
// travelling), the buffers panel (the data landing, the swap) and the
// animated export (--export-frames DIR --format gif|mp4, which samples it).
//
// Progress p in [0, 1] over ViewState::anim_seconds of the step just taken:
//   [0, kArriveAt)   the step's messages travel along the links; every
//                    buffer still holds what it held before the step;
//   kArriveAt        the data lands: the received storage and the reduction
//                    into accum show the state after the step, together
//                    (a sum never shows before its chunk has arrived);
//   [kSwapFrom, 1]   the double buffer's swap: the NAMES send_buff and
//                    recv_buff trade rows; the storages (their cells and
//                    their letters A / B) stay where they are, as lesson 02
//                    says ("the names move, the storages stay").
// Still frames (and p = 1) draw the state after the step, the storages in
// fixed rows (order_by_storage), so the last animated frame and the still
// that follows are the same picture.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "app/viz/scene.h"

namespace microddp::viz {

inline constexpr float kArriveAt = 0.55f, kSwapFrom = 0.65f;

// How far along its link a message is at progress p: 0 at p = 0, 1 from
// kArriveAt on (clamped; p outside [0, 1] is clamped too).
float travel_progress(float p);

// The double buffer's rows of each rank placed by storage, not by name: the
// rows that carry a letter (BufferRowDraw::letter) take the y slots those
// rows occupy, in letter order (A above B), so a storage keeps its row at
// every position and only the names change rows. Cells, the swap markers and
// first_of_rank follow. Rows keep their indices (swap_partner, first_wrong stay valid).
void order_by_storage(BuffersScene& sc);

// One name drawn beside the buffers: its text, top-left in the panel's
// pixels (as the scene's coordinates) and its scale (1 = the panel's font).
struct NameLabelDraw {
  int rank = 0;
  int row = -1;         // the row of `after` it names at the end of the step
  std::string text;     // "send_buff"
  float x = 0, y = 0, w = 0, h = 0;  // its text box at this scale
  float scale = 1;
  bool moving = false;  // a swapped name between its two rows
};

// One frame of a step's animation, from `before` (the scene at position k)
// to `after` (position k + 1; both built with the same layout and passed
// through order_by_storage): for each row of `after` (same index), the row
// whose cells it draws now (`before`'s row of the same storage for a
// lettered row, else of the same buffer; nullptr: the row did not exist
// before and is drawn empty until the data lands), and every name's label.
// A row whose storage the step's arriving data writes (landing_storages)
// shows `before` until kArriveAt; the others show `after` throughout.
struct BuffersAnimFrame {
  float p = 1;
  bool arrived = true;   // p >= kArriveAt: the cells are `after`'s
  bool swapping = true;  // p >= kSwapFrom: the swap markers show and the names move
  std::vector<const BufferRowDraw*> contents;
  std::vector<NameLabelDraw> labels;
};

// The (rank, storage) pairs that step `step` (0-based) of the session's
// schedule writes with data that arrives in it: a recv's or recv_reduce's
// destination, and what a copy or reduce later in the step writes from such
// a storage (accum, reduced from recv_buff). Storages as the provenance
// numbers them (BufferState::storage). Other storages (a local copy of the
// input into send_buff) hold their new contents while the data travels.
std::set<std::pair<int, int>> landing_storages(const Session& ses, int step);

// text_w: a label's width in pixels at the panel's font; text_h: the
// font's height in pixels. The labels of a swapped pair travel between their
// rows (smoothstep), the one going up on the left of the name column, the
// one going down on the right, shrunk while they pass each other so that
// they never overlap and never leave the column (from the rank's colour bar
// to the storage letter's plate): nothing is clipped.
// landing: landing_storages of the step; the rows of those storages show
// `before` until kArriveAt, every other row `after` from the start.
BuffersAnimFrame animate_buffers(const BuffersScene& before, const BuffersScene& after, float p,
                                 const BuffersLayout& lay, const std::function<float(const std::string&)>& text_w,
                                 float text_h, const std::set<std::pair<int, int>>& landing);

// The name column of a row (pixels, the scene's coordinates): from right of
// the rank's colour bar to left of the storage letter's plate.
float name_column_left(const BufferRowDraw& row, const BuffersLayout& lay);
float name_column_right(const BufferRowDraw& row, const BuffersLayout& lay);

}  // namespace microddp::viz
