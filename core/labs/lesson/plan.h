// The lecturer's side of a lesson: the lecture plan (beats, minutes per
// beat, total) and the speaker notes of one beat (its full text, its
// question with the answer and explanation, the next beat's first line and a
// clock). Plain text, no I/O: `microddp lesson FILE --plan` / `--speaker`
// print them (app/cli/cmd_lesson.cpp) and `microddp-viz --present --speaker
// OUT.txt` writes the current beat's notes to a file on every beat change
// (app/viz/present.cpp). Minutes come from each beat's `minutes:` key
// (Beat::minutes, kDefaultBeatMinutes when absent; lesson.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/labs/lesson/lesson.h"

namespace microddp::lesson {

// The first line of a beat's text, as the plan and the speaker view show
// it: the first sentence (ending in '.', '?' or '!' and a space, at least
// 20 characters) of its first paragraph, lines joined, *emphasis* marks
// removed as plain_text removes them (backticks and a '*' in code kept), cut at a word boundary to at most `max_chars` characters
// (UTF-8 aware) with "…".
std::string first_line(const std::string& text, size_t max_chars = 72);

// A lesson text (beat text, question, choice, explanation) as plain text
// for a terminal, a speaker file or a PDF: the *emphasis* marks and the
// `code` span backticks dropped, a '*' inside a code span kept ("`a*b`"
// gives "a*b"), everything else (lines, indentation) as it is. Only a
// pair on one line is emphasis: an opening '*' followed by a non-space
// and a closing '*' preceded by a non-space ("*two words*"); a lone or
// spaced '*' stays ("2 * (n-1) * S", "*.yaml", "a**b").
std::string plain_text(const std::string& text);

// Minutes planned for beats 0..beat-1 (the planned start of `beat`,
// 0-based; beat = beats.size() gives the total).
double minutes_before(const Lesson& l, int beat);
double total_minutes(const Lesson& l);
// Minutes of the beats that are not `optional: true`, and how many are.
double required_minutes(const Lesson& l);
int optional_beats(const Lesson& l);

// The least time a beat's text plausibly takes in a lecture: its words
// (text, question, choices and explanation) read out and pointed at on the
// slide at kLectureWordsPerMinute, plus kQuestionMinutes for a question (the
// class reads it, answers or votes, and hears the explanation). Lecture
// speech runs at about 100-150 words a minute; reading a slide while
// pointing at its picture is at the slow end, hence 100. Minutes.
inline constexpr double kLectureWordsPerMinute = 100, kQuestionMinutes = 1;
int beat_words(const Beat& b);
double reading_minutes(const Beat& b);

// "m:ss" for a time in seconds (negative: "-m:ss"; hours as "h:mm:ss").
std::string clock_text(double seconds);

// The plan: the title, one row per beat (number, kind, minutes — with a
// '*' when the beat has no `minutes:` key and gets kDefaultBeatMinutes —
// planned start, first line, "[?]" when it asks a question, "(optional)"
// for an `optional: true` beat) and the total:
//   beat  kind         min  start  first line
//      1  collective     2*  0:00  Before anything moves.
//      2  collective     3   2:00  Sweep the sizes.  (optional)
//   total 12 min (6 beats; * = no 'minutes:' key, the default 2 min); without the 1 optional beat 9 min
// ("1 beat" for one; the "without" part only when a beat is optional) and,
// when some beat's minutes are below
// reading_minutes (compared on hundredths of a minute), a last line
// naming them, the reading time rounded up to a tenth: "short: beat 6 (2 min
// for 310 words: reading takes 3.1)
// (at 100 words a minute, 1 min per question)".
std::string format_plan(const Lesson& l);

// The lessons' minutes added up, for a lecture of several lessons (`lesson
// A B --plan`): "02 + 03: 51 min, 49 without optional" (", ... without
// optional" only when some beat is optional). Each lesson is named by its
// file name's leading digits ("02"), or its file name without ".yaml".
std::string format_plan_sum(const std::vector<Lesson>& ls);

// The speaker notes of beat `beat` (0-based; std::out_of_range outside):
// the title, "beat k of N" (with "optional: a short lecture may skip it"
// for an optional beat), the clock, the whole text, the question with
// its choices, the answer and the explanation (all as plain_text), and the next beat's first
// line (or "last beat"). elapsed_s: seconds since the lecture started (the
// window's clock): the clock line reads "clock 3:05 elapsed · this beat
// planned at 2:00-4:00 · 14:00 planned in all · 1:05 behind"; without it
// (the terminal's sheet) "planned 2:00-4:00 of 14:00".
std::string speaker_notes(const Lesson& l, int beat, std::optional<double> elapsed_s = std::nullopt);

}  // namespace microddp::lesson
