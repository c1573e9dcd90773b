// A beat's text runs (lesson_view.h text_runs: *emphasis*, `code`,
// paragraphs, indented lines) laid out in lines of a given width, for the
// lesson panel (panel_lesson.cpp draws the lines; lesson_text.cpp lays
// them out). Plain C++, no ImGui: tests measure with their own function.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "app/viz/lesson_view.h"

namespace microddp::viz {

// One piece of a laid-out line: a word (or words, for an indented line)
// of runs[run], drawn in that run's style; `gap`: a space before it
// (false: it touches the piece before, e.g. "(" then a code span).
struct RunPiece {
  std::string text;
  size_t run = 0;
  bool gap = false;
};
struct RunLine {
  std::vector<RunPiece> pieces;
  bool paragraph = false;  // a paragraph's first line: drawn after a gap
};

// `runs` in lines no wider than `width` (measure(text) = a text's width in
// the same unit; `space` = a space's), broken only at spaces, as
// wrap_words: a word never splits. Pieces that touch (no space between
// them) go onto the same line: an opening bracket or quote stays with the
// code span or emphasised word that follows it ("row by row
// (`microddp predict ...`": the "(" is not left at a line's end, lesson 12
// beat 6), and a closing ")," stays with the span before. A group of such
// pieces wider than `width` is broken between its pieces. A run's
// newline / paragraph flag starts a new line; an indented (pre) run is a
// line of its own, wrapped at spaces only when wider than `width`, its
// continuation lines indented 4 spaces further.
std::vector<RunLine> wrap_runs(const std::vector<TextRun>& runs, float width, float space,
                               const std::function<float(std::string_view)>& measure);

}  // namespace microddp::viz
