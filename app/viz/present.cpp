// The presenter's kit (present.h): speaker file, reveal key, lecture clock.
#include "app/viz/present.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "app/viz/view_state.h"
#include "core/labs/lesson/plan.h"

namespace microddp::viz {

namespace {

double elapsed(const Presenter& p) {
  if (!p.start) return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - *p.start).count();
}

}  // namespace

void action_reveal(App& app) {
  if (!app.lesson || !app.lesson->current().question) return;
  Answer& a = app.lesson->answer();
  if (a.answered) return;
  a.answered = true;
  a.revealed = true;
  a.right = false;
}

void action_restart_clock(App& app) { app.presenter.start = std::chrono::steady_clock::now(); }

std::string speaker_text(const App& app, double elapsed_s) {
  if (!app.lesson) return "";
  const LessonView& L = *app.lesson;
  std::string out = lesson::speaker_notes(L.lesson(), L.beat(), elapsed_s);
  if (L.current().question) {
    const Answer& a = L.answer();
    out += fmt::format("\nscreen: {}\n", !a.answered ? "question open (R reveals the answer)"
                                         : a.revealed ? "answer revealed"
                                         : a.right    ? "answered, right"
                                                      : "answered, not right");
  }
  return out;
}

std::string write_whole_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return fmt::format("cannot write {}: {}", tmp, std::strerror(errno));
    f << text;
    f.close();
    if (!f) return fmt::format("cannot write {}: {}", tmp, std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return fmt::format("cannot replace {}: {}", path, why);
  }
  return "";
}

void presenter_tick(App& app) {
  Presenter& p = app.presenter;
  if (!app.lesson) return;
  if (!p.start) p.start = std::chrono::steady_clock::now();
  if (p.reveal_all) action_reveal(app);
  if (p.speaker_file.empty()) return;
  // Whole seconds: the clock line changes once a second, and so the file.
  const std::string text = speaker_text(app, std::floor(elapsed(p)));
  if (text == p.written) return;
  p.error = write_whole_file(p.speaker_file, text);
  p.written = text;  // a failed write is not retried every frame, only on the next change
  ++p.writes;
}

}  // namespace microddp::viz
