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

std::string shown_steps(const App& app, const std::string& text) {
  return step_total_hidden(app) ? without_step_total(text, app.session.num_steps()) : text;
}

}  // namespace microddp::viz
