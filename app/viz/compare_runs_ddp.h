// --compare-runs A.json B.json with two DDP / FSDP training records
// (`microddp ddp --record FILE`, core/labs/ddp/ddp_record.h): the two runs'
// timelines of one iteration (the last timed one of each) one above the
// other on ONE time axis, each titled by its settings ("A: FSDP, prefetch
// on", "B: DDP, bucket cap 25 MiB, 1 bucket"), and under them what differs:
// the settings, the iteration's total time and its overlap (the share of
// communication hidden behind compute, ddp::IterationStats::overlap_fraction).
// Units: times in ms on screen (the records hold ns), sizes in bytes,
// bucket caps in MiB (2^20 bytes, PyTorch's MB).
// Sources: compare_runs_ddp.cpp (loading, titles, the difference),
// compare_runs_ddp_draw.cpp (the drawing, with the DDP view's scenes:
// build_ddp_scene, ddp_view.h).
#pragma once
#include <string>
#include <vector>

#include "core/labs/ddp/ddp_record.h"

namespace microddp::viz {

struct App;

// What the comparison drew in its last frame (screen pixels; headless tests).
struct DdpRunsDrawn {
  std::string header;                   // the line above both runs
  std::vector<std::string> titles;      // each run's title, as drawn
  std::vector<std::string> difference;  // the lines under the runs
  std::vector<std::string> legend;      // the legend's texts
  float timeline_box[2][4] = {};        // each run's lanes: x0, y0, x1, y1
  float plot_x[2][2] = {};              // each run's time 0 and its last time, x in pixels
  float axis_ms = 0;                    // the shared axis: 0 .. axis_ms
  float lane_h = 0;                     // a lane's height in pixels
  float text_px = 0;                    // the text size drawn
  bool clipped = false;                 // some text was cut (no room)
};

struct DdpRunsCompare {
  std::vector<ddp::DdpRecord> runs;  // A, B
  std::vector<std::string> files;    // as given
  std::vector<std::string> titles;   // ddp_run_title of each
  std::vector<std::string> difference;  // ddp_runs_difference
  DdpRunsDrawn drawn;
  bool active() const { return runs.size() == 2; }
};

// "A: FSDP, prefetch on · 4 ranks · MLP 4 × 256×256 · iteration 2 of 2
// (on.json)"; DDP: "B: DDP, bucket cap 25 MiB, 1 bucket · ..." (its overlap
// mode named when it is not "bucketed": "DDP, overlap none").
std::string ddp_run_title(char letter, const ddp::DdpRecord& r, const std::string& file);

// The settings that name a run, for its title: "FSDP, prefetch on",
// "DDP, bucket cap 0.25 MiB, 4 buckets".
std::string ddp_run_setting(const ddp::DdpRecord& r);

// The lines under the two runs, from their last timed iterations:
//  "A and B differ in: prefetch on vs off" (or "A and B ran the same
//   settings" when they did not);
//  "Iteration time: A 95.5 ms, B 160.2 ms: B takes 64.7 ms more (1.68×)"
//   ("the same" when equal to 0.1 ms);
//  "Overlap (communication hidden behind compute): A 79%, B 1%; over all
//   timed iterations A 78%, B 2%".
std::vector<std::string> ddp_runs_difference(const ddp::DdpRecord& a, const ddp::DdpRecord& b);

// Called by apply_options for --compare-runs: reads each file's kind
// (ddp::record_file_format). Both DDP records: loads them into
// app.ddp_runs (UsageError naming the file and field) and returns true;
// both collective records (or unreadable ones): false, the collective
// comparison loads them. A DDP record beside a collective record: throws
// UsageError naming both files and kinds.
bool open_ddp_compare(App& app, const std::vector<std::string>& files);

// Draws the comparison in the rectangle (screen pixels) and fills
// app.ddp_runs.drawn. No-op when !app.ddp_runs.active().
void draw_ddp_runs(App& app, float x, float y, float w, float h);

}  // namespace microddp::viz
