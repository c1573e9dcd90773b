// Scene building: everything the panels draw, computed as plain structs from
// the Session (Schedule + Trace + Provenance + Prediction), with no ImGui and
// no GL, so it is unit-tested (tests/app/test_scene.cpp). One builder per
// panel: scene_topology.cpp (its structs in scene_topology.h), scene_buffers.cpp, scene_timeline.cpp,
// scene_stats.cpp. Coordinates are
// pixels relative to the panel's top-left corner; times are MICROSECONDS;
// sizes of data are ELEMENTS unless a name says bytes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/viz/palette.h"
#include "app/viz/scene_topology.h"  // the topology panel's scene
#include "app/viz/session.h"
#include "core/model/topology_model.h"

namespace microddp::viz {

// Shared by the builders (scene.cpp): the fill of a cell or badge carrying
// the contributors in `mask` (one colour per rank, or the "complete" colour),
// and whether `mask` is every rank of a reducing collective.
std::vector<Rgba> stripes_for(uint64_t mask, int n, bool complete);
bool is_complete(const CollectiveSpec& s, uint64_t mask);

// ---- buffers ---------------------------------------------------------------

struct CellDraw {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int64_t begin = 0, len = 0;  // elements of the buffer
  int chunk = -1;              // schedule chunk the cell lies in (-1: n/a)
  uint64_t mask = 0;           // contributors in some element (RangeProvenance::mask)
  uint64_t common = 0;         // contributors in every element (complete only when these are all)
  bool defined = false;        // ever written
  bool uniform = true;         // every element holds the same contributors
  bool complete = false;       // every rank's contribution (reducing collectives)
  bool changed = false;        // differs from the previous position
  std::vector<Rgba> stripes;   // fill: one stripe per contributor (or one colour)
  Rgba text_color;
  std::string text;            // values when they fit at the layout's char_w, else empty
  // The cell's values ("12" or "12,15") whenever they are recorded and the
  // cell is defined, fitting or not: a cell too narrow for them draws them
  // in a smaller font or elided, with this on hover.
  std::string value;
  // Judged against what the correct algorithm holds (BuffersScene::judged):
  // wrong = some element of the cell is outside the reference's error bound
  // of the value the schedule means it to hold; expected = those values,
  // formatted as `text` ("12" or "12,15"), when the cell is wrong.
  bool wrong = false;
  std::string expected;
  // At the end position, an output cell with an element whose result
  // depends on the algorithm's order (Session::order_dependence): drawn with
  // a corner mark, explained by BuffersScene::order_legend.
  bool order_dependent = false;
};

struct BufferRowDraw {
  int rank = 0;          // the endpoint: a rank, or a switch after the ranks (nvls: its scratch and accum)
  std::string tag;       // "R3", "SW" (endpoint_name)
  bool is_switch = false;
  Buf buf = Buf::input;
  int storage = -1;
  std::string label;     // the buffer's name ("accum")
  float x = 0, y = 0;    // top-left of the row (the rank tag's column)
  bool first_of_rank = false;  // the rank tag is drawn beside this row
  std::vector<CellDraw> cells;
  int swap_partner = -1; // index of the row this one swapped names with in the shown step
  // Which physical storage the name points at, as a letter, for the names
  // a swap ever exchanges on this rank (the double buffer): "A" for the
  // storage send_buff starts on, "B" for the other; "" for other rows.
  std::string letter;
};

// The visible swap of one rank in the shown step: the two rows whose names
// traded storage, and the marker's box (the word "swap" and two arrows) in
// the column right of the cells, spanning the two rows.
struct SwapMarkDraw {
  int rank = 0;
  int row_a = -1, row_b = -1;  // indices into BuffersScene::rows
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  std::string text = "swap";
};

// The first wrong element at the shown position: the result's first (output
// rows in drawing order, then elements), else the first of any row, so a
// corrupted run names what the caller gets back before what led to it:
// "first wrong: R1 output[0] = 16, expected 12".
struct FirstWrongDraw {
  int row = -1, cell = -1;  // indices into rows and that row's cells; -1: nothing wrong
  int64_t element = 0;
  double got = 0, expected = 0;
  std::string text;
};

// The rank tag's column left of a rank's rows (panel_buffers.cpp draws
// the rank's colour bar 0.6 char_w wide and its tag from char_w): the bar
// and its gap, the widest tag (tag_px pixels, e.g. "R00"'s width) and a
// gap of one char_w before the buffer's name, pixels. Without that gap
// "R10" ran into "input" (lesson 09 beat 6).
inline float rank_tag_width(float char_w, float tag_px) { return char_w + tag_px + char_w; }

struct BuffersLayout {
  float width = 800;
  float row_h = 28;
  float row_gap = 4;
  float rank_gap = 10;
  float tag_w = 40;     // rank tag ("R0") left of a rank's rows
  float label_w = 110;  // buffer name
  float char_w = 8;     // average glyph width, for "values fit" decisions
  int columns = 1;      // ranks side by side (rank r in column r mod columns)
  float col_gap = 16;
  float swap_w = 64;    // column right of the cells for the swap marker (schedules with swaps only)
};

struct BuffersScene {
  std::vector<BufferRowDraw> rows;
  float height = 0;
  bool values = false;  // values printed (small counts with snapshots)
  int values_hidden = 0;  // cells with a value whose text does not fit at the layout's char_w
  std::vector<SwapMarkDraw> swaps;  // the shown step's swaps, one per rank that swapped
  // Values judged against the schedule's intent: for the unchunked
  // all_reduce ring (ring_unchunked, and its one-buffer form shown broken),
  // whose every buffer is a whole vector aligned with the input, element i
  // of a buffer holding the contributions of ranks M must equal the
  // reduction of input element i over M (the provenance's masks, which
  // carry what a send held when it was posted). Ops sum, prod, min, max;
  // within core's error_bound (core/ir/reference.h); elements whose correct
  // value the dtype cannot hold (an integer overflow, a float past its
  // range) are not judged.
  bool judged = false;
  int wrong_cells = 0;
  FirstWrongDraw first_wrong;
  // The broken run's banner (Session::broken): "single-buffered ring, send
  // delays seed 3: corrupted"; error = it did corrupt.
  std::string banner;
  bool banner_error = false;
  // One line under the banner when a cell is order_dependent: "order-dependent (cells with a corner mark):
  // rank 0, element 0: 300 × 300 = 90000 overflows float16 at step 1 ...".
  std::string order_legend;
};

BuffersScene build_buffers(const Session& s, int position, const BuffersLayout& lay);
// The scene with ranks side by side (lay.columns, set here) only when one
// under the other would be taller than avail_h (pixels) and the wider
// arrangement hides no value that one column shows and keeps cells at least
// 2.5 characters wide: fewer columns and a smaller text scale (the caller's)
// beat slivers. Up to 4 columns.
BuffersScene build_buffers_arranged(const Session& s, int position, BuffersLayout& lay, float avail_h);
std::string format_value(double v);
// The values transfer x of step `step` really carried (the receiver's
// Trace::carried, recorded when the run kept snapshots), when they differ
// from what the schedule sends there (the op of the contributors' input
// elements, x.mask): "sent 1,2,3, expected T2 = 7,8,9" (up to 3 values,
// then "…"; T0+T2 for a sum of two inputs). "" when they agree, when the run
// recorded no values for it (snapshots off, step not run) and for runs the
// buffers panel does not judge (BuffersScene::judged: all_reduce of an
// algorithm with a broken form, op not avg, no per-rank counts).
std::string wrong_carried_text(const Session& ses, int step, const Transfer& x);
// The same, with whose data really travelled: `mask` is the smallest set of
// ranks (fewest first, then lowest) whose input elements, combined with the
// op, equal every carried value ("sent 1,2,3" where T0's input is 1,2,3:
// 0b1); 0 when the text is "" or no set of up to 12 ranks matches. The
// topology view fills a wrong badge with these ranks' colours.
struct WrongCarried {
  std::string text;
  uint64_t mask = 0;
};
WrongCarried wrong_carried(const Session& ses, int step, const Transfer& x);
// Between the values of a cell of two to four elements: "301 | 308", or
// "301|308" where the spaced form does not fit; never a comma, which reads
// as a thousands separator ("301,308").
inline constexpr const char* kValueSep = " | ";
inline constexpr const char* kValueSepTight = "|";

// Many ranks (16-64 on a projector), where the full rows would not fit at
// the least text size: one row per endpoint (BufferRowDraw: tag "R12",
// label empty), its cells the chunks of its result buffer (output, else its
// largest), each cell the most complete copy of that range the endpoint
// holds in any buffer of the same length (input, accum, output, ...): the
// most contributors, its values when recorded (CellDraw::value, drawn on
// hover). Fill (crowd_fill): one contributor in its rank's colour, a
// partial result in a violet (no rank's hue: palette.h crowd_color) that deepens with its share of the ranks, every
// rank the complete colour. Ranks fill columns top to bottom: the fewest
// columns (1..4) whose rows fit avail_h (lay.columns is set here; more
// than 16 rows a column when 4 do not fit: the caller shrinks the text).
// step_line: what the shown step changed ("step 2: 64 chunks changed; R0
// chunk 62 = 1953 (3 ranks)"); empty at position 0.
struct CrowdScene {
  BuffersScene buffers;
  std::string buffer;     // the name of the result buffer the cells are cut like ("output")
  std::string step_line;
};
CrowdScene build_buffers_crowd(const Session& s, int position, BuffersLayout& lay, float avail_h);
Rgba crowd_fill(uint64_t mask, int n, bool complete);

// ---- timeline --------------------------------------------------------------

struct TimelineBar {
  int rank = 0, step = 0;
  OpKind kind = OpKind::copy;
  int peer = -1;
  int64_t bytes = 0;
  double begin_us = 0, end_us = 0;  // on the display axis
  double dur_us = 0;                // measured duration
  // Lockstep: its step's real run was longer than the slot, so the step's
  // bars are drawn that many times shorter (> 1), in proportion; 1 = to scale.
  double squeeze = 1;
};

struct StepSpan {
  int step = 0;
  double begin_us = 0, end_us = 0;  // display axis
  double measured_us = 0;           // the real run, slowest rank's own span (no barrier)
  double predicted_us = -1;         // -1: n/a
  // Trace::timing (core/ir/trace.h), µs: the warm median and its p10-p90
  // spread over `repetitions` reruns, and the first (cold, real) run apart.
  // repetitions == 0: not repeated, all four equal the one run.
  double median_us = 0, p10_us = 0, p90_us = 0, first_run_us = 0;
  int repetitions = 0;
  bool includes_barrier = false;
  // Lockstep: the slot [begin_us, end_us) is sized by the warm time (the
  // p90 and the prediction, w), stretched for the real run's bars up to
  // kSlotStretch × w; a real (cold) run longer than that has its bars drawn
  // in proportion, squeezed into the slot (squeeze = its span / the slot's,
  // > 1). So a first run of 100 µs does not squash 9 µs medians, and every
  // rank's ops still show, in their order.
  static constexpr double kSlotStretch = 2.0;
  double squeeze = 1;
};

struct TimelineScene {
  std::vector<TimelineBar> bars;
  std::vector<StepSpan> steps;
  double span_us = 0;  // length of the display axis
  bool compressed = false;  // lockstep stepping: idle time between clicks removed
  std::string mode_label;
};

TimelineScene build_timeline(const Session& s);

// ---- stats -----------------------------------------------------------------

struct LinkStat {
  int from = 0, to = 0;  // endpoints (a switch after the ranks)
  int64_t bytes = 0;
  std::string from_name, to_name;  // "R0", "SW" (endpoint_name)
};

struct Stats {
  int steps = 0, steps_run = 0;
  std::vector<int64_t> sent, received;  // bytes per rank (all steps)
  std::vector<LinkStat> links;          // sorted by bytes, busiest first
  int busiest_rank = -1;                // most bytes sent + received
  int64_t busiest_rank_bytes = 0;
  bool busiest_unique = false;          // false when every rank moves the same bytes
  double measured_us = 0;               // lockstep: the steps' warm medians, summed
  double first_run_us = 0;              // lockstep: their cold first runs, summed (0: n/a)
  int repetitions = 0;                  // warm repetitions behind each median (0: one run)
  int64_t size_bytes = 0;               // S of algbw: nccl-tests' size, core's bench_bytes
  double algbw_gbps = 0, busbw_gbps = 0;  // GB = 1e9 bytes; 0 when not finished
  double bus_factor = 1;                // core's busbw_factor (core/model/cost_model.h)
  double predicted_us = -1;             // -1: n/a
  // Predicted time of the steps run so far (the steps `measured_us` covers),
  // microseconds; equals predicted_us when finished; -1: n/a.
  double predicted_run_us = -1;
  double error_pct = 0;                 // (predicted - measured) / measured, in %, as bench's error column
  bool error_known = false;             // the prediction is of this machine (calibrated profile)
  bool finished = false;
  // The whole run happened before the window showed it (--replay FILE, a
  // lesson beat's `recorded:` run): every step's time is known at any step.
  bool recorded_run = false;

