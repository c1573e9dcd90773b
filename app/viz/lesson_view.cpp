#include "app/viz/lesson_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <variant>

#include "app/viz/compare.h"
#include "app/viz/hang_view.h"
#include "app/viz/lab_recorded.h"
#include "core/model/sweep.h"

namespace microddp::viz {

using namespace microddp::lesson;

namespace {

template <class T>
bool has(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

bool figure_matches(double x, double v, double tol, const std::vector<double>& scales) {
  const double t = tol > 0 ? tol : 0.005 * std::abs(v);
  const auto near = [&](double y) { return std::abs(y - v) <= t + 1e-12; };
  if (near(x)) return true;
  for (double s : scales)
    if (s > 0 && s != 1 && (near(x / s) || near(x * s))) return true;
  return false;
}

const std::vector<double>& byte_scales() {
  static const std::vector<double> s = {1, 1e3, 1024, 1e6, 1048576, 1e9, 1073741824};
  return s;
}

LessonView::LessonView(Lesson l)
    : lesson_(std::move(l)),
      answers_(lesson_.beats.size()),
      pending_(lesson_.beats.size()),
      results_(lesson_.beats.size()),
      errors_(lesson_.beats.size()),
      hang_runs_(lesson_.beats.size()),
      pictures_(lesson_.beats.size()) {
  if (lesson_.beats.empty()) throw UsageError(fmt::format("{}: the lesson has no beats", lesson_.file));
}

LessonView::~LessonView() = default;

bool LessonView::go(int b) {
  b = std::clamp(b, 0, num_beats() - 1);
  if (b == beat_) return false;
  beat_ = b;
  return true;
}
bool LessonView::next() { return go(beat_ + 1); }
bool LessonView::previous() { return go(beat_ - 1); }

bool LessonView::rank_lit(int rank) const { return !highlight_withheld() && has(current().highlight.ranks, rank); }
bool LessonView::chunk_lit(int chunk) const { return has(current().highlight.chunks, chunk); }
bool LessonView::link_lit(int from, int to) const { return has(current().highlight.links, std::pair<int, int>{from, to}); }

bool LessonView::row_lit(int rank, const std::string& buffer) const {
  const Highlights& h = current().highlight;
  if ((h.ranks.empty() && h.buffers.empty()) || highlight_withheld()) return false;
  return (h.ranks.empty() || has(h.ranks, rank)) && (h.buffers.empty() || has(h.buffers, buffer));
}

bool LessonView::cell_lit(int rank, const std::string& buffer, int chunk) const {
  const Highlights& h = current().highlight;
  return !highlight_withheld() && !h.chunks.empty() && has(h.chunks, chunk) && (h.ranks.empty() || has(h.ranks, rank)) &&
         (h.buffers.empty() || has(h.buffers, buffer));
}

std::vector<double> answer_numbers(const lesson::Question& q) {
  if (q.choices.empty()) return {q.value};
  if (q.answer < 1 || q.answer > static_cast<int>(q.choices.size())) return {};
  std::vector<double> out;
  const std::string& t = q.choices[static_cast<size_t>(q.answer - 1)];
  for (size_t i = 0; i < t.size();) {
    const bool starts = std::isdigit(static_cast<unsigned char>(t[i])) ||
                        (t[i] == '-' && i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1])));
    if (!starts) {
      ++i;
      continue;
    }
    size_t used = 0;
    out.push_back(std::stod(t.substr(i), &used));
    i += std::max<size_t>(used, 1);
  }
  return out;
}

bool LessonView::question_about_buffers() const {
  const auto& b = current();
  if (!b.question) return false;
  const std::vector<double> want = answer_numbers(*b.question);
  if (want.empty()) return false;
  for (const lesson::Check& c : b.checks)
    if (const auto* buf = std::get_if<lesson::check::Buffer>(&c.claim))
      if (std::all_of(want.begin(), want.end(), [&](double x) {
            return std::find(buf->values.begin(), buf->values.end(), x) != buf->values.end();
          }))
        return true;
  return false;
}

bool LessonView::highlight_withheld() const {
  if (!checks_hidden()) return false;
  // A hang beat outlines the ranks its verdict names: its question is about them.
  if (current().kind == lesson::Beat::Kind::hang && !current().highlight.ranks.empty()) return true;
  const std::vector<double> want = answer_numbers(*current().question);
  return std::any_of(current().highlight.ranks.begin(), current().highlight.ranks.end(),
                     [&](int r) { return has(want, double(r)); });
}

bool LessonView::withholds(double figure, const std::vector<double>& scales) const {
  for (size_t b = static_cast<size_t>(beat_); b < lesson_.beats.size(); ++b) {
    const auto& q = lesson_.beats[b].question;
    if (!q || !q->choices.empty() || answers_[b].answered) continue;
    if (figure_matches(figure, q->value, q->tolerance, scales)) return true;
  }
  return false;
}

bool prediction_withheld(const LessonView& L, const std::vector<double>& seconds) {
  return std::any_of(seconds.begin(), seconds.end(), [&](double sec) { return L.withholds(sec, {1e3, 1e6}); });
}

