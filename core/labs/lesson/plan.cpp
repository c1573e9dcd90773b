// Lecture plan and speaker notes (plan.h).
#include "core/labs/lesson/plan.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace microddp::lesson {

namespace {

std::string_view kind_name(Beat::Kind k) {
  switch (k) {
    case Beat::Kind::collective: return "collective";
    case Beat::Kind::ddp: return "ddp";
    case Beat::Kind::hang: return "hang";
    case Beat::Kind::lab: return "lab";
  }
  return "collective";
}

// Minutes as the plan prints them, with at most one decimal (halves up) so
// that the 5-wide column holds any beat (0.25..60): 2, 1.5, 0.3 (0.25 and
// 1/3), 62.7 (a total of 62.7333).
std::string minutes_text(double m) { return fmt::format("{:g}", std::floor(m * 10 + 0.5) / 10); }

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t utf8_length(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += !utf8_continuation(c);
  return n;
}

}  // namespace

namespace {

// `text` without its *emphasis* marks: an opening '*' followed by a
// non-space (not '*') and the next '*' on its line preceded by a non-space,
// outside code spans and with no code span between them. A lone or spaced
// '*' ("2 * (n-1) * S", "*.yaml", "a**b") stays. With `drop_code`, the
// backticks of `code` spans go too (their content stays as it is).
std::string without_marks(const std::string& text, bool drop_code) {
  std::string out;
  out.reserve(text.size());
  bool code = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '`') {
      code = !code;
      if (!drop_code) out += c;
      continue;
    }
    if (c != '*' || code) {
      out += c;
      continue;
    }
    const auto blank = [](char x) { return x == ' ' || x == '\t' || x == '\n' || x == '\r'; };
    size_t close = std::string::npos;
    if (i + 1 < text.size() && !blank(text[i + 1]) && text[i + 1] != '*') {
      const size_t j = text.find_first_of("*`\n", i + 2);
      if (j != std::string::npos && text[j] == '*' && !blank(text[j - 1])) close = j;
    }
    if (close == std::string::npos) {
      out += c;
      continue;
    }
    out.append(text, i + 1, close - i - 1);
    i = close;
  }
  return out;
}

}  // namespace

std::string first_line(const std::string& text, size_t max_chars) {
  // The first paragraph, its lines joined by spaces (YAML blocks wrap).
  std::string para;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) {
      if (!para.empty()) break;
      continue;
    }
    const size_t e = line.find_last_not_of(" \t\r");
    if (!para.empty()) para += ' ';
    para.append(line, b, e - b + 1);
  }
  std::string out = without_marks(para, false);
  // Its first sentence of at least 20 characters ("Step 0." runs on).
  for (size_t p = out.find_first_of(".?!"); p != std::string::npos; p = out.find_first_of(".?!", p + 1))
    if (p >= 19 && (p + 1 == out.size() || out[p + 1] == ' ')) {
      out.resize(p + 1);
      break;
    }
  if (utf8_length(out) <= max_chars) return out;
  // Cut at the last space that leaves room for "…" (or mid-word when none).
  size_t bytes = 0, chars = 0;
  while (bytes < out.size() && chars < max_chars - 1) {
    ++bytes;
    while (bytes < out.size() && utf8_continuation(out[bytes])) ++bytes;
    ++chars;
  }
  size_t cut = out.rfind(' ', bytes);
  if (cut == std::string::npos || cut < bytes / 2) cut = bytes;
  std::string head = out.substr(0, cut);
  while (!head.empty() && (head.back() == ' ' || head.back() == ',')) head.pop_back();
  return fmt::format("{}…", head);
}

int beat_words(const Beat& b) {
  const auto words = [](const std::string& t) {
    int n = 0;
    bool in = false;
    for (char c : t) {
      const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
      n += !space && !in;
      in = !space;
    }
    return n;
  };
  int n = words(b.text);
  if (b.question) {
    n += words(b.question->ask) + words(b.question->explain);
    for (const auto& c : b.question->choices) n += words(c);
  }
  return n;
}

double reading_minutes(const Beat& b) {
  return beat_words(b) / kLectureWordsPerMinute + (b.question ? kQuestionMinutes : 0);
}

double minutes_before(const Lesson& l, int beat) {
  double m = 0;
  for (int b = 0; b < beat && b < static_cast<int>(l.beats.size()); ++b) m += l.beats[static_cast<size_t>(b)].minutes;
  return m;
}

double total_minutes(const Lesson& l) { return minutes_before(l, static_cast<int>(l.beats.size())); }

double required_minutes(const Lesson& l) {
  double m = 0;
  for (const Beat& b : l.beats) m += b.optional ? 0 : b.minutes;
  return m;
}

int optional_beats(const Lesson& l) {
  int n = 0;
  for (const Beat& b : l.beats) n += b.optional;
  return n;
}

std::string lesson_short_name(const Lesson& l) {
  const std::string stem = std::filesystem::path(l.file).stem().string();
  const size_t digits = stem.find_first_not_of("0123456789");
  return digits == 0 || digits == std::string::npos ? stem : stem.substr(0, digits);
}

std::string format_plan_sum(const std::vector<Lesson>& ls) {
  std::string names;
  double total = 0, required = 0;
  int optional = 0;
  for (const Lesson& l : ls) {
    names += (names.empty() ? "" : " + ") + lesson_short_name(l);
    total += total_minutes(l);
    required += required_minutes(l);
    optional += optional_beats(l);
  }
  return optional ? fmt::format("{}: {} min, {} without optional\n", names, minutes_text(total), minutes_text(required))
                  : fmt::format("{}: {} min\n", names, minutes_text(total));
}

