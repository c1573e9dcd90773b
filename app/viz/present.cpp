// The presenter's kit (present.h): speaker file, reveal key, lecture clock.
#include "app/viz/present.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "app/viz/panels.h"
#include "app/viz/view_state.h"
#include "core/labs/lesson/plan.h"
#include "core/record/printer.h"

namespace microddp::viz {

namespace {

double elapsed(const Presenter& p) {
  if (!p.start) return 0;
  return p.clock_offset_s + std::chrono::duration<double>(std::chrono::steady_clock::now() - *p.start).count();
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

void action_open_poll(App& app) {
  Presenter& p = app.presenter;
  if (!app.lesson) return;
  const auto& q = app.lesson->current().question;
  if (!q || q->choices.empty()) {
    p.poll_open = false;
    p.poll_error = "a poll needs a multiple-choice question on this beat";
    return;
  }
  p.poll_open = !p.poll_open;
  p.poll_focus = p.poll_open;
  p.poll_error.clear();
  p.poll_typed.clear();
}

std::optional<std::vector<int>> parse_poll(const std::string& typed, int choices, std::string* why) {
  std::vector<int> counts;
  size_t i = 0;
  while (i <= typed.size()) {
    const size_t e = std::min(typed.find(',', i), typed.size());
    std::string item = typed.substr(i, e - i);
    i = e + 1;
    const size_t b = item.find_first_not_of(" \t"), z = item.find_last_not_of(" \t");
    item = b == std::string::npos ? "" : item.substr(b, z - b + 1);
    const bool digits = !item.empty() && item.size() <= 6 && item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(item) > 100000) {
      *why = fmt::format("'{}' is not a count (a whole number 0..100000)", item);
      return std::nullopt;
    }
    counts.push_back(std::stoi(item));
  }
  if (static_cast<int>(counts.size()) != choices) {
    std::string eg;
    for (int c = 0; c < choices; ++c) eg += fmt::format("{}{}", c ? "," : "", 12 + 9 * c);
    *why = fmt::format("{} count{} for {} choices; type one per choice, e.g. {}", counts.size(),
                       counts.size() == 1 ? "" : "s", choices, eg);
    return std::nullopt;
  }
  return counts;
}

bool submit_poll(App& app, const std::string& typed) {
  Presenter& p = app.presenter;
  if (!app.lesson) return false;
  const auto& q = app.lesson->current().question;
  if (!q || q->choices.empty()) {
    p.poll_error = "a poll needs a multiple-choice question on this beat";
    return false;
  }
  const auto counts = parse_poll(typed, static_cast<int>(q->choices.size()), &p.poll_error);
  if (!counts) return false;
  p.polls[app.lesson->beat()] = *counts;
  p.poll_error.clear();
  p.poll_open = false;
  return true;
}

std::vector<int> poll_percents(const std::vector<int>& counts) {
  std::vector<int> pct(counts.size(), 0);
  int64_t total = 0;
  for (int c : counts) total += c;
  if (total <= 0) return pct;
  // In integers (counts are at most 100000 each): share = floor + rest / total.
  std::vector<int64_t> rest(counts.size());
  int given = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    pct[i] = static_cast<int>(int64_t{counts[i]} * 100 / total);
    rest[i] = int64_t{counts[i]} * 100 % total;
    given += pct[i];
  }
  std::vector<size_t> order(counts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rest[a] != rest[b] ? rest[a] > rest[b] : counts[a] > counts[b];
  });
  for (size_t k = 0; given < 100 && k < order.size(); ++k, ++given) ++pct[order[k]];
  return pct;
}

std::string poll_line(const App& app) {
  if (!app.lesson) return "";
  const auto it = app.presenter.polls.find(app.lesson->beat());
  if (it == app.presenter.polls.end()) return "";
  int total = 0;
  for (int c : it->second) total += c;
  const std::vector<int> pct = poll_percents(it->second);
  std::string out;
  for (size_t i = 0; i < it->second.size(); ++i) out += fmt::format("{}) {} ({}%) · ", i + 1, it->second[i], pct[i]);
  return out + fmt::format("{} vote{}", total, total == 1 ? "" : "s");
}

std::string slide_state(const App& app) {
  const std::string steps = position_label(app.session.position(), app.session.num_steps());
  if (app.vs.view == View::ddp) {  // no steps there: say which run is shown (with or without a lesson)
    if (!app.ddp.runner.result()) return "DDP view, no run finished";
    const auto& p = app.ddp.runner.result_params();
    return fmt::format("DDP view, {} training run: {} ranks, {} iteration{}", app.lesson ? "the beat's" : "a",
                       p.run.ranks, p.run.iterations, p.run.iterations == 1 ? "" : "s");
  }
  if (!app.lesson) return steps;
  using Kind = lesson::Beat::Kind;
  const lesson::Beat& b = app.lesson->current();
  if (b.kind == Kind::hang) return "hang view, the beat's hang-lab run";
  if (b.kind == Kind::lab && app.vs.view == View::compare) return "Compare view: " + app.compare.source_tag;
  if (b.kind == Kind::collective || (b.kind == Kind::lab && app.vs.lesson_note.rfind(kStandInNote, 0) == 0))
    return steps;
  return "no run of its own in the window (its checks run it)";
}

namespace {
void start_clock(App& app) {
  app.presenter.start = std::chrono::steady_clock::now();
  app.presenter.clock_offset_s = app.lesson ? 60 * lesson::minutes_before(app.lesson->lesson(), app.lesson->beat()) : 0;
}
}  // namespace

void action_restart_clock(App& app) { start_clock(app); }

std::string speaker_text(const App& app, double elapsed_s) {
  if (!app.lesson) return "";
  const LessonView& L = *app.lesson;
  std::string out = lesson::speaker_notes(L.lesson(), L.beat(), elapsed_s);
  if (L.current().question) {
    const Answer& a = L.answer();
    // The keys of the mode in use: outside present mode R is Reset and P the
    // previous beat (ui.cpp handle_keys).
    const char* open = app.vs.present ? "question open (R reveals the answer)"
                                      : "question open (answer it in the lesson panel; F5 enters present mode, where "
                                        "R reveals the answer)";
    out += fmt::format("\nscreen: {}\n", !a.answered ? open
                                         : a.revealed ? "answer revealed"
                                         : a.right    ? "answered, right"
                                                      : "answered, not right");
    if (const std::string poll = poll_line(app); !poll.empty()) out += "poll: " + poll + "\n";
  }
  // A slide with continuation pages: the next key turns the page first.
  if (app.vs.present && app.presenter.pages > 1)
    out += fmt::format("page: {} of {} (Right / Page Down turns the page before the next beat)\n",
                       std::min(app.presenter.page, app.presenter.pages - 1) + 1, app.presenter.pages);
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
  if (!p.start) start_clock(app);
  if (p.beat != app.lesson->beat()) {  // a poll field left open belongs to the beat it was opened on
    p.beat = app.lesson->beat();
    p.page = p.open_last_page ? Presenter::kLastPage : 0;  // a beat opens on its first page, stepping back on its last
    p.open_last_page = false;
    p.poll_open = false;
    p.poll_error.clear();
  }
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