std::string shown_note(const LessonView& L, const BeatTarget& t) {
  std::string note = t.note;
  if (!t.note_bytes.empty() && L.checks_hidden())
    if (const size_t at = note.find(t.note_bytes); at != std::string::npos)
      note.replace(at, t.note_bytes.size(), kBytesWait);
  // A choice question that a `faster` check decides ("Is one-shot still
  // faster than the ring at 64 MiB?", lesson 11 beat 7): the model's time
  // at the real size is what the class reasons towards, so it waits too.
  const bool faster_open =
      L.checks_hidden() && L.current().question && !L.current().question->choices.empty() &&
      std::any_of(L.current().checks.begin(), L.current().checks.end(),
                  [](const lesson::Check& c) { return std::holds_alternative<lesson::check::Faster>(c.claim); });
  if (t.note_prediction.empty() || (!faster_open && !prediction_withheld(L, t.note_seconds))) return note;
  if (const size_t at = note.find(t.note_prediction); at != std::string::npos)
    note.replace(at, t.note_prediction.size(), kPredictionWaits);
  return note;
}

int LessonView::buffers_position(int position) const {
  return checks_hidden() && question_about_buffers() && position > 0 && position == beat_position_ ? 0 : position;
}

void LessonView::choose(int choice) {
  const auto& q = current().question;
  if (!q || choice < 0 || choice >= static_cast<int>(q->choices.size())) return;
  Answer& a = answer();
  a.chosen = choice;
  a.answered = true;
  a.right = choice + 1 == q->answer;
}

void LessonView::submit(const std::string& typed) {
  const auto& q = current().question;
  if (!q) return;
  Answer& a = answer();
  a.typed = typed;
  a.answered = true;
  a.right = q->is_right(typed);
}

std::string LessonView::right_answer() const {
  const auto& q = current().question;
  if (!q) return "";
  return q->answer_text();  // as the terminal prints it: "8.0" for a one-decimal question
}

std::string LessonView::feedback() const {
  const Answer& a = answer();
  if (!a.answered || !current().question) return "";
  return a.right ? "Right." : "Not quite: the answer is " + right_answer() + ".";
}

bool LessonView::checks_skipped_by_env() {
  const char* e = std::getenv("MICRODDP_VIZ_SKIP_CHECKS");
  return e && *e && std::string_view(e) != "0";
}

void LessonView::start_checks() {
  const size_t b = static_cast<size_t>(beat_);
  const bool hang = current().kind == Beat::Kind::hang;  // one run: the hang view's and the checks'
  if (hang && !hang_runs_[b].valid()) hang_runs_[b] = start_hang_run(current().hang);
  if (pending_[b].valid() || results_[b] || !errors_[b].empty()) return;
  if (checks_skipped_by_env() && !current().checks.empty()) {
    errors_[b] = "skipped (MICRODDP_VIZ_SKIP_CHECKS is set)";
    return;
  }
  const auto rule = lesson::picture_rule(lesson_, beat_);
  if (current().checks.empty() && !rule) {
    results_[b].emplace();
    return;
  }
  if (rule) {  // the checks' runs kept for the picture (picture_runs.h); read once the future is ready
    pictures_[b] = std::make_shared<lesson::PictureRuns>();
    pending_[b] = std::async(std::launch::async, [beat = current(), r = *rule, p = pictures_[b]] { return evaluate(beat, r, *p); });
  } else if (hang)
    pending_[b] = std::async(std::launch::async, [beat = current(), run = hang_runs_[b]] { return evaluate(beat, *run.get()); });
  else if (current().kind == Beat::Kind::lab)  // on its recorded run, when it shows one (lab_recorded.h)
    pending_[b] = std::async(std::launch::async, [this, i = beat_] { return evaluate_recorded(lesson_, i); });
  else
    pending_[b] = std::async(std::launch::async, [beat = current()] { return evaluate(beat); });
}

void LessonView::collect(size_t b) {
  try {
    results_[b] = pending_[b].get();
  } catch (const std::exception& e) {
    errors_[b] = e.what();
  }
}

bool LessonView::checks_ready() {
  const size_t b = static_cast<size_t>(beat_);
  if (pending_[b].valid() && pending_[b].wait_for(std::chrono::seconds(0)) == std::future_status::ready) collect(b);
  return results_[b].has_value() || !errors_[b].empty();
}

void LessonView::wait_checks() {
  start_checks();
  const size_t b = static_cast<size_t>(beat_);
  if (pending_[b].valid()) collect(b);
  if (hang_runs_[b].valid()) hang_runs_[b].wait();
}

void LessonView::set_results(std::vector<CheckResult> r) {
  const size_t b = static_cast<size_t>(beat_);
  if (pending_[b].valid()) collect(b);
  errors_[b].clear();
  results_[b] = std::move(r);
}

const lesson::PictureRuns* LessonView::picture() const {
  const size_t b = static_cast<size_t>(beat_);
  return results_[b] && pictures_[b] && pictures_[b]->run ? pictures_[b].get() : nullptr;
}

const std::vector<CheckResult>* LessonView::results() const {
  const auto& r = results_[static_cast<size_t>(beat_)];
  return r ? &*r : nullptr;
}

}  // namespace microddp::viz
