// What the compare view holds back while a lesson's question is open (issue
// 37): the crossover and the lines' crossing region, the columns' predicted
// times; and the beat's own size marked on the sweep's x axis.
// (compare_panel.h.)
#include <cctype>
#include <string>

#include "app/viz/compare_panel.h"
#include "app/viz/lesson_view.h"

namespace microddp::viz::compare_panel {

bool crossover_hidden(const App& app) {
  if (!app.lesson) return false;
  const LessonView& L = *app.lesson;
  return L.withholds(app.compare.crossover_predicted_bytes, byte_scales()) ||
         (L.checks_hidden() && !L.current().question->choices.empty());
}

std::string crossover_caption(const App& app) {
  return app.lesson && app.lesson->withholds(app.compare.crossover_predicted_bytes, byte_scales()) ? kCrossoverWaits
                                                                                                  : kCrossoverQuestionOpen;
}

bool crossover_words(const std::string& text) {
  static const char* const kWords[] = {"crossover", "crossovers", "cross", "crosses", "overtake", "overtakes",
                                       "overtaken", "ahead", "fastest", "lead", "leads", "wins"};
  std::string word;
  const auto is_word = [&] {
    for (const char* w : kWords)
      if (word == w) return true;
    return false;
  };
  for (const char ch : text + " ") {
    if (std::isalpha(static_cast<unsigned char>(ch))) {
      word += char(std::tolower(static_cast<unsigned char>(ch)));
      continue;
    }
    if (is_word()) return true;
    word.clear();
  }
  return false;
}

bool beat_about_crossover(const App& app) {
  if (!app.lesson) return true;
  const LessonView& L = *app.lesson;
  const lesson::Beat& b = L.current();
  if (crossover_words(b.text)) return true;
  if (!b.question || !L.answer().answered) return false;
  const lesson::Question& q = *b.question;
  if (crossover_words(q.ask) || crossover_words(q.explain)) return true;
  const double x = app.compare.crossover_predicted_bytes;
  return q.choices.empty() && x > 0 && figure_matches(x, q.value, q.tolerance, byte_scales());
}

bool column_predictions_hidden(const App& app) { return app.lesson && app.lesson->checks_hidden(); }

double beat_size_bytes(const App& app) {
  if (!app.lesson || app.vs.view != View::compare || app.compare.sweep_source.kind != SweepSource::shm) return -1;
  const auto& sp = app.compare.base.spec;
  const double b = double(sp.count) * double(dtype_size(sp.dtype));
  if (b <= 0 || app.lesson->withholds(b, byte_scales())) return -1;
  return b;
}

}  // namespace microddp::viz::compare_panel
