#include "app/viz/step_total.h"

#include <regex>

#include "app/viz/lesson_view.h"
#include "app/viz/view_state.h"

namespace microddp::viz {

bool withholds_step_total(const LessonView& L, int num_steps) {
  const auto& q = L.current().question;
  if (num_steps <= 0 || !q || !q->choices.empty() || L.answer().answered) return false;
  return figure_matches(double(num_steps), q->value, q->tolerance, {1.0});
}

namespace {
// `text` with each match of `re` replaced by what `with` makes of it.
template <class F>
std::string replace_each(const std::string& text, const std::regex& re, F with) {
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
    out.append(last, text.cbegin() + it->position(0));
    out += with(*it);
    last = text.cbegin() + it->position(0) + it->length(0);
  }
  out.append(last, text.cend());
  return out;
}
}  // namespace

std::string without_step_total(const std::string& text, int num_steps) {
  const std::string n = std::to_string(num_steps), last = std::to_string(num_steps - 1);
  // " (14th of 14)" after a step goes.
  static const std::string ordinal = R"( \(\d+(st|nd|rd|th) of )";
  std::string out = std::regex_replace(text, std::regex(ordinal + n + R"(\))"), "");
  // The last step's index is the total less one (lecturer pass 8: "step 13"
  // still told 14): it reads "the last step".
  out = std::regex_replace(out, std::regex(R"(\bstep )" + last + R"(\b)"), "the last step");
  // "14 of 14 steps" -> "all steps", "k of 14" -> "k".
  out = replace_each(out, std::regex(R"(\b(\d+) of )" + n + R"(\b)"),
                     [&](const std::smatch& m) { return m[1].str() == n ? std::string("all") : m[1].str(); });
  return out;
}

bool step_total_hidden(const App& app) {
  return app.lesson && app.session.configured() && withholds_step_total(*app.lesson, app.session.num_steps());
}

std::optional<StepRange> withheld_phase(const App& app) {
  if (!app.lesson || !app.session.configured()) return std::nullopt;
  const LessonView& L = *app.lesson;
  const auto& q = L.current().question;
  const int pos = app.session.position(), n = app.session.num_steps();
  if (!q || !q->choices.empty() || L.answer().answered || pos <= 0 || pos > n) return std::nullopt;
  const Schedule& s = app.session.schedule();
  const int last = pos - 1, phase = s.steps[last].phase;
  if (last + 1 < n && s.steps[last + 1].phase == phase) return std::nullopt;  // not at the phase's end
  int first = last;
  while (first > 0 && s.steps[first - 1].phase == phase) --first;
  if (!figure_matches(double(last - first + 1), q->value, q->tolerance, {1.0})) return std::nullopt;
  return StepRange{first, last};
}

std::string without_phase_steps(const std::string& text, int num_steps, StepRange phase) {
  const std::string n = std::to_string(num_steps), last = std::to_string(phase.last),
                    run = std::to_string(phase.last + 1);
  std::string out = std::regex_replace(text, std::regex(R"( \(\d+(st|nd|rd|th) of )" + n + R"(\))"), "");
  out = std::regex_replace(out, std::regex(R"(\bstep )" + last + R"(\b)"), "the phase's last step");
  out = std::regex_replace(out, std::regex(R"(\b)" + run + " of " + n + R"( steps run\b)"), "steps run to the phase's end");
  out = std::regex_replace(out, std::regex(R"(\b)" + run + " of " + n + R"(\b)"), "to the phase's end");
  return out;
}

bool timeline_withheld(const App& app) { return step_total_hidden(app) || withheld_phase(app).has_value(); }

std::string shown_steps(const App& app, const std::string& text) {
  if (step_total_hidden(app)) return without_step_total(text, app.session.num_steps());
  if (const auto ph = withheld_phase(app)) return without_phase_steps(text, app.session.num_steps(), *ph);
  return text;
}

}  // namespace microddp::viz
