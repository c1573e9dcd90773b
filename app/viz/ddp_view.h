// DDP view model: the parameters the DDP panel edits, a runner that
// calls ddp::run_ddp() for real on a background thread (the UI keeps drawing
// while it trains), and the plain draw structs of one iteration's timeline.
// No ImGui, no GL: tests/app/test_ddp_view.cpp builds scenes from real runs.
//
// Units: times are MILLISECONDS since the iteration began (as in core/ddp.h);
// coordinates are pixels relative to the plot's top-left corner; sizes of
// data are bytes; bucket caps are MB with 1 MB = 2^20 bytes (PyTorch's).
#pragma once
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/viz/palette.h"
#include "core/labs/ddp/ddp.h"

namespace microddp::lesson {
struct Beat;
}

namespace microddp::viz {

// What the DDP panel's controls and the lesson beats edit: the options of
// the run. The view's defaults differ from ddp::Options' in depth (8),
// iterations (3), bucket cap (0.25 MB, so that a default run has several
// buckets) and layer delay (3000 µs of sleep per layer and pass: a bigger
// model's proportions). The panel edits ranks, depth, width, bucket_cap_mb,
// overlap, layer_delay_us and algorithm; a lesson beat sets any field
// (ddp_params in lesson_view.h). check_reference keeps its default (on): the
// panel shows the loss agreement with the single-process reference.
struct DdpParams {
  ddp::Options run{.depth = 8, .iterations = 3, .bucket_cap_mb = 0.25, .layer_delay_us = 3000};
  // A lesson beat's batch is the lesson's (its text and checks are about
  // that batch); the panel's is 16 samples per rank. Set by ddp_params.
  bool lesson_batch = false;
  bool operator==(const DdpParams&) const = default;
};

// The options run_ddp gets: `p.run`, with the global batch set to 16
// samples per rank unless it is a lesson's batch that divides among the
// ranks (the panel's ranks control must not make the batch indivisible by
// the world size).
ddp::Options to_options(const DdpParams& p);

// Runs run_ddp on a background thread, one run at a time. request() starts a
// run at once when idle, or remembers the parameters (the latest request
// wins) and starts them when the running one ends. poll() is called once per
// frame on the UI thread: it collects a finished run and starts the pending
// one. Errors (UsageError naming the bad value, runtime_error) go to error()
// and leave the last good result shown. The destructor waits for a running
// run (runs are bounded: run_ddp gives up after 60 s).
class DdpRunner {
 public:
  DdpRunner() = default;
  DdpRunner(const DdpRunner&) = delete;
  DdpRunner& operator=(const DdpRunner&) = delete;
  ~DdpRunner();

  void request(const DdpParams& p);
  void poll();
  // Blocks until no run is in flight and none is pending (screenshots, tests).
  void wait();
  // Shows `r`, a run made elsewhere with `p` (a lesson beat's median run,
  // LessonView::picture), as the result, as if this runner had made it:
  // nothing runs, `p` counts as the last request. Ignored (false) while a
  // run is in flight or pending, whose result would replace it.
  bool show(const DdpParams& p, std::shared_ptr<const ddp::Result> r);
  bool running() const { return future_.valid(); }
  bool requested() const { return requested_; }          // any run was ever asked for
  const DdpParams& last_requested() const { return last_requested_; }
  const DdpParams& running_params() const { return running_; }
  // The parameters the shown result ran with (valid when result() is set).
  const DdpParams& result_params() const { return result_params_; }
  std::shared_ptr<const ddp::Result> result() const { return result_; }
  const std::string& error() const { return error_; }
  double last_run_seconds() const { return last_run_s_; }  // wall time of the last finished run