  // What the prediction is based on ("predicted (preset nvlink)"), the
  // calibrate hint while no profile exists, and (on a topology) that the
  // measured times are not the topology's.
  std::string prediction_label, prediction_hint, measured_note;
  // "auto chose ring: naive 12.1 us, tree 9.3 us, ring 5.2 us" (algorithm auto),
  // and its one-line form "auto chose ring (5.2 us; next: tree 9.3 us)".
  std::string auto_text, auto_short;

  // Link classes and ports (core/model/topology_model.h's routing): the
  // topology of the prediction when one is in force, else the run's nodes
  // with one NIC each. Bytes of each message once per class; a port counts
  // the bytes through it.
  int nodes = 1, ranks_per_node = 1, nics_per_node = 1;
  int shown_step = -1;                   // the step the *_step fields describe (-1: no steps)
  int64_t intra_run = 0, inter_run = 0;  // bytes, the whole run
  int64_t intra_step = 0, inter_step = 0;  // bytes, the shown step
  struct PortLoad {
    int port = -1;
    std::string name;  // "R3 intra out", "node 0 NIC 0 out"
    int64_t bytes = 0;
    bool inter = false;
    bool bottleneck = false;  // the busiest port (run: by predicted busy time; step: by port time), or tied for it
    bool tied = false;        // a bottleneck shared: more ports tie for the largest time
  };
  std::vector<PortLoad> ports_run, ports_step;  // busiest first (bytes), ports with bytes only, at most max_ports
  std::string bottleneck_run, bottleneck_step;  // bottleneck_text ("" without messages)

