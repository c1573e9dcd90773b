#include "app/viz/options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "app/cli/parse_error.h"
#include "app/viz/headless_run.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "core/algorithms/registry.h"
#include "core/labs/hang/hang.h"
#include "core/labs/lesson/lessons_dir.h"
#include "core/labs/lesson/read_options.h"
#include "core/ir/limits.h"
#include "core/model/nccl_tuner.h"
#include "core/model/nic_rate.h"
#include "core/record/data.h"

namespace microddp::viz {

namespace {

void parse_size(const std::string& s, int& w, int& h) {
  int a = 0, b = 0;
  char x = 0, extra = 0;
  if (std::sscanf(s.c_str(), "%d%c%d%c", &a, &x, &b, &extra) != 3 || (x != 'x' && x != 'X'))
    throw UsageError(fmt::format("--size '{}' is not WIDTHxHEIGHT (e.g. 1280x720)", s));
  if (a < 64 || b < 64 || a > 8192 || b > 8192)
    throw UsageError(fmt::format("--size {}x{} is outside 64x64 .. 8192x8192", a, b));
  w = a, h = b;
}

void check_writable_file(const std::string& path, const char* what) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0 ||
      (fs::exists(p, ec) && (fs::is_directory(p, ec) || access(p.c_str(), W_OK) != 0)))
    throw UsageError(fmt::format("{} '{}' is not writable", what, path));
}

// The same file: equivalent when both exist, else the same absolute path
// (symbolic links and ".." resolved as far as the path exists).
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec, ec2;
  if (fs::equivalent(a, b, ec) && !ec) return true;
  const fs::path x = fs::weakly_canonical(fs::absolute(a, ec), ec), y = fs::weakly_canonical(fs::absolute(b, ec2), ec2);
  return !ec && !ec2 && x == y;
}

// FILE lies in DIR or below it (DIR need not exist yet).
bool inside_dir(const std::string& file, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec, ec2;
  const fs::path f = fs::weakly_canonical(fs::absolute(file, ec), ec), d = fs::weakly_canonical(fs::absolute(dir, ec2), ec2);
  if (ec || ec2) return false;
  const fs::path rel = f.lexically_relative(d);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

// --speaker FILE is rewritten at every beat: never one of the files the
// run reads or writes (issue 37: `--lesson l02.yaml --speaker l02.yaml`
// replaced the lesson with its notes).
void check_speaker_path(const Options& o) {
  if (o.speaker_file.empty()) return;
  // The notes are written beside the path and renamed over it: a link, a
  // FIFO or a device there would be replaced by a plain file (hostile review
  // 10: a device file was). Only a regular file, or none yet, is taken.
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(o.speaker_file, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st))
    throw UsageError(fmt::format("--speaker {} exists and is not a regular file (a {}): the notes would replace it; give "
                                 "the notes a plain file of their own",
                                 o.speaker_file,
                                 fs::is_symlink(st)     ? "symbolic link"
                                 : fs::is_directory(st) ? "directory"
                                 : fs::is_fifo(st)      ? "FIFO"
                                 : fs::is_socket(st)    ? "socket"
                                                        : "device or special file"));
  std::vector<std::pair<std::string, std::string>> others = {{"--lesson", o.lesson_file},   {"--replay", o.replay_file},
                                                             {"--screenshot", o.screenshot}, {"--describe", o.describe},
                                                             {"--probes", o.probes}};
  for (const auto& f : o.compare_runs) others.emplace_back("--compare-runs", f);
  for (const auto& [opt, f] : others)
    if (!f.empty() && same_file(o.speaker_file, f))
      throw UsageError(fmt::format("--speaker {} is the same file as {} {}: the speaker notes would overwrite it; give "
                                   "the notes a file of their own",
                                   o.speaker_file, opt, f));
  if (!o.export_dir.empty() && inside_dir(o.speaker_file, o.export_dir))
    throw UsageError(fmt::format("--speaker {} is inside --export-frames {}: the notes would be mixed with the exported "
                                 "frames; give the notes a file outside that directory",
                                 o.speaker_file, o.export_dir));
}

}  // namespace