 private:
  void start(const DdpParams& p);
  std::future<std::shared_ptr<const ddp::Result>> future_;
  bool requested_ = false, has_pending_ = false;
  DdpParams running_, pending_, result_params_, last_requested_;
  std::shared_ptr<const ddp::Result> result_;
  std::string error_;
  double started_s_ = 0, last_run_s_ = 0;
};

// ---- draw structs ------------------------------------------------------------

enum class DdpBarKind { forward, backward, comm, wait };
// "forward", "backward", "all-reduce", "waiting" (a comm bar's own
// collective is DdpBar::collective: sharded runs all-gather and reduce-scatter).
std::string_view name(DdpBarKind k);
// A collective as the view writes it: "all_gather" -> "all-gather".
std::string collective_text(std::string_view collective);

struct DdpLane {
  std::string label;  // "R0".."R{n-1}", "comm"
  int rank = -1;      // -1: the communication lane
  float y0 = 0, y1 = 0;
};

// One bar: a layer's forward or backward on a rank's lane, a collective on
// the communication lane, or a rank's wait (drawn over its lane).
struct DdpBar {
  DdpBarKind kind = DdpBarKind::backward;
  int lane = 0;                  // index into DdpScene::lanes
  int rank = -1;                 // -1 for comm bars
  int layer = -1;                // forward / backward
  int bucket = -1;               // comm (DDP: the bucket all-reduced)
  int call = -1;                 // comm and wait: sequence number in the iteration
  int64_t bytes = 0;             // comm: per rank
  std::string collective;        // comm: "all_reduce", "all_gather", "reduce_scatter" (ddp::CommSpan)
  double begin_ms = 0, end_ms = 0;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // x1 >= x0 + min_bar_px
  Rgba color;
  std::string label;             // short text drawn inside when it fits ("L3", "b2", "AG L3", "RS L3")
  std::string short_label;       // drawn instead when `label` does not fit ("L3" for "AG L3"); may be empty
};

// A bucket became complete on a rank (all its gradients ready) at ready_ms,
// and was posted at posted_ms (later when an earlier bucket was still open).
struct DdpMarker {
  int lane = 0, rank = 0, bucket = 0;
  double ready_ms = 0, posted_ms = 0;
  float x = 0, x_posted = 0, y0 = 0, y1 = 0;  // a tick at x on the lane's top part
  Rgba color;
};

struct DdpTick {
  float x = 0;
  double ms = 0;
  std::string text;  // "0", "20 ms"
};

// A stretch of the communication lane left idle after backward ended (at
// least kDdpGapMinMs and kDdpGapMinFraction of the plot's span), and why,
// from the run's record:
//  - cpu: every rank had posted the next call's bucket (its last BucketFill
//    posted_ms, `ready_ms`) before the stretch began, yet the communication
//    thread started the call only at its end: started with the iteration
//    (call 0) or woken by the last post, it waited to be scheduled on a CPU
//    (the workers, the collective's threads and the window share the
//    cores); the ranks wait for that call's result.
//  - posting: a rank (`rank`) had not yet posted the call's bucket: the
//    stretch ends at its post (overlap none posts after backward).
//  - step: after the last call, until the iteration's end: the ranks copy
//    the averaged gradients and take the SGD step; nothing left to send.
// Sharded runs (no buckets) get no gaps.
enum class DdpGapCause { cpu, posting, step };
struct DdpGap {
  DdpGapCause cause = DdpGapCause::cpu;
  int call = -1, bucket = -1, rank = -1;  // the call and bucket it waits for (-1 for step); posting: the late rank
  double begin_ms = 0, end_ms = 0;        // the lane idle from begin to end
  double ready_ms = 0;                    // cpu, posting: when the last rank posted the bucket
  float x0 = 0, x1 = 0;                   // plot pixels of begin_ms, end_ms
  // Texts for the label in the gap, longest first; the panel draws the first
  // that fits between x0 and x1 ("idle 12.1 ms: b0 posted at 0.3 ms, waiting
  // for a CPU to start it", ..., "no CPU yet").
  std::vector<std::string> labels;
};
inline constexpr double kDdpGapMinMs = 1, kDdpGapMinFraction = 0.03;

// The sentence on a gap for the note under the axis: "The comm lane is
// idle from 0.5 to 12.4 ms: every rank had posted b0 by 0.3 ms and waits for
// its result (shaded), but the communication thread, started with the
// iteration, began it only at 12.4 ms: it waited 11.9 ms for a CPU (4
// worker threads, the collective's threads and the window share 2 CPUs)."
// (", started with the iteration," for call 0 only.)
std::string ddp_gap_sentence(const DdpGap& g, int ranks, int cpus);

// One row of labels (the comm lane's label strip): label i, `widths[i]`
// pixels wide, wants to start at want[i] (its call's start; the calls in
// time order). Returns where each starts: in the same order, `gap` pixels
// apart at least, none left of x0 nor past x1 when they fit in x1 - x0 at
// all (else they run past x1), each as near its wish as that allows.
std::vector<float> ddp_strip_layout(const std::vector<float>& want, const std::vector<float>& widths, float x0, float x1,
                                    float gap);

// The label strip over `max_rows` rows at most: label i goes to row
// i % rows (neighbours in time on different rows, each row in time order),
// each row placed by ddp_strip_layout. rows: the fewest with which every
// row fits in x1 - x0, else max_rows; a label that would still run past
// x1 (or start left of x0) is left out (shown false: its bar keeps its
// tooltip), so none is drawn outside the plot (issue 37: at --font-px 40
// lesson 10 b5's labels ran off the window's right edge).
struct DdpStripPlace {
  float x = 0;
  int row = 0;
  bool shown = true;
};
struct DdpStrip {
  int rows = 0;
  std::vector<DdpStripPlace> at;  // one per label, in the given order
};
DdpStrip ddp_strip_rows(const std::vector<float>& want, const std::vector<float>& widths, float x0, float x1, float gap,
                        int max_rows);

// Whether iteration `iteration` of r has a comm call too short for its
// label in a plot `width` pixels wide (the DDP region's width): the plot
// then labels it in the row under the comm lane (ddp_label_row_height).
// Measured with the current ImGui font (panel_ddp_plot.cpp).
bool ddp_label_row_needed(const ddp::Result& r, int iteration, float width);

struct DdpLayout {
  float width = 1000;   // whole plot, labels included
  float label_w = 60;   // lane labels on the left
  float lane_h = 40;    // a rank's lane
  float comm_h = 40;    // the communication lane
  float gap = 6;        // between lanes
  float min_bar_px = 1.5f;
};

struct DdpScene {
  int iteration = 0;
  double span_ms = 0;          // the plot's time range is [0, span_ms]
  double backward_end_ms = 0;  // the last rank's end of backward
  float plot_x0 = 0, plot_x1 = 0;  // time 0 and span_ms
  float height = 0;            // bottom of the last lane
  float backward_end_x = 0;
  std::vector<DdpLane> lanes;   // ranks first, the communication lane last
  std::vector<DdpBar> bars;     // forward/backward per rank by begin, then comm by call, then waits
  std::vector<DdpMarker> markers;
  std::vector<DdpTick> ticks;
  std::vector<DdpGap> gaps;     // idle stretches of the comm lane after backward, by begin
};

// Bucket b's colour (comm bars and fill markers): Okabe-Ito hues in turn.
Rgba bucket_color(int bucket);
Rgba ddp_kind_color(DdpBarKind k);
// A sharded run's comm bar colour by its collective, from the timeline's op
// colours (palette.h op_kind_color): all-gather blue (a send: every rank
// hands out its shard), reduce-scatter bluish green (a recv_reduce: every
// rank receives and sums its block). Any other collective: the comm colour.
Rgba collective_color(std::string_view collective);

// The collectives of one iteration, counted by kind in order of first use:
// "12 all-reduces", "6 all-gathers, 3 reduce-scatters" ("0 collectives" when none).
std::string ddp_calls_text(const ddp::IterationTimeline& tl);

// The DDP header's loss: "loss 2.30259 -> 2.2991, loss diff vs 1 process:
// 1.4e-08" (the largest relative difference from the single-process
// reference, ddp::Result::max_reference_rel_error); without its second half
// when the reference was not run (NaN).
std::string ddp_loss_text(const ddp::Result& r);

// Whether the DDP header keeps the run's loss back while `beat`'s question
// is open: when one of its checks is same_params, the question is about
// the trained parameters, and a loss the same as the compared run's (on
// the slide before) would answer it (issue 37, lecturer pass 7: lesson 10
// beat 5 asks whether prefetch off changes the trained parameters; its
// header showed the loss of beat 4). The header then reads
// kDdpLossWithheld in its place; the loss shows once the question is
// answered or revealed.
bool ddp_loss_withheld(const lesson::Beat& beat);
inline constexpr const char* kDdpLossWithheld = "loss: after the question";

// The DDP view's sentence on a collective far slower than its peers, or "":
// in iteration `iteration` of r (clamped), the slowest call whose duration
// is over 3x the median of the iteration's other calls of the same
// collective (at least two others) and over it by 1 ms or more. It names
// the call, both durations, the bytes when the call moved no more than the
// others' median, and what the timeline shows it ran beside: a rank's
// forward or backward layer (the workers' threads and the ring's sharing
// `cpus` CPUs), else only this machine's other load (`load`: the 1-minute
// load average, < 0 when unknown). Lesson 07's per-parameter beat showed a
// first bucket of 15-43 ms beside others of about 1 ms on a busy 2-vCPU
// machine: thread scheduling, not bytes, which this says on screen.
std::string slow_call_note(const ddp::Result& r, int iteration, int cpus, double load);

// Lines that items of these widths take when placed left to right, `gap`
// pixels apart, a new line started when the next would pass `avail` (an
// item wider than `avail` takes a line of its own): what the panel's
// wrapping of its stats and legend does. 0 for no items.
int greedy_lines(const std::vector<float>& widths, float gap, float avail);

// One legend entry of the DDP view: its text and how its swatch is drawn.
// bucket_hues: bars in bucket_color(0), (1), (2); bucket_markers: the
// lanes' fill triangles in those colours, as the lanes draw each bucket's
// marker in its bucket's colour (the legend used to draw one gold triangle).
enum class DdpSwatch { fill, bucket_hues, bucket_markers, hatch, dashed };
struct DdpLegendItem {
  std::string text;
  DdpSwatch swatch = DdpSwatch::fill;
  Rgba color;  // fill: the colour; bucket_hues, bucket_markers: bucket_color(0)
};
// The legend: DDP names its all-reduces by bucket and the bucket-full
// marker (both in the bucket colours); a sharded run (no buckets) names
// the all-gather and the reduce-scatter of each layer in their colours.
std::vector<DdpLegendItem> ddp_legend(bool sharded);

// The scene of iteration `iteration` (clamped to the result's range; the
// result must hold at least one timeline, else the scene has lanes only).
DdpScene build_ddp_scene(const ddp::Result& r, int iteration, const DdpLayout& layout);

}  // namespace microddp::viz

