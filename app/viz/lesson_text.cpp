// A beat's text for the lesson panel (lesson_view.h): text runs
// (*emphasis*, `code`, paragraphs, indented lines), wrapping at spaces only,
// and the checks' lines. Moved from lesson_view.cpp, unchanged.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "app/viz/lesson_view.h"

namespace microddp::viz {

using namespace microddp::lesson;

std::vector<TextRun> text_runs(const std::string& text) {
  // Blocks: paragraphs (lines joined with spaces) and indented lines.
  struct Block {
    std::string text;
    bool pre = false, gap = false;
  };
  std::vector<Block> blocks;
  bool gap = false, open = false;
  size_t i = 0;
  while (i < text.size()) {
    const size_t e = std::min(text.find('\n', i), text.size());
    const std::string line = text.substr(i, e - i);
    i = e + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      gap = !blocks.empty();
      open = false;
    } else if (line[0] == ' ' || line[0] == '\t') {
      blocks.push_back(Block{line, true, gap});
      gap = open = false;
    } else if (open) {
      blocks.back().text += " " + line;
    } else {
      blocks.push_back(Block{line, false, gap});
      gap = false;
      open = true;
    }
  }
  std::vector<TextRun> out;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const Block& bl = blocks[k];
    if (bl.pre) {
      out.push_back(TextRun{bl.text, false, bl.gap, k > 0, true});
      continue;
    }
    bool emph = false, code = false, first = true;
    std::string run;
    auto flush = [&] {
      if (!run.empty()) out.push_back(TextRun{run, emph, first && bl.gap, first && k > 0, false, code}), first = false;
      run.clear();
    };
    for (char c : bl.text) {
      if (c == '`') {  // a code span: its text as is ('*' inside is literal)
        flush();
        code = !code;
      } else if (c == '*' && !code) {
        flush();
        emph = !emph;
      } else {
        run += c;
      }
    }
    flush();
  }
  return out;
}

std::vector<std::string> wrap_words(const std::string& text, float width,
                                    const std::function<float(std::string_view)>& measure) {
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const size_t e = std::min(text.find(' ', i), text.size());
    const std::string word = text.substr(i, e - i);
    i = e;
    const std::string joined = line.empty() ? word : line + " " + word;
    if (!line.empty() && measure(joined) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = joined;
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::string check_line(const CheckResult& r) {
  if (r.skipped || r.pass) return fmt::format("{}: {}", r.what, r.actual);
  return fmt::format("{}: expected {}, got {}", r.what, r.expected, r.actual);
}

std::string checks_summary(const std::vector<CheckResult>& rs) {
  int run = 0, pass = 0;
  for (const CheckResult& r : rs)
    if (!r.skipped) ++run, pass += r.pass ? 1 : 0;
  return fmt::format("{} of {} check{} pass{}", pass, run, run == 1 ? "" : "s", run == 1 ? "es" : "");
}

}  // namespace microddp::viz
