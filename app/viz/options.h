// microddp-viz's command line: what to run (RunParams) and how to show it.
// Parsing touches no display, so bad options are reported before a window
// opens, and tests parse a command line exactly as the binary does.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/viz/view_state.h"
#include "core/model/topology_model.h"

namespace microddp::viz {

struct Options {
  RunParams params;
  std::string collective = "all_reduce", dtype = "float32", op = "sum", mode = "lockstep", protocol = "simple";
  std::string screenshot, size = "1280x720", export_dir, view = "main", compare_list, probes;
  std::string describe;  // --describe FILE: what each picture shows, as text (describe.h)
  int step = -1, bench = 0, beat = 1;
  std::string lesson_file, replay_file;
  // With --lesson (present.h): --speaker FILE keeps FILE at the current
  // beat's speaker notes; --reveal shows every beat's answer (as R does).
  // --poll COUNTS: the class poll of the --beat's question, as typed after P.
  std::string speaker_file, poll;
  // --compare-runs A.json B.json: two saved run records side by side in the
  // compare view (each column replays its record).
  std::vector<std::string> compare_runs;
  // The compare view's source (compare_sources.h): --compare-source
  // shm|lab|recorded|model|published, --against FILE (an nccl-tests output:
  // published), --nccl-system NAME (model / published), --lab-nic RATE (lab),
  // --recorded FILE (recorded; default the bundled run).
  std::string compare_source, against, nccl_system, lab_nic = "1gbit", recorded;
  bool reveal = false;
  // --format with --export-frames: png (stills), gif or mp4 (an animation
  // encoded by ffmpeg, whose path parse_options fills in), or pdf (with
  // --lesson: the handout, handout.h).
  std::string format = "png", ffmpeg;
  float font_px = 18;
  bool ddp_view = false;  // the DDP view (panel_ddp.cpp)
  bool present = false;   // --present: no controls, the view big, clicker keys (ui.cpp)
  double ddp_cap_mb = 0.25;
  // Filled by parse_options.
  int width = 1280, height = 720;  // from --size, pixels
  bool step_given = false, beat_given = false, ranks_given = false, algorithm_given = false;
  // Topology (--nodes goes into params.spec.nodes): the link classes the
  // prediction and the topology view's loads use; "" = nvlink inside,
  // infiniband across. --topology NAME: a named topology's links and NICs.
  std::string intra, inter, topology;
  int nics_per_node = 1;
  std::string preset;  // --preset: a flat link preset instead of the profile
  // Filled by parse_options: --preset, else a topology when --topology,
  // --intra, --inter, --nics-per-node or --nodes > 1 is given, else the
  // calibrated profile (a named preset while there is none).
  PredictionSource source;
  bool source_given = false;  // --preset or a topology option: the source does not follow --nodes
};

// --size with --format pdf (the handout's slide on an A4 page), pixels.
inline constexpr int kHandoutMinW = 800, kHandoutMinH = 450, kHandoutMaxW = 2560, kHandoutMaxH = 1600;

// Parses argv into o and checks what needs no session: names, --size, --view,
// --font-px, --bench-frames, --bucket-cap-mb, --format (and, for gif or
// mp4, that ffmpeg is on $PATH: UsageError "ffmpeg not found: apt-get
// install ffmpeg" otherwise; pdf needs --lesson and a --size inside
// kHandoutMin .. kHandoutMax). Without --count, the count is
// core's infer_count from --data rows (as `microddp run`), else one element
// per rank. Returns the exit code when the program must stop now (0 after
// --help, 2 after a CLI11 parse error, printed on stderr as one line), else
// nullopt. Throws UsageError naming a bad value.
std::optional<int> parse_options(int argc, char** argv, Options& o);

// Opens the lesson (--lesson, --beat: its setup replaces the run options) or
// the record (--replay), configures app's session and compare view, and
// checks what needs the schedule (--step) or the file system (--screenshot,
// --probes, --export-frames, which is created). Still no display. Throws
// UsageError / ScheduleError / LessonError naming the bad value.
void apply_options(App& app, Options& o);
// --compare-source / --against / --nccl-system / --lab-nic / --recorded:
// sets the compare view's source and asks for its sweep; a file that does
// not load throws UsageError naming it (present_compare.cpp).
void apply_compare_source(App& app, const Options& o);

}  // namespace microddp::viz