namespace microddp::viz {

// The DDP view's state (held by App): what the controls show, the runner, the
// iteration shown (-1: the last one; an untimed warm-up iteration precedes the first).
// What the DDP panel drew in its last frame (for the headless tests).
struct DdpDrawn {
  std::string header;                  // the first line: "FSDP, 2 ranks, ..."
  std::string calls;                   // ddp_calls_text of the iteration shown
  std::vector<std::string> stats;      // the stats line's parts, in order ("overlap 75%", ..., the loss)
  std::vector<std::string> legend;     // the legend's texts, in order
  std::vector<std::string> bar_labels; // comm bar labels drawn, inside their bars or in the strip below the lane
  // Each comm call's label as drawn: its text, its box (x0, y0, x1, y1,
  // screen pixels) and whether it sits in the label strip under the comm
  // lane (a call too short for its label: issue 37, lesson 10 beat 4 cut
  // "RS L2" to "L2" and put labels before or after their bars by turns).
  struct CommLabel {
    std::string text;
    float box[4] = {0, 0, 0, 0};
    bool strip = false;
  };
  std::vector<CommLabel> comm_labels;
  float strip_box[4] = {0, 0, 0, 0};  // the label strip (x0, y0, x1, y1); zero when none was needed
  int strip_rows = 0;                   // its rows of labels (ddp_strip_rows)
  int labels_left_out = 0;              // comm labels not drawn (no room inside their bar nor in the strip)
  std::vector<std::string> gap_labels; // labels drawn in the comm lane's idle gaps (DdpGap)
  bool controls = false;               // the run's controls (none in present mode)
  bool bucket_controls = false;        // the overlap mode and bucket cap controls
  // Where the legend and the timeline (lanes and time axis) were drawn:
  // x0, y0, x1, y1 in screen pixels. Each lane's height in pixels; whether
  // the note under the axis was drawn (it gives way to lanes of
  // kDdpMinLaneLines lines, layout.h).
  float legend_box[4] = {0, 0, 0, 0}, timeline_box[4] = {0, 0, 0, 0};
  float lane_h = 0;
  bool note = false;
  std::string note_text;  // the note's text (drawn when `note`)
  // The header, stats and legend give way to the lanes' least height: drawn
  // at this fraction of the text size (at most 1; no smaller than
  // ddp_text_px while the lanes can go down to a line of text, never
  // smaller than kDdpMinTextPx), and cut off (an ellipsis drawn) when even
  // that did not fit.
  float text_scale = 1;
  bool text_clipped = false;
  // For the next frame's layout (LayoutInput::ddp_text_h, ddp_label_row):
  // the header, stats and legend's height at ddp_text_px (pixels, spacing
  // included), and whether the run labels calls in the row under the comm lane.
  float text_h = 0;
  bool label_row = true;
};

struct DdpView {
  DdpParams edit;
  DdpRunner runner;
  int iteration = -1;
  DdpDrawn drawn;
};

}  // namespace microddp::viz