std::optional<int> parse_options(int argc, char** argv, Options& o) {
  CLI::App cli{"microddp-viz: step through collective communication, run for real"};
  RunParams& p = o.params;
  cli.add_option("--collective", o.collective, "broadcast reduce gather scatter barrier all_reduce all_gather reduce_scatter all_to_all");
  cli.add_option("--algorithm", p.spec.algorithm, "algorithm (see `microddp run --help`)");
  cli.add_option("--ranks", p.spec.world_size, "world size (1.." + std::to_string(kMaxViewRanks) + ")");
  cli.add_option("--count", p.spec.count, "elements per rank; default: from --data, else the number of ranks");
  cli.add_option("--dtype", o.dtype, "int32 int64 float16 bfloat16 float32 float64");
  cli.add_option("--op", o.op, "sum prod min max avg");
  cli.add_option("--root", p.spec.root, "root rank");
  cli.add_option("--segments", p.spec.segments, "ring pipeline segments per chunk");
  cli.add_option("--channels", p.spec.channels, "ring, double_binary_tree: slices of the vector run at once");
  cli.add_option("--nodes", p.spec.nodes, "ranks on this many nodes, contiguously (hierarchical; the topology view)");
  cli.add_option("--nics-per-node", o.nics_per_node, "topology view: NICs per node (1..ranks per node)");
  cli.add_option("--intra", o.intra, "topology view: intra-node link, preset or ALPHA,BW (seconds, bytes/s)");
  cli.add_option("--inter", o.inter, "topology view: inter-node link, preset or ALPHA,BW (seconds, bytes/s)");
  cli.add_option("--topology", o.topology, "predict on a named topology (dgx-h100, pcie-box, lab) with --nodes");
  cli.add_option("--preset", o.preset, "predict with a link preset (nvlink, infiniband, pcie5, ethernet-100g, ethernet-10g) "
                 "instead of the calibrated profile");
  cli.add_flag("--in-place", p.spec.in_place, "in-place call");
  auto* data_opt = cli.add_option("--data", p.data, "rows \"1,2,3;4,5,6;7,8,9\" or iota | rank | random:SEED");
  cli.add_option("--fill", p.data, "iota | rank | random:SEED")->excludes(data_opt);
  cli.add_option("--mode", o.mode, "lockstep | free");
  cli.add_option("--protocol", o.protocol, "simple | ll | ll128: how messages travel (threads backend)");
  cli.add_option("--backend", p.backend, "threads");
  cli.add_option("--screenshot", o.screenshot, "render one frame to this PNG and exit");
  cli.add_option("--size", o.size, "window size WIDTHxHEIGHT");
  cli.add_option("--step", o.step, "show the state after K steps (screenshot)");
  cli.add_option("--view", o.view, "main | compare");
  cli.add_option("--compare", o.compare_list, "algorithms for the compare view, comma-separated");
  cli.add_option("--compare-source", o.compare_source,
                 "the compare view's sweep: shm (measured here) | lab (the cluster lab, live) | recorded (a saved lab "
                 "run) | model (NCCL on --nccl-system) | published (--against FILE)");
  cli.add_option("--against", o.against, "a published nccl-tests output plotted in the compare view (--compare-source published)");
  cli.add_option("--nccl-system", o.nccl_system, "the named system of --compare-source model / published (dgx-h100, ...)");
  cli.add_option("--lab-nic", o.lab_nic, "--compare-source lab: each emulated NIC's rate (tc units, e.g. 1gbit)");
  cli.add_option("--recorded", o.recorded, "--compare-source recorded: a saved lab run (JSON; default the bundled one)");
  cli.add_option("--export-frames", o.export_dir,
                 "write one PNG per step into DIR (one per beat with --lesson) and exit; step_NN.png / beat_NN.png "
                 "frames of an earlier export in DIR are removed first");
  cli.add_option("--format", o.format,
                 fmt::format("with --export-frames: png (stills), gif or mp4 (a step-through animation, by ffmpeg; "
                             "ffmpeg is stopped and the export fails after {:g} s + {:g} s per frame), or pdf "
                             "(with --lesson: DIR/handout.pdf, one page per beat: its slide and its text)",
                             kFfmpegTimeoutBaseS, kFfmpegTimeoutPerFrameS));
  cli.add_option("--bench-frames", o.bench, "render N frames, print the average CPU ms per frame, exit");
  cli.add_option("--probes", o.probes, "(tests) write the screen pixels whose colours the scene knows");
  cli.add_option("--describe", o.describe,
                 "(tests) with --screenshot or --export-frames: write what each picture shows as text to FILE");
  cli.add_option("--font-px", o.font_px, "text size in pixels (12..40; 14..40 with --present)");
  cli.add_option("--lesson", o.lesson_file, "open a lesson: a file, or a shipped lesson's name (02-ring-double-buffering): its beats drive the run");
  cli.add_option("--beat", o.beat, "with --lesson: start at beat K (1-based)");
  cli.add_flag("--present", o.present,
               "present mode: no controls, the view big; Right/PageDown/Space next step (next beat in a lesson), "
               "Left/PageUp back, Home start over, Esc shows the controls (F5 hides them again); in a lesson R "
               "reveals the answer, P opens the class poll (Esc closes it), T sets the clock to the beat's planned start");
  cli.add_option("--speaker", o.speaker_file,
                 "with --lesson: keep this text file at the current beat's speaker notes (its text, the question's "
                 "answer and explanation, the next beat, a clock), for a second screen; R reveals the answer on the "
                 "projected screen, T sets the clock to the beat's planned start");
  cli.add_option("--poll", o.poll,
                 "with --lesson: the class poll of the --beat's question, votes per choice (12,30,5), drawn as bars "
                 "(in present mode: P, type, Enter)");
  cli.add_option("--compare-runs", o.compare_runs,
                 "two records saved by `microddp run --save-record` (A.json B.json), side by side in the compare view")
      ->expected(2);
  cli.add_flag("--reveal", o.reveal, "with --lesson: show every beat's answer and explanation, as the R key does");
  cli.add_flag("--ddp", o.ddp_view, "open the DDP view: data-parallel training run for real, drawn as a timeline");
  cli.add_option("--bucket-cap-mb", o.ddp_cap_mb, "with --ddp: gradient bucket cap in MB (1 MB = 2^20 bytes)");
  cli.add_option("--replay", o.replay_file, "step through a record saved by `microddp run --save-record` (e.g. an MPI run)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s\n", microddp::cli::parse_error_line(e.what()).c_str());
    return 2;
  }
  bool explicit_count = cli.count("--count") > 0;
  o.step_given = cli.count("--step") > 0;
  o.beat_given = cli.count("--beat") > 0;
  o.ranks_given = cli.count("--ranks") > 0;
  o.algorithm_given = cli.count("--algorithm") > 0;

  // Everything about the options is checked before the display is touched.
  hang::check_debug_env();  // lesson beats and the hang lab log through it
  p.spec.collective = parse_collective(o.collective);
  // Another collective without --algorithm: its own first choice, as the
  // window's collective combo picks (the default ring_unchunked is all_reduce's).
  if (!o.algorithm_given && p.spec.collective != Collective::all_reduce)
    p.spec.algorithm = preferred_algorithm(p.spec.collective);
  p.spec.dtype = parse_dtype(o.dtype);
  p.spec.op = parse_op(o.op);
  p.mode = parse_mode(o.mode);
  p.protocol = parse_protocol(o.protocol);
  // --fill takes only fill names (RunParams::data also takes rows): core's
  // fill_data checks the name and seed on an empty spec, with the CLI's message.
  if (cli.count("--fill") && !p.data.empty()) fill_data(CollectiveSpec{}, p.data);
  if (!o.against.empty() && o.compare_source.empty()) o.compare_source = "published";
  try {
    parse_nic_rate(o.lab_nic);  // as `microddp cluster --nic` would refuse it, before any window
  } catch (const UsageError& e) {
    const std::string why = e.what();
    throw UsageError(why.rfind("--nic", 0) == 0 ? "--lab-nic" + why.substr(5) : "--lab-nic: " + why);
  }
  if (!o.compare_source.empty()) {
    parse_sweep_source(o.compare_source);  // UsageError naming the value
    if (!o.against.empty() && o.compare_source != "published")
      throw UsageError(fmt::format("--against goes with --compare-source published, not '{}'", o.compare_source));
    if (!o.nccl_system.empty() && o.compare_source != "model" && o.compare_source != "published")
      throw UsageError(fmt::format("--nccl-system goes with --compare-source model or published, not '{}'",
                                   o.compare_source));
    if (!o.nccl_system.empty()) nccl::system_preset(o.nccl_system);  // UsageError "unknown NCCL system"
    o.view = "compare";
  }
  // The compare view without --ranks (and no --data rows, which fix the
  // ranks): enough ranks for naive, tree and ring to differ (compare.h).
  if (o.view == "compare" && !o.ranks_given && (p.data.empty() || is_fill(p.data)))
    p.spec.world_size = kCompareDefaultRanks;
  // Without --count: core's inference from --data rows (as `microddp run`),
  // else one element per rank (the seed's 3 ranks x 3).
  if (!explicit_count) p.spec.count = infer_count(p.spec, is_fill(p.data) ? "" : p.data, "", p.spec.world_size);
  // Names a bad --nodes / --nics-per-node / link before a window opens
  // (a bad --ranks is the session's to name).
  // The prediction source: a topology when one is described (or the run
  // has several nodes), a preset when named, else the calibrated profile
  // (a named preset while there is none).
  const bool topo_given = cli.count("--nics-per-node") || cli.count("--intra") || cli.count("--inter") ||
                          cli.count("--topology");
  if (cli.count("--preset") && topo_given)
    throw UsageError(fmt::format("--preset {} and a topology (--topology, --intra, --inter, --nics-per-node) "
                                 "exclude each other",
                                 o.preset));
  if (topo_given || cli.count("--nodes")) {
    Topology::make(p.spec.world_size, p.spec.nodes, o.nics_per_node);
    if (!o.intra.empty()) parse_link("--intra", o.intra);
    if (!o.inter.empty()) parse_link("--inter", o.inter);
    if (!o.topology.empty()) network_preset(o.topology);
  }
  o.source_given = cli.count("--preset") || topo_given;
  if (cli.count("--preset")) {
    o.source.kind = PredictionSource::Kind::preset;
    o.source.preset = preset(o.preset).name;
  } else if (topo_given || p.spec.nodes > 1) {
    o.source.kind = PredictionSource::Kind::topology;
    o.source.topology = o.topology;
    if (!o.intra.empty()) o.source.intra = o.intra;
    if (!o.inter.empty()) o.source.inter = o.inter;
    o.source.nics_per_node = o.nics_per_node;
  }
  parse_size(o.size, o.width, o.height);
  if (o.view != "main" && o.view != "compare") throw UsageError(fmt::format("--view '{}' (expected main or compare)", o.view));
  // Written as "inside" tests, so NaN (every comparison false) is refused too.
  if (!(o.font_px >= 12 && o.font_px <= 40))
    throw UsageError(fmt::format("--font-px {} is outside 12..40", cli["--font-px"]->as<std::string>()));
  // Present mode's rule: no text below 14 px on a projected slide; the
  // smallest labels are drawn at the font size.
  if (o.present && o.font_px < 14)
    throw UsageError(fmt::format("--font-px {} with --present is below 14 (present mode draws no text under 14 px)",
                                 cli["--font-px"]->as<std::string>()));
  // A given option is never taken as "not given": 0 frames or an empty path
  // would otherwise open an interactive window that never exits.
  if (cli.count("--bench-frames") && o.bench < 1)
    throw UsageError(fmt::format("--bench-frames {} must be at least 1", o.bench));
  for (const char* path_opt : {"--screenshot", "--export-frames", "--probes", "--describe", "--lesson", "--replay", "--speaker"})
    if (cli.count(path_opt) && cli[path_opt]->as<std::string>().empty())
      throw UsageError(fmt::format("{} '' is empty: give a path", path_opt));
  // An empty --poll was taken as no poll: the run went on and exited 0.
  if (cli.count("--poll") && o.poll.find_first_not_of(" \t") == std::string::npos)
    throw UsageError(fmt::format("--poll '{}' is empty: give the class's votes, one count per choice of the --beat's "
                                 "question (e.g. 12,30,5)",
                                 o.poll));
  // The buffers must fit the machine before the session allocates them
  // (inputs, outputs and as much again for the schedule's own buffers).
  if (p.spec.world_size >= 1 && p.spec.world_size <= kMaxRanks && p.spec.count >= 0) {
    const double per = static_cast<double>(p.spec.count) * static_cast<double>(dtype_size(p.spec.dtype));
    const double factor = p.spec.collective == Collective::all_to_all || p.spec.collective == Collective::all_gather ||
                                  p.spec.collective == Collective::reduce_scatter || p.spec.collective == Collective::gather ||
                                  p.spec.collective == Collective::scatter
                              ? p.spec.world_size
                              : 1;
    check_memory(4.0 * per * factor * p.spec.world_size,
                 fmt::format("--count {} on {} ranks", p.spec.count, p.spec.world_size));
  }
  // Options that would be silently dropped are refused instead.
  if (cli.count("--lesson")) {
    // The lesson's beats set the run and the view.
    for (const char* run_opt : {"--collective", "--algorithm", "--ranks", "--count", "--data", "--fill", "--view", "--ddp",
                                "--nodes", "--step"})
      if (cli.count(run_opt))
        throw UsageError(fmt::format("{} and --lesson exclude each other (the lesson's beats choose the run and the view; "
                                     "use --beat K to open at a beat)",
                                     run_opt));
    if (o.format == "gif" || o.format == "mp4")
      throw UsageError(fmt::format("--format {} and --lesson exclude each other (a lesson exports one PNG per beat, or a PDF handout; an "
                                   "animation steps through one run)",
                                   o.format));
  }
  for (const char* lesson_opt : {"--speaker", "--reveal", "--poll"})
    if (cli.count(lesson_opt) && !cli.count("--lesson"))
      throw UsageError(fmt::format("{} needs --lesson FILE (it is about a lesson's beats)", lesson_opt));
  if (cli.count("--compare-runs")) {
    for (const char* other : {"--lesson", "--replay", "--ddp", "--view", "--compare"})
      if (cli.count(other))
        throw UsageError(fmt::format("--compare-runs and {} exclude each other (the two records are the run and the "
                                     "view)",
                                     other));
    // The records fix the runs: a run option would be silently dropped.
    for (const char* run_opt : {"--collective", "--algorithm", "--ranks", "--count", "--data", "--fill", "--nodes",
                                "--root", "--segments", "--channels", "--dtype", "--op", "--in-place", "--mode",
                                "--protocol", "--backend"})
      if (cli.count(run_opt))
        throw UsageError(fmt::format("{}{} and --compare-runs exclude each other (each record fixes its own run; "
                                     "record another run with `microddp run --save-record`)",
                                     run_opt,
                                     std::string(run_opt) == "--in-place" ? "" : " " + cli[run_opt]->as<std::string>()));
    for (const auto& f : o.compare_runs)
      if (f.empty()) throw UsageError("--compare-runs '' is empty: give two record files");
    o.view = "compare";
  }
  if (!o.export_dir.empty() && !o.screenshot.empty())
    throw UsageError(fmt::format("--export-frames {} and --screenshot {} exclude each other (frames of every step, or "
                                 "one picture)",
                                 o.export_dir, o.screenshot));
  if (o.ddp_view && cli.count("--replay"))
    throw UsageError(fmt::format("--ddp and --replay {} exclude each other (the DDP view trains a model for real; a "
                                 "replay steps through a saved collective)",
                                 o.replay_file));
  if (cli.count("--describe") && o.screenshot.empty() && o.export_dir.empty())
    throw UsageError(fmt::format("--describe {} needs --screenshot FILE or --export-frames DIR (it describes their "
                                 "pictures)",
                                 o.describe));
  if (cli.count("--probes") && o.screenshot.empty())
    throw UsageError(fmt::format("--probes {} needs --screenshot FILE (the probes are read from that frame)", o.probes));
  if (o.format != "png" && o.format != "gif" && o.format != "mp4" && o.format != "pdf")
    throw UsageError(fmt::format("--format '{}' (expected png, gif, mp4 or pdf)", o.format));
  if (cli.count("--format") && o.export_dir.empty())
    throw UsageError(fmt::format("--format {} needs --export-frames DIR", o.format));
  if (o.format == "pdf" && o.lesson_file.empty())
    throw UsageError("--format pdf needs --lesson L (the handout has one page per beat)");
  // The handout's picture is the slide scaled onto an A4 page: smaller than
  // a laptop screen crops the slide, larger makes its text unreadable.
  if (o.format == "pdf" && (o.width < kHandoutMinW || o.height < kHandoutMinH || o.width > kHandoutMaxW ||
                            o.height > kHandoutMaxH))
    throw UsageError(fmt::format("--size {}x{} with --format pdf is outside {}x{} .. {}x{} (the handout prints the "
                                 "slide on an A4 page: smaller crops it, larger makes its text unreadable)",
                                 o.width, o.height, kHandoutMinW, kHandoutMinH, kHandoutMaxW, kHandoutMaxH));
  const bool animated = o.format == "gif" || o.format == "mp4";
  if (animated && (o.ffmpeg = find_ffmpeg()).empty())
    throw UsageError("ffmpeg not found: apt-get install ffmpeg");
  if (animated) ffmpeg_timeout_s(0);  // a bad MICRODDP_FFMPEG_TIMEOUT_S: exit 2 now, not after the frames
  if (o.ddp_view && o.ranks_given && (p.spec.world_size < 1 || p.spec.world_size > 16))
    throw UsageError(fmt::format("--ddp --ranks {}: the DDP view trains on 1..16 ranks (one worker thread each)",
                                 p.spec.world_size));
  if (cli.count("--bucket-cap-mb") && !o.ddp_view) throw UsageError(fmt::format("--bucket-cap-mb {} needs --ddp", o.ddp_cap_mb));
  if (!(o.ddp_cap_mb > 0) || o.ddp_cap_mb > 1024)
    throw UsageError(fmt::format("--bucket-cap-mb {} is outside (0, 1024]", o.ddp_cap_mb));
  return std::nullopt;
}

