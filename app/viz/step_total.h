// A lesson question whose answer is the run's step count (lesson 11 beat 1
// asks "How many steps does the ring take on 8 ranks?", 14): while it is
// open, the captions name the step shown ("step 13") but not the total
// ("step 13 (14th of 14)", "14 of 14 steps run" give it away). Once the
// question is answered they show the total again.
#pragma once
#include <optional>
#include <string>

namespace microddp::viz {

struct App;
class LessonView;

// Is `num_steps` (a run's step count, > 0) the numeric answer of the
// current beat's open question (within its tolerance, or 0.5 %)? False
// without a question, once it is answered, and for a choice question.
bool withholds_step_total(const LessonView& L, int num_steps);

// `text` with the total of a run of `num_steps` steps taken out:
// "step 13 (14th of 14)" -> "the last step" (the last index told the total),
// "step 3 (4th of 14)" -> "step 3"; "6 of 6 steps run" -> "all steps run";
// "1 of 6" after a number -> "1". Other text is kept as it is.
std::string without_step_total(const std::string& text, int num_steps);

// The same for the window's main session: `text` as the captions (topology,
// buffers, stats, footer) show it on the app's current beat, i.e. without
// the total while withholds_step_total(lesson, session steps), else as is.
bool step_total_hidden(const App& app);

// A question whose answer is one phase's step count, asked where the run
// stands at that phase's end (lesson 04 beat 3: "How many steps does the
// scatter-reduce phase take on 4 ranks?", 3, at step 2 of 6): "step 2 (3rd
// of 6)" and "3 of 6 steps run" give it away. The phase's first and last
// step indices while that question is open, else nullopt.
struct StepRange {
  int first = 0, last = 0;
};
std::optional<StepRange> withheld_phase(const App& app);

// `text` without the steps of the phase [first, last] that is shown at its
// end: the ordinal " (3rd of 6)" goes, "step 2" reads "the phase's last
// step", "3 of 6 steps run" reads "steps run to the phase's end".
std::string without_phase_steps(const std::string& text, int num_steps, StepRange phase);

// The timeline's steps wait too while either question is open (its blocks
// count the steps out): step_total_hidden or withheld_phase.
bool timeline_withheld(const App& app);
inline constexpr const char* kTimelineWaits = "the steps' timeline is shown once you answer the question";
std::string shown_steps(const App& app, const std::string& text);

}  // namespace microddp::viz
