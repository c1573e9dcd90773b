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

std::string without_step_total(const std::string& text, int num_steps) {
  const std::string n = std::to_string(num_steps);
  // " (14th of 14)" after a step; "14 of 14 steps" and "k of 14" in a count.
  static const std::string ordinal = R"( \(\d+(st|nd|rd|th) of )";
  std::string out = std::regex_replace(text, std::regex(ordinal + n + R"(\))"), "");
  out = std::regex_replace(out, std::regex(R"((\d+) of )" + n + R"(\b)"), "$1");
  return out;
}

bool step_total_hidden(const App& app) {
  return app.lesson && app.session.configured() && withholds_step_total(*app.lesson, app.session.num_steps());
}

std::string shown_steps(const App& app, const std::string& text) {
  return step_total_hidden(app) ? without_step_total(text, app.session.num_steps()) : text;
}

}  // namespace microddp::viz