void apply_options(App& app, Options& o) {
  RunParams& p = o.params;
  std::unique_ptr<LessonView> opened;
  if (!o.lesson_file.empty()) {
    // A bad file is a LessonError (a UsageError): "file:line:column: ..." and exit 2.
    // A bare name is looked up where `microddp lesson` looks (the shipped lessons).
    o.lesson_file = lesson::resolve_lesson_file(o.lesson_file);
    opened = std::make_unique<LessonView>(lesson::load_lesson(o.lesson_file));
    if (o.beat < 1 || o.beat > opened->num_beats())
      throw UsageError(fmt::format("--beat {} is outside 1..{} (the lesson has {} beats)", o.beat, opened->num_beats(),
                                   opened->num_beats()));
    // The export writes every beat from the first (and a PDF handout is the
    // whole lesson): a --beat would be silently dropped.
    if (o.beat_given && !o.export_dir.empty())
      throw UsageError(fmt::format("--beat {} and --export-frames {} exclude each other (the export writes every beat "
                                   "of the lesson, from beat 1)",
                                   o.beat, o.export_dir));
    opened->go(o.beat - 1);
    // The lesson's setup replaces the run options (when the viewer can run it).
    if (const BeatTarget t = beat_target(opened->current()); t.drive) p = t.params;
  } else if (o.beat_given) {
    throw UsageError(fmt::format("--beat {} needs --lesson FILE", o.beat));
  }
  check_speaker_path(o);  // before anything is written
  std::optional<RunRecord> replay;
  // A record that contradicts its own snapshots (an edited output, carried
  // values the sender never held, time running backwards) is refused as a
  // lesson's `recorded:` run is: the window would draw made-up values.
  const auto load_checked = [](const std::string& f) {
    RunRecord r = load_record(f);  // UsageError naming the file and field
    if (const std::string why = lesson::record_contradiction(r); !why.empty())
      throw UsageError(fmt::format("{} contradicts its own snapshots: {}", f, why));
    return r;
  };
  // --compare-runs of two DDP training records: drawn by compare_runs_ddp.h
  // (the collective records' columns below stay unused).
  if (open_ddp_compare(app, o.compare_runs)) {
    if (!o.export_dir.empty())
      throw UsageError(fmt::format("--export-frames {} and two DDP records exclude each other (the comparison is one "
                                   "picture: use --screenshot FILE)",
                                   o.export_dir));
    o.compare_runs.clear();
  }
  std::vector<RunRecord> runs;  // --compare-runs: the main session replays the first
  for (const auto& f : o.compare_runs) runs.push_back(load_checked(f));
  if (!runs.empty()) o.replay_file = o.compare_runs[0];
  if (!o.replay_file.empty()) {
    if (opened) throw UsageError(fmt::format("--replay {} and --lesson exclude each other", o.replay_file));
    replay = load_checked(o.replay_file);
    p = RunParams{};
    p.spec = replay->spec;  // the compare view runs it on threads
  }
  // A record from the cluster lab: unless a source was given, predict on
  // the lab's topology (its NIC rate, the lab preset's latencies and
  // shared-memory link), and say where the measured times come from.
  std::string measured_note;
  if (replay)
    if (const auto lab = lab_replay_source(replay->cluster)) {
      measured_note = lab->note;
      if (!o.source_given) {
        o.source = lab->source;
        o.source_given = true;
      }
    }
  app.vs.edit = p;
  // A lesson's setup may place the ranks on nodes: the source follows
  // unless one was given.
  app.vs.source_follows_nodes = !o.source_given;
  if (!o.source_given)
    o.source.kind = p.spec.nodes > 1 ? PredictionSource::Kind::topology : PredictionSource::Kind::profile;
  app.vs.source = o.source;
  app.session.set_source(o.source);
  app.compare.set_source(o.source);
  app.vs.font_px = o.font_px;
  app.vs.present = o.present;
  if (replay) {
    app.session.load_replay(*replay);  // the run already happened: Step replays it
    app.session.set_measured_note(measured_note);
    app.vs.edit = app.session.params();  // backend as recorded, e.g. "mpi"
  } else {
    app.session.configure(p);  // UsageError / ScheduleError name the bad value
  }
  if (!o.compare_list.empty()) {
    app.vs.compare_algorithms.clear();
    std::stringstream ss(o.compare_list);
    for (std::string a; std::getline(ss, a, ',');) app.vs.compare_algorithms.push_back(a);
  } else {
    app.vs.compare_algorithms = Compare::default_algorithms(p.spec.collective);
  }
  app.compare.configure(p, app.vs.compare_algorithms);
  if (!runs.empty()) compare_runs(app, runs, o.compare_runs);  // present_compare.cpp
  if (!o.compare_source.empty()) apply_compare_source(app, o);  // present_compare.cpp
  if (!o.speaker_file.empty()) check_writable_file(o.speaker_file, "--speaker");
  app.presenter.speaker_file = o.speaker_file;
  app.presenter.reveal_all = o.reveal;
  if (opened) {
    app.lesson = std::move(opened);
    if (!o.poll.empty() && !submit_poll(app, o.poll))
      throw UsageError(fmt::format("--poll '{}' on beat {}: {}", o.poll, o.beat, app.presenter.poll_error));
    lesson_sync(app);  // the beat's step (no frame drawn yet)
  }
  for (size_t i = 0; i < app.compare.errors.size(); ++i)
    if (!app.compare.errors[i].empty()) throw UsageError(app.compare.errors[i]);
  // -1 means "not given"; a negative value typed by the user is refused too.
  // The range is the one the position slider shows: in the compare view,
  // the longest of the compared schedules.
  const bool cmp = o.view == "compare";
  const int total = cmp ? app.compare.max_steps() : app.session.num_steps();
  if (o.step > total || o.step < -1 || (o.step < 0 && o.step_given))
    throw UsageError(fmt::format("--step {} is outside 0..{} ({} has {} steps)", o.step, total,
                                 cmp ? "the longest compared schedule" : "the schedule", total));
  if (!o.screenshot.empty()) check_writable_file(o.screenshot, "--screenshot");
  if (!o.probes.empty()) check_writable_file(o.probes, "--probes");
  if (!o.describe.empty()) check_writable_file(o.describe, "--describe");
  if (!o.export_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.export_dir, ec);
    if (!std::filesystem::is_directory(o.export_dir) || access(o.export_dir.c_str(), W_OK) != 0)
      throw UsageError(fmt::format("--export-frames '{}' is not a writable directory", o.export_dir));
  }
}

}  // namespace microddp::viz