  // Predicted lockstep time split by what it pays for, MICROSECONDS. On a
  // topology each step is charged to the link class of its busiest port;
  // on a flat model everything is one class (by_class false). other_us:
  // reductions (γ), local copies (δ), barriers and the shared-machine terms.
  bool split = false, by_class = false;
  double alpha_intra_us = 0, beta_intra_us = 0, alpha_inter_us = 0, beta_inter_us = 0, other_us = 0;

  // True while a lesson's open question holds the bytes per rank, S, algbw
  // and busbw back (hold_stats_bytes, beat_bytes.h); those fields are empty.
  bool bytes_held = false;
};

// position: the step shown (as build_topology: position-1, or step 0 at
// position 0); -1 = the session's position. max_ports caps the port lists.
Stats build_stats(const Session& s, int position = -1, int max_ports = 6);
// The Stats tab's first line: "2 of 4 steps run   |   measured 10.1 us so far"
// for a live run; for a recorded run (recorded_run), whose steps all ran
// before the window opened, "recorded run, all 4 steps   |   measured
// 42.4 us" at every step (the step slider says which step is shown). The
// warm-run and prediction-error parts follow as in the live line.
std::string stats_summary_line(const Stats& st);

// The bottleneck in words for the topology's legend and the stats
// (scene_network_loads.cpp): `tied` the ports tied for the largest time
// (NetworkPrediction::step_tied or tied), `bytes` [port] their bytes. One
// port: its name, "node 0 NIC 0 out"; several: ports_text and ", equally
// (119 MiB each)" when they carry the same bytes, else ", tied": "all 8
// NIC out and in ports, equally (119 MiB each)", "NIC out of nodes 0–3,
// tied". "" when none (no messages).
std::string bottleneck_text(const Topology& t, const std::vector<int>& tied, const std::vector<int64_t>& bytes);

}  // namespace microddp::viz