std::string clock_text(double seconds) {
  const bool neg = seconds < 0;
  const long s = std::lround(std::fabs(seconds));
  const std::string t = s >= 3600 ? fmt::format("{}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60)
                                  : fmt::format("{}:{:02d}", s / 60, s % 60);
  return neg ? fmt::format("-{}", t) : t;
}

std::string format_plan(const Lesson& l) {
  const char* beats_word = l.beats.size() == 1 ? "beat" : "beats";
  std::string out = fmt::format("{}\nlecture plan: {} {}\n", l.title, l.beats.size(), beats_word);
  out += "beat  kind         min  start  first line\n";
  int defaults = 0;
  for (size_t b = 0; b < l.beats.size(); ++b) {
    const Beat& beat = l.beats[b];
    defaults += !beat.minutes_given;
    out += fmt::format("{:>4}  {:<10} {:>5}{} {:>5}  {}{}{}\n", b + 1, kind_name(beat.kind), minutes_text(beat.minutes),
                       beat.minutes_given ? " " : "*", clock_text(60 * minutes_before(l, static_cast<int>(b))),
                       first_line(beat.text), beat.question ? "  [?]" : "", beat.optional ? "  (optional)" : "");
  }
  out += fmt::format("total {} min ({} {}", minutes_text(total_minutes(l)), l.beats.size(), beats_word);
  if (defaults) out += fmt::format("; * = no 'minutes:' key, the default {:g} min", kDefaultBeatMinutes);
  out += ")";
  if (const int n = optional_beats(l))
    out += fmt::format("; without the {} optional {} {} min", n, n == 1 ? "beat" : "beats",
                       minutes_text(required_minutes(l)));
  out += "\n";
  std::string short_beats;
  for (size_t b = 0; b < l.beats.size(); ++b) {
    const Beat& beat = l.beats[b];
    // On hundredths of a minute, as this line prints them: 39 words and a
    // question read in 1.39 min, and 1.39 planned minutes are enough.
    if (std::llround(beat.minutes * 100) >= std::llround(reading_minutes(beat) * 100)) continue;
    short_beats += fmt::format("{}beat {} ({:g} min for {} words{}: reading takes {:.1f})", short_beats.empty() ? "" : "; ",
                               b + 1, beat.minutes, beat_words(beat), beat.question ? " and a question" : "",
                               std::ceil(reading_minutes(beat) * 10) / 10);
  }
  if (!short_beats.empty())
    out += fmt::format("short: {} (at {:g} words a minute, {:g} min per question)\n", short_beats,
                       kLectureWordsPerMinute, kQuestionMinutes);
  return out;
}

std::string plain_text(const std::string& text) { return without_marks(text, true); }

std::string speaker_notes(const Lesson& l, int beat, std::optional<double> elapsed_s) {
  if (beat < 0 || beat >= static_cast<int>(l.beats.size()))
    throw std::out_of_range(fmt::format("beat {} is outside 1..{}", beat + 1, l.beats.size()));
  const Beat& b = l.beats[static_cast<size_t>(beat)];
  const double from = 60 * minutes_before(l, beat), to = 60 * minutes_before(l, beat + 1);
  const double total = 60 * total_minutes(l);
  std::string out = fmt::format("{}\nbeat {} of {} · {} min planned{}\n", l.title, beat + 1, l.beats.size(),
                                minutes_text(b.minutes), b.optional ? " · optional: a short lecture may skip it" : "");
  if (elapsed_s) {
    // Behind when the clock is past this beat's planned end, ahead when it
    // has not reached its planned start.
    const double e = *elapsed_s;
    const std::string pace = e > to     ? clock_text(e - to) + " behind"
                             : e < from ? clock_text(from - e) + " ahead"
                                        : "on time";
    out += fmt::format("clock {} elapsed · this beat planned at {}-{} · {} planned in all · {}\n", clock_text(e),
                       clock_text(from), clock_text(to), clock_text(total), pace);
  } else {
    out += fmt::format("planned {}-{} of {}\n", clock_text(from), clock_text(to), clock_text(total));
  }
  out += "\nNOW\n" + plain_text(b.text);
  if (!b.text.empty() && b.text.back() != '\n') out += "\n";
  if (b.question) {
    const Question& q = *b.question;
    out += "\nQUESTION\n" + plain_text(q.ask) + "\n";
    for (size_t i = 0; i < q.choices.size(); ++i) out += fmt::format("  {}) {}\n", i + 1, plain_text(q.choices[i]));
    out += fmt::format("answer: {}{}\n", plain_text(q.answer_text()),
                       q.choices.empty() && q.tolerance > 0 ? fmt::format(" (± {:g})", q.tolerance) : "");
    if (!q.explain.empty()) out += "explain: " + plain_text(q.explain) + (q.explain.back() == '\n' ? "" : "\n");
  }
  out += "\nNEXT\n";
  if (beat + 1 < static_cast<int>(l.beats.size()))
    out += fmt::format("beat {}: {}\n", beat + 2, first_line(l.beats[static_cast<size_t>(beat) + 1].text));
  else
    out += "(last beat)\n";
  return out;
}

}  // namespace microddp::lesson
